package godot

import (
	"fmt"
	"testing"
	"time"
)

// The benchmark workloads of issue 2, the same ones bench/godot3 times in the real engine:
// (a) a PoolVector3Array of 1 000 000 elements, (b) a PoolByteArray of 16 MiB, (c) an Array of
// 100 000 small Dictionaries {"id": int, "name": String, "pos": Vector3, "tags": Array of 2
// Strings}, (d) single small values, one call each.

func benchVectors() []Vector3 {
	vs := make([]Vector3, 1_000_000)
	for i := range vs {
		f := float32(i)
		vs[i] = Vector3{f, f * 0.5, -f}
	}
	return vs
}

func benchBytes() []byte {
	b := make([]byte, 16<<20)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

func benchDicts(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = NewDictionary(
			"id", int64(i),
			"name", fmt.Sprintf("player%d", i),
			"pos", Vector3{float32(i), 1.5, -2},
			"tags", []any{"red", "team"},
		)
	}
	return out
}

func benchEncode(b *testing.B, d Dialect, v any) (int, func()) {
	b.Helper()
	enc := em(EncodeOptions{Dialect: d})
	buf, err := enc.Append(nil, v)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf, err = enc.Append(buf[:0], v)
		if err != nil {
			b.Fatal(err)
		}
	}
	return len(buf), func() { buf, _ = enc.Append(buf[:0], v) }
}

func benchDecode(b *testing.B, d Dialect, v any) (int, func()) {
	b.Helper()
	data, err := em(EncodeOptions{Dialect: d}).Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	dec := dm(DecodeOptions{Dialect: d})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := dec.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
	return len(data), func() { _, _, _ = dec.Decode(data) }
}

// copySink keeps the yardstick's copies alive.
var copySink []byte

// copyRounds is the number of times reportCopyRatio runs the operation and the copy.
const copyRounds = 8

// reportCopyRatio reports, as the metric "copy-ratio", how long op takes compared with copying
// n bytes: 1.00 is the speed of copy on this machine at this moment, 1.25 a quarter slower. The
// two run alternately, copyRounds times each, right after the benchmark, and are timed in CPU
// time where the system has it (see cpuTime), so that time spent waiting for a shared machine's
// processors counts for neither. A packed array's encode and decode are bounded by memory
// bandwidth, which such a machine changes from one run to the next; the ratio is what carries
// over. fresh copies into newly allocated memory each time (with its page faults), as decoding
// into a new slice must; otherwise into one reused buffer.
func reportCopyRatio(b *testing.B, n int, fresh bool, op func()) {
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // touch both before timing
	var tOp, tCopy time.Duration
	for range copyRounds {
		t0 := cpuTime()
		op()
		t1 := cpuTime()
		if fresh {
			dst = append([]byte(nil), src...) // as bytes.Clone: new memory, not zeroed first
		} else {
			copy(dst, src)
		}
		copySink = dst
		tOp, tCopy = tOp+t1-t0, tCopy+cpuTime()-t1
	}
	b.ReportMetric(float64(tOp)/float64(tCopy), "copy-ratio")
}

func BenchmarkGodot3PoolVector3ArrayEncode(b *testing.B) {
	n, op := benchEncode(b, Godot3, benchVectors())
	reportCopyRatio(b, n, false, op)
}
func BenchmarkGodot3PoolVector3ArrayDecode(b *testing.B) {
	n, op := benchDecode(b, Godot3, benchVectors())
	reportCopyRatio(b, n, true, op)
}
func BenchmarkGodot3PoolByteArrayEncode(b *testing.B) {
	n, op := benchEncode(b, Godot3, benchBytes())
	reportCopyRatio(b, n, false, op)
}
func BenchmarkGodot3PoolByteArrayDecode(b *testing.B) {
	n, op := benchDecode(b, Godot3, benchBytes())
	reportCopyRatio(b, n, true, op)
}

func BenchmarkGodot3DictArrayEncode(b *testing.B) {
	benchEncode(b, Godot3, benchDicts(100_000))
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "dicts/s")
}

func BenchmarkGodot3DictArrayDecode(b *testing.B) {
	benchDecode(b, Godot3, benchDicts(100_000))
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "dicts/s")
}

var smallValues = []struct {
	name string
	v    any
}{
	{"Vector3", Vector3{1, 2, 3}},
	{"Int", int64(123456)},
	{"String", "hello"},
}

func BenchmarkGodot3SmallValueEncode(b *testing.B) {
	for _, sv := range smallValues {
		b.Run(sv.name, func(b *testing.B) { benchEncode(b, Godot3, sv.v) })
	}
}

func BenchmarkGodot3SmallValueDecode(b *testing.B) {
	for _, sv := range smallValues {
		b.Run(sv.name, func(b *testing.B) { benchDecode(b, Godot3, sv.v) })
	}
}

// The same workloads in the Godot 4 dialect, plus PackedFloat64Array and a typed Array[Vector3].

func BenchmarkGodot4PackedVector3ArrayEncode(b *testing.B) {
	n, op := benchEncode(b, Godot4, benchVectors())
	reportCopyRatio(b, n, false, op)
}
func BenchmarkGodot4PackedVector3ArrayDecode(b *testing.B) {
	n, op := benchDecode(b, Godot4, benchVectors())
	reportCopyRatio(b, n, true, op)
}
func BenchmarkGodot4PackedByteArrayEncode(b *testing.B) {
	n, op := benchEncode(b, Godot4, benchBytes())
	reportCopyRatio(b, n, false, op)
}
func BenchmarkGodot4PackedByteArrayDecode(b *testing.B) {
	n, op := benchDecode(b, Godot4, benchBytes())
	reportCopyRatio(b, n, true, op)
}

func benchFloats() []float64 {
	fs := make([]float64, 1_000_000)
	for i := range fs {
		fs[i] = float64(i) * 0.1
	}
	return fs
}

func BenchmarkGodot4PackedFloat64ArrayEncode(b *testing.B) {
	n, op := benchEncode(b, Godot4, benchFloats())
	reportCopyRatio(b, n, false, op)
}
func BenchmarkGodot4PackedFloat64ArrayDecode(b *testing.B) {
	n, op := benchDecode(b, Godot4, benchFloats())
	reportCopyRatio(b, n, true, op)
}

func benchTypedVectors() *TypedArray {
	vs := benchVectors()[:100_000]
	a := &TypedArray{Elem: ContainerType{Kind: ContainerBuiltin, Builtin: TypeVector3}, Values: make([]any, len(vs))}
	for i, v := range vs {
		a.Values[i] = v
	}
	return a
}

func BenchmarkGodot4TypedArrayVector3Encode(b *testing.B) {
	benchEncode(b, Godot4, benchTypedVectors())
}
func BenchmarkGodot4TypedArrayVector3Decode(b *testing.B) {
	benchDecode(b, Godot4, benchTypedVectors())
}

func BenchmarkGodot4DictArrayEncode(b *testing.B) {
	benchEncode(b, Godot4, benchDicts(100_000))
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "dicts/s")
}

func BenchmarkGodot4DictArrayDecode(b *testing.B) {
	benchDecode(b, Godot4, benchDicts(100_000))
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "dicts/s")
}

func BenchmarkGodot4SmallValueEncode(b *testing.B) {
	for _, sv := range smallValues {
		b.Run(sv.name, func(b *testing.B) { benchEncode(b, Godot4, sv.v) })
	}
}

func BenchmarkGodot4SmallValueDecode(b *testing.B) {
	for _, sv := range smallValues {
		b.Run(sv.name, func(b *testing.B) { benchDecode(b, Godot4, sv.v) })
	}
}
