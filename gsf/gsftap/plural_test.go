package gsftap

import (
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/capture"
)

// TestStalledFrameSingular: a stalled frame of one byte is reported as "1 byte held", never
// "1 bytes" (issue 20 §4).
func TestStalledFrameSingular(t *testing.T) {
	var problems []error
	tap := New(func(r *Record) {
		if r.Kind == RecordProblem {
			problems = append(problems, r.Err)
		}
	})
	tap.All, tap.ReadTimeout = true, time.Second
	slow, other := &capture.Conn{ID: 1}, &capture.Conn{ID: 2}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := echoFrames(t, 1, false)
	tap.Handle(&capture.Event{Kind: capture.EventData, Conn: slow, Time: t0, Data: f[0][:1]})
	tap.Handle(&capture.Event{Kind: capture.EventData, Conn: other, Time: t0.Add(1500 * time.Millisecond), Data: f[0]})
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), "(1 byte held)") {
		t.Errorf("problems %v, want one saying \"(1 byte held)\"", problems)
	}
}
