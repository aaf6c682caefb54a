package gsf

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// BaseBufferSize is the size of a FrameReader's buffer before a frame makes it grow; a
// [BufferBudget] is charged for what a buffer holds beyond it.
const BaseBufferSize = 4096

// ErrBufferBudget reports a frame that needs a FrameReader's buffer to grow beyond what is
// left of its [BufferBudget].
var ErrBufferBudget = errors.New("buffer budget exhausted")

// A BufferBudget bounds the bytes that several FrameReaders (the connections of a server)
// buffer together beyond BaseBufferSize each: the memory that peers sending large frames, or
// the first part of large frames and then nothing, can make them hold. Its methods are safe
// for concurrent use.
type BufferBudget struct {
	limit int64
	used  atomic.Int64
}

// NewBufferBudget returns a budget of limit bytes.
func NewBufferBudget(limit int64) *BufferBudget {
	return &BufferBudget{limit: limit}
}

// Limit returns the budget's size in bytes.
func (b *BufferBudget) Limit() int64 { return b.limit }

// Used returns the bytes charged to the budget.
func (b *BufferBudget) Used() int64 { return b.used.Load() }

// Acquire charges n bytes for memory other than a FrameReader's buffer that the budget is to
// cover, such as a server's copies of the frames it is handling. It fails, charging nothing,
// with an error wrapping ErrBufferBudget when fewer than n bytes are left.
func (b *BufferBudget) Acquire(n int) error {
	for {
		used := b.used.Load()
		if used+int64(n) > b.limit {
			return fmt.Errorf("%w: %d more bytes needed, %d of %d are in use", ErrBufferBudget, n, used, b.limit)
		}
		if b.used.CompareAndSwap(used, used+int64(n)) {
			return nil
		}
	}
}

// Release gives back n bytes that Acquire charged.
func (b *BufferBudget) Release(n int) { b.used.Add(-int64(n)) }

// charge returns what a buffer of size bytes is charged.
func charge(size int) int64 { return int64(max(0, size-BaseBufferSize)) }

// grow moves the charge of a buffer from its old size to its new one. It fails, and charges
// nothing, when the new charge does not fit what is left.
func (b *BufferBudget) grow(old, size int) error {
	d := charge(size) - charge(old)
	if d <= 0 {
		b.used.Add(d)
		return nil
	}
	return b.Acquire(int(d))
}
