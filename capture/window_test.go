package capture

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// accounted checks a direction's events: every byte of the stream (want) arrives once as data
// at its offset, or lies in a reported gap with its offset and size; it returns the bytes
// delivered and the gaps as "offset+lost".
func accounted(t *testing.T, evs []Event, want []byte) (int, []string) {
	t.Helper()
	var off int64
	delivered := 0
	var gaps []string
	for _, ev := range evs {
		switch ev.Kind {
		case EventData:
			if ev.Offset != off {
				t.Fatalf("data at %d after %d bytes accounted for", ev.Offset, off)
			}
			if !bytes.Equal(ev.Data, want[off:off+int64(len(ev.Data))]) {
				t.Fatalf("data at %d: not the stream's bytes", ev.Offset)
			}
			off += int64(len(ev.Data))
			delivered += len(ev.Data)
		case EventGap:
			if ev.Lost < 0 {
				t.Fatalf("gap of unknown size at %d: the SYN is in the capture", ev.Offset)
			}
			if ev.Offset != off {
				t.Fatalf("gap at %d after %d bytes accounted for", ev.Offset, off)
			}
			gaps = append(gaps, fmt.Sprintf("%d+%d", ev.Offset, ev.Lost))
			off += ev.Lost
		}
	}
	if off != int64(len(want)) {
		t.Fatalf("%d of %d bytes accounted for (%d delivered, gaps %v): the rest was lost silently", off, len(want), delivered, gaps)
	}
	return delivered, gaps
}

// reversedCapture is a connection whose client sends n segments of size bytes that the
// capture holds in reverse order, after the handshake.
func reversedCapture(t *testing.T, n, size int) ([]byte, []byte) {
	c2s := testPayload(n*size, 9)
	segs := conversation(c2s, nil, size)
	data := segs[3 : len(segs)-2]
	slices.Reverse(data)
	return writeCapture(t, segs), c2s
}

func directionEvents(t *testing.T, in []byte, opts *Options, d Direction) ([]Event, Stats) {
	t.Helper()
	var evs []Event
	st, err := ReadStreams(bytes.NewReader(in), opts, func(ev *Event) {
		if ev.Dir == d && (ev.Kind == EventData || ev.Kind == EventGap) {
			e := *ev
			e.Data = bytes.Clone(ev.Data)
			evs = append(evs, e)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return evs, st
}

// TestReadStreamsReversedWindow: 4 200 segments of a connection in reverse order (the SYN
// first) come out whole with the default window, and with a window too small for them every
// byte is either delivered or in a gap with its offset and size; the connection never
// "starts mid-stream".
func TestReadStreamsReversedWindow(t *testing.T) {
	in, c2s := reversedCapture(t, 4200, 100)
	evs, st := directionEvents(t, in, nil, ClientToServer)
	delivered, gaps := accounted(t, evs, c2s)
	if st.LateSegments != 0 {
		t.Errorf("default window: %d late segments", st.LateSegments)
	}
	if delivered != len(c2s) || len(gaps) != 0 {
		t.Errorf("default window: %d of %d bytes delivered, gaps %v", delivered, len(c2s), gaps)
	}
	// A window of 1 000 segments: the 3 200 highest segments cannot all wait.
	small := &Options{MaxBufferedBytes: 1000 * 2048}
	evs, st = directionEvents(t, in, small, ClientToServer)
	delivered, gaps = accounted(t, evs, c2s)
	if delivered == len(c2s) || len(gaps) == 0 {
		t.Errorf("small window: %d of %d bytes delivered, gaps %v", delivered, len(c2s), gaps)
	}
	// The segments of the hole came, later: each is counted as late.
	if st.LateBytes != int64(len(c2s)-delivered) || st.LateSegments != (len(c2s)-delivered)/100 {
		t.Errorf("small window: late %d segments, %d bytes; %d bytes not delivered", st.LateSegments, st.LateBytes, len(c2s)-delivered)
	}
	t.Logf("small window: %d of %d bytes delivered, %d gaps: %s", delivered, len(c2s), len(gaps), strings.Join(gaps[:min(len(gaps), 5)], " "))
}
