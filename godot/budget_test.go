package godot

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot/wire"
)

// chunkSlack is what a decode may allocate beyond its charged budget: the unused tails of the
// chunks in which it packs small values, and the decoder itself (see DecodeOptions.MaxAllocBytes).
const chunkSlack = 128 << 10

// shape is an adversarial input.
type shape struct {
	name string
	o    DecodeOptions
	data []byte
}

// sampleValues returns, for each type of dialect d, small values of that type: the zero value
// and a non-empty one.
func sampleValues(d Dialect) map[Type][]any {
	m := map[Type][]any{
		TypeNil:                {nil},
		TypeBool:               {false},
		TypeInt:                {int64(0), int64(1 << 40)},
		TypeFloat:              {0.0, 1.5},
		TypeString:             {"", "abcde"},
		TypeVector2:            {Vector2{}},
		TypeRect2:              {Rect2{}},
		TypeVector3:            {Vector3{}},
		TypeTransform2D:        {Transform2D{}},
		TypeVector4:            {Vector4{}},
		TypePlane:              {Plane{}},
		TypeQuaternion:         {Quaternion{}},
		TypeAABB:               {AABB{}},
		TypeBasis:              {Basis{}},
		TypeTransform3D:        {Transform3D{}},
		TypeProjection:         {Projection{}},
		TypeColor:              {Color{}},
		TypeVector2i:           {Vector2i{}},
		TypeRect2i:             {Rect2i{}},
		TypeVector3i:           {Vector3i{}},
		TypeVector4i:           {Vector4i{}},
		TypeStringName:         {StringName(""), StringName("a/b:c")},
		TypeNodePath:           {NodePath{}, NodePath{Names: []string{"a", "b"}, SubNames: []string{"c"}}},
		TypeRID:                {RID(0), RID(7)},
		TypeObject:             {ObjectID(1), &Object{Class: "Node"}},
		TypeCallable:           {Callable{}},
		TypeSignal:             {Signal{}},
		TypeDictionary:         {&Dictionary{}, NewDictionary(int64(1), nil)},
		TypeArray:              {[]any{}, []any{nil}},
		TypePackedByteArray:    {[]byte{}, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		TypePackedInt32Array:   {[]int32{}, []int32{1, 2}},
		TypePackedInt64Array:   {[]int64{}, []int64{1, 2}},
		TypePackedFloat32Array: {[]float32{}, []float32{1}},
		TypePackedFloat64Array: {[]float64{}, []float64{1}},
		TypePackedStringArray:  {[]string{}, []string{"", "a"}},
		TypePackedVector2Array: {[]Vector2{}, []Vector2{{}}},
		TypePackedVector3Array: {[]Vector3{}, []Vector3{{}}},
		TypePackedColorArray:   {[]Color{}, []Color{{}}},
		TypePackedVector4Array: {[]Vector4{}, []Vector4{{}}},
	}
	out := map[Type][]any{}
	for t, vs := range m {
		if d.Has(t) {
			out[t] = vs
		}
	}
	return out
}

func u32(b []byte, v uint32) []byte { return wire.AppendUint32(b, v) }

func header(d Dialect, t Type, flags uint32) []byte {
	id, _ := d.WireID(t)
	return u32(nil, id|flags)
}

// repeatBytes returns n copies of e.
func repeatBytes(e []byte, n int) []byte { return []byte(strings.Repeat(string(e), n)) }

func arrayOf(d Dialect, n int, elems []byte) []byte {
	return append(u32(header(d, TypeArray, 0), uint32(n)), elems...)
}

// typedArrayOf is a Godot 4 Array[t] of n elements.
func typedArrayOf(t Type, n int, elems []byte) []byte {
	id, _ := Godot4.WireID(t)
	b := u32(header(Godot4, TypeArray, uint32(ContainerBuiltin)<<wire.ContainerKeyShift), id)
	return append(u32(b, uint32(n)), elems...)
}

// typedDictOf is a Godot 4 Dictionary[k, Variant] of n entries.
func typedDictOf(k Type, n int, entries []byte) []byte {
	id, _ := Godot4.WireID(k)
	b := u32(header(Godot4, TypeDictionary, uint32(ContainerBuiltin)<<wire.ContainerKeyShift), id)
	return append(u32(b, uint32(n)), entries...)
}

func dictOf(d Dialect, n int, entries []byte) []byte {
	return append(u32(header(d, TypeDictionary, 0), uint32(n)), entries...)
}

func godotString(d Dialect, t Type, s string) []byte {
	return wire.AppendString(header(d, t, 0), s)
}

// adversarialShapes returns inputs that make the decoder allocate as much as possible per byte:
// containers full of the smallest value of every type, nested containers, Dictionaries with many
// keys of every type, and every conversion a typed container makes, for both dialects.
func adversarialShapes(t testing.TB) []shape {
	var shapes []shape
	add := func(name string, o DecodeOptions, data []byte) {
		shapes = append(shapes, shape{fmt.Sprintf("%s %s", o.Dialect, name), o, data})
	}
	const size = 64 << 10 // input bytes of each repeated shape
	for _, d := range []Dialect{Godot3, Godot4} {
		o := DecodeOptions{Dialect: d, AllowObjects: true}
		enc := em(EncodeOptions{Dialect: d})
		samples := sampleValues(d)
		var encoded [][]byte
		var types []Type
		for ty, vs := range samples {
			for i, v := range vs {
				e, err := enc.Append(nil, v)
				if err != nil {
					t.Fatalf("%s %v: %v", d, v, err)
				}
				encoded, types = append(encoded, e), append(types, ty)
				n := max(size/len(e), 1)
				name := fmt.Sprintf("%s#%d", ty, i)
				add("Array of "+name, o, arrayOf(d, n, repeatBytes(e, n)))
				add("Array of [1 "+name+"]", o, arrayOf(d, n/2, repeatBytes(arrayOf(d, 1, e), n/2)))
				add("Dictionary of "+name+": "+name, o, dictOf(d, n/2, repeatBytes(append(e, e...), n/2)))
				var distinct []byte
				for k := range n / 2 {
					distinct = append(append(distinct, header(d, TypeInt, 0)...), u32(nil, uint32(k))...)
					distinct = append(distinct, e...)
				}
				add("Dictionary of int: "+name, o, dictOf(d, n/2, distinct))
				add("Dictionary of {"+name+": null}: null", o,
					dictOf(d, n/2, repeatBytes(append(dictOf(d, 1, append(e, header(d, TypeNil, 0)...)), header(d, TypeNil, 0)...), n/2)))
				add("Array of 1000-deep "+name, o, append(repeatBytes(arrayOf(d, 1, nil), 1000), e...))
			}
		}
		// Dictionaries with many distinct keys of every type.
		for _, k := range keyKinds {
			if d.Has(k.t) {
				add("Dictionary of 4000 "+k.name+" keys", o, keyDict(t, d, k.key, 4000))
			}
		}
		// Big counts of empty things.
		add("Object of empty properties", o, append(u32(godotString(d, TypeObject, "Node"), size/8),
			repeatBytes(append(u32(nil, 0), header(d, TypeNil, 0)...), size/8)...))
		np := u32(header(d, TypeNodePath, 0), wire.NodePathNewFormat|size/4)
		add("NodePath of empty names", o, append(append(np, 0, 0, 0, 0, 0, 0, 0, 0), repeatBytes(u32(nil, 0), size/4)...))
		add("PackedStringArray of empty strings", o, append(u32(header(d, TypePackedStringArray, 0), size/4), repeatBytes(u32(nil, 0), size/4)...))
		path := strings.Repeat("a/", size/2)
		add("legacy NodePath a/a/…", DecodeOptions{Dialect: d, LegacyNodePath: true}, godotString(d, TypeNodePath, path))
		add("legacy NodePath ://…", DecodeOptions{Dialect: d, LegacyNodePath: true}, godotString(d, TypeNodePath, ":"+strings.Repeat("/", size)))
		add("1000-deep Dictionaries", o, append(repeatBytes(dictOf(d, 1, header(d, TypeNil, 0)), 1000), header(d, TypeNil, 0)...))

		if d != Godot4 {
			continue
		}
		// Every conversion of a typed container: each sample value in an Array[U] and as the
		// key of a Dictionary[U, Variant], for every type U.
		for target := range samples {
			for i, e := range encoded {
				n := max(size/4/len(e), 1)
				name := fmt.Sprintf("%s#%d", types[i], i)
				add(fmt.Sprintf("Array[%s] of %s", target, name), o, typedArrayOf(target, n, repeatBytes(e, n)))
				add(fmt.Sprintf("Dictionary[%s] of %s keys", target, name), o,
					typedDictOf(target, n/2, repeatBytes(append(e, header(d, TypeNil, 0)...), n/2)))
			}
		}
		// Conversions that create many elements from few bytes.
		big := size * 4
		for _, p := range []any{make([]byte, big), make([]int32, big/4), make([]int64, big/8), make([]float32, big/4),
			make([]float64, big/8), make([]string, big/4), make([]Vector2, big/8), make([]Vector3, big/12),
			make([]Color, big/16), make([]Vector4, big/16)} {
			e, err := enc.Append(nil, p)
			if err != nil {
				t.Fatal(err)
			}
			add(fmt.Sprintf("Array[Array] of %T", p), o, typedArrayOf(TypeArray, 1, e))
			add(fmt.Sprintf("Array[Array] of 64 %T", p), o, typedArrayOf(TypeArray, 64, repeatBytes(e[:8], 64)))
		}
		for _, s := range []string{strings.Repeat("a:", big/2), strings.Repeat("a/", big/2), strings.Repeat(":", big),
			"/" + strings.Repeat("/", big)} {
			add(fmt.Sprintf("Array[NodePath] of %.4q…", s), o, typedArrayOf(TypeNodePath, 1, godotString(d, TypeString, s)))
			add(fmt.Sprintf("Dictionary[NodePath] of %.4q…", s), o, typedDictOf(TypeNodePath, 1, append(godotString(d, TypeString, s), header(d, TypeNil, 0)...)))
		}
		nps, _ := enc.Append(nil, NodePath{Names: []string{strings.Repeat("n", 100)}})
		add("Array[String] of NodePaths", o, typedArrayOf(TypeString, size/len(nps), repeatBytes(nps, size/len(nps))))
		for _, elems := range [][]byte{header(d, TypeNil, 0), append(header(d, TypeInt, 0), 0, 0, 0, 0),
			append(header(d, TypeInt, wire.Flag64), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), nps} {
			arr := arrayOf(d, size/len(elems), repeatBytes(elems, size/len(elems)))
			for _, p := range []Type{TypePackedByteArray, TypePackedInt32Array, TypePackedInt64Array, TypePackedFloat32Array,
				TypePackedFloat64Array, TypePackedStringArray, TypePackedVector2Array, TypePackedVector3Array,
				TypePackedColorArray, TypePackedVector4Array} {
				add(fmt.Sprintf("Array[%s] of Array of %x", p, elems[:4]), o, typedArrayOf(p, 1, arr))
			}
		}
	}
	return shapes
}

// unmarshalTargets are Go destinations for the Unmarshal side of the shapes.
var unmarshalTargets = []func() any{
	func() any { return new(any) },
	func() any { return new([]any) },
	func() any { return new([]int64) },
	func() any { return new([]*int64) },
	func() any { return new([]string) },
	func() any { return new([][]byte) },
	func() any { return new([][]any) },
	func() any { return new([]RawVariant) },
	func() any { return new([]Vector3) },
	func() any { return new([]NodePath) },
	func() any { return new([]struct{ A, B int64 }) },
	func() any { return new([]*struct{ A, B int64 }) },
	func() any { return new(map[string]any) },
	func() any { return new(map[int64]int64) },
	func() any { return new(map[int64]*struct{ A []int32 }) },
	func() any { return new([]map[string]any) },
	func() any { return new(*Dictionary) },
	func() any { return new(struct{ A []any }) },
}

// allocatedBy returns the bytes allocated while f runs (not collecting first, so that it is cheap
// enough to call thousands of times).
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkAlloc runs f, which decodes with budget bytes, and fails if it allocates more than budget
// plus chunkSlack. A measurement over the limit is repeated, so that an allocation by another
// goroutine does not fail the test.
func checkAlloc(t *testing.T, what string, budget int, f func()) {
	t.Helper()
	got := allocatedBy(f)
	for try := 0; try < 2 && got > uint64(budget+chunkSlack); try++ {
		got = min(got, allocatedBy(f))
	}
	if got > uint64(budget+chunkSlack) {
		t.Errorf("%s: allocated %d bytes, more than the budget of %d bytes plus %d", what, got, budget, chunkSlack)
	}
}

// Decoding any input allocates no more than DecodeOptions.MaxAllocBytes (plus chunkSlack): with the
// default budget, DefaultMaxAllocFactor × len(data) + DefaultMaxAllocSlack, which every shape
// fits (none fails with ErrAllocLimit); and with budgets too small for the shapes, which then fail
// with ErrAllocLimit before allocating more. Both dialects, Decode and Unmarshal.
func TestAllocationBudget(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	shapes := adversarialShapes(t)
	if len(shapes) < 2000 {
		t.Fatalf("only %d shapes", len(shapes))
	}
	for _, s := range shapes {
		def := DefaultMaxAllocFactor*len(s.data) + DefaultMaxAllocSlack
		var err error
		checkAlloc(t, s.name+" Decode", def, func() { _, _, err = dm(s.o).Decode(s.data) })
		if errors.Is(err, ErrAllocLimit) {
			t.Errorf("%s (%d bytes): %v", s.name, len(s.data), err)
		}
		for _, budget := range []int{len(s.data), 4 * len(s.data)} {
			o := s.o
			o.MaxAllocBytes = budget
			checkAlloc(t, fmt.Sprintf("%s Decode with MaxAllocBytes %d", s.name, budget), budget, func() { dm(o).Decode(s.data) })
		}
	}
	// Unmarshal into Go destinations: a sample of the shapes, since most do not fit most
	// destinations and fail at once.
	for i, s := range shapes {
		if i%4 != 0 {
			continue
		}
		for _, dst := range unmarshalTargets {
			v := dst()
			what := fmt.Sprintf("%s Unmarshal into %T", s.name, v)
			var err error
			def := DefaultMaxAllocFactor*len(s.data) + DefaultMaxAllocSlack
			checkAlloc(t, what, def, func() { err = dm(s.o).Unmarshal(s.data, v) })
			if errors.Is(err, ErrAllocLimit) {
				t.Errorf("%s (%d bytes): %v", what, len(s.data), err)
			}
			o := s.o
			o.MaxAllocBytes = len(s.data)
			checkAlloc(t, what+" with MaxAllocBytes len(data)", o.MaxAllocBytes, func() { dm(o).Unmarshal(s.data, dst()) })
		}
	}
}

// The conversions and NodePath parsing of issue 10 count against MaxElements.
func TestConvertedElementsCount(t *testing.T) {
	o := DecodeOptions{MaxElements: 10}
	bytes1M, _ := Marshal(make([]byte, 1<<20))
	decodeErr(t, o, typedArrayOf(TypeArray, 1, bytes1M), ErrTooManyElements, -1)
	path := godotString(Godot4, TypeString, strings.Repeat("a:", 50_000)+"a")
	decodeErr(t, o, typedArrayOf(TypeNodePath, 1, path), ErrTooManyElements, -1)
	decodeErr(t, o, typedDictOf(TypeNodePath, 1, append(path, header(Godot4, TypeNil, 0)...)), ErrTooManyElements, -1)
	decodeErr(t, DecodeOptions{MaxElements: 10, LegacyNodePath: true}, godotString(Godot4, TypeNodePath, strings.Repeat("a/", 20)), ErrTooManyElements, -1)
	nils := arrayOf(Godot4, 100, repeatBytes(header(Godot4, TypeNil, 0), 100))
	decodeErr(t, DecodeOptions{MaxElements: 150}, typedArrayOf(TypePackedColorArray, 1, nils), ErrTooManyElements, -1)
	// Within the limit, the same values decode.
	for _, data := range [][]byte{typedArrayOf(TypeArray, 1, bytes1M), typedArrayOf(TypeNodePath, 1, path)} {
		if _, _, err := dm(DecodeOptions{}).Decode(data); err != nil {
			t.Error(err)
		}
	}
	// An 8 MiB String made an Array[NodePath] allocates within the default budget.
	huge := typedArrayOf(TypeNodePath, 1, godotString(Godot4, TypeString, strings.Repeat("a:", 4<<20)))
	checkAlloc(t, "Array[NodePath] of an 8 MiB String", DefaultMaxAllocFactor*len(huge)+DefaultMaxAllocSlack, func() { Decode(huge) })
}

// A Go destination with large elements needs more than the default budget: Unmarshal fails with
// ErrAllocLimit instead of allocating 128 bytes per byte of input, and succeeds with MaxAllocBytes set.
func TestUnmarshalBudget(t *testing.T) {
	type big struct{ A [128]int64 }
	data := arrayOf(Godot4, 100_000, repeatBytes(dictOf(Godot4, 0, nil), 100_000))
	var dst []big
	var err error
	checkAlloc(t, "[]big", DefaultMaxAllocFactor*len(data)+DefaultMaxAllocSlack, func() { err = Unmarshal(data, &dst) })
	if !errors.Is(err, ErrAllocLimit) {
		t.Fatalf("Unmarshal of 100 000 empty Dictionaries into []struct{[128]int64}: %v, want ErrAllocLimit", err)
	}
	var de *DecodeError
	if !errors.As(err, &de) || de.Offset != 8 {
		t.Errorf("error %v: want a *DecodeError at offset 8", err)
	}
	if err := dm(DecodeOptions{MaxAllocBytes: 1 << 30}).Unmarshal(data, &dst); err != nil || len(dst) != 100_000 {
		t.Errorf("with MaxAllocBytes 1 GiB: %v, %d elements", err, len(dst))
	}
	if reflect.TypeOf(dst).Elem().Size() != 1024 {
		t.Fatal("big is not 1 KiB")
	}
}
