package bitstream

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// plainReader returns a Reader over b that never decodes integers ahead: the reader the tests
// below compare with.
func plainReader(b []byte) *Reader {
	r := NewReader(b)
	r.setProbe(^uint(0))
	return r
}

// readOne reads one value with op (0 int16, 1 int32, 2 int64, 3 char) and describes the result
// and the offset after it, so that two readers can be compared.
func readOne(r *Reader, op int) string {
	var v int64
	var err error
	switch op {
	case 0:
		var x int16
		x, err = r.ReadInt16()
		v = int64(x)
	case 1:
		var x int32
		x, err = r.ReadInt32()
		v = int64(x)
	case 2:
		v, err = r.ReadInt64()
	case 3:
		var x rune
		x, err = r.ReadChar()
		v = int64(x)
	}
	if err != nil {
		var e *DecodeError
		if !errors.As(err, &e) {
			return fmt.Sprintf("error %v is not a *DecodeError", err)
		}
		return fmt.Sprintf("err %v @%d", err, r.Offset())
	}
	return fmt.Sprintf("%d @%d", v, r.Offset())
}

// mixedStream writes n integers of width w (0 int16, 1 int32, 2 int64) with random bit lengths,
// so that every form appears in random order (for int64, every form of up to 6 bytes: longer
// ones end a batch, random bytes test those).
func mixedStream(rng *rand.Rand, w, n int) []byte {
	var wr Writer
	for range n {
		bits := []int{16, 32, 48}[w]
		l := rng.IntN(bits)
		v := int64(rng.Uint64() >> (64 - l))
		if l == 0 {
			v = 0
		}
		if rng.IntN(2) == 0 {
			v = -v
		}
		switch w {
		case 0:
			wr.WriteInt16(int16(v))
		case 1:
			wr.WriteInt32(int32(v))
		default:
			wr.WriteInt64(v)
		}
	}
	return wr.Bytes()
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// readAllSame reads b with op until an error with a plain reader and a decoding-ahead one, and
// fails at the first difference. It returns the number of reads the second one served from
// integers decoded ahead.
func readAllSame(t *testing.T, name string, b []byte, op int) int {
	t.Helper()
	p, r := plainReader(b), NewReader(b)
	hits := 0
	for k := 0; ; k++ {
		hit := r.ahead != nil && r.ahead.i < r.ahead.n && r.ahead.ends[r.ahead.i] == r.pos
		want, got := readOne(p, op), readOne(r, op)
		if got != want {
			t.Fatalf("%s, op %d, read %d: got %s, want %s", name, op, k, got, want)
		}
		if hit {
			hits++
		}
		if p.Offset() == p.Len() || want[:3] == "err" {
			return hits
		}
	}
}

// TestAheadSameAsPlain reads long runs of one width, of random widths and of random bytes (in
// which every form appears, the ones the fast path does not read included), of every length
// around the end of the input: values, offsets and errors must be those of the plain reader.
func TestAheadSameAsPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for op := range 4 {
		w := []int{0, 1, 2, 0}[op]
		total := 0
		for _, n := range []int{0, 1, 7, 8, 9, 50, 200, 1000, 3000, 20000} {
			s := mixedStream(rng, w, n)
			total += readAllSame(t, fmt.Sprintf("mixed %d", n), s, op)
			// Cut inside the last integers: the last reads fail.
			for cut := 1; cut <= 9 && cut <= len(s); cut++ {
				readAllSame(t, fmt.Sprintf("mixed %d cut %d", n, cut), s[:len(s)-cut], op)
			}
		}
		for _, n := range []int{0, 3, 8, 9, 130, 1000, 4000, 60000} {
			total += readAllSame(t, fmt.Sprintf("random %d", n), randomBytes(rng, n), op)
		}
		if total < 10000 {
			t.Errorf("op %d: only %d reads were served from integers decoded ahead", op, total)
		}
	}
}

// TestAheadPredictable: when the forms repeat, the reader stays on the plain path.
func TestAheadPredictable(t *testing.T) {
	var w Writer
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		w.WriteInt32(int32(rng.Uint32() | 1<<30))
	}
	if hits := readAllSame(t, "uniform", w.Bytes(), 1); hits > 100000/50 {
		t.Errorf("%d of 100000 reads were served from integers decoded ahead", hits)
	}
}

// TestAheadInterleaved runs random programs over random input, mostly runs of one width but also
// other widths, other reads, seeks and resets in between, on a plain reader and a decoding-ahead
// one side by side.
func TestAheadInterleaved(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	inputs := [][]byte{randomBytes(rng, 30000), mixedStream(rng, 1, 20000), mixedStream(rng, 0, 20000)}
	for round := range 40 {
		in := inputs[round%len(inputs)]
		other := inputs[(round+1)%len(inputs)]
		p, r := plainReader(in), NewReader(in)
		op := 1
		for k := range 20000 {
			var want, got string
			switch x := rng.IntN(1000); {
			case x < 6: // another width from now on
				op = rng.IntN(4)
				continue
			case x < 10:
				want = fmt.Sprint(p.ReadBool())
				got = fmt.Sprint(r.ReadBool())
			case x < 12:
				n := rng.IntN(40)
				want = fmt.Sprint(p.ReadBits(n))
				got = fmt.Sprint(r.ReadBits(n))
			case x < 13:
				want = fmt.Sprint(p.ReadString())
				got = fmt.Sprint(r.ReadString())
			case x < 15:
				off := rng.IntN(p.Len() + 1)
				want = fmt.Sprint(p.Seek(off))
				got = fmt.Sprint(r.Seek(off))
			case x < 16:
				// Back to where the reader was a little while ago, in the middle of a batch.
				off := max(p.Offset()-rng.IntN(2000), 0)
				want = fmt.Sprint(p.Seek(off))
				got = fmt.Sprint(r.Seek(off))
			case x < 17:
				in, other = other, in
				p.Reset(in)
				p.setProbe(^uint(0))
				r.Reset(in)
				want, got = "reset", "reset"
			case x < 18:
				// A copy reads on (and resets) without disturbing the original.
				c := *r
				cp := *p
				for range rng.IntN(300) {
					if a, b := readOne(&c, op), readOne(&cp, op); a != b {
						t.Fatalf("round %d, copy: got %s, want %s", round, a, b)
					}
				}
				c.Reset(other)
				for range rng.IntN(300) {
					readOne(&c, op)
				}
				want, got = "copy", "copy"
			case x < 19:
				// A saved copy, restored after a Reset to another input and reads there.
				saved, savedP := *r, *p
				r.Reset(other)
				p.Reset(other)
				p.setProbe(^uint(0))
				for range rng.IntN(3000) {
					if a, b := readOne(r, op), readOne(p, op); a != b {
						t.Fatalf("round %d, other input: got %s, want %s", round, a, b)
					}
				}
				*r, *p = saved, savedP
				want, got = "restore", "restore"
			default:
				want, got = readOne(p, op), readOne(r, op)
			}
			if got != want || p.Offset() != r.Offset() {
				t.Fatalf("round %d, step %d: got %s @%d, want %s @%d", round, k, got, r.Offset(), want, p.Offset())
			}
		}
	}
}

// TestAheadResetInvalidates: after Reset to another input of the same length, nothing decoded
// from the old input is returned.
func TestAheadResetInvalidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := mixedStream(rng, 1, 5000)
	b := make([]byte, len(a))
	copy(b, a)
	for i := len(b) / 4; i < len(b); i++ {
		b[i] ^= 0x55
	}
	r := NewReader(a)
	for range 2000 {
		if _, err := r.ReadInt32(); err != nil {
			t.Fatal(err)
		}
	}
	if r.ahead == nil || r.ahead.n == 0 {
		t.Fatal("no integers decoded ahead after 2000 reads of random widths")
	}
	off := r.Offset()
	r.Reset(b)
	if err := r.Seek(off); err != nil {
		t.Fatal(err)
	}
	p := plainReader(b)
	if err := p.Seek(off); err != nil {
		t.Fatal(err)
	}
	for k := range 1000 {
		if got, want := readOne(r, 1), readOne(p, 1); got != want {
			t.Fatalf("read %d after Reset: got %s, want %s", k, got, want)
		}
	}
}

// TestAheadCopiesConcurrently: copies of a Reader that decodes ahead read on in goroutines of
// their own while the original reads on too; none looks into another's integers (go test -race
// shows it), and each reads what a plain reader reads.
func TestAheadCopiesConcurrently(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	data := mixedStream(rng, 1, 20000)
	want := plainReader(data)
	r := NewReader(data)
	for range 3000 {
		if got, w := readOne(r, 1), readOne(want, 1); got != w {
			t.Fatalf("%s, want %s", got, w)
		}
	}
	if r.ahead == nil || r.ahead.n == 0 {
		t.Fatal("no integers decoded ahead after 3000 reads of random widths")
	}
	var expect []string
	p := *want
	for range 17000 {
		expect = append(expect, readOne(&p, 1))
	}
	errs := make(chan error, 5)
	read := func(rd *Reader, reset bool) {
		for k, w := range expect {
			if got := readOne(rd, 1); got != w {
				errs <- fmt.Errorf("read %d: %s, want %s", k, got, w)
				return
			}
		}
		if reset {
			rd.Reset(data) // gives back nothing of the original's
		}
		errs <- nil
	}
	for i := range 4 {
		c := *r
		go read(&c, i%2 == 0)
	}
	go read(r, true)
	for range 5 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// FuzzAhead reads input (repeated up to at least 16 KB, so that the reader decodes ahead) with a
// program of runs of integer reads, seeks and other reads, on a decoding-ahead reader and a plain
// one side by side: values, offsets and errors must agree.
func FuzzAhead(f *testing.F) {
	f.Add([]byte{0x8c, 0xf3, 0x12, 0xe5, 0x0a, 0xd7, 0x7f}, []byte{1, 1, 1, 0x41})
	f.Add([]byte{0xff, 0xff, 0xff, 0xfe}, []byte{2, 0x12, 3})
	f.Add([]byte{0x00}, []byte{0x81, 5, 0x31})
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		if len(data) == 0 || len(ops) == 0 {
			return
		}
		in := data
		for len(in) < 16<<10 {
			in = append(in, data...)
		}
		in = in[:len(in)-int(ops[0])%len(data)] // end anywhere in the pattern
		p, r := plainReader(in), NewReader(in)
		for k := 0; k < 64 && p.Offset() < p.Len(); k++ {
			op := ops[k%len(ops)]
			var want, got string
			switch op >> 6 {
			case 0, 1: // a run of integer reads
				for range 1 + int(op&0x3f)*40 {
					want, got = readOne(p, int(op>>4)&3), readOne(r, int(op>>4)&3)
					if want != got || want[:3] == "err" {
						break
					}
				}
			case 2:
				n := int(op & 0x3f)
				want, got = fmt.Sprint(p.ReadBits(n)), fmt.Sprint(r.ReadBits(n))
			case 3:
				off := p.Offset() - int(op&0x3f)*100
				if off < 0 {
					off = int(op&0x3f) * 1000
				}
				want, got = fmt.Sprint(p.Seek(off)), fmt.Sprint(r.Seek(off))
			}
			if want != got || p.Offset() != r.Offset() {
				t.Fatalf("op %d (%#x): got %s @%d, want %s @%d", k, op, got, r.Offset(), want, p.Offset())
			}
		}
	})
}
