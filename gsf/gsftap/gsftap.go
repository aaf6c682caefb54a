// Package gsftap finds the GSF frames of tapped TCP traffic: pcap and pcapng captures and
// connections through a man-in-the-middle proxy (package capture supplies both), and
// describes them with the same explanation as "gamewire gsf decode" (gsf.Explain).
//
// A [Tap] keeps a [gsf.Splitter] per direction of every connection and turns capture events
// into [Record] values: frames with their time, addresses, direction, connection id and
// stream offset, framing problems, bytes missing from a capture, and the points where it had
// to resynchronize (a capture that starts mid-stream, a hole, a malformed frame). A [Printer]
// writes records as text or as JSON Lines.
package gsftap

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/gsf"
)

// ErrDropped reports records that a Tap dropped while it held back the records of a
// connection not yet known to carry GSF (see Tap).
var ErrDropped = errors.New("gsftap: records dropped before the connection's first GSF frame")

// ErrBudget is the cause of a RecordProblem for the start of a frame that the Tap stopped
// buffering because all connections together held MaxBufferedBytes of unfinished frames; the
// frame is not shown, and the Tap looks for the next plausible frame.
var ErrBudget = errors.New("gsftap: frame not shown: unfinished frames of all connections reached MaxBufferedBytes")

// ErrStalled is the cause of a RecordProblem for the start of a frame that did not complete
// within ReadTimeout; it is not shown, and the Tap looks for the next plausible frame.
var ErrStalled = errors.New("gsftap: frame not shown: not complete within ReadTimeout")

// NoLimit, as the value of a limit (MaxBufferedBytes, ReadTimeout), means none.
const NoLimit = -1

// Defaults of the Tap's limits.
const (
	// DefaultMaxBufferedBytes is the default of Tap.MaxBufferedBytes.
	DefaultMaxBufferedBytes = 64 << 20
	// DefaultReadTimeout is the default of Tap.ReadTimeout.
	DefaultReadTimeout = 30 * time.Second
)

// RecordKind tells what a Record reports.
type RecordKind uint8

// The kinds of records.
const (
	// RecordOpen: a connection opened.
	RecordOpen RecordKind = iota + 1
	// RecordFrame: a frame (Frame) that frames correctly; its payload may still not decode.
	RecordFrame
	// RecordProblem: Err is a *gsf.FrameError: a malformed frame, a frame over the size
	// limit, bytes skipped to resynchronize (gsf.ErrResync), or a stream that ended inside a
	// frame.
	RecordProblem
	// RecordGap: Lost bytes of the direction are missing from a capture (-1: the capture
	// started after the connection did); the next frame is found by resynchronizing.
	RecordGap
	// RecordClose: the connection closed; Err says why when it was an error.
	RecordClose
)

var kindNames = [...]string{RecordOpen: "open", RecordFrame: "frame", RecordProblem: "problem", RecordGap: "gap", RecordClose: "close"}

// String returns the kind's name: open, frame, problem, gap or close.
func (k RecordKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// MarshalText implements encoding.TextMarshaler.
func (k RecordKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *RecordKind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n != "" && n == string(b) {
			*k = RecordKind(i)
			return nil
		}
	}
	return fmt.Errorf("gsftap: unknown record kind %q", b)
}

// Record is one frame or event of tapped GSF traffic.
type Record struct {
	Kind RecordKind
	Conn *capture.Conn
	Dir  capture.Direction
	// Time is when the frame's last byte was captured (or read by the proxy).
	Time time.Time
	// Seq numbers the frames of one direction of a connection from 1.
	Seq int
	// Offset and Size locate the frame (or the problem) in the direction's stream.
	Offset, Size int64
	// Frame is the whole frame (prefix, payload, terminator), or for a problem up to 64 of
	// its bytes. It is valid only during the callback.
	Frame []byte
	// Resynced marks the first frame found after the Tap lost sync.
	Resynced bool
	// Lost is the number of missing bytes of a RecordGap (-1: unknown).
	Lost int64
	// Err is the problem of a RecordProblem or the error that closed a connection.
	Err error
}

// Tap turns capture events into records. Create it with [New]; its Handle method is a
// capture.Handler.
//
// Memory: a direction buffers the frame it is inside (up to MaxMessageBytes, plus a quarter
// for the buffer's growth), and all directions together at most MaxBufferedBytes: when a
// write takes the total over it, the directions holding the most are dropped (reported as an
// ErrBudget problem) until it is under. A frame not complete within ReadTimeout (of event
// time) is dropped too (ErrStalled), at the next event of any connection. So a proxy in
// front of the Tap holds at most MaxBufferedBytes + MaxMessageBytes of unfinished frames
// (64 MiB + 1 MiB by default) however many connections send partial frames.
//
// Unless All is set, a connection is reported only once one of its frames decodes as a GSF
// message with a known service class: what comes before is held back (up to 256 records and
// 64 KiB of their bytes per connection; more is dropped, and reported as an ErrDropped
// problem) and reported then, and a connection that never carries one (another protocol) is
// not reported at all; Skipped counts those.
type Tap struct {
	// MaxMessageBytes bounds the frames the Tap buffers (gsf.Splitter.MaxMessageBytes); 0
	// means gsf.DefaultMaxMessageBytes.
	MaxMessageBytes int
	// MaxBufferedBytes bounds the bytes of unfinished frames of all connections together; 0
	// means DefaultMaxBufferedBytes, NoLimit none.
	MaxBufferedBytes int
	// ReadTimeout bounds the event time from a frame's first byte to its last; 0 means
	// DefaultReadTimeout, NoLimit none (what reading a capture wants: a frame of a slow link
	// takes as long as it took, and MaxBufferedBytes bounds the memory).
	ReadTimeout time.Duration
	// All reports every connection, GSF or not (the proxy's case, and captures filtered by
	// port).
	All bool
	// Skipped counts the connections that closed without a GSF frame and were not reported.
	Skipped int

	fn        func(*Record)
	conns     map[*capture.Conn]*connState
	rec       Record
	buffered  int       // bytes of unfinished frames, all connections
	lastSweep time.Time // event time of the last look for stalled frames
}

// maxHeld and maxHeldBytes bound the records held back for a connection not yet known to
// carry GSF.
const (
	maxHeld      = 256
	maxHeldBytes = 64 << 10
)

type connState struct {
	split     [2]gsf.Splitter
	buffered  [2]int       // split[d].Buffered() as last counted in Tap.buffered
	since     [2]time.Time // event time when the unfinished frame of a direction started
	seq       [2]int
	shown     bool     // records are reported as they come
	held      []Record // records of a connection not yet shown, with copied Frames
	heldBytes int
	// dropped counts held records dropped beyond maxHeld.
	dropped int
}

// New returns a Tap that passes every record to fn. fn must not keep the Record.
func New(fn func(*Record)) *Tap {
	return &Tap{fn: fn, conns: make(map[*capture.Conn]*connState)}
}

func (t *Tap) emit(cs *connState, r Record) {
	if !cs.shown {
		if r.Kind == RecordFrame && isGSF(r.Frame) {
			cs.shown = true
			for i := range cs.held {
				t.fn(&cs.held[i])
			}
			cs.held = nil
			if cs.dropped > 0 {
				t.fn(&Record{Kind: RecordProblem, Conn: r.Conn, Dir: r.Dir, Time: r.Time, Offset: r.Offset,
					Err: fmt.Errorf("%w: %d", ErrDropped, cs.dropped)})
			}
		} else {
			if len(cs.held) < maxHeld && cs.heldBytes+len(r.Frame) <= maxHeldBytes {
				r.Frame = append([]byte(nil), r.Frame...)
				cs.held = append(cs.held, r)
				cs.heldBytes += len(r.Frame)
			} else {
				cs.dropped++
			}
			return
		}
	}
	t.rec = r
	t.fn(&t.rec)
	t.rec = Record{}
}

// isGSF reports whether a frame's payload decodes as a message with a known service class.
func isGSF(frame []byte) bool {
	payload, _, err := gsf.ConsumeFrame(frame)
	if err != nil {
		return false
	}
	m, err := gsf.DecodePayload(payload)
	return err == nil && gsf.ServiceClassName(m.Header.SvcClass) != ""
}

// account updates the count of unfinished bytes after a Splitter call on direction d.
func (t *Tap) account(cs *connState, d capture.Direction, now time.Time) {
	b := cs.split[d].Buffered()
	t.buffered += b - cs.buffered[d]
	if b > 0 && cs.buffered[d] == 0 {
		cs.since[d] = now
	}
	if b == 0 {
		cs.since[d] = time.Time{}
	}
	cs.buffered[d] = b
}

// drop gives up the unfinished frame of a direction: it is reported as a problem with cause
// and the Splitter looks for the next plausible frame.
func (t *Tap) drop(c *capture.Conn, cs *connState, d capture.Direction, now time.Time, cause error) {
	cs.split[d].Lost(-1, func(f *gsf.StreamFrame) {
		r := Record{Kind: RecordProblem, Conn: c, Dir: d, Time: now, Offset: f.Offset, Size: f.Size, Frame: f.Frame, Err: f.Err}
		if errors.Is(f.Err, io.ErrUnexpectedEOF) {
			r.Err = &gsf.FrameError{Offset: f.Offset, Length: -1, Err: fmt.Errorf("%w (%s held)", cause, plural(int(f.Size), "byte"))}
		}
		t.emit(cs, r)
	})
	t.account(cs, d, now)
}

// enforce keeps the unfinished frames within MaxBufferedBytes and ReadTimeout after a write
// to direction d of c.
func (t *Tap) enforce(c *capture.Conn, cs *connState, d capture.Direction, now time.Time) {
	limit := t.MaxBufferedBytes
	if limit == 0 {
		limit = DefaultMaxBufferedBytes
	}
	for limit > 0 && t.buffered > limit {
		// Drop the direction that holds the most.
		var worst *connState
		var wc *capture.Conn
		var wd capture.Direction
		for oc, ocs := range t.conns {
			for od := range ocs.buffered {
				if worst == nil || ocs.buffered[od] > worst.buffered[wd] {
					worst, wc, wd = ocs, oc, capture.Direction(od)
				}
			}
		}
		if worst == nil || worst.buffered[wd] == 0 {
			break
		}
		t.drop(wc, worst, wd, now, ErrBudget)
	}
	timeout := t.ReadTimeout
	if timeout == 0 {
		timeout = DefaultReadTimeout
	}
	if timeout < 0 || now.Sub(t.lastSweep) < timeout/4 {
		return
	}
	t.lastSweep = now
	for oc, ocs := range t.conns {
		for od := range ocs.buffered {
			if ocs.buffered[od] > 0 && now.Sub(ocs.since[od]) > timeout {
				t.drop(oc, ocs, capture.Direction(od), now, ErrStalled)
			}
		}
	}
}

// Buffered returns the bytes of unfinished frames the Tap holds, all connections together.
func (t *Tap) Buffered() int { return t.buffered }

// Handle is the capture.Handler of the Tap.
func (t *Tap) Handle(ev *capture.Event) {
	cs := t.conns[ev.Conn]
	if cs == nil {
		cs = &connState{shown: t.All}
		cs.split[0].MaxMessageBytes, cs.split[1].MaxMessageBytes = t.MaxMessageBytes, t.MaxMessageBytes
		t.conns[ev.Conn] = cs
		t.emit(cs, Record{Kind: RecordOpen, Conn: ev.Conn, Time: ev.Time})
	}
	yield := func(d capture.Direction) func(*gsf.StreamFrame) {
		return func(f *gsf.StreamFrame) {
			r := Record{Kind: RecordFrame, Conn: ev.Conn, Dir: d, Time: ev.Time, Offset: f.Offset, Size: f.Size,
				Frame: f.Frame, Resynced: f.Resynced, Err: f.Err}
			if f.Err != nil {
				r.Kind = RecordProblem
			} else {
				cs.seq[d]++
				r.Seq = cs.seq[d]
			}
			t.emit(cs, r)
		}
	}
	d := ev.Dir
	switch ev.Kind {
	case capture.EventData:
		cs.split[d].Write(ev.Data, yield(d))
		t.account(cs, d, ev.Time)
		t.enforce(ev.Conn, cs, d, ev.Time)
	case capture.EventGap:
		t.emit(cs, Record{Kind: RecordGap, Conn: ev.Conn, Dir: d, Time: ev.Time, Offset: ev.Offset, Lost: ev.Lost})
		cs.split[d].Lost(ev.Lost, yield(d))
		t.account(cs, d, ev.Time)
	case capture.EventEnd:
		cs.split[d].End(yield(d))
		t.account(cs, d, ev.Time)
	case capture.EventClose:
		for d := range cs.split {
			cs.split[d].End(yield(capture.Direction(d)))
			t.account(cs, capture.Direction(d), ev.Time)
		}
		delete(t.conns, ev.Conn)
		if !cs.shown {
			t.Skipped++
			return
		}
		t.emit(cs, Record{Kind: RecordClose, Conn: ev.Conn, Time: ev.Time, Err: ev.Err})
	}
}

// plural says n what, with an s unless n is 1: "1 byte", "2 bytes".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
