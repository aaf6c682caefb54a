package bitstream

import (
	"math/rand"
	"testing"
)

// The BitprotoRef benchmarks run the reference implementation's own workloads, generated exactly
// as ../shared/spec/bitprotocol.md §12.1 describes: math/rand (v1) seeded with refSeed, values
// drawn in the order given there. Each checks that its stream has the reference's size, so that a
// change to the generator cannot go unnoticed.

const refSeed = 20261122

// refUniformInt32s is Int32x1M_Uniform: int32(rng.Uint32()), 1 000 000 times.
func refUniformInt32s() []int32 {
	rng := rand.New(rand.NewSource(refSeed))
	v := make([]int32, 1_000_000)
	for i := range v {
		v[i] = int32(rng.Uint32())
	}
	return v
}

// refMixedInt32s is Int32x1M_Mixed: a random bit length l in 0..31, a random l-bit magnitude, a
// random sign; every compressed width appears, in random order.
func refMixedInt32s() []int32 {
	rng := rand.New(rand.NewSource(refSeed))
	v := make([]int32, 1_000_000)
	for i := range v {
		l := rng.Intn(32)
		m := int64(rng.Uint32() >> (32 - l))
		if rng.Intn(2) == 0 {
			m = -m
		}
		v[i] = int32(m)
	}
	return v
}

// checkRefSize fails the benchmark when the encoded stream of vals is not the reference's size.
func checkRefSize(b *testing.B, vals []int32, want int) {
	b.Helper()
	var w Writer
	for _, v := range vals {
		w.WriteInt32(v)
	}
	if got := len(w.Bytes()); got != want {
		b.Fatalf("stream is %d bytes, the reference's is %d", got, want)
	}
}

// BenchmarkBitprotoRefInt32x1M_UniformEncode writes Int32x1M_Uniform into one stream (the
// reference: 25.8 ns per value in §12, 29.9 ns measured beside this one).
func BenchmarkBitprotoRefInt32x1M_UniformEncode(b *testing.B) {
	v := refUniformInt32s()
	checkRefSize(b, v, 4_122_981)
	benchInt32Encode(b, v)
}

// BenchmarkBitprotoRefInt32x1M_UniformDecode reads it back (the reference: 18.9 ns per value in
// §12, 20.9 ns measured beside this one).
func BenchmarkBitprotoRefInt32x1M_UniformDecode(b *testing.B) {
	v := refUniformInt32s()
	checkRefSize(b, v, 4_122_981)
	benchInt32Decode(b, v)
}

// BenchmarkBitprotoRefInt32x1M_MixedEncode writes Int32x1M_Mixed into one stream (the reference:
// 38.4 ns per value measured beside this one).
func BenchmarkBitprotoRefInt32x1M_MixedEncode(b *testing.B) {
	v := refMixedInt32s()
	checkRefSize(b, v, 2_723_168)
	benchInt32Encode(b, v)
}

// BenchmarkBitprotoRefInt32x1M_MixedDecode reads it back (the reference: 30.7 ns per value
// measured beside this one).
func BenchmarkBitprotoRefInt32x1M_MixedDecode(b *testing.B) {
	v := refMixedInt32s()
	checkRefSize(b, v, 2_723_168)
	benchInt32Decode(b, v)
}
