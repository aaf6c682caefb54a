package godot

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Boxing the scalars that Decode returns at the top level (int, float, Vector2, Vector3, Color)
// without an allocation each: Go's own conversion to an interface allocates 8 or 16 bytes per
// value, which costs more than decoding it. Instead, each processor (P) of the Go scheduler owns
// a chunk of boxChunk 8-byte words, and a value is copied into the next free words of the chunk
// of the P the goroutine runs on, the interface pointing at them. This is the pattern sync.Pool
// uses for its per-P caches: runtime.procPin keeps the goroutine on its P (no preemption, so no
// other goroutine can use that P's chunk) for the few instructions that claim the words, and
// runtime.procUnpin releases it. The runtime documents both as used by other packages through
// linkname and keeps them (go.dev/issue/67401).
//
// A chunk is never written again at words it has handed out, which Go requires of the memory
// behind an interface; it holds no pointers, so the garbage collector does not scan it. A value
// kept alive keeps its whole chunk (boxChunk bytes) alive, and with it the other values of the
// chunk; a P's current chunk stays alive until it is full. Decode's documentation says so.
// MaxAllocBytes is charged what Go's own boxing would allocate (fixedCost), as the decoder charges; the
// chunk itself is one of the "unused tails of the chunks" its documentation allows for.

// boxChunk is the size of a chunk in bytes: 64 ints or floats, 32 Vector3s or Colors (which take
// 16 bytes, as Go's allocator gives them).
const boxChunk = 512

// boxSlab is a P's chunk and the number of its bytes handed out.
type boxSlab struct {
	chunk unsafe.Pointer // a *[boxChunk / 8]uint64
	used  uintptr        // boxChunk when there is no chunk
	own   slabOwner      // checks, in race-detector builds, that one goroutine at a time claims
	// Pad to a cache line of its own: each P writes its own slab, and neighbours would share
	// lines otherwise.
	_ [64 - 2*unsafe.Sizeof(uintptr(0)) - unsafe.Sizeof(slabOwner{})]byte
}

// boxSlabs holds one slab per P, indexed by the P's id; it is never nil. When a P's id is past
// its end (GOMAXPROCS grew), growBoxSlabs replaces it with a longer table of empty slabs.
var boxSlabs atomic.Pointer[[]boxSlab]

var boxSlabsMu sync.Mutex

func init() { growBoxSlabs(0) }

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// claimSlow gives the current P a new chunk and claims its first size bytes, for decodeTop
// (which claims from the current chunk itself).
func claimSlow(size uintptr) unsafe.Pointer {
	// Allocate unpinned: an allocation may assist the garbage collector or block.
	c := unsafe.Pointer(new([boxChunk / 8]uint64))
	pid := procPin()
	t := boxSlabs.Load()
	if pid >= len(*t) {
		procUnpin()
		growBoxSlabs(pid)
		pid = procPin()
		t = boxSlabs.Load()
		if pid >= len(*t) { // GOMAXPROCS grew again meanwhile: the chunk serves this value alone
			procUnpin()
			return c
		}
	}
	s := &(*t)[pid]
	s.own.enter()
	s.chunk, s.used = c, size
	s.own.leave()
	procUnpin()
	return c
}

// growBoxSlabs makes boxSlabs long enough for GOMAXPROCS Ps and the P pid. The new slabs are
// empty: a goroutine still claiming from the old table (on its own P, pinned) finishes there,
// and the old chunks stay alive as long as values point into them.
func growBoxSlabs(pid int) {
	boxSlabsMu.Lock()
	defer boxSlabsMu.Unlock()
	if t := boxSlabs.Load(); t != nil && pid < len(*t) {
		return
	}
	t := make([]boxSlab, max(runtime.GOMAXPROCS(0), pid+1))
	for i := range t {
		t[i].used = boxChunk // no chunk yet
	}
	boxSlabs.Store(&t)
}
