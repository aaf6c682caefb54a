package godot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"unsafe"
)

// boxCase is a top-level value that Decode boxes in a P's chunk, and its encoding.
type boxCase struct {
	d    Dialect
	v    any
	data []byte
}

func boxCases(t testing.TB, r *rand.Rand, n int) []boxCase {
	t.Helper()
	cs := make([]boxCase, 0, n)
	for i := range n {
		f := func() float32 { return float32(r.NormFloat64() * 1e3) }
		var v any
		switch i % 6 {
		case 0:
			v = int64(r.Uint64()) >> r.IntN(64) // 64-bit and 32-bit encodings, and small ints
		case 1:
			v = r.NormFloat64()
		case 2:
			v = float64(f()) // 32-bit encoding
		case 3:
			v = Vector2{f(), f()}
		case 4:
			v = Vector3{f(), f(), f()}
		case 5:
			v = Color{f(), f(), f(), f()}
		}
		d := Dialect(i / 6 % 2)
		data, err := em(EncodeOptions{Dialect: d}).Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, boxCase{d, v, data})
	}
	return cs
}

// decodeAll decodes every case and checks the values.
func decodeAll(t testing.TB, cs []boxCase) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		v, n, err := dm(DecodeOptions{Dialect: c.d}).Decode(c.data)
		if err != nil || n != len(c.data) || v != c.v {
			t.Errorf("%v % x: %#v, %d, %v; want %#v", c.d, c.data, v, n, err, c.v)
			return nil
		}
		out[i] = v
	}
	return out
}

// Decode boxes top-level ints, floats, Vector2s, Vector3s and Colors without an allocation each
// (a new chunk every 32 to 64 values), which the decoder would not: this also shows that Decode
// takes its fast path for them.
func TestDecodeScalarsDoNotAllocateAsTheDecoderDoes(t *testing.T) {
	for _, v := range []any{int64(123456), int64(-1 << 40), 1.5, math.Pi, Vector2{1, 2}, Vector3{1, 2, 3}, Color{1, 2, 3, 4}} {
		for _, d := range []Dialect{Godot3, Godot4} {
			data, err := em(EncodeOptions{Dialect: d}).Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			o := dm(DecodeOptions{Dialect: d})
			// AllocsPerRun reports whole allocations per run: a chunk every 32 runs or more
			// rounds to 0.
			if a := testing.AllocsPerRun(1000, func() { _, _, _ = o.Decode(data) }); a != 0 {
				t.Errorf("%v %#v: Decode made %v allocations per value", d, v, a)
			}
			if a := testing.AllocsPerRun(100, func() { _, _, _ = o.o.decode(data) }); a == 0 {
				t.Errorf("%v %#v: the decoder made no allocation", d, v)
			}
		}
	}
}

// Values boxed in the chunks stay what they were decoded as, across garbage collections, while
// goroutines on every P decode at once and GOMAXPROCS changes (which replaces the table of
// chunks). Run with -race, which also checks that only one goroutine at a time claims from a
// P's chunk (slabOwner).
func TestDecodeBoxStress(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	// The cases are made here: t.Fatal is for the test's goroutine.
	cases := make([][][]boxCase, 8)
	for g := range cases {
		r := rand.New(rand.NewPCG(uint64(g), 9))
		for range rounds {
			cases[g] = append(cases[g], boxCases(t, r, 300))
		}
	}
	var kept [][]any
	var keptCases [][]boxCase
	var mu sync.Mutex
	var wg sync.WaitGroup
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() { // change GOMAXPROCS while the decoders run
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			runtime.GOMAXPROCS(1 + i%5)
			runtime.Gosched()
		}
	}()
	for g := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, cs := range cases[g] {
				vs := decodeAll(t, cs)
				if vs == nil {
					return
				}
				if i%4 == 0 {
					runtime.GC()
				}
				mu.Lock()
				kept, keptCases = append(kept, vs), append(keptCases, cs)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-stopped
	runtime.GC()
	for i, vs := range kept {
		for j, v := range vs {
			if c := keptCases[i][j]; v != c.v {
				t.Fatalf("value %d of batch %d is now %#v; decoded as %#v", j, i, v, c.v)
			}
		}
	}
}

// The boxed values compare, hash and format as the conversions Go makes itself.
func TestDecodeBoxedValuesAreOrdinary(t *testing.T) {
	cs := boxCases(t, rand.New(rand.NewPCG(1, 2)), 600)
	vs := decodeAll(t, cs)
	m := map[any]int{}
	for i, v := range vs {
		m[v] = i
	}
	for i, c := range cs {
		if j, ok := m[c.v]; !ok || cs[j].v != c.v {
			t.Fatalf("%#v: not found in a map keyed by the decoded values", c.v)
		}
		if got, want := fmt.Sprintf("%#v", vs[i]), fmt.Sprintf("%#v", c.v); got != want {
			t.Fatalf("formats as %s, want %s", got, want)
		}
	}
}

// floatPair gives the memory image of two float32s, as Decode copies it into a chunk, on
// little- and big-endian machines alike.
func TestFloatPair(t *testing.T) {
	for _, v := range [][2]float32{{1, 2}, {-0.5, float32(math.Inf(1))}, {math.MaxFloat32, math.SmallestNonzeroFloat32}} {
		wire := uint64(math.Float32bits(v[0])) | uint64(math.Float32bits(v[1]))<<32
		if got, want := floatPair(wire), *(*uint64)(unsafe.Pointer(&v)); got != want {
			t.Errorf("%v: %#x, want %#x", v, got, want)
		}
	}
}
