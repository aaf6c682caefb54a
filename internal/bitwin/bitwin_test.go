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
