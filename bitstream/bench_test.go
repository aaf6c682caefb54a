package bitstream

import (
	"math/rand/v2"
	"testing"
)

const streamValues = 1_000_000

// uniformInt32s returns n int32 values drawn uniformly from the whole int32 range, the
// reference's workload.
func uniformInt32s(n int) []int32 {
	rng := rand.New(rand.NewPCG(42, 1))
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(rng.Uint32())
	}
	return v
}

// allWidthInt32s returns n int32 values spread evenly over every compressed form.
func allWidthInt32s(n int) []int32 {
	rng := rand.New(rand.NewPCG(42, 2))
	v := make([]int32, n)
	for i := range v {
		bits := []int{3, 7, 15, 23, 31}[i%5]
		x := int32(rng.Uint32() >> (32 - bits))
		if rng.IntN(2) == 0 {
			x = -x - 1
		}
		v[i] = x
	}
	return v
}

func benchInt32Encode(b *testing.B, vals []int32) {
	var w Writer
	for _, v := range vals {
		w.WriteInt32(v)
	}
	buf := make([]byte, 0, len(w.Bytes())+8)
	b.SetBytes(int64(len(w.Bytes())))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Reset(buf)
		for _, v := range vals {
			w.WriteInt32(v)
		}
		buf = w.Bytes()[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(vals)), "ns/value")
}

func benchInt32Decode(b *testing.B, vals []int32) {
	var w Writer
	for _, v := range vals {
		w.WriteInt32(v)
	}
	data := w.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var r Reader
	var sum int32
	for b.Loop() {
		r.Reset(data)
		for range vals {
			v, err := r.ReadInt32()
			if err != nil {
				b.Fatal(err)
			}
			sum += v
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(vals)), "ns/value")
	var want int32
	for _, v := range vals {
		want += v
	}
	if sum != want*int32(b.N) {
		b.Fatal("decoded values differ")
	}
}

// BenchmarkBitProtocolInt32StreamEncode writes 1 000 000 uniformly random compressed int32
// values into one stream (the reference: 25.8 ns per value).
func BenchmarkBitProtocolInt32StreamEncode(b *testing.B) {
	benchInt32Encode(b, uniformInt32s(streamValues))
}

// BenchmarkBitProtocolInt32StreamDecode reads them back (the reference: 18.9 ns per value).
func BenchmarkBitProtocolInt32StreamDecode(b *testing.B) {
	benchInt32Decode(b, uniformInt32s(streamValues))
}

// BenchmarkBitProtocolInt32AllWidthsEncode writes 1 000 000 int32 values spread over every
// compressed form (the reference: 36.7 ns per value).
func BenchmarkBitProtocolInt32AllWidthsEncode(b *testing.B) {
	benchInt32Encode(b, allWidthInt32s(streamValues))
}

// BenchmarkBitProtocolInt32AllWidthsDecode reads them back (the reference: 27.2 ns per value).
func BenchmarkBitProtocolInt32AllWidthsDecode(b *testing.B) {
	benchInt32Decode(b, allWidthInt32s(streamValues))
}
