package capture

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Fair sharing between connections. A direction whose read fills its whole buffer pushes as
// fast as it can ("heavy"); a connection none of whose directions did so in the last
// fairWindow is "light". While a light connection had traffic in the last fairWindow, every
// heavy direction, after it has passed a read on, waits fairFactor times as long as that read
// took to pass (from the moment it asked for the bytes to the Handler's return), times the
// number of heavy directions doing so, at most fairMaxPause: all heavy directions together
// take at most 1/(fairFactor+1) of the time they would take alone until that bound is reached
// (then each still passes one read per fairMaxPause), and the light connections find the
// machine (and the proxy's goroutines) mostly idle when their bytes arrive. Alone, a heavy
// direction goes at full speed. A pause is not cut short by Close: it delays the end of a
// connection by at most fairMaxPause.
const (
	// fairWindow is how long a light connection's traffic keeps the heavy ones paced.
	fairWindow = 100 * time.Millisecond
	// fairFactor is the pause of a heavy direction in units of its busy time.
	fairFactor = 3
	// fairMaxPause bounds one pause, so that a heavy stream is paced, never stopped.
	fairMaxPause = 10 * time.Millisecond
)

// fairShare is the Proxy's pacing state.
type fairShare struct {
	lightAt atomic.Int64 // unix nanoseconds of the last read of a light connection
	heavy   atomic.Int64 // heavy directions pacing now
}

// pace is called by a direction of pc after it passed on a read that asked at readAt, got its
// bytes at gotAt and filled the buffer when full; it sleeps when the direction must leave the
// machine to light connections.
func (f *fairShare) pace(pc *proxyConn, full bool, readAt, gotAt time.Time) {
	now := time.Now()
	if !full {
		if now.UnixNano()-pc.heavyAt.Load() > int64(fairWindow) {
			f.lightAt.Store(now.UnixNano())
		}
		return
	}
	pc.heavyAt.Store(now.UnixNano())
	if now.UnixNano()-f.lightAt.Load() > int64(fairWindow) {
		return // alone: full speed
	}
	// A full read is waited for only when the bytes were already there: count the wait for
	// them as busy time only up to the time it took to pass them on.
	busy := now.Sub(gotAt) + min(gotAt.Sub(readAt), now.Sub(gotAt))
	h := f.heavy.Add(1)
	defer f.heavy.Add(-1)
	pause := min(busy*time.Duration(fairFactor*h), fairMaxPause)
	if pause <= 0 {
		runtime.Gosched()
		return
	}
	t := time.NewTimer(pause)
	<-t.C
}
