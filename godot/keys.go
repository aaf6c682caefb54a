package godot

import (
	"hash/maphash"
	"math"
	"slices"
	"unsafe"
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
// a Dictionary inside a key, though not as Array elements), and compares Dictionaries entry by
// entry in order (its Dictionary equality ignores the order, but its hash does not, so that
// Dictionaries in another order are different keys). A float that is an Array element or a
// Dictionary's value compares with == alone: a NaN there equals nothing, not even itself, so that
// a key holding one is a key of its own (math values and packed arrays keep NaN equal to NaN).
//
// Godot 3 has no StringName (it is sent as a String, so it equals the String of the same text),
// compares Dictionaries by identity (the same *Dictionary), and compares a PoolRealArray
// ([]float32) by its bytes: it equals another only if their bits are identical and hold no NaN,
// so a PoolRealArray with a NaN is not even equal to itself (Godot 3.2.3 then writes that entry
// as "[Deleted Object]": null, as [EncodeMode.Append] does).
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
	// keyStrictFloat compares floats with == alone (NaN equal to nothing), as Godot 4 compares
	// Array elements and Dictionary values (Variant::hash_compare without semantic comparison).
	keyStrictFloat
)

// keyEqual implements KeyEqual under the given rules.
func keyEqual(a, b any, m keyMode, depth int) bool {
	if depth > DefaultMaxDepth {
		return false
	}
	inner := m &^ keyStringLike
	if m&keyGodot3 != 0 {
		inner |= keyStringLike // Godot 3 has no StringName: both are Strings
	} else {
		inner |= keyStrictFloat
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
		if m&keyStrictFloat != 0 {
			return ok && a == b
		}
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

// dictEqual compares two Dictionaries as a Godot 4 Dictionary compares keys: same size, and the
// same keys (as keys: a String equals a StringName) with the same values (strictly), in the same
// order, since the engine's hash of a Dictionary follows its order.
func dictEqual(a, b *Dictionary, m keyMode, depth int) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || len(a.Entries) != len(b.Entries) {
		return false
	}
	for i, e := range a.Entries {
		f := b.Entries[i]
		if !keyEqual(e.Key, f.Key, (m|keyStringLike)&^keyStrictFloat, depth+1) || !keyEqual(e.Value, f.Value, m, depth+1) {
			return false
		}
	}
	return true
}

// linearKeys is the size up to which a decoded Dictionary looks for duplicate keys by scanning;
// a larger one builds a keyIndex.
const linearKeys = 8

// add stores a decoded pair the way the engine's `d[key] = value` does: the value of an existing
// equal key is replaced in place (the key keeps its first form, a String or a StringName),
// otherwise the pair is appended. Once the Dictionary holds linearKeys entries, add keeps an index
// of them in *idx, whose hashes come from *kh (both made when first needed; kh may be shared by
// all the Dictionaries of one decoded value, so that a Dictionary nested in keys is hashed once).
func (d *Dictionary) add(dl Dialect, k, v any, idx **keyIndex, kh **keyHasher) {
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
					return
				}
			case StringName:
				if string(ek) == ks {
					d.Entries[i].Value = v
					return
				}
			}
		}
		d.Entries = append(d.Entries, Entry{k, v})
		return
	}
	if len(d.Entries) < linearKeys {
		for i := range d.Entries {
			if keyEqual(d.Entries[i].Key, k, m, 0) {
				d.Entries[i].Value = v
				return
			}
		}
		d.Entries = append(d.Entries, Entry{k, v})
		return
	}
	if *kh == nil {
		*kh = newKeyHasher(dl)
	}
	x := *idx
	if x == nil {
		x = &keyIndex{h: *kh}
		x.rebuild(d, 2*cap(d.Entries))
		*idx = x
	}
	h, ok := x.h.hash(k)
	if !ok {
		// k equals no key at all (it holds a fresh object, or a NaN that the engine finds unequal
		// to itself): nothing to look up, nothing to index.
		d.Entries = append(d.Entries, Entry{k, v})
		return
	}
	if i := x.find(d, k, h, m); i >= 0 {
		d.Entries[i].Value = v
		return
	}
	if 2*(x.n+1) > len(x.slots) {
		x.rebuild(d, 2*len(x.slots))
	}
	d.Entries = append(d.Entries, Entry{k, v})
	x.insert(h, len(d.Entries)-1)
}

// keyIndex is an open-addressing hash table of a Dictionary's entries, for finding an equal key
// in O(1) expected time whatever the keys' type: every key is hashed by its whole content,
// consistently with keyEqual, with a seed chosen at random for each decoded value, so that no
// input can make many keys collide.
type keyIndex struct {
	h *keyHasher
	// slots holds, for each used slot, the top 32 bits of the key's hash above the entry's
	// index + 1; 0 is a free slot. Its length is a power of two, at least twice the number of keys
	// indexed. The hash bits spare most probes a look at the entry's key, which for a large
	// Dictionary is a cache miss or two.
	slots []uint64
	n     int // keys indexed
}

// rebuild makes the table size slots long (rounded up to a power of two) and indexes every entry
// of d that can equal a key.
func (x *keyIndex) rebuild(d *Dictionary, size int) {
	n := 16
	for n < size {
		n *= 2
	}
	x.slots, x.n = make([]uint64, n), 0
	for i := range d.Entries {
		if h, ok := x.h.hash(d.Entries[i].Key); ok {
			x.insert(h, i)
		}
	}
}

func (x *keyIndex) insert(h uint64, i int) {
	mask := uint64(len(x.slots) - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		if x.slots[s] == 0 {
			x.slots[s] = h>>32<<32 | uint64(i+1)
			x.n++
			return
		}
	}
}

// find returns the index of the entry whose key equals k (of hash h), or -1.
func (x *keyIndex) find(d *Dictionary, k any, h uint64, m keyMode) int {
	mask := uint64(len(x.slots) - 1)
	for s := h & mask; x.slots[s] != 0; s = (s + 1) & mask {
		e := x.slots[s]
		if e>>32 != h>>32 {
			continue
		}
		if i := int(uint32(e)) - 1; keyEqual(d.Entries[i].Key, k, m, 0) {
			return i
		}
	}
	return -1
}

// keyHasher hashes Dictionary keys by their content, consistently with keyEqual under the rules
// of decoding (keyFresh, keyStringLike, and keyGodot3 for Godot 3): keys that keyEqual calls
// equal hash alike. It remembers the hash of every Godot 4 Dictionary it meets inside a key, so
// that Dictionaries nested in the keys of Dictionaries nested in keys are hashed once, not once
// per level.
type keyHasher struct {
	seed  maphash.Seed
	g3    bool
	memo  map[*Dictionary]keyHash
	comps [16]float64 // scratch for math values
}

type keyHash struct {
	h  uint64
	ok bool
}

func newKeyHasher(dl Dialect) *keyHasher {
	return &keyHasher{seed: maphash.MakeSeed(), g3: dl == Godot3}
}

// Tags written before a value of each kind, so that values of types that are never equal hash
// apart. The Variant type ids are below 64.
const (
	tagNil byte = 64 + iota
	tagBool
	tagInt
	tagFloat
	tagString // String and StringName
	tagArray  // untyped and typed Arrays
	tagDict
	tagObject // null *Object
	tagReal64 // added to the type of a double-precision math value
	tagOther  = 255
)

// hash returns the hash of key k, and false if k equals no key at all, not even itself: a key that
// holds an object decoded from the input (every one is a new object, which the engine compares by
// identity), a Godot 3 Dictionary (also compared by identity), a Godot 3 PoolRealArray holding a
// NaN, a Godot 4 NaN float as an Array element or a Dictionary value, or values nested deeper than
// keyEqual looks.
func (kh *keyHasher) hash(k any) (uint64, bool) {
	switch k := k.(type) {
	case int64:
		return maphash.Comparable(kh.seed, k), true
	case string:
		return maphash.String(kh.seed, k), true
	case StringName:
		return maphash.String(kh.seed, string(k)), true
	}
	var h maphash.Hash
	h.SetSeed(kh.seed)
	ok := kh.write(&h, k, 0, false)
	return h.Sum64(), ok
}

// nested returns the hash of a value found depth levels below the top of a key; strict says that
// it is an Array element or a Dictionary value (keyStrictFloat).
func (kh *keyHasher) nested(k any, depth int, strict bool) (uint64, bool) {
	var h maphash.Hash
	h.SetSeed(kh.seed)
	ok := kh.write(&h, k, depth, strict)
	return h.Sum64(), ok
}

func writeLen(h *maphash.Hash, n int) { maphash.WriteComparable(h, uint64(n)) }

func writeFloat(h *maphash.Hash, f float64) {
	maphash.WriteComparable(h, math.Float64bits(normFloat(f)))
}

// writeWords writes the memory of a slice of pointer-free words.
func writeWords[T int32 | int64](h *maphash.Hash, s []T) {
	writeLen(h, len(s))
	if len(s) > 0 {
		h.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0]))))
	}
}

// write writes k, found depth levels below the top of a key, to h; it reports false if k can
// equal nothing (see hash). strict says that k is a Godot 4 Array element or Dictionary value,
// where a NaN float equals nothing.
func (kh *keyHasher) write(h *maphash.Hash, k any, depth int, strict bool) bool {
	if depth > DefaultMaxDepth {
		return false // keyEqual does not look this deep: unequal to everything
	}
	switch k := k.(type) {
	case nil:
		h.WriteByte(tagNil)
	case bool:
		h.WriteByte(tagBool)
		if k {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	case int64:
		h.WriteByte(tagInt)
		maphash.WriteComparable(h, k)
	case float64:
		if strict && k != k && !kh.g3 {
			return false // a NaN where Godot 4 compares with ==
		}
		h.WriteByte(tagFloat)
		writeFloat(h, k)
	case string:
		h.WriteByte(tagString)
		writeLen(h, len(k))
		h.WriteString(k)
	case StringName:
		h.WriteByte(tagString) // equal to the String of the same text
		writeLen(h, len(k))
		h.WriteString(string(k))
	case ObjectID:
		return false // a decoded object: equal to no other (keyFresh)
	case *Object:
		if k != nil {
			return false // compared by identity, and every decoded one is new
		}
		h.WriteByte(tagObject)
	case *Dictionary:
		if k != nil && kh.g3 {
			return false // compared by identity, and every decoded one is new
		}
		return kh.dict(h, k, depth)
	case Dictionary:
		if kh.g3 {
			return false // Godot 3 compares by identity: a copy is no key
		}
		return kh.dict(h, &k, depth)
	case []any:
		return kh.array(h, k, depth)
	case *TypedArray:
		if k == nil {
			return kh.array(h, nil, depth)
		}
		return kh.array(h, k.Values, depth)
	case TypedArray:
		return kh.array(h, k.Values, depth)
	case NodePath:
		h.WriteByte(byte(TypeNodePath))
		if k.Absolute {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
		for _, names := range [2][]string{k.Names, k.SubNames} {
			writeLen(h, len(names))
			for _, s := range names {
				writeLen(h, len(s))
				h.WriteString(s)
			}
		}
	case []byte:
		h.WriteByte(byte(TypePackedByteArray))
		writeLen(h, len(k))
		h.Write(k)
	case []int32:
		h.WriteByte(byte(TypePackedInt32Array))
		writeWords(h, k)
	case []int64:
		h.WriteByte(byte(TypePackedInt64Array))
		writeWords(h, k)
	case []string:
		h.WriteByte(byte(TypePackedStringArray))
		writeLen(h, len(k))
		for _, s := range k {
			writeLen(h, len(s))
			h.WriteString(s)
		}
	case []float32:
		h.WriteByte(byte(TypePackedFloat32Array))
		writeLen(h, len(k))
		for _, f := range k {
			if kh.g3 {
				// Godot 3.2.3 compares the elements' bits, and a NaN with nothing.
				if f != f {
					return false
				}
				maphash.WriteComparable(h, math.Float32bits(f))
			} else {
				writeFloat(h, float64(f))
			}
		}
	case []float64:
		h.WriteByte(byte(TypePackedFloat64Array))
		writeLen(h, len(k))
		for _, f := range k {
			writeFloat(h, f)
		}
	case []Vector2:
		writeFloats(h, byte(TypePackedVector2Array), len(k), floats32(k, 2))
	case []Vector3:
		writeFloats(h, byte(TypePackedVector3Array), len(k), floats32(k, 3))
	case []Vector4:
		writeFloats(h, byte(TypePackedVector4Array), len(k), floats32(k, 4))
	case []Color:
		writeFloats(h, byte(TypePackedColorArray), len(k), floats32(k, 4))
	case []Vector2d:
		writeFloats(h, tagReal64+byte(TypePackedVector2Array), len(k), floats64(k, 2))
	case []Vector3d:
		writeFloats(h, tagReal64+byte(TypePackedVector3Array), len(k), floats64(k, 3))
	case []Vector4d:
		writeFloats(h, tagReal64+byte(TypePackedVector4Array), len(k), floats64(k, 4))
	case Vector2i:
		h.WriteByte(byte(TypeVector2i))
		maphash.WriteComparable(h, k)
	case Rect2i:
		h.WriteByte(byte(TypeRect2i))
		maphash.WriteComparable(h, k)
	case Vector3i:
		h.WriteByte(byte(TypeVector3i))
		maphash.WriteComparable(h, k)
	case Vector4i:
		h.WriteByte(byte(TypeVector4i))
		maphash.WriteComparable(h, k)
	case RID:
		h.WriteByte(byte(TypeRID))
		maphash.WriteComparable(h, k)
	case Callable:
		h.WriteByte(byte(TypeCallable))
	case Signal:
		h.WriteByte(byte(TypeSignal))
		maphash.WriteComparable(h, k)
	default:
		var c32 [16]float32
		if t, ok := real32Comps(k, &c32); ok {
			h.WriteByte(byte(t))
			for _, f := range c32[:realCount[t]] {
				writeFloat(h, float64(f))
			}
		} else if t, ok := real64Comps(k, &kh.comps); ok {
			h.WriteByte(tagReal64 + byte(t))
			for _, f := range kh.comps[:realCount[t]] {
				writeFloat(h, f)
			}
		} else {
			h.WriteByte(tagOther) // not a decoded value: equality alone tells them apart
		}
	}
	return true
}

// floats32 views a slice of math values made of n float32 components each as their components.
func floats32[V any](s []V, n int) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*n)
}

// floats64 is floats32 for float64 components.
func floats64[V any](s []V, n int) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*n)
}

// writeFloats writes a packed array of n math values, given as their components.
func writeFloats[F float32 | float64](h *maphash.Hash, tag byte, n int, comps []F) {
	h.WriteByte(tag)
	writeLen(h, n)
	for _, f := range comps {
		writeFloat(h, float64(f))
	}
}

// array writes an Array's elements in order, as keyEqual compares them.
func (kh *keyHasher) array(h *maphash.Hash, vals []any, depth int) bool {
	h.WriteByte(tagArray)
	writeLen(h, len(vals))
	for _, e := range vals {
		if !kh.write(h, e, depth+1, true) {
			return false
		}
	}
	return true
}

// dict writes a Godot 4 Dictionary: its size and its entries, in order, as dictEqual compares
// them (the keys' hash, as keys, and the values').
func (kh *keyHasher) dict(h *maphash.Hash, d *Dictionary, depth int) bool {
	h.WriteByte(tagDict)
	if d == nil {
		h.WriteByte(0)
		return true
	}
	h.WriteByte(1)
	writeLen(h, len(d.Entries))
	if len(d.Entries) == 0 {
		return true
	}
	// A Dictionary is first hashed by the innermost Dictionary whose key holds it, where it is
	// least deep; found deeper later, the remembered hash may call it equal to some key where
	// keyEqual would give up for depth, which costs a comparison, never a wrong answer.
	r, seen := kh.memo[d]
	if !seen {
		r = keyHash{ok: true}
		for _, e := range d.Entries {
			kHash, ok := kh.nested(e.Key, depth+1, false)
			if !ok {
				r.ok = false
				break
			}
			vHash, ok := kh.nested(e.Value, depth+1, true)
			if !ok {
				r.ok = false
				break
			}
			r.h = mix(r.h, mix(kHash, vHash))
		}
		// Only Dictionaries large enough to have an index of their own are remembered: the work
		// multiplies only through those.
		if len(d.Entries) >= linearKeys {
			if kh.memo == nil {
				kh.memo = make(map[*Dictionary]keyHash)
			}
			kh.memo[d] = r
		}
	}
	maphash.WriteComparable(h, r.h)
	return r.ok
}

// mix combines the hashes of a key and its value into the hash of the entry.
func mix(k, v uint64) uint64 {
	k ^= v + 0x9E3779B97F4A7C15 + k<<6 + k>>2
	k ^= k >> 33
	k *= 0xFF51AFD7ED558CCD
	k ^= k >> 33
	return k
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
