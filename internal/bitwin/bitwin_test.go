package bitwin

import (
	"math/rand/v2"
	"testing"
)

// Int32Form must agree with FormOf on the length of every form and give the value sign-extended
// from FormOf's value bits.
func TestInt32FormAgreesWithFormOf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200_000 {
		x := r.Uint64()
		if i%2 == 1 {
			x |= 1 << 63 // mostly compressed forms
		}
		v, n := Int32Form(x)
		if v2, n2 := Int32FormShortFirst(x); v2 != v || n2 != n {
			t.Fatalf("%016x: Int32FormShortFirst %d in %d bits, Int32Form %d in %d", x, v2, n2, v, n)
		}
		hdr, vb := FormOf(x, 4)
		if n != hdr+vb {
			t.Fatalf("%016x: Int32Form takes %d bits, FormOf %d+%d", x, n, hdr, vb)
		}
		if want := int32(int64(x<<hdr) >> (64 - vb)); v != want {
			t.Fatalf("%016x: Int32Form %d, FormOf's bits %d", x, v, want)
		}
	}
}

// Refill gives the same bits as Window where Window can, and Tail's zero-padded bits at the end.
func TestWindowTailRefill(t *testing.T) {
	buf := []byte{0x81, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xf9, 0xfa}
	for pos := uint(0); pos <= uint(len(buf))*8; pos++ {
		x, avail, end, ok := Refill(buf, pos)
		if pos == uint(len(buf))*8 {
			if ok {
				t.Errorf("Refill at the end: ok")
			}
			continue
		}
		if !ok || end-avail != pos {
			t.Fatalf("pos %d: ok %v, avail %d, end %d", pos, ok, avail, end)
		}
		for i := uint(0); i < min(avail, 64); i++ {
			bi := pos + i
			want := buf[bi/8] >> (7 - bi%8) & 1
			if got := byte(x>>(63-i)) & 1; got != want {
				t.Fatalf("pos %d bit %d: %d, want %d", pos, i, got, want)
			}
		}
		if _, _, _, wok := Window(buf, pos); wok != (pos/8+8 <= uint(len(buf))) {
			t.Errorf("pos %d: Window ok %v", pos, wok)
		}
	}
}

// formOfBranchy is FormOf written the way the format reads: one case per form.
func formOfBranchy(x uint64, width uint) (hdr, vb uint) {
	if x>>63 == 0 {
		return 1, 8 * width // flag 0: full width
	}
	k := uint(0)
	for k < width && x<<(1+k)>>63 == 1 {
		k++
	}
	if k == width {
		return 1 + width, 8 * width // the run reached the width: no terminator
	}
	if k == 0 {
		return 2, 4
	}
	return k + 2, 8 * k
}

// FormOf, which counts the run with one leading-zero count, must agree with reading the prefix
// bit by bit, for every run length and width.
func TestFormOfAgreesWithBranchy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, width := range []uint{2, 4, 8} {
		for ones := range uint(12) {
			for range 1000 {
				// ones leading ones, a zero, then random bits.
				x := ^(^uint64(0) >> ones)
				if ones < 64 {
					x |= r.Uint64() >> (ones + 1)
				}
				hdr, vb := FormOf(x, width)
				wh, wv := formOfBranchy(x, width)
				if hdr != wh || vb != wv {
					t.Fatalf("width %d, %016x: FormOf %d+%d, want %d+%d", width, x, hdr, vb, wh, wv)
				}
			}
		}
		if hdr, vb := FormOf(^uint64(0), width); hdr != width+1 || vb != 8*width {
			t.Fatalf("width %d, all ones: %d+%d", width, hdr, vb)
		}
	}
}
