package bitproto

import (
	"math/rand/v2"
	"testing"
)

// benchRow is the 6-field struct of the StructSlice10k workload.
type benchRow struct {
	ID      int64
	Name    string
	X, Y    int32
	Visible bool
	Scale   float32
}

type benchMsg struct {
	Rows []benchRow
}

const benchRows = 10_000

func makeBenchMsg() *benchMsg {
	rng := rand.New(rand.NewPCG(7, 7))
	m := &benchMsg{Rows: make([]benchRow, benchRows)}
	names := []string{"Tree", "Rock", "Lamp", "Fountain", "Bench", "Gate"}
	for i := range m.Rows {
		m.Rows[i] = benchRow{
			ID:      rng.Int64N(1 << 40),
			Name:    names[rng.IntN(len(names))],
			X:       rng.Int32N(4000) - 2000,
			Y:       rng.Int32N(4000) - 2000,
			Visible: rng.IntN(2) == 0,
			Scale:   rng.Float32(),
		}
	}
	return m
}

// BenchmarkBitProtocolStructSlice10kEncode encodes one message holding a 10 000-element slice of
// a 6-field struct (the reference: 367 ns per row).
func BenchmarkBitProtocolStructSlice10kEncode(b *testing.B) {
	m := makeBenchMsg()
	out, err := Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, len(out)+8)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = Append(buf[:0], m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

// BenchmarkBitProtocolStructSlice10kDecode decodes it (the reference: 228 ns per row), into a
// value reused from one decode to the next, whose slice Unmarshal reuses.
func BenchmarkBitProtocolStructSlice10kDecode(b *testing.B) {
	data, err := Marshal(makeBenchMsg())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var m benchMsg
	for b.Loop() {
		if err := Unmarshal(data, &m); err != nil || len(m.Rows) != benchRows {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}
