package multiplayer3

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// LogLimiter logs a message at most once per interval, with how many times it happened since
// the last line ("times"), so that what peers can cause at will (refused packets, refused
// connections, chat lines) cannot grow a log faster than their packets come. It is safe for
// concurrent use; the zero value logs at most once per second.
type LogLimiter struct {
	// Interval is the least time between two lines; 0 means one second.
	Interval time.Duration

	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// Log logs msg with args at level on l, unless a line was logged less than Interval ago; then
// it only counts it, and the next line says how many were left out.
func (ll *LogLimiter) Log(l *slog.Logger, level slog.Level, msg string, args ...any) {
	if !l.Enabled(context.Background(), level) {
		return
	}
	iv := ll.Interval
	if iv <= 0 {
		iv = time.Second
	}
	ll.mu.Lock()
	now := time.Now()
	if !ll.last.IsZero() && now.Sub(ll.last) < iv {
		ll.suppressed++
		ll.mu.Unlock()
		return
	}
	n := ll.suppressed + 1
	ll.suppressed = 0
	ll.last = now
	ll.mu.Unlock()
	l.Log(context.Background(), level, msg, append(args, "times", n)...)
}
