package gsf

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestBufferBudget checks that FrameReaders sharing a budget cannot buffer more than it
// beyond their base buffers, and give back what they no longer hold.
func TestBufferBudget(t *testing.T) {
	b := NewBufferBudget(100 << 10)
	big := func(n int) []byte {
		f, err := AppendFrame(nil, make([]byte, n))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	// A 60 KiB frame, then a small one: the buffer grows, and is dropped once empty.
	var stream bytes.Buffer
	stream.Write(big(60 << 10))
	stream.Write(big(10))
	r1 := NewFrameReader(io.MultiReader(&stream, &blocking{}))
	r1.Budget = b
	if p, err := r1.ReadFrame(); err != nil || len(p) != 60<<10 {
		t.Fatalf("ReadFrame: %d bytes, %v", len(p), err)
	}
	if b.Used() == 0 || b.Used() > 64<<10 {
		t.Errorf("%d bytes charged for a 60 KiB frame", b.Used())
	}
	held := b.Used()
	// A second reader may not take more than what is left.
	r2 := NewFrameReader(bytes.NewReader(big(60 << 10)))
	r2.Budget = b
	if _, err := r2.ReadFrame(); !errors.Is(err, ErrBufferBudget) {
		t.Errorf("a frame beyond the budget: %v, want ErrBufferBudget", err)
	}
	if b.Used() != held {
		t.Errorf("the failed frame left %d bytes charged, want %d", b.Used(), held)
	}
	// The small frame is buffered behind the big one: no charge is given back yet.
	if p, err := r1.ReadFrame(); err != nil || len(p) != 10 {
		t.Fatalf("ReadFrame: %d bytes, %v", len(p), err)
	}
	// About to wait for the stream with an empty buffer: it is dropped.
	if _, err := r1.ReadFrame(); err != io.EOF {
		t.Fatalf("ReadFrame at the end: %v", err)
	}
	if b.Used() != 0 {
		t.Errorf("%d bytes charged once the reader is idle", b.Used())
	}
	r3 := NewFrameReader(bytes.NewReader(big(60 << 10)))
	r3.Budget = b
	if _, err := r3.ReadFrame(); err != nil {
		t.Errorf("a frame within the budget given back: %v", err)
	}
	r3.ReleaseBuffer()
	if b.Used() != 0 {
		t.Errorf("%d bytes charged after ReleaseBuffer", b.Used())
	}
}

// blocking is an empty reader that ends the stream.
type blocking struct{}

func (*blocking) Read([]byte) (int, error) { return 0, io.EOF }
