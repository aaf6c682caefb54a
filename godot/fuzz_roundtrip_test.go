package godot_test

import (
	"bytes"
	"errors"
	"github.com/gamewire/gamewire/explain"
	"math/rand/v2"
	"testing"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/godottest"
)

// FuzzRoundTrip checks encode ∘ decode from the value side: the fuzzer picks a seed, the
// dialect and the knobs of godottest.Rand, which builds a random nested Variant of the kinds the
// engines round-trip; its encoding must decode without error, to a value that encodes to the
// same bytes, and Explain must walk the same bytes to the end. (FuzzDecode covers the other
// direction, from arbitrary bytes.)
func FuzzRoundTrip(f *testing.F) {
	for seed := range uint64(64) {
		f.Add(seed, seed%2 == 0, uint8(seed%5), seed%3 == 0)
	}
	f.Fuzz(func(t *testing.T, seed uint64, v4 bool, depth uint8, double bool) {
		d := godot.Godot3
		if v4 {
			d = godot.Godot4
		}
		double = double && v4
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		v := godottest.Rand(r, godottest.Options{Dialect: d, MaxDepth: int(depth % 6), MaxLen: 6, DoublePrecision: double})
		enc := em(godot.EncodeOptions{Dialect: d, DoublePrecision: double})
		once, err := enc.Marshal(v)
		if err != nil {
			t.Fatalf("encode %#v: %v", v, err)
		}
		dec := dm(godot.DecodeOptions{Dialect: d, AllowObjects: true})
		back, n, err := dec.Decode(once)
		if err != nil || n != len(once) {
			t.Fatalf("decode %x: %v (%d of %d bytes)", once, err, n, len(once))
		}
		twice, err := enc.Marshal(back)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("round trip differs (%v):\n%s", err, godottest.HexDiff(once, twice, nil))
		}
		fr, err := dec.Explain(once, explain.NewBudget(explain.NoLimit))
		if err != nil || len(fr.Fields) != 1 {
			t.Fatalf("explain: %v", err)
		}
		if top := fr.Fields[0]; top.Bit != 0 || top.Bits != int64(8*len(once)) {
			t.Fatalf("explain spans bits %d+%d of %d", top.Bit, top.Bits, 8*len(once))
		}
		// Every strict prefix is truncated input: a typed error, never a panic.
		for _, cut := range []int{0, 3, len(once) / 2, len(once) - 1} {
			if cut < 0 || cut >= len(once) {
				continue
			}
			if _, _, err := dec.Decode(once[:cut]); err != nil {
				var de *godot.DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("prefix %d: untyped error %v", cut, err)
				}
			}
		}
	})
}
