package gsfnet

import "sync/atomic"

// slots counts a session's in-flight messages (read, and not yet answered and written)
// against MaxInFlight. Taking a slot is one atomic addition, and so is giving back the slots
// of all the responses one write carried: a channel used as a semaphore cost a channel
// operation for each message and each response, a tenth of a small request's server CPU.
//
// Only the session's reader goroutine takes slots (acquire, tryAcquire); any goroutine gives
// them back (release).
type slots struct {
	n       atomic.Int64
	max     int64
	waiting atomic.Bool   // the reader waits in acquire
	wake    chan struct{} // capacity 1: slots were given back while the reader waited
}

func newSlots(max int) *slots {
	return &slots{max: int64(max), wake: make(chan struct{}, 1)}
}

// tryAcquire takes a slot if one is free.
func (s *slots) tryAcquire() bool {
	if s.n.Add(1) <= s.max {
		return true
	}
	s.n.Add(-1)
	return false
}

// acquire takes a slot, waiting for one until done is closed; it reports whether it took one.
func (s *slots) acquire(done <-chan struct{}) bool {
	for {
		if s.tryAcquire() {
			return true
		}
		// release reads waiting after giving slots back: either it sees it set and wakes
		// us, or the try below sees the slots it gave back.
		s.waiting.Store(true)
		if s.tryAcquire() {
			s.waiting.Store(false)
			return true
		}
		select {
		case <-s.wake:
		case <-done:
			s.waiting.Store(false)
			return false
		}
	}
}

// release gives k slots back.
func (s *slots) release(k int) {
	s.n.Add(int64(-k))
	if s.waiting.Load() {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// full reports whether every slot is taken.
func (s *slots) full() bool { return s.n.Load() >= s.max }
