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

// mixedInts returns a stream of 1 000 000 compressed integers of width 2 or 8 bytes whose bit
// lengths are random below maxBits (so that their forms come in random order), and their sum.
func mixedInts(width, maxBits int) ([]byte, int64) {
	rng := rand.New(rand.NewPCG(9, 9))
	var w Writer
	var sum int64
	for range streamValues {
		l := rng.IntN(maxBits)
		v := int64(rng.Uint64() >> (64 - l))
		if l == 0 {
			v = 0
		}
		if rng.IntN(2) == 0 {
			v = -v
		}
		if width == 2 {
			w.WriteInt16(int16(v))
			sum += int64(int16(v))
		} else {
			w.WriteInt64(v)
			sum += v
		}
	}
	return w.Bytes(), sum
}

func benchMixedDecode(b *testing.B, width, maxBits int) {
	data, want := mixedInts(width, maxBits)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var r Reader
	for b.Loop() {
		r.Reset(data)
		var sum int64
		for range streamValues {
			var v int64
			var err error
			if width == 2 {
				var x int16
				x, err = r.ReadInt16()
				v = int64(x)
			} else {
				v, err = r.ReadInt64()
			}
			if err != nil {
				b.Fatal(err)
			}
			sum += v
		}
		if sum != want {
			b.Fatal("decoded values differ")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/streamValues, "ns/value")
}

// BenchmarkBitProtocolInt16MixedDecode reads 1 000 000 compressed int16 values of random bit
// lengths (every form, in random order).
func BenchmarkBitProtocolInt16MixedDecode(b *testing.B) { benchMixedDecode(b, 2, 16) }

// BenchmarkBitProtocolInt64MixedDecode reads 1 000 000 compressed int64 values of up to 47 bits
// (every form of up to 6 value bytes, in random order).
func BenchmarkBitProtocolInt64MixedDecode(b *testing.B) { benchMixedDecode(b, 8, 47) }

// BenchmarkBitProtocolInt64AllMixedDecode reads 1 000 000 compressed int64 values of up to 63
// bits: a quarter of them take the 65-bit full form.
func BenchmarkBitProtocolInt64AllMixedDecode(b *testing.B) { benchMixedDecode(b, 8, 64) }
