package web

import (
	"context"
	"sync"
)

// weighted is a semaphore of a number of units (bytes) that waiters take in first-come order.
type weighted struct {
	mu      sync.Mutex
	size    int64 // units in all; < 0: no bound
	cur     int64 // units taken
	waiters []waiter
}

type waiter struct {
	n     int64
	ready chan struct{}
}

func newWeighted(size int64) *weighted { return &weighted{size: size} }

// acquire takes n units, waiting for them until ctx is done. A request for more than the size
// waits until nothing else is taken.
func (s *weighted) acquire(ctx context.Context, n int64) error {
	s.mu.Lock()
	if s.size < 0 {
		s.mu.Unlock()
		return nil
	}
	if len(s.waiters) == 0 && s.fits(n) {
		s.cur += n
		s.mu.Unlock()
		return nil
	}
	w := waiter{n: n, ready: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		select {
		case <-w.ready:
			// Granted meanwhile: give it back.
			s.cur -= n
			s.grant()
		default:
			for i, x := range s.waiters {
				if x.ready == w.ready {
					s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
					break
				}
			}
			s.grant() // the first waiter may have waited behind this one
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

// fits reports whether n more units may be taken now; s.mu is held.
func (s *weighted) fits(n int64) bool {
	return s.cur+n <= s.size || s.cur == 0
}

// release gives back n units.
func (s *weighted) release(n int64) {
	s.mu.Lock()
	if s.size >= 0 {
		s.cur -= n
		s.grant()
	}
	s.mu.Unlock()
}

// grant wakes the waiters, in order, that now fit; s.mu is held.
func (s *weighted) grant() {
	for len(s.waiters) > 0 && s.fits(s.waiters[0].n) {
		w := s.waiters[0]
		s.waiters = s.waiters[1:]
		s.cur += w.n
		close(w.ready)
	}
}
