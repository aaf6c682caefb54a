package godot

import (
	"fmt"
	"testing"
)

// The benchmarks of issue 5: a Go struct of 8 mixed fields, and 100 000 of them in a slice,
// marshalled and unmarshalled in the Godot 3 dialect, next to decoding the same bytes into the
// generic value model (the …Decode benchmarks) for comparison.

type benchGuild struct {
	Level int32  `godot:"level"`
	Name  string `godot:"name"`
}

type benchPlayer struct {
	ID    int64      `godot:"id"`
	HP    int32      `godot:"hp"`
	Speed float32    `godot:"speed"`
	Score float64    `godot:"score"`
	Name  string     `godot:"name"`
	Pos   Vector3    `godot:"pos"`
	Tags  []string   `godot:"tags"`
	Guild benchGuild `godot:"guild"`
}

func newBenchPlayer(i int) benchPlayer {
	return benchPlayer{
		ID: int64(i) << 20, HP: 100, Speed: 4.5, Score: float64(i) * 0.1,
		Name: fmt.Sprintf("player%d", i), Pos: Vector3{float32(i), 1.5, -2},
		Tags: []string{"red", "team"}, Guild: benchGuild{Level: 3, Name: "gophers"},
	}
}

func benchPlayers(n int) []benchPlayer {
	ps := make([]benchPlayer, n)
	for i := range ps {
		ps[i] = newBenchPlayer(i)
	}
	return ps
}

func BenchmarkGodot3StructMarshal(b *testing.B) {
	s := newBenchPlayer(42)
	enc := em(EncodeOptions{Dialect: Godot3})
	buf, err := enc.Append(nil, &s)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = enc.Append(buf[:0], &s)
	}
}

func BenchmarkGodot3StructUnmarshal(b *testing.B) {
	s := newBenchPlayer(42)
	data, err := em(EncodeOptions{Dialect: Godot3}).Marshal(&s)
	if err != nil {
		b.Fatal(err)
	}
	dec := dm(DecodeOptions{Dialect: Godot3})
	var out benchPlayer
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Unmarshal(data, &out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGodot3StructDecode decodes the bytes of BenchmarkGodot3StructUnmarshal into the
// generic value model, the baseline of the "within 2×" target.
func BenchmarkGodot3StructDecode(b *testing.B) {
	s := newBenchPlayer(42)
	benchDecode(b, Godot3, &s)
}

func BenchmarkGodot3StructSliceMarshal(b *testing.B) {
	ps := benchPlayers(100_000)
	enc := em(EncodeOptions{Dialect: Godot3})
	buf, err := enc.Append(nil, ps)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = enc.Append(buf[:0], ps)
	}
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "structs/s")
}

func BenchmarkGodot3StructSliceUnmarshal(b *testing.B) {
	data, err := em(EncodeOptions{Dialect: Godot3}).Marshal(benchPlayers(100_000))
	if err != nil {
		b.Fatal(err)
	}
	dec := dm(DecodeOptions{Dialect: Godot3})
	var out []benchPlayer
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Unmarshal(data, &out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "structs/s")
}

// BenchmarkGodot3StructSliceDecode decodes the bytes of BenchmarkGodot3StructSliceUnmarshal into
// the generic value model.
func BenchmarkGodot3StructSliceDecode(b *testing.B) {
	benchDecode(b, Godot3, benchPlayers(100_000))
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "structs/s")
}

// BenchmarkGodot3PoolVector3ArrayUnmarshalReuse decodes 1 000 000 Vector3 into a slice that
// already has the capacity: one copy, with no page faults for fresh memory.
func BenchmarkGodot3PoolVector3ArrayUnmarshalReuse(b *testing.B) {
	data, err := em(EncodeOptions{Dialect: Godot3}).Marshal(benchVectors())
	if err != nil {
		b.Fatal(err)
	}
	dec := dm(DecodeOptions{Dialect: Godot3})
	out := make([]Vector3, 0, 1_000_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Unmarshal(data, &out); err != nil {
			b.Fatal(err)
		}
	}
	reportCopyRatio(b, len(data), false, func() { _ = dec.Unmarshal(data, &out) })
}

func BenchmarkGodot3SmallValueUnmarshal(b *testing.B) {
	dec := dm(DecodeOptions{Dialect: Godot3})
	b.Run("Vector3", func(b *testing.B) {
		data, _ := em(EncodeOptions{Dialect: Godot3}).Marshal(Vector3{1, 2, 3})
		var v Vector3
		benchUnmarshal(b, dec, data, &v)
	})
	b.Run("Int", func(b *testing.B) {
		data, _ := em(EncodeOptions{Dialect: Godot3}).Marshal(int64(123456))
		var v int64
		benchUnmarshal(b, dec, data, &v)
	})
	b.Run("String", func(b *testing.B) {
		data, _ := em(EncodeOptions{Dialect: Godot3}).Marshal("hello")
		var v string
		benchUnmarshal(b, dec, data, &v)
	})
	b.Run("IntIntoInt32", func(b *testing.B) {
		data, _ := em(EncodeOptions{Dialect: Godot3}).Marshal(int64(123456))
		var v int32
		benchUnmarshal(b, dec, data, &v)
	})
	b.Run("FloatIntoFloat32", func(b *testing.B) {
		data, _ := em(EncodeOptions{Dialect: Godot3}).Marshal(1.5)
		var v float32
		benchUnmarshal(b, dec, data, &v)
	})
}

func benchUnmarshal(b *testing.B, dec DecodeMode, data []byte, v any) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Unmarshal(data, v); err != nil {
			b.Fatal(err)
		}
	}
}
