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
// logAllowance; and at most about one line a second after a burst of ten. A refusal that finds
// the budget spent is counted: the next line says how many were not logged, or, if none comes,
// a summary line a second later (when the input has paid for it).
type refusalLog struct {
	mu        sync.Mutex
	tokens    int     // log bytes allowed
	lines     *budget // log lines allowed
	notLogged int     // refusals not logged since the last line
	timer     *time.Timer
	armed     bool
	log       *slog.Logger
	level     slog.Level
}

// summaryDelay is how long after a refusal that was not logged a summary line says how many
// were not, if nothing was logged meanwhile and the budget allows it.
const summaryDelay = time.Second

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
		r.log, r.level = log, level
		r.armLocked()
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

// armLocked schedules a summary; r.mu is held.
func (r *refusalLog) armLocked() {
	if r.armed {
		return
	}
	r.armed = true
	if r.timer == nil {
		r.timer = time.AfterFunc(summaryDelay, r.summary)
	} else {
		r.timer.Reset(summaryDelay)
	}
}

// summary logs how many refusals were not logged, when the budget allows; else it waits
// another summaryDelay (more input pays for it).
func (r *refusalLog) summary() {
	const cost = logLineCost
	r.mu.Lock()
	r.armed = false
	n := r.notLogged
	if n == 0 {
		r.mu.Unlock()
		return
	}
	if r.tokens < cost {
		r.armLocked()
		r.mu.Unlock()
		return
	}
	r.tokens -= cost
	r.notLogged = 0
	log, level := r.log, r.level
	r.mu.Unlock()
	log.Log(context.Background(), level, "multiplayer: packets refused and not logged", "notLogged", n)
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
