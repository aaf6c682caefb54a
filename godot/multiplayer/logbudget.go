package multiplayer

import (
	"context"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"
)

// Log budget of refused packets: a log never grows faster than its input.
const (
	// logAllowance is the log bytes the first refusals may take before any input has paid for
	// them, and about the most that unused input can save up.
	logAllowance = 4 << 10
	// logLineCost is what a refusal line costs besides its error text: the time, level,
	// message and attributes of a text or JSON handler.
	logLineCost = 128
	// logLinesPerSecond and logLineBurst bound the refusal lines in time as well: a steady
	// stream of refusals (a client-authority synchronizer sends SYNC ~56 times a second) is
	// summarised about once a second.
	logLinesPerSecond = 1
	logLineBurst      = 10
	// maxLogErrText bounds the error text of one line; a refused packet's error can quote a
	// 64 KiB node path.
	maxLogErrText = 200
)

// refusalLog logs refused packets within a byte budget that the bytes received pay for: each
// received byte allows one byte of log, so the log grows at most as fast as the input, plus
// logAllowance; and at most about one line a second after a burst of ten. A refusal that finds the budget spent is counted, and the next line that is
// written says how many were not.
type refusalLog struct {
	mu        sync.Mutex
	tokens    int     // log bytes allowed
	lines     *budget // log lines allowed
	notLogged int     // refusals not logged since the last line
}

func newRefusalLog() *refusalLog {
	return &refusalLog{tokens: logAllowance, lines: newBudget(logLinesPerSecond, logLineBurst)}
}

// income adds n received bytes to the budget.
func (r *refusalLog) income(n int) {
	r.mu.Lock()
	r.tokens = min(r.tokens+n, logAllowance+maxLogErrText+logLineCost)
	r.mu.Unlock()
}

// refused logs err from peer at level, if the budget allows it.
func (r *refusalLog) refused(log *slog.Logger, level slog.Level, peer int32, err error) {
	if !log.Enabled(context.Background(), level) {
		return
	}
	text := truncateText(err.Error(), maxLogErrText)
	cost := logLineCost + len(text)
	r.mu.Lock()
	if r.tokens < cost || r.lines.take(time.Now(), 1) > 0 {
		r.notLogged++
		r.mu.Unlock()
		return
	}
	r.tokens -= cost
	skipped := r.notLogged
	r.notLogged = 0
	r.mu.Unlock()
	if skipped > 0 {
		log.Log(context.Background(), level, "multiplayer: packet refused", "peer", peer, "err", text, "notLogged", skipped)
		return
	}
	log.Log(context.Background(), level, "multiplayer: packet refused", "peer", peer, "err", text)
}

// truncateText cuts s to at most n bytes on a rune boundary, marking the cut.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
