package multiplayer

import (
	"sync"
	"testing"
	"time"
)

// testSignal lets a test wait for a condition on state that the test's own callbacks change,
// without polling: each change calls signal, which wakes the waiters to check again.
type testSignal struct {
	mu sync.Mutex
	ch chan struct{} // closed at the next signal
}

// next returns a channel that the next signal closes.
func (s *testSignal) next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// signal wakes the waiters.
func (s *testSignal) signal() {
	s.mu.Lock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
	s.mu.Unlock()
}

// waitUntil waits up to timeout for cond, checking it again at each signal, and reports
// whether it holds.
func (s *testSignal) waitUntil(timeout time.Duration, cond func() bool) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		changed := s.next() // before cond: a change after cond closes it
		if cond() {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return cond()
		}
	}
}

// TestTestSignal: a waiter wakes at the signal after the condition comes true, and gives up
// after its timeout when it never does.
func TestTestSignal(t *testing.T) {
	var s testSignal
	var mu sync.Mutex
	n := 0
	go func() {
		for range 3 {
			mu.Lock()
			n++
			mu.Unlock()
			s.signal()
		}
	}()
	if !s.waitUntil(10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return n == 3 }) {
		t.Fatal("the waiter missed the signals")
	}
	if s.waitUntil(time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition that never holds held")
	}
}
