package godot

import (
	"testing"
	"time"

	"github.com/gamewire/gamewire/explain"
)

// reportDecodeRatio reports, as the metric "decode-ratio", how long op takes compared with
// decoding data without an explanation (the yardstick): the two run alternately, copyRounds
// rounds each, in CPU time, right after the benchmark.
func reportDecodeRatio(b *testing.B, data []byte, op func()) {
	m := dm(DecodeOptions{})
	// Each round runs both enough times to take a few milliseconds, so that a small input is
	// timed above the clock's resolution.
	reps := 1
	if per := b.Elapsed() / time.Duration(max(b.N, 1)); per > 0 {
		reps = max(1, int(5*time.Millisecond/per))
	}
	var tOp, tDec time.Duration
	for range copyRounds {
		t0 := cpuTime()
		for range reps {
			op()
		}
		t1 := cpuTime()
		for range reps {
			if _, _, err := m.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
		tOp, tDec = tOp+t1-t0, tDec+cpuTime()-t1
	}
	b.ReportMetric(float64(tOp)/float64(tDec), "decode-ratio")
}

// BenchmarkExplainNestedArraysDecode explains 1 MB of Arrays nested 100 deep within the default
// field budget (the explanation stops at 100 000 fields; decoding runs to the end).
func BenchmarkExplainNestedArraysDecode(b *testing.B) {
	data := deepArrays(b, 1<<20, 100)
	m := dm(DecodeOptions{})
	op := func() {
		if _, err := m.Explain(data, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		op()
	}
	reportDecodeRatio(b, data, op)
}

// BenchmarkExplainDictionaryDecode explains a small Dictionary whole (about 40 fields).
func BenchmarkExplainDictionaryDecode(b *testing.B) {
	d := &Dictionary{}
	d.Set("name", "Ann")
	d.Set("pos", Vector2{X: 1, Y: 2})
	d.Set("items", []any{int64(1), "two", 3.5})
	data, err := em(EncodeOptions{}).Append(nil, d)
	if err != nil {
		b.Fatal(err)
	}
	m := dm(DecodeOptions{})
	op := func() {
		if _, err := m.Explain(data, explain.NewBudget(0)); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		op()
	}
	reportDecodeRatio(b, data, op)
}
