package capture

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestFairSharePace: a heavy direction goes at full speed alone; while a light connection had
// traffic in the last fairWindow it pauses fairFactor times its busy time per heavy direction
// pacing, at most fairMaxPause; a heavy connection's own short reads do not count as light
// traffic.
func TestFairSharePace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var f fairShare
		heavy, light := &proxyConn{}, &proxyConn{}
		// pass runs a full read of heavy that took busy to pass and returns its pause.
		pass := func(busy time.Duration) time.Duration {
			readAt := time.Now()
			time.Sleep(busy)
			start := time.Now()
			f.pace(heavy, true, readAt, readAt)
			return time.Since(start)
		}
		if got := pass(time.Millisecond); got != 0 {
			t.Errorf("alone: paused %v", got)
		}
		// The heavy connection's own short read is not light traffic.
		f.pace(heavy, false, time.Now(), time.Now())
		if got := pass(time.Millisecond); got != 0 {
			t.Errorf("after its own short read: paused %v", got)
		}
		f.pace(light, false, time.Now(), time.Now())
		if got := pass(time.Millisecond); got != fairFactor*time.Millisecond {
			t.Errorf("beside a light connection: paused %v, want %v", got, fairFactor*time.Millisecond)
		}
		time.Sleep(fairWindow) // the light connection is no longer active
		if got := pass(time.Millisecond); got != 0 {
			t.Errorf("%v after the light traffic: paused %v", fairWindow, got)
		}
		f.pace(light, false, time.Now(), time.Now())
		if got := pass(5 * time.Millisecond); got != fairMaxPause {
			t.Errorf("a long read: paused %v, want the bound %v", got, fairMaxPause)
		}
		// Two heavy directions pacing at once: each pauses twice as long.
		f.pace(light, false, time.Now(), time.Now())
		f.heavy.Add(1)
		if got := pass(time.Millisecond); got != 2*fairFactor*time.Millisecond {
			t.Errorf("with another heavy direction: paused %v, want %v", got, 2*fairFactor*time.Millisecond)
		}
		f.heavy.Add(-1)
	})
}
