package gsfnet

import (
	"sync"
	"time"
)

// A watchdog hands reading over from the reader goroutines of a server's sessions whose
// handler has run for inlineBudget (see Session.readLoop). It is one timer per server, which
// ticks every watchTick while some reader goroutine has run a handler lately, and a list of
// those sessions; a reader goroutine that starts a handler joins the list unless it is on it.
//
// A timer per session, set before each handler and stopped after it, cost more than any other
// part of a small request: each timer moved makes the runtime look through its whole heap of
// timers once the timer would have expired, and with a timer per connection that heap is large.
type watchdog struct {
	mu       sync.Mutex
	sessions []*Session // the sessions watched: Session.watched is set
	timer    *time.Timer
	armed    bool
}

// watchTick is the period of the watchdog: a handler is taken to be slow between
// inlineBudget and inlineBudget+watchTick after it started. A session stays on the list
// for a tick or two after its last handler, so that one that keeps getting messages does
// not join the list again for every message.
const watchTick = inlineBudget / 2

// watch adds s, whose reader goroutine is starting a handler, to the list. s.tmu is not held.
func (wd *watchdog) watch(s *Session) {
	wd.mu.Lock()
	wd.sessions = append(wd.sessions, s)
	if !wd.armed {
		wd.armed = true
		if wd.timer == nil {
			wd.timer = time.AfterFunc(watchTick, wd.tick)
		} else {
			wd.timer.Reset(watchTick)
		}
	}
	wd.mu.Unlock()
}

// tick hands reading over from the reader goroutines whose handler has run for inlineBudget,
// drops from the list the sessions whose reader goroutine has not started a handler for two
// ticks, and sets the timer again while the list is not empty.
func (wd *watchdog) tick() {
	type handover struct {
		s   *Session
		gen uint64
	}
	var slow []handover
	var flush []*Session
	now := monoNow()
	wd.mu.Lock()
	keep := wd.sessions[:0]
	for _, s := range wd.sessions {
		s.tmu.Lock()
		switch {
		case s.inHandler && now-s.handlerStart >= inlineBudget && s.inOrder:
			// Messages are handled in order: the reader goroutine stays with the slow
			// handler, and the responses held for its response go out now.
			if !s.slowFlushed {
				s.slowFlushed = true
				flush = append(flush, s)
			}
			keep = append(keep, s)
		case s.inHandler && now-s.handlerStart >= inlineBudget:
			// A new goroutine becomes the reader; the handler keeps its goroutine, which
			// ends when the handler returns (readLoop).
			s.inHandler, s.watched = false, false
			s.reader++
			slow = append(slow, handover{s, s.reader})
		case s.inHandler || now-s.handlerStart < 2*watchTick:
			keep = append(keep, s)
		default:
			s.watched = false
		}
		s.tmu.Unlock()
	}
	clear(wd.sessions[len(keep):])
	wd.sessions = keep
	if len(keep) > 0 {
		wd.timer.Reset(watchTick)
	} else {
		wd.armed = false
	}
	wd.mu.Unlock()
	for _, s := range flush {
		s.out.flushHeld()
	}
	for _, h := range slow {
		h.s.out.flushHeld() // the responses held for the slow handler's
		go h.s.read(h.gen)
	}
}
