package gsfnet

import (
	"testing"
	"testing/synctest"
)

func TestSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSlots(2)
		for i := range 2 {
			if !s.tryAcquire() {
				t.Fatalf("slot %d of 2 is not taken", i)
			}
		}
		if !s.full() {
			t.Fatal("two slots of two taken, and not full")
		}
		if s.tryAcquire() || s.n.Load() != 2 {
			t.Fatalf("a third slot: taken, or the count is %d", s.n.Load())
		}
		// acquire waits until a slot is given back.
		got := make(chan bool)
		go func() { got <- s.acquire(make(chan struct{})) }()
		synctest.Wait()
		select {
		case <-got:
			t.Fatal("acquire returned while every slot was taken")
		default:
		}
		s.release(1)
		if !<-got || !s.full() {
			t.Fatal("acquire did not take the slot given back")
		}
		// and gives up when done is closed.
		done := make(chan struct{})
		go func() { got <- s.acquire(done) }()
		synctest.Wait()
		close(done)
		if <-got || s.n.Load() != 2 {
			t.Fatalf("acquire after done: took a slot, or the count is %d", s.n.Load())
		}
		s.release(2)
		if s.full() || s.n.Load() != 0 {
			t.Fatalf("after giving back every slot the count is %d", s.n.Load())
		}
	})
}
