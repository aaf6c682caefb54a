package godot

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot/wire"
)

// keyKinds are the key types of the Dictionaries that the key tests and benchmarks decode: one
// per Variant type that can be a key (every type but Object, whose decoded form is an ObjectID),
// each with a function returning the i-th distinct key of that type.
var keyKinds = []struct {
	name string
	t    Type
	key  func(i int) any
}{
	{"Int", TypeInt, func(i int) any { return int64(i) }},
	{"Bool", TypeBool, func(i int) any { return []any{i%2 == 0, int64(i)} }}, // only two bools: inside an Array
	{"Float", TypeFloat, func(i int) any { return float64(i) + 0.5 }},
	{"String", TypeString, func(i int) any { return fmt.Sprintf("k%d", i) }},
	{"StringName", TypeStringName, func(i int) any { return StringName(fmt.Sprintf("k%d", i)) }},
	{"Vector2", TypeVector2, func(i int) any { return Vector2{float32(i), 1} }},
	{"Vector2i", TypeVector2i, func(i int) any { return Vector2i{int32(i), 1} }},
	{"Rect2", TypeRect2, func(i int) any { return Rect2{Vector2{float32(i), 1}, Vector2{2, 3}} }},
	{"Rect2i", TypeRect2i, func(i int) any { return Rect2i{Vector2i{int32(i), 1}, Vector2i{2, 3}} }},
	{"Vector3", TypeVector3, func(i int) any { return Vector3{float32(i), 1, 2} }},
	{"Vector3i", TypeVector3i, func(i int) any { return Vector3i{int32(i), 1, 2} }},
	{"Transform2D", TypeTransform2D, func(i int) any { return Transform2D{Origin: Vector2{float32(i), 0}} }},
	{"Vector4", TypeVector4, func(i int) any { return Vector4{float32(i), 1, 2, 3} }},
	{"Vector4i", TypeVector4i, func(i int) any { return Vector4i{int32(i), 1, 2, 3} }},
	{"Plane", TypePlane, func(i int) any { return Plane{Vector3{0, 1, 0}, float32(i)} }},
	{"Quaternion", TypeQuaternion, func(i int) any { return Quaternion{float32(i), 0, 0, 1} }},
	{"AABB", TypeAABB, func(i int) any { return AABB{Vector3{float32(i), 0, 0}, Vector3{1, 1, 1}} }},
	{"Basis", TypeBasis, func(i int) any { return Basis{X: Vector3{float32(i), 0, 0}} }},
	{"Transform3D", TypeTransform3D, func(i int) any { return Transform3D{Origin: Vector3{float32(i), 0, 0}} }},
	{"Projection", TypeProjection, func(i int) any { return Projection{W: Vector4{float32(i), 0, 0, 1}} }},
	{"Color", TypeColor, func(i int) any { return Color{float32(i), 0, 0, 1} }},
	{"NodePath", TypeNodePath, func(i int) any { return NodePath{Names: []string{"n", fmt.Sprint(i)}} }},
	{"RID", TypeRID, func(i int) any { return RID(i + 1) }},
	{"ObjectID", TypeObject, func(i int) any { return ObjectID(i + 1) }},
	{"SameObjectID", TypeObject, func(i int) any { return ObjectID(7) }}, // every key a new object
	{"Callable", TypeCallable, func(i int) any { return []any{Callable{}, int64(i)} }},
	{"Signal", TypeSignal, func(i int) any { return Signal{Name: "s", Object: ObjectID(i + 1)} }},
	{"Dictionary", TypeDictionary, func(i int) any {
		return &Dictionary{Entries: []Entry{{int64(i), nil}, {"b", int64(-i)}}}
	}},
	{"Array", TypeArray, func(i int) any { return []any{int64(i)} }},
	{"NestedArray", TypeArray, func(i int) any { return []any{[]any{"x", []any{int64(i)}}} }},
	{"PackedByteArray", TypePackedByteArray, func(i int) any { return []byte{byte(i), byte(i >> 8), byte(i >> 16)} }},
	{"PackedInt32Array", TypePackedInt32Array, func(i int) any { return []int32{int32(i)} }},
	{"PackedInt64Array", TypePackedInt64Array, func(i int) any { return []int64{int64(i)} }},
	{"PackedFloat32Array", TypePackedFloat32Array, func(i int) any { return []float32{float32(i)} }},
	{"PackedFloat64Array", TypePackedFloat64Array, func(i int) any { return []float64{float64(i)} }},
	{"PackedStringArray", TypePackedStringArray, func(i int) any { return []string{fmt.Sprint(i)} }},
	{"PackedVector2Array", TypePackedVector2Array, func(i int) any { return []Vector2{{float32(i), 0}} }},
	{"PackedVector3Array", TypePackedVector3Array, func(i int) any { return []Vector3{{float32(i), 0, 0}} }},
	{"PackedColorArray", TypePackedColorArray, func(i int) any { return []Color{{float32(i), 0, 0, 1}} }},
	{"PackedVector4Array", TypePackedVector4Array, func(i int) any { return []Vector4{{float32(i), 0, 0, 0}} }},
	{"NaNFloat32Array", TypePackedFloat32Array, func(i int) any {
		// Godot 3 finds a PoolRealArray holding a NaN unequal to itself: no such keys merge.
		return []float32{float32(math.NaN())}
	}},
}

// keyDict encodes a Dictionary of n entries whose keys are the first n results of key and whose
// values are null.
func keyDict(tb testing.TB, d Dialect, key func(int) any, n int) []byte {
	return keyDictValues(tb, d, key, func(int) any { return nil }, n)
}

// keyDictValues encodes a Dictionary of n entries key(i): value(i) as they are, without merging
// equal keys as the encoder does.
func keyDictValues(tb testing.TB, d Dialect, key, value func(int) any, n int) []byte {
	tb.Helper()
	id, _ := d.WireID(TypeDictionary)
	b := wire.AppendUint32(wire.AppendUint32(nil, id), uint32(n))
	enc := em(EncodeOptions{Dialect: d})
	for i := range n {
		var err error
		if b, err = enc.Append(b, key(i)); err != nil {
			tb.Fatal(err)
		}
		if b, err = enc.Append(b, value(i)); err != nil {
			tb.Fatal(err)
		}
	}
	return b
}

// decodeTime returns the shortest of tries decodes of data, each started after a garbage
// collection, so that one decode does not pay for the garbage of another.
func decodeTime(tb testing.TB, o DecodeOptions, data []byte, tries int) time.Duration {
	best := time.Duration(math.MaxInt64)
	for range tries {
		runtime.GC()
		start := time.Now()
		if _, _, err := dm(o).Decode(data); err != nil {
			tb.Fatal(err)
		}
		best = min(best, time.Since(start))
	}
	return best
}

// Decoding a Dictionary takes time linear in its size, whatever its keys: keys that have no cheap
// hash (Arrays, objects, math values …) must not be compared with every earlier key. Each key type
// is timed against int keys, per byte of input, at 64 000 entries, where the quadratic decoder
// took half a minute for Array keys; the best of several tries is kept, so that a loaded machine
// does not fail the test, which allows a factor of 20 where the quadratic cost was thousands.
func TestDictionaryKeysLinear(t *testing.T) {
	const n = 64_000
	const factor = 20
	for _, d := range []Dialect{Godot3, Godot4} {
		o := DecodeOptions{Dialect: d}
		base := keyDict(t, d, keyKinds[0].key, n)
		perByte := float64(decodeTime(t, o, base, 5)) / float64(len(base))
		for _, k := range keyKinds[1:] {
			if !d.Has(k.t) {
				continue
			}
			data := keyDict(t, d, k.key, n)
			limit := time.Duration(factor * perByte * float64(len(data)))
			var took time.Duration
			for try := range 4 {
				took = decodeTime(t, o, data, 1)
				if took <= limit || took > 50*limit {
					break
				}
				if try == 1 {
					// The machine may have been busy during the int-key run too.
					perByte = min(perByte, float64(decodeTime(t, o, base, 3))/float64(len(base)))
					limit = time.Duration(factor * perByte * float64(len(data)))
				}
			}
			t.Logf("%s %s keys: %.1f× the time of int keys per byte", d, k.name, float64(took)/(perByte*float64(len(data))))
			if took > limit {
				t.Errorf("%s %s keys: %d entries (%d bytes) took %v, more than %d× the %v of int keys per byte",
					d, k.name, n, len(data), took, factor, time.Duration(perByte*float64(len(data))))
			}
		}
	}
}

// Every kind of key still merges with an equal one (the last value wins), however many keys come
// before it, and keys that are equal to nothing never merge.
func TestDictionaryKeysMerge(t *testing.T) {
	const n = 100
	for _, d := range []Dialect{Godot3, Godot4} {
		for _, k := range keyKinds {
			if !d.Has(k.t) {
				continue
			}
			data := keyDictValues(t, d, func(i int) any { return k.key(i % n) }, func(i int) any { return int64(i) }, 2*n)
			v, _, err := dm(DecodeOptions{Dialect: d}).Decode(data)
			if err != nil {
				t.Fatalf("%s %s: %v", d, k.name, err)
			}
			got := v.(*Dictionary)
			never := k.name == "ObjectID" || k.name == "SameObjectID" || k.name == "Dictionary" && d == Godot3 ||
				k.name == "NaNFloat32Array" && d == Godot3
			want := n
			if never {
				want = 2 * n
			} else if k.name == "NaNFloat32Array" || k.name == "RID" && d == Godot3 {
				want = 1 // Godot 4: NaN equals NaN; Godot 3 sends no RID's id
			}
			if len(got.Entries) != want {
				t.Errorf("%s %s: %d entries, want %d", d, k.name, len(got.Entries), want)
				continue
			}
			if !never && want == n {
				for i, e := range got.Entries {
					if e.Value != int64(n+i) {
						t.Errorf("%s %s: entry %d has value %v, want %d", d, k.name, i, e.Value, n+i)
						break
					}
				}
			}
		}
	}
}

// BenchmarkGodot4DictKeysDecode decodes Dictionaries of 10^3 … 10^6 entries with keys of every
// type. Each iteration also decodes a Dictionary of as many int keys, the yardstick: x-int is the
// time of the keys of the type per time of the int keys, which does not depend on the machine's
// load, and stays flat as the size grows since decoding is linear in the number of keys for every
// key type (ns/entry is the time per entry of the type's Dictionary).
func BenchmarkGodot4DictKeysDecode(b *testing.B) { benchDictKeys(b, Godot4) }

// BenchmarkGodot3DictKeysDecode is BenchmarkGodot4DictKeysDecode for Godot 3.
func BenchmarkGodot3DictKeysDecode(b *testing.B) { benchDictKeys(b, Godot3) }

func benchDictKeys(b *testing.B, d Dialect) {
	for _, k := range keyKinds {
		if !d.Has(k.t) {
			continue
		}
		for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
			b.Run(fmt.Sprintf("%s/%d", k.name, n), func(b *testing.B) {
				data := keyDict(b, d, k.key, n)
				ints := keyDict(b, d, keyKinds[0].key, n)
				o := DecodeOptions{Dialect: d, MaxElements: 1 << 30}
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				var keys, yard time.Duration
				for b.Loop() {
					start := time.Now()
					if _, _, err := dm(o).Decode(data); err != nil {
						b.Fatal(err)
					}
					mid := time.Now()
					if _, _, err := dm(o).Decode(ints); err != nil {
						b.Fatal(err)
					}
					keys, yard = keys+mid.Sub(start), yard+time.Since(mid)
				}
				b.ReportMetric(float64(keys.Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
				b.ReportMetric(float64(keys)/float64(yard), "x-int")
			})
		}
	}
}

// nestedKeyDicts encodes levels Dictionaries of 9 entries each, the first key of each being the
// next Dictionary: every level hashes its keys, so that without remembering the hashes of the
// Dictionaries nested in keys, the innermost would be hashed once per level.
func nestedKeyDicts(d Dialect, levels int) []byte {
	null := header(d, TypeNil, 0)
	var rest []byte // the entries 1: null … 8: null
	for i := range uint32(8) {
		rest = append(append(rest, u32(header(d, TypeInt, 0), i+1)...), null...)
	}
	data := dictOf(d, 0, nil)
	for range levels {
		data = dictOf(d, 9, append(append(data, null...), rest...))
	}
	return data
}

// Dictionaries nested in the keys of Dictionaries nested in keys, 1 000 levels deep, decode in
// time linear in their size too.
func TestDictionaryKeysNestedLinear(t *testing.T) {
	const factor = 20
	o := DecodeOptions{Dialect: Godot4}
	data := nestedKeyDicts(Godot4, 1000)
	base := keyDict(t, Godot4, func(i int) any { return int64(i) }, len(data)/16)
	var took, limit time.Duration
	for range 4 {
		perByte := float64(decodeTime(t, o, base, 3)) / float64(len(base))
		limit = time.Duration(factor * perByte * float64(len(data)))
		if took = decodeTime(t, o, data, 2); took <= limit || took > 50*limit {
			break
		}
	}
	t.Logf("%d bytes: %v, limit %v", len(data), took, limit)
	if took > limit {
		t.Errorf("1 000 levels of Dictionaries in keys (%d bytes) took %v, more than %d× int keys per byte (%v)", len(data), took, factor, limit/factor)
	}
}

// bigDict encodes a Dictionary of n int keys, in reverse order if reversed, with null values.
func bigDict(d Dialect, n int, reversed bool) []byte {
	var entries []byte
	for i := range n {
		k := i
		if reversed {
			k = n - 1 - i
		}
		entries = append(append(entries, u32(header(d, TypeInt, 0), uint32(k))...), header(d, TypeNil, 0)...)
	}
	return dictOf(d, n, entries)
}

// Two Dictionary keys of 32 000 entries each are compared in linear time (they were compared
// entry by entry against every entry): the same entries in the same order are one key, in another
// order two keys, as in Godot 4.6 (whose Dictionary hash follows the order); so for KeyEqual.
func TestDictionaryKeysLargeEqual(t *testing.T) {
	const n, factor = 32_000, 20
	o := DecodeOptions{Dialect: Godot4}
	null := header(Godot4, TypeNil, 0)
	pair := func(reversed bool) []byte {
		return dictOf(Godot4, 2, append(append(append(bigDict(Godot4, n, false), null...),
			bigDict(Godot4, n, reversed)...), u32(header(Godot4, TypeInt, 0), 1)...))
	}
	for _, reversed := range []bool{false, true} {
		v, _, err := dm(o).Decode(pair(reversed))
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		if reversed {
			want = 2
		}
		if d := v.(*Dictionary); len(d.Entries) != want {
			t.Fatalf("two Dictionary keys, the second reversed %v: %d entries, want %d", reversed, len(d.Entries), want)
		}
	}
	data := pair(false)
	base := bigDict(Godot4, n, false)
	var took, limit time.Duration
	for range 4 {
		perByte := float64(decodeTime(t, o, base, 3)) / float64(len(base))
		limit = time.Duration(factor * perByte * float64(len(data)))
		if took = decodeTime(t, o, data, 2); took <= limit || took > 50*limit {
			break
		}
	}
	t.Logf("%d bytes: %v, limit %v", len(data), took, limit)
	if took > limit {
		t.Errorf("two equal Dictionary keys of %d entries (%d bytes) took %v, more than %d× int keys per byte (%v)", n, len(data), took, factor, limit/factor)
	}

	a, _, _ := dm(o).Decode(bigDict(Godot4, n, false))
	b, _, _ := dm(o).Decode(bigDict(Godot4, n, false))
	c, _, _ := dm(o).Decode(bigDict(Godot4, n, true))
	start := time.Now()
	if !KeyEqual(a, b) || KeyEqual(a, c) {
		t.Error("KeyEqual of large Dictionaries is wrong")
	}
	if e := time.Since(start); e > time.Duration(factor*float64(limit)/float64(len(data))*float64(len(base))) {
		t.Errorf("KeyEqual of two Dictionaries of %d entries took %v", n, e)
	}
}
