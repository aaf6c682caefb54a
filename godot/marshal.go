package godot

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"

	"github.com/gamewire/gamewire/godot/wire"
)

// Marshaler is implemented by Go types that choose their own Variant form.
//
// MarshalGodot returns the value to encode in place of the receiver, in the dialect d: any value
// that [EncodeMode.Append] accepts, including another Go struct, a [RawVariant] of exact bytes, or
// nil for Nil. The package encodes that value itself, so the result is always a well-formed
// Variant, nesting limits and cycle detection keep working across Marshalers, and the method never
// has to deal with bytes, padding or the int/float width rules. This value-returning shape was
// chosen over an append-style method (AppendGodot(b []byte, d Dialect) ([]byte, error)) for those
// reasons: an append-style method could write a malformed Variant, or one of the wrong dialect,
// into the middle of a message, and would have to re-implement the encoder for any nested value.
// A Marshaler that needs exact bytes can still return a RawVariant, which is validated.
//
// The encoder calls MarshalGodot on values of the type whether the method has a value or a pointer
// receiver (as encoding/json/v2 does). A pointer-receiver method is called on the value itself
// when it is addressable (reached through a pointer or a slice), otherwise on a copy. Nil pointers
// encode as Nil without a call. The returned value counts as one level of nesting against
// MaxDepth, so a Marshaler that returns itself fails with ErrTooDeep instead of recursing forever.
type Marshaler interface {
	MarshalGodot(d Dialect) (any, error)
}

// Unmarshaler is implemented by Go types that decode themselves from a Variant.
//
// UnmarshalGodot receives the value decoded in the generic value model (the types that
// [DecodeMode.Decode] returns: int64, string, *Dictionary, []any …) and the dialect. It mirrors
// [Marshaler]: neither side handles bytes. The value was decoded under the caller's limits
// (MaxDepth, MaxElements, AllowObjects). To defer decoding of raw bytes instead, use a
// [RawVariant] field. UnmarshalGodot is always called with a pointer receiver on the destination;
// it is called for a Nil Variant too, except when the destination is a pointer, which is then set
// to nil.
type Unmarshaler interface {
	UnmarshalGodot(v any, d Dialect) error
}

// RawVariant is the exact bytes of one encoded Variant, like encoding/json's RawMessage. Encoding
// a RawVariant writes its bytes verbatim (an empty RawVariant encodes as Nil); they must hold
// exactly one valid Variant of the encoder's dialect, or encoding fails with ErrUnsupported.
// Decoding into a RawVariant stores a copy of the bytes of that value, exactly as they were on the
// wire (after checking them as [DecodeMode.Decode] does), so that decoding it can be deferred
// until, say, a message's type field has been read.
type RawVariant []byte

// ErrTypeMismatch: the Variant's type cannot be stored in the Go destination (a String into an
// int field, an Array into a struct …).
var ErrTypeMismatch = errors.New("type mismatch")

// ErrRange: a number does not fit the Go destination (300 into an int8, -1 into a uint, a
// fractional float into an int, 1e300 into a float32).
var ErrRange = errors.New("number out of range")

// ErrTrailingData: Unmarshal was given more bytes than the Variant takes.
var ErrTrailingData = errors.New("trailing data after the Variant")

// escapeSink models, for the compiler's escape analysis, that the contents of a value passed to
// the reflective encoder escape to the heap (see encoder.other). It is never written at run time.
var escapeSink struct {
	on bool
	v  any
}

// boxAt builds an interface value of the dynamic type typ whose data word is p. It does not let p
// escape (unlike box, whose v is addressed through unsafe). For a type stored indirectly in
// interfaces p points to the value, which must not change while the interface is in use.
func boxAt(typ, p uptr) any {
	return *(*any)(uptr(&eface{typ, p}))
}

// noescape hides p from escape analysis. It is used only where the callee neither keeps p nor
// hands it to other code (see encoder.callMarshaler for why that is sound).
func noescape(p uptr) uptr {
	x := uintptr(p)
	return *(*uptr)(uptr(&x))
}

// other encodes the values that the fast type switch of encoder.value does not list: the float
// math types, and, through reflection, any other Go value (see [EncodeMode.Append] for the
// rules).
//
// Memory safety without allocation. Append must not make its argument escape, or every call with
// a non-pointer value would allocate a box for it. The reflective encoder therefore reads the
// value through unsafe pointers, and the only things it hands to other code are (a) pointers to
// heap memory and (b) copies. The escapeSink statement below tells the compiler that the contents
// of v escape, which makes every caller allocate on the heap whatever v points to (as it must for
// the values a Marshaler may keep), while v's own box may stay on the caller's stack. The root
// memory (v's box, or what v points to at the top level) is therefore the only memory that may be
// on a stack; it is never passed to a pointer-receiver Marshaler (a heap copy is) and never stored.
func (e *encoder) other(b []byte, v any, depth int) ([]byte, error) {
	if realTypeOf(v) {
		return e.math(b, v)
	}
	ef := *(*eface)(uptr(&v))
	if escapeSink.on {
		escapeSink.v = *(*any)(ef.data)
	}
	t := reflect.TypeOf(v)
	pl := encPlanFor(t)
	// Only the top-level value (depth 0) can be root memory; anything found inside a container
	// or returned by a Marshaler is on the heap.
	mem := memBox
	if depth == 0 {
		mem = memRoot
	}
	switch {
	case t.Kind() == reflect.Pointer:
		if ef.data == nil {
			return e.header(b, TypeNil, 0), nil
		}
		if depth > 0 {
			mem = memHeap
		}
		return e.run(b, pl.elem, ef.data, mem, depth+pl.elemIndirect)
	case pl.direct:
		// A pointer-shaped value is the data word itself. run reads it from word and does not
		// keep the address.
		word := ef.data
		if depth == 0 {
			mem = memRootPtr
		}
		out, err := e.run(b, pl, noescape(uptr(&word)), mem, depth)
		runtime.KeepAlive(word)
		return out, err
	}
	return e.run(b, pl, ef.data, mem, depth)
}

// memKind says where the memory of a value being encoded lies.
type memKind uint8

const (
	// memRoot: the top-level value's own memory, which may be on the caller's stack.
	memRoot memKind = iota
	// memRootPtr: memory whose pointers point to root memory (the data word of a top-level
	// pointer-shaped value).
	memRootPtr
	// memBox: an interface's box on the heap, which must not be modified.
	memBox
	// memHeap: addressable heap memory.
	memHeap
)

// pointee returns where the target of a pointer stored in memory of kind m lies.
func (m memKind) pointee() memKind {
	if m == memRootPtr {
		return memRoot
	}
	return memHeap
}

// encKind is the operation of an encPlan.
type encKind uint8

const (
	ekUnsupported encKind = iota
	ekBool
	ekInt
	ekUint
	ekFloat
	ekString
	ekReal32   // a float32 math type whose memory order is the wire order
	ekGodot    // a type of this package handled by encoder.value
	ekPacked   // a slice type that shares its layout with a fast-path slice type
	ekRaw      // RawVariant
	ekPtr      // pointer
	ekIface    // interface
	ekStruct   // struct → Dictionary
	ekSlice    // slice → Array
	ekArray    // array → Array
	ekMap      // map → Dictionary
	ekTypedArr // slice or array with the typed option → Array[T]
)

// marshalKind says how a type implements Marshaler.
type marshalKind uint8

const (
	mNone  marshalKind = iota
	mValue             // value receiver
	mPtr               // pointer receiver only
)

// encPlan is the compiled encoder of one Go type. Plans are built once per type and cached; they
// are interpreted by encoder.run, which keeps all calls static so that escape analysis can follow
// them (closures in a cache would make every value escape).
type encPlan struct {
	kind    encKind
	rtype   reflect.Type
	typ     uptr // the type's runtime type word, for boxAt
	ptrTyp  uptr // the runtime type word of *T, for calling Marshaler methods
	size    uintptr
	direct  bool // stored directly in interface values (pointer-shaped)
	marshal marshalKind
	// elemIndirect is 1 for a pointer to a pointer or to an interface, whose dereference counts as
	// a level of nesting so that cycles without containers end with ErrTooDeep.
	elemIndirect int
	real         Type // ekReal32: the math type
	comps        int  // ekReal32: number of components
	elem, key    *encPlan
	fields       []encField
	n            int      // array length
	packedTyp    uptr     // ekPacked: the fast-path type to box as
	typedElem    Type     // ekTypedArr: the element's Variant type
	typedSlice   bool     // ekTypedArr: the Go type is a slice (else an array)
	keyOrder     keyOrder // ekMap
	err          error    // ekUnsupported: why
}

// encField is one field of a struct plan.
type encField struct {
	structField
	key  []byte // the encoded String key
	plan *encPlan
}

type keyOrder uint8

const (
	orderBytes keyOrder = iota // by encoded key bytes
	orderString
	orderInt
	orderUint
	orderFloat
	orderBool
)

// run encodes the value of plan pl at p, whose memory is of kind mem.
func (e *encoder) run(b []byte, pl *encPlan, p uptr, mem memKind, depth int) ([]byte, error) {
	if depth > e.maxDepth {
		return b, &EncodeError{GoType: pl.rtype.String(), Err: detail(ErrTooDeep, "more than %d levels (a cycle?)", e.maxDepth)}
	}
	if pl.marshal != mNone {
		return e.callMarshaler(b, pl, p, mem, depth)
	}
	switch pl.kind {
	case ekBool:
		b = e.header(b, TypeBool, 0)
		if *(*bool)(p) {
			return wire.AppendUint32(b, 1), nil
		}
		return wire.AppendUint32(b, 0), nil
	case ekInt:
		return e.int(b, loadInt(p, pl.size)), nil
	case ekUint:
		x := loadUint(p, pl.size)
		if x > math.MaxInt64 {
			return b, &EncodeError{GoType: pl.rtype.String(), Err: detail(ErrUnsupported, "%d overflows Godot's int64", x)}
		}
		return e.int(b, int64(x)), nil
	case ekFloat:
		if pl.size == 4 {
			return e.float(b, float64(*(*float32)(p))), nil
		}
		return e.float(b, *(*float64)(p)), nil
	case ekString:
		b = e.header(b, TypeString, 0)
		s := *(*string)(p)
		if e.d == Godot4 && !plainASCII(s) {
			s = fix4(s)
		}
		return wire.AppendString(b, s), nil
	case ekReal32:
		if err := e.need(pl.real, nil); err != nil {
			return b, &EncodeError{GoType: pl.rtype.String(), Err: errors.Unwrap(err)}
		}
		comps := sliceOf((*float32)(p), pl.comps)
		if e.double && pl.real != TypeColor {
			b = e.header(b, pl.real, wire.Flag64)
			for _, x := range comps {
				b = wire.AppendFloat64(b, float64(x))
			}
			return b, nil
		}
		b = e.header(b, pl.real, 0)
		return wire.AppendUint32s(b, sliceOf((*uint32)(p), pl.comps)), nil
	case ekGodot:
		if pl.direct {
			return e.value(b, boxAt(pl.typ, *(*uptr)(p)), depth)
		}
		return e.value(b, boxAt(pl.typ, p), depth)
	case ekPacked:
		return e.value(b, boxAt(pl.packedTyp, p), depth)
	case ekRaw:
		return e.raw(b, *(*[]byte)(p))
	case ekPtr:
		q := *(*uptr)(p)
		if q == nil {
			return e.header(b, TypeNil, 0), nil
		}
		return e.run(b, pl.elem, q, mem.pointee(), depth+pl.elemIndirect)
	case ekIface:
		v := *(*any)(p)
		if v == nil {
			return e.header(b, TypeNil, 0), nil
		}
		return e.value(b, v, depth)
	case ekStruct:
		return e.structValue(b, pl, p, mem, depth)
	case ekSlice:
		h := (*sliceHeader)(p)
		return e.arrayOf(b, pl.elem, ContainerType{}, h.data, h.len, mem.pointee(), depth)
	case ekArray:
		return e.arrayOf(b, pl.elem, ContainerType{}, p, pl.n, mem, depth)
	case ekTypedArr:
		ct := ContainerType{Kind: ContainerBuiltin, Builtin: pl.typedElem}
		if e.d == Godot3 {
			ct = ContainerType{} // Godot 3 has no typed Arrays: a plain Array
		}
		if pl.typedSlice {
			h := (*sliceHeader)(p)
			return e.arrayOf(b, pl.elem, ct, h.data, h.len, mem.pointee(), depth)
		}
		return e.arrayOf(b, pl.elem, ct, p, pl.n, mem, depth)
	case ekMap:
		return e.mapValue(b, pl, *(*uptr)(p), depth)
	}
	return b, &EncodeError{GoType: pl.rtype.String(), Err: pl.err}
}

// callMarshaler encodes the value that a Marshaler returns. A pointer-receiver method gets p only
// when p is addressable heap memory; otherwise it gets a heap copy, so that no method can keep a pointer to
// memory on a stack (see encoder.other). A value-receiver method is called through the *T
// wrapper, which copies *p before the call, so it never sees p either.
func (e *encoder) callMarshaler(b []byte, pl *encPlan, p uptr, mem memKind, depth int) ([]byte, error) {
	recv := noescape(p)
	if pl.marshal == mPtr && mem != memHeap {
		c := reflect.New(pl.rtype)
		c.Elem().Set(reflect.NewAt(pl.rtype, recv).Elem())
		recv = c.UnsafePointer()
	}
	m := boxAt(pl.ptrTyp, recv).(Marshaler)
	v, err := m.MarshalGodot(e.d)
	if err != nil {
		var ee *EncodeError
		if errors.As(err, &ee) {
			return b, err
		}
		return b, &EncodeError{GoType: pl.rtype.String(), Err: fmt.Errorf("MarshalGodot: %w", err)}
	}
	out, err := e.value(b, v, depth+1)
	if err != nil {
		return b, err
	}
	return out, nil
}

// raw appends a RawVariant after checking that it is exactly one Variant of the dialect.
func (e *encoder) raw(b []byte, r []byte) ([]byte, error) {
	if len(r) == 0 {
		return e.header(b, TypeNil, 0), nil
	}
	// Decode copies whatever it keeps, so it may read r where it lies.
	check := sliceOf((*byte)(noescape(uptr(sliceData(r)))), len(r))
	_, n, err := DecodeMode{o: DecodeOptions{Dialect: e.d, AllowObjects: true, MaxDepth: e.maxDepth}}.Decode(check)
	if err != nil {
		return b, &EncodeError{GoType: "godot.RawVariant", Err: detail(ErrUnsupported, "not a valid %s Variant: %v", e.d, err)}
	}
	if n != len(r) {
		return b, &EncodeError{GoType: "godot.RawVariant", Err: detail(ErrUnsupported, "%s after the Variant's %d", plural(len(r)-n, "byte"), n)}
	}
	return append(b, r...), nil
}

type sliceHeader struct {
	data uptr
	len  int
	cap  int
}

func loadInt(p uptr, size uintptr) int64 {
	switch size {
	case 1:
		return int64(*(*int8)(p))
	case 2:
		return int64(*(*int16)(p))
	case 4:
		return int64(*(*int32)(p))
	}
	return *(*int64)(p)
}

func loadUint(p uptr, size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// arrayOf writes an Array of n elements of plan elem stored contiguously from data.
func (e *encoder) arrayOf(b []byte, elem *encPlan, ct ContainerType, data uptr, n int, mem memKind, depth int) ([]byte, error) {
	start := len(b)
	var flags uint32
	if ct.Kind != ContainerNone {
		flags = uint32(ct.Kind) << wire.ContainerKeyShift
	}
	b = e.header(b, TypeArray, flags)
	if ct.Kind != ContainerNone {
		var err error
		if b, err = e.containerType(b, ct); err != nil {
			return b[:start], &EncodeError{GoType: "[]" + elem.rtype.String(), Err: err}
		}
	}
	b = wire.AppendUint32(b, uint32(n))
	for i := range n {
		var err error
		if b, err = e.run(b, elem, addPtr(data, uintptr(i)*elem.size), mem, depth+1); err != nil {
			return b[:start], prependPath(err, "["+itoa(i)+"]")
		}
	}
	return b, nil
}

func (e *encoder) structValue(b []byte, pl *encPlan, p uptr, mem memKind, depth int) ([]byte, error) {
	start := len(b)
	b = e.header(b, TypeDictionary, 0)
	cnt := len(b)
	b = append(b, 0, 0, 0, 0)
	n := 0
	for i := range pl.fields {
		f := &pl.fields[i]
		fp, fmem := p, mem
		if len(f.steps) > 0 {
			for _, s := range f.steps {
				fp = *(*uptr)(addPtr(fp, s.off))
				fmem = fmem.pointee()
				if fp == nil {
					break
				}
			}
			if fp == nil {
				continue // a field promoted through a nil embedded pointer: absent, as in encoding/json
			}
		}
		fp = addPtr(fp, f.offset)
		if f.omitEmpty && isEmpty(f.plan, fp) {
			continue
		}
		b = append(b, f.key...)
		var err error
		if b, err = e.run(b, f.plan, fp, fmem, depth+1); err != nil {
			return b[:start], prependPath(err, "."+f.goName)
		}
		n++
	}
	binary.LittleEndian.PutUint32(b[cnt:], uint32(n))
	return b, nil
}

// isEmpty implements omitempty, as encoding/json defines empty: false, 0, "", a nil pointer or
// interface, and an array, slice or map of length zero.
func isEmpty(pl *encPlan, p uptr) bool {
	switch pl.rtype.Kind() {
	case reflect.Bool:
		return !*(*bool)(p)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return loadInt(p, pl.size) == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return loadUint(p, pl.size) == 0
	case reflect.Float32:
		return *(*float32)(p) == 0
	case reflect.Float64:
		return *(*float64)(p) == 0
	case reflect.String:
		return len(*(*string)(p)) == 0
	case reflect.Slice:
		return (*sliceHeader)(p).len == 0
	case reflect.Array:
		return pl.rtype.Len() == 0
	case reflect.Pointer:
		return *(*uptr)(p) == nil
	case reflect.Interface:
		return *(*any)(p) == nil
	case reflect.Map:
		m := *(*uptr)(p)
		return m == nil || reflect.ValueOf(boxAt(pl.typ, noescape(m))).Len() == 0
	}
	return false
}

// mapValue writes a Go map as a Dictionary with its keys in a deterministic order.
func (e *encoder) mapValue(b []byte, pl *encPlan, m uptr, depth int) ([]byte, error) {
	start := len(b)
	b = e.header(b, TypeDictionary, 0)
	if m == nil {
		return wire.AppendUint32(b, 0), nil
	}
	// The iterator stays on this goroutine's stack and Key and Value return copies, so nothing
	// on the heap refers to a map header that may be on the stack.
	var it reflect.MapIter
	it.Reset(reflect.ValueOf(boxAt(pl.typ, noescape(m))))
	var keys, vals []reflect.Value
	for it.Next() {
		keys = append(keys, it.Key())
		vals = append(vals, it.Value())
	}
	it.Reset(reflect.Value{})
	b = wire.AppendUint32(b, uint32(len(keys)))
	if len(keys) == 0 {
		return b, nil
	}
	kt, vt := reflect.New(pl.key.rtype), reflect.New(pl.elem.rtype)
	kp, vp := kt.UnsafePointer(), vt.UnsafePointer()
	// Encode every key first: the bytes decide the order of keys without a natural one, and
	// reveal keys that Godot would take as equal (two NaNs, two pointers to equal values).
	type encKey struct {
		k, v  reflect.Value
		start int
		end   int
	}
	scratch := make([]byte, 0, 16*len(keys))
	ek := make([]encKey, len(keys))
	for i, k := range keys {
		kt.Elem().Set(k)
		s := len(scratch)
		var err error
		if scratch, err = e.run(scratch, pl.key, kp, memBox, depth+1); err != nil {
			return b[:start], prependPath(err, ".key("+mapKeyLabel(k)+")")
		}
		ek[i] = encKey{k, vals[i], s, len(scratch)}
	}
	kb := func(k encKey) []byte { return scratch[k.start:k.end] }
	slices.SortFunc(ek, func(x, y encKey) int {
		switch pl.keyOrder {
		case orderString:
			return cmp.Compare(x.k.String(), y.k.String())
		case orderInt:
			return cmp.Compare(x.k.Int(), y.k.Int())
		case orderUint:
			return cmp.Compare(x.k.Uint(), y.k.Uint())
		case orderFloat:
			if c := cmp.Compare(x.k.Float(), y.k.Float()); c != 0 {
				return c
			}
		case orderBool:
			return cmp.Compare(b2i(x.k.Bool()), b2i(y.k.Bool()))
		}
		return bytes.Compare(kb(x), kb(y))
	})
	if k := pl.key.rtype.Kind(); k == reflect.Interface || k == reflect.Float32 || k == reflect.Float64 {
		// Keys of different bytes that the engine takes as one: a String and a StringName of
		// the same text (Godot 4), NaNs of other payloads, 1 and 1.0 in Godot 3, and so on.
		if i, j, ok := e.mergedKeys(len(ek), func(i int) []byte { return kb(ek[i]) }); ok {
			return b[:start], &EncodeError{Path: ".key(" + mapKeyLabel(ek[j].k) + ")", GoType: pl.rtype.String(),
				Err: detail(ErrUnsupported, "keys %s and %s of the map are one Dictionary key in %s", mapKeyLabel(ek[i].k), mapKeyLabel(ek[j].k), e.d)}
		}
	}
	for i, k := range ek {
		if i > 0 && bytes.Equal(kb(ek[i-1]), kb(k)) {
			return b[:start], &EncodeError{Path: ".key(" + mapKeyLabel(k.k) + ")", GoType: pl.rtype.String(),
				Err: detail(ErrUnsupported, "two keys of the map encode to the same Dictionary key")}
		}
		b = append(b, kb(k)...)
		vt.Elem().Set(k.v)
		var err error
		if b, err = e.run(b, pl.elem, vp, memBox, depth+1); err != nil {
			return b[:start], prependPath(err, "["+mapKeyLabel(k.k)+"]")
		}
	}
	return b, nil
}

// mergedKeys decodes n encoded keys and reports the first pair (i < j) that the dialect's
// Dictionary takes as one key, as the engine would on decoding the result.
func (e *encoder) mergedKeys(n int, key func(int) []byte) (i, j int, ok bool) {
	var d Dictionary
	var idx *keyIndex
	var kh *keyHasher
	first := make(map[int]int, n) // entry index → key index
	for k := range n {
		v, _, err := DecodeMode{o: DecodeOptions{Dialect: e.d, AllowObjects: true}}.Decode(key(k))
		if err != nil {
			continue // not a key the engine would decode; encoding reports it elsewhere
		}
		before := len(d.Entries)
		d.add(e.d, v, nil, &idx, &kh)
		if len(d.Entries) == before {
			for ei, en := range d.Entries {
				if e.d.KeyEqual(en.Key, v) {
					return first[ei], k, true
				}
			}
			return 0, k, true
		}
		first[len(d.Entries)-1] = k
	}
	return 0, 0, false
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

func mapKeyLabel(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return fmt.Sprintf("%q", k.String())
	}
	return fmt.Sprintf("%v", k.Interface())
}

func itoa(i int) string {
	var buf [20]byte
	n := len(buf)
	u := uint(i)
	if i < 0 {
		u = uint(-i)
	}
	for {
		n--
		buf[n] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if i < 0 {
		n--
		buf[n] = '-'
	}
	return string(buf[n:])
}

// int64Array writes []int64 as an Array of ints: Godot 3 has no PackedInt64Array.
func (e *encoder) int64Array(b []byte, v []int64) []byte {
	b = e.header(b, TypeArray, 0)
	b = wire.AppendUint32(b, uint32(len(v)))
	for _, x := range v {
		b = e.int(b, x)
	}
	return b
}

// float64Array writes []float64 as an Array of floats: Godot 3 has no PackedFloat64Array.
func (e *encoder) float64Array(b []byte, v []float64) []byte {
	b = e.header(b, TypeArray, 0)
	b = wire.AppendUint32(b, uint32(len(v)))
	for _, x := range v {
		b = e.float(b, x)
	}
	return b
}
