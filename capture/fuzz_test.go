package capture

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"
)

// FuzzReadStreams: any input either fails with a *capture.Error or reads; every direction's
// data arrives at consecutive offsets; nothing panics.
func FuzzReadStreams(f *testing.F) {
	if real, err := os.ReadFile("testdata/serve-call.pcap"); err == nil {
		f.Add(real)
		f.Add(toPcapNG(f, real))
	}
	f.Add(writeCapture(f, conversation(testPayload(300, 1), testPayload(200, 2), 50)))
	f.Fuzz(func(t *testing.T, in []byte) {
		next := map[string]int64{}
		st, err := ReadStreams(bytes.NewReader(in), &Options{MaxBufferedPages: 64}, func(ev *Event) {
			key := fmt.Sprintf("%d %d", ev.Conn.ID, ev.Dir)
			switch ev.Kind {
			case EventData:
				if ev.Offset != next[key] {
					t.Fatalf("%s: data at %d, want %d", key, ev.Offset, next[key])
				}
				next[key] += int64(len(ev.Data))
			case EventGap:
				if ev.Lost > 0 {
					next[key] += ev.Lost
				}
			}
		})
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("%v (%T)", err, err)
			}
		}
		if st.TCP > st.Packets || st.Conns > st.TCP {
			t.Fatalf("stats %+v", st)
		}
	})
}
