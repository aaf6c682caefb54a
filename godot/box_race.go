//go:build race

package godot

import "sync/atomic"

// slabOwner, in race-detector builds, marks a slab as in use while a goroutine claims from it
// and panics if another goroutine enters it meanwhile, which procPin rules out (the caller is
// pinned: it unpins first). Its atomic
// operations also show the race detector the order that procPin gives the goroutines of one P,
// which it cannot see by itself.
type slabOwner struct{ busy atomic.Bool }

func (o *slabOwner) enter() {
	if !o.busy.CompareAndSwap(false, true) {
		procUnpin()
		panic("godot: two goroutines in one P's box slab")
	}
}

func (o *slabOwner) leave() { o.busy.Store(false) }
