package bitproto

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gamewire/gamewire/bitstream"
)

// allocated returns the bytes that f allocates. Nothing else may run meanwhile.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMaxAllocCountsWhatIsAllocated decodes the two shapes that allocated twice what the limit
// charged: a slice of 2 796 202 empty slices (reflect.MakeSlice allocated a slice header for
// each, besides the elements the outer slice holds), and a map with 2 796 202 copies of one key
// (the map was sized by the count). The memory a decode allocates stays within MaxAllocBytes.
func TestMaxAllocCountsWhatIsAllocated(t *testing.T) {
	const n = DefaultMaxAllocCeiling / 24 // as many slice headers as the budget holds
	type T struct{ A, B int64 }
	var w bitstream.Writer
	w.WriteCount(n)
	for range n {
		w.WriteCount(0)
	}
	slices := w.Bytes()
	w = bitstream.Writer{}
	w.WriteCount(n)
	for range n {
		w.WriteString("")
		w.WriteNull(true)
	}
	maps := w.Bytes()
	// A fixed limit, not proportional to the input.
	o := dm(DecodeOptions{MaxAllocBytes: DefaultMaxAllocCeiling})
	var ss [][]int32
	var err error
	got := allocated(func() { err = o.Unmarshal(slices, &ss) })
	if err == nil && len(ss) != n {
		t.Errorf("%d slices decoded, want %d", len(ss), n)
	}
	if got > DefaultMaxAllocCeiling+64<<10 {
		t.Errorf("%d empty slices (%d bytes): %d MB allocated (err %v), MaxAllocBytes is %d MB", n, len(slices), got>>20, err, DefaultMaxAllocCeiling>>20)
	}
	ss = nil
	var m map[string]*T
	got = allocated(func() { err = o.Unmarshal(maps, &m) })
	if err != nil || len(m) != 1 {
		t.Errorf("%d copies of one key: %d entries, %v", n, len(m), err)
	}
	if got > 1<<20 {
		t.Errorf("%d copies of one key (%d bytes): %d KB allocated for a map of one entry", n, len(maps), got>>10)
	}
}

// The types of the allocation test: every kind of container the package decodes, nested.
type (
	allocLeaf struct {
		A int64
		B string
		C []byte
	}
	allocNode struct {
		Name     string
		Kids     []*allocNode
		Props    map[string][]string
		Leaves   []allocLeaf
		Inline   []allocLeaf `bits:",inline"`
		When     time.Time
		Self     *allocLeaf
		Matrix   [][]int32
		Pointers []*allocLeaf
	}
	allocBig struct {
		A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P int64
	}
)

var allocTypes = []reflect.Type{
	reflect.TypeFor[[][]int32](),
	reflect.TypeFor[[]*allocLeaf](),
	reflect.TypeFor[[]allocLeaf](),
	reflect.TypeFor[[]allocBig](),
	reflect.TypeFor[[]*allocBig](),
	reflect.TypeFor[map[string]*allocLeaf](),
	reflect.TypeFor[map[string]allocBig](),
	reflect.TypeFor[map[string][]string](),
	reflect.TypeFor[[]string](),
	reflect.TypeFor[[][]byte](),
	reflect.TypeFor[[][][]bool](),
	reflect.TypeFor[[]map[string]int32](),
	reflect.TypeFor[allocNode](),
	reflect.TypeFor[[]allocNode](),
	reflect.TypeFor[*allocNode](),
}

// allocShape says how gen writes a value: the count of every slice and map, whether pointers
// and objects are null, whether map keys repeat, and how deep it goes before writing nulls
// and empty containers.
type allocShape struct {
	count    int
	null     bool
	sameKeys bool
	depth    int
	rng      *rand.Rand
}

// gen writes a value of type t in the shape s: the wire form the decoder of t reads, or close
// to it (a shape the decoder rejects is as good a test).
func gen(w *bitstream.Writer, t reflect.Type, s *allocShape, depth int, top bool) {
	if w.Len() > 4<<20 { // 512 KB of input at most
		return
	}
	count := s.count
	if s.rng.IntN(4) == 0 {
		count = s.rng.IntN(s.count + 1)
	}
	deep := depth >= s.depth
	switch {
	case t == reflect.TypeFor[time.Time]():
		w.WriteNull(s.null)
		if !s.null {
			w.WriteBits(0, 64)
		}
		return
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		w.WriteBytes(make([]byte, min(count, 64)))
		return
	}
	switch t.Kind() {
	case reflect.Slice:
		if deep {
			w.WriteCount(0)
			return
		}
		w.WriteCount(count)
		for range count {
			gen(w, t.Elem(), s, depth+1, false)
		}
	case reflect.Map:
		if deep {
			w.WriteCount(0)
			return
		}
		w.WriteCount(count)
		for i := range count {
			if s.sameKeys {
				w.WriteString("")
			} else {
				w.WriteString(strconv.Itoa(i))
			}
			gen(w, t.Elem(), s, depth+1, false)
		}
	case reflect.Pointer:
		w.WriteNull(s.null || deep)
		if !s.null && !deep {
			gen(w, t.Elem(), s, depth+1, true)
		}
	case reflect.Struct:
		if !top {
			w.WriteNull(s.null || deep)
			if s.null || deep {
				return
			}
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Tag.Get("bits") == ",inline" && f.Type.Kind() == reflect.Slice {
				w.WriteCount(0)
				continue
			}
			gen(w, f.Type, s, depth+1, false)
		}
	case reflect.String:
		w.WriteString("")
	case reflect.Bool:
		w.WriteBool(false)
	case reflect.Int32, reflect.Int64:
		w.WriteInt32(0)
	}
}

// TestAllocationBound decodes thousands of adversarial inputs into every kind of container
// (empty and null elements, repeated and distinct map keys, nesting, inputs cut short or with
// a bit flipped), and checks that none allocates more than MaxAllocFactor (64) times its
// length plus DefaultMaxAllocSlack, and the error it returns.
func TestAllocationBound(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation measurements in -short mode")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const errorSlack = 2 << 10 // an *Error and its message
	worst, worstWhat := 0.0, ""
	cases := 0
	for _, typ := range allocTypes {
		for _, count := range []int{0, 1, 17, 200, 5000, 60_000} {
			for _, depth := range []int{1, 3} {
				for _, null := range []bool{false, true} {
					for _, same := range []bool{false, true} {
						s := &allocShape{count: count, null: null, sameKeys: same, depth: depth, rng: rng}
						var w bitstream.Writer
						gen(&w, typ, s, 0, true)
						data := w.Bytes()
						inputs := [][]byte{data}
						if len(data) > 1 {
							inputs = append(inputs, data[:rng.IntN(len(data))])
							flipped := append([]byte(nil), data...)
							flipped[rng.IntN(len(flipped))] ^= 1 << rng.IntN(8)
							inputs = append(inputs, flipped)
						}
						for _, in := range inputs {
							v := reflect.New(typ).Interface()
							var err error
							got := allocated(func() { err = Unmarshal(in, v) })
							cases++
							limit := DefaultMaxAllocFactor*len(in) + DefaultMaxAllocSlack + errorSlack
							what := fmt.Sprintf("%v, count %d, depth %d, null %v, same keys %v, %d bytes: %d bytes allocated (err %v)", typ, count, depth, null, same, len(in), got, err)
							if int(got) > limit {
								t.Errorf("%s; the limit is %d", what, limit)
							}
							if err != nil {
								var e *DecodeError
								if !errors.As(err, &e) {
									t.Errorf("%s: not an *Error", what)
								}
							}
							if r := float64(got) / float64(len(in)+1); r > worst && len(in) > 1000 {
								worst, worstWhat = r, what
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d inputs; the most per input byte: %.1f×: %s", cases, worst, worstWhat)
}

// TestBudget checks the allocation limit of MaxAllocBytes: 0 the default proportional to the
// input, capped; a positive value itself; NoLimit none. Other negative values are refused.
func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		o    DecodeOptions
		n    int
		want int
	}{
		{DecodeOptions{}, 0, DefaultMaxAllocSlack},
		{DecodeOptions{}, 100, 64*100 + DefaultMaxAllocSlack},
		{DecodeOptions{}, 10 << 20, DefaultMaxAllocCeiling},
		{DecodeOptions{}, math.MaxInt, DefaultMaxAllocCeiling},
		{DecodeOptions{MaxAllocBytes: 1000}, 10, 1000},
		{DecodeOptions{MaxAllocBytes: 1000}, 1 << 30, 1000},
		{DecodeOptions{MaxAllocBytes: NoLimit}, 10, math.MaxInt},
	} {
		if got := dm(tc.o).budget(tc.n); got != tc.want {
			t.Errorf("%+v, %d bytes of input: budget %d, want %d", tc.o, tc.n, got, tc.want)
		}
	}
	for _, o := range []DecodeOptions{{MaxAllocBytes: -2}, {MaxDepth: -7}} {
		if _, err := o.DecodeMode(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// dm returns the mode of o, which the test knows to be valid.
func dm(o DecodeOptions) DecodeMode {
	m, err := o.DecodeMode()
	if err != nil {
		panic(err)
	}
	return m
}
