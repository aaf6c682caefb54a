package godot

import (
	"hash/maphash"
	"math"
	"slices"
)

// KeyEqual reports whether Godot 4 treats a and b as the same Dictionary key; it is
// [Godot4].KeyEqual. See [Dialect.KeyEqual] for the rules.
func KeyEqual(a, b any) bool { return keyEqual(a, b, keyStringLike, 0) }

// KeyEqual reports whether the dialect's engine treats a and b as the same Dictionary key, the
// comparison its Dictionary makes when a key is stored or looked up.
//
// In both dialects the types must match (the int 1 and the float 1.0 are different keys), numbers
// compare with == except that NaN equals NaN (so +0 and -0 are one key), and Arrays and packed
// arrays compare element by element; full Objects compare by identity (the same *Object), objects
// sent as ids by their id.
//
// Godot 4 also treats a String and a StringName of the same text as one key (also as the keys of
// a Dictionary inside a key, though not as Array elements), and compares Dictionaries by their
// entries, regardless of order.
//
// Godot 3 has no StringName (it is sent as a String, so it equals the String of the same text),
// compares Dictionaries by identity (the same *Dictionary), and compares a PoolRealArray
// ([]float32) by its bytes: it equals another only if their bits are identical and hold no NaN,
// so a PoolRealArray with a NaN is not even equal to itself (Godot 3.2.3 then writes that entry
// as "[Deleted Object]": null, as [EncOptions.Append] does).
func (d Dialect) KeyEqual(a, b any) bool {
	if d == Godot3 {
		return keyEqual(a, b, keyGodot3|keyStringLike, 0)
	}
	return keyEqual(a, b, keyStringLike, 0)
}

// keyMode selects the rules of keyEqual.
type keyMode uint8

const (
	// keyGodot3 applies Godot 3's rules: Dictionaries by identity, PoolRealArrays by their bits
	// without NaN.
	keyGodot3 keyMode = 1 << iota
	// keyFresh answers for keys just decoded: every decoded EncodedObjectAsID (ObjectID) is a new
	// object, which the engine compares by identity, so no two of them are equal.
	keyFresh
	// keyStringLike makes a String and a StringName of the same text equal, as Godot 4 compares
	// the keys of a Dictionary (Godot 3 sends a StringName as a String). It does not apply to
	// Array elements or Dictionary values inside a key.
	keyStringLike
)

// keyEqual implements KeyEqual under the given rules.
func keyEqual(a, b any, m keyMode, depth int) bool {
	if depth > DefaultMaxDepth {
		return false
	}
	inner := m &^ keyStringLike
	if m&keyGodot3 != 0 {
		inner |= keyStringLike // Godot 3 has no StringName: both are Strings
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case string:
		switch b := b.(type) {
		case string:
			return a == b
		case StringName:
			return m&keyStringLike != 0 && a == string(b)
		}
		return false
	case StringName:
		switch b := b.(type) {
		case StringName:
			return a == b
		case string:
			return m&keyStringLike != 0 && string(a) == b
		}
		return false
	case float64:
		b, ok := b.(float64)
		return ok && f64eq(a, b)
	case ObjectID:
		b, ok := b.(ObjectID)
		return ok && m&keyFresh == 0 && a == b
	case *Object:
		b, ok := b.(*Object)
		return ok && a == b
	case *Dictionary:
		b, ok := b.(*Dictionary)
		if !ok {
			return false
		}
		if m&keyGodot3 != 0 {
			return a == b
		}
		return dictEqual(a, b, inner, depth)
	case Dictionary:
		b, ok := b.(Dictionary)
		return ok && m&keyGodot3 == 0 && dictEqual(&a, &b, inner, depth)
	case []any, *TypedArray, TypedArray:
		// Arrays compare their elements, whether typed or not (Array[int]([]) equals []).
		av, _ := arrayValues(a)
		bv, ok := arrayValues(b)
		return ok && slices.EqualFunc(av, bv, func(x, y any) bool { return keyEqual(x, y, inner, depth+1) })
	case NodePath:
		b, ok := b.(NodePath)
		return ok && a.Absolute == b.Absolute && slices.Equal(a.Names, b.Names) && slices.Equal(a.SubNames, b.SubNames)
	case []byte:
		b, ok := b.([]byte)
		return ok && slices.Equal(a, b)
	case []int32:
		b, ok := b.([]int32)
		return ok && slices.Equal(a, b)
	case []int64:
		b, ok := b.([]int64)
		return ok && slices.Equal(a, b)
	case []string:
		b, ok := b.([]string)
		return ok && slices.Equal(a, b)
	case []float32:
		b, ok := b.([]float32)
		if m&keyGodot3 != 0 {
			// Godot 3.2.3 hashes a PoolRealArray's bytes and compares its elements with ==.
			return ok && slices.EqualFunc(a, b, func(x, y float32) bool { return x == y && math.Float32bits(x) == math.Float32bits(y) })
		}
		return ok && slices.EqualFunc(a, b, f32eq)
	case []float64:
		b, ok := b.([]float64)
		return ok && slices.EqualFunc(a, b, f64eq)
	case []Vector2:
		b, ok := b.([]Vector2)
		return ok && slices.EqualFunc(a, b, func(x, y Vector2) bool { return mathEqual(x, y) })
	case []Vector3:
		b, ok := b.([]Vector3)
		return ok && slices.EqualFunc(a, b, func(x, y Vector3) bool { return mathEqual(x, y) })
	case []Vector4:
		b, ok := b.([]Vector4)
		return ok && slices.EqualFunc(a, b, func(x, y Vector4) bool { return mathEqual(x, y) })
	case []Color:
		b, ok := b.([]Color)
		return ok && slices.EqualFunc(a, b, func(x, y Color) bool { return mathEqual(x, y) })
	case []Vector2d:
		b, ok := b.([]Vector2d)
		return ok && slices.EqualFunc(a, b, func(x, y Vector2d) bool { return mathEqual(x, y) })
	case []Vector3d:
		b, ok := b.([]Vector3d)
		return ok && slices.EqualFunc(a, b, func(x, y Vector3d) bool { return mathEqual(x, y) })
	case []Vector4d:
		b, ok := b.([]Vector4d)
		return ok && slices.EqualFunc(a, b, func(x, y Vector4d) bool { return mathEqual(x, y) })
	}
	if realTypeOf(a) {
		return mathEqual(a, b)
	}
	// bool, int64, integer vectors, RID, Callable, Signal: comparable values.
	return a == b
}

// arrayValues returns the elements of an Array, typed or not.
func arrayValues(v any) ([]any, bool) {
	switch v := v.(type) {
	case []any:
		return v, true
	case *TypedArray:
		if v == nil {
			return nil, false
		}
		return v.Values, true
	case TypedArray:
		return v.Values, true
	}
	return nil, false
}

// selfUnequal3 reports whether Godot 3.2.3 finds key k unequal to itself: a PoolRealArray holding
// a NaN, alone or inside Arrays. Its encoder then cannot look the key up, and writes the pair as
// "[Deleted Object]": null.
func selfUnequal3(k any, depth int) bool {
	switch k := k.(type) {
	case []float32:
		return slices.ContainsFunc(k, func(x float32) bool { return x != x })
	case []any:
		if depth > DefaultMaxDepth {
			return false
		}
		for _, e := range k {
			if selfUnequal3(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// realTypeOf reports whether v is one of the float math types.
func realTypeOf(v any) bool {
	var c32 [16]float32
	var c64 [16]float64
	_, ok32 := real32Comps(v, &c32)
	_, ok64 := real64Comps(v, &c64)
	return ok32 || ok64
}

// mathEqual compares two math values component by component, NaN equal to NaN.
func mathEqual(a, b any) bool {
	var ca, cb [16]float32
	if ta, ok := real32Comps(a, &ca); ok {
		tb, ok := real32Comps(b, &cb)
		if !ok || ta != tb {
			return false
		}
		for i := range int(realCount[ta]) {
			if !f32eq(ca[i], cb[i]) {
				return false
			}
		}
		return true
	}
	var da, db [16]float64
	ta, ok := real64Comps(a, &da)
	if !ok {
		return false
	}
	tb, ok := real64Comps(b, &db)
	if !ok || ta != tb {
		return false
	}
	for i := range int(realCount[ta]) {
		if !f64eq(da[i], db[i]) {
			return false
		}
	}
	return true
}

// dictEqual compares two Dictionaries as Godot 4 does: same size, and every key of a is in b with
// an equal value. Keys compare as keys (a String equals a StringName), values strictly.
func dictEqual(a, b *Dictionary, m keyMode, depth int) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || len(a.Entries) != len(b.Entries) {
		return false
	}
	for _, e := range a.Entries {
		found := false
		for _, f := range b.Entries {
			if keyEqual(e.Key, f.Key, m|keyStringLike, depth+1) {
				found = keyEqual(e.Value, f.Value, m, depth+1)
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// keyIndex speeds up duplicate-key detection while decoding large Dictionaries.
type keyIndex struct {
	seed    maphash.Seed
	buckets map[uint64][]int32
}

// linearKeys is the size up to which a decoded Dictionary looks for duplicate keys by scanning.
const linearKeys = 8

// add stores a decoded pair the way the engine's `d[key] = value` does: the value of an existing
// equal key is replaced in place (the key keeps its first form, a String or a StringName),
// otherwise the pair is appended.
func (d *Dictionary) add(dl Dialect, k, v any, idx *keyIndex) *keyIndex {
	m := keyFresh | keyStringLike
	if dl == Godot3 {
		m |= keyGodot3
	}
	if ks, ok := k.(string); ok && len(d.Entries) < linearKeys {
		// The common case, string keys: compare without the general type switch.
		for i := range d.Entries {
			switch ek := d.Entries[i].Key.(type) {
			case string:
				if ek == ks {
					d.Entries[i].Value = v
					return idx
				}
			case StringName:
				if string(ek) == ks {
					d.Entries[i].Value = v
					return idx
				}
			}
		}
		d.Entries = append(d.Entries, Entry{k, v})
		return idx
	}
	if len(d.Entries) < linearKeys {
		for i := range d.Entries {
			if keyEqual(d.Entries[i].Key, k, m, 0) {
				d.Entries[i].Value = v
				return idx
			}
		}
		d.Entries = append(d.Entries, Entry{k, v})
		return idx
	}
	if idx == nil {
		idx = &keyIndex{seed: maphash.MakeSeed(), buckets: make(map[uint64][]int32, cap(d.Entries))}
		for i, e := range d.Entries {
			h := idx.hash(e.Key)
			idx.buckets[h] = append(idx.buckets[h], int32(i))
		}
	}
	h := idx.hash(k)
	for _, i := range idx.buckets[h] {
		if keyEqual(d.Entries[i].Key, k, m, 0) {
			d.Entries[i].Value = v
			return idx
		}
	}
	idx.buckets[h] = append(idx.buckets[h], int32(len(d.Entries)))
	d.Entries = append(d.Entries, Entry{k, v})
	return idx
}

// hash returns a hash of a key that is equal for keys that keyEqual calls equal. It hashes the
// type and the scalar content; containers hash their length only (equality decides the rest).
func (x *keyIndex) hash(k any) uint64 {
	var h maphash.Hash
	h.SetSeed(x.seed)
	switch k := k.(type) {
	case nil:
		h.WriteByte(0)
	case bool:
		h.WriteByte(1)
		if k {
			h.WriteByte(1)
		}
	case int64:
		h.WriteByte(2)
		maphash.WriteComparable(&h, k)
	case float64:
		h.WriteByte(3)
		maphash.WriteComparable(&h, math.Float64bits(normFloat(k)))
	case string:
		h.WriteByte(4)
		h.WriteString(k)
	case StringName:
		h.WriteByte(4) // equal to the String of the same text
		h.WriteString(string(k))
	case []any:
		h.WriteByte(28)
		maphash.WriteComparable(&h, len(k))
	case *TypedArray:
		h.WriteByte(28) // equal to the untyped Array of the same elements
		if k != nil {
			maphash.WriteComparable(&h, len(k.Values))
		}
	case []byte:
		h.WriteByte(29)
		h.Write(k)
	case []string:
		h.WriteByte(34)
		maphash.WriteComparable(&h, len(k))
	default:
		var c32 [16]float32
		if t, ok := real32Comps(k, &c32); ok {
			h.WriteByte(byte(t))
			for i := range int(realCount[t]) {
				maphash.WriteComparable(&h, math.Float64bits(normFloat(float64(c32[i]))))
			}
		} else {
			h.WriteByte(255) // other types: equality alone tells them apart
		}
	}
	return h.Sum64()
}

// normFloat maps -0 to 0 and every NaN to one NaN, as equality treats them.
func normFloat(f float64) float64 {
	if f == 0 {
		return 0
	}
	if math.IsNaN(f) {
		return math.Float64frombits(0x7FF8000000000001)
	}
	return f
}
