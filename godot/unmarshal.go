package godot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"

	"github.com/gamewire/gamewire/godot/wire"
)

// Unmarshal decodes the Godot 4 Variant in data into the value that v points to; see
// [DecodeMode.Unmarshal].
func Unmarshal(data []byte, v any) error { return DecodeMode{}.Unmarshal(data, v) }

// Unmarshal decodes the Variant in data into the value that v points to, the way encoding/json
// does, with the rules that [EncodeMode.Append] uses to encode Go values, read backwards. data must
// hold exactly one Variant: trailing bytes fail with ErrTrailingData (use [DecodeMode.Decode] to
// read a Variant from the front of a longer buffer). The decoder's limits apply as for Decode.
//
// Values are decoded straight from the bytes into the destination, without building the generic
// value model first, except into interfaces, Unmarshalers and this package's container types.
// Into each kind of Go destination:
//
//   - bool: a bool. Integers (all sizes, signed and unsigned): an int, or a float that holds an
//     integer; a value that does not fit the Go type fails with ErrRange. Floats: a float or an
//     int (a float32 destination fails with ErrRange for a finite value beyond its range).
//     Strings: a String or a StringName.
//   - slices: an Array (typed or not) element by element, or a packed array: into a slice of the
//     same layout ([]byte, []int32, []int64, []float32, []float64, []string, []Vector3 … and named
//     types of these) it is one copy; otherwise element by element (a PoolIntArray into []int64).
//     The slice's existing capacity is reused, and reused elements are zeroed before decoding.
//     Arrays: the same; extra elements are checked and dropped, missing ones are zeroed.
//   - structs: a Dictionary whose String (or StringName) keys name the fields, as the encoder names
//     them; an exact match is preferred, then a case-insensitive one. Entries with other keys are
//     checked and ignored. Fields not in the Dictionary keep their values.
//   - maps: a Dictionary; keys and values are decoded into the map's key and value types. A nil
//     map is allocated; entries are added to an existing map.
//   - pointers: Nil sets the pointer to nil; anything else is decoded into the value it points
//     to, allocated if the pointer is nil.
//   - interfaces: an empty interface gets the generic value ([DecodeMode.Decode]'s types); a
//     non-empty interface holding a non-nil pointer is decoded into; otherwise the generic value
//     is stored if it implements the interface.
//   - this package's types (Vector3, NodePath, *Dictionary, TypedArray …): the Variant of that
//     type. A Dictionary or TypedArray destination also takes the *Dictionary or []any form.
//   - [RawVariant]: the exact bytes of the value. [Unmarshaler]: see there.
//
// Nil leaves destinations other than pointers, interfaces, slices and maps unchanged, as null does
// in encoding/json. Errors are *[DecodeError]s: Offset is where the offending Variant starts and
// Path names the Go field path (".Player.Pos", "[3]", `["key"]`); a type mismatch wraps
// ErrTypeMismatch, a number out of range ErrRange. v must be a non-nil pointer.
func (m DecodeMode) Unmarshal(data []byte, v any) error {
	o := &m.o
	if unmarshalFast(o.Dialect, data, v) {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("godot: Unmarshal needs a non-nil pointer, not %s: %w", goTypeName(v), ErrUnsupported)
	}
	pl := decPlanFor(rv.Type().Elem())
	var dec decoder
	o.initDecoder(&dec, data)
	end, err := dec.into(pl, rv.UnsafePointer(), 0, 0)
	if err != nil {
		return finishPath(err)
	}
	if end < len(data) {
		return &DecodeError{Offset: int64(end), Dialect: dec.d, Err: detail(ErrTrailingData, "%s after the Variant's %d", plural(len(data)-end, "byte"), end)}
	}
	return nil
}

// unmarshalFast decodes the most common small destinations without reflection. It reports false
// (having changed nothing) for anything else, including every error, which the general path then
// reports.
func unmarshalFast(d Dialect, data []byte, v any) bool {
	if len(data) < 8 {
		return false
	}
	h := binary.LittleEndian.Uint32(data)
	id := h & wire.TypeMask
	switch v := v.(type) {
	case *int64:
		if x, ok := fastInt(data, h, id); ok {
			*v = x
			return true
		}
	case *int:
		if x, ok := fastInt(data, h, id); ok && x == int64(int(x)) { // (int has 32 bits on some machines)
			*v = int(x)
			return true
		}
	case *float64:
		if id != 3 {
			return false
		}
		if h&wire.Flag64 == 0 && len(data) == 8 {
			*v = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4:])))
			return true
		}
		if h&wire.Flag64 != 0 && len(data) == 12 {
			*v = math.Float64frombits(binary.LittleEndian.Uint64(data[4:]))
			return true
		}
	case *int32:
		if x, ok := fastInt(data, h, id); ok && x == int64(int32(x)) {
			*v = int32(x)
			return true
		}
	case *int16:
		if x, ok := fastInt(data, h, id); ok && x == int64(int16(x)) {
			*v = int16(x)
			return true
		}
	case *int8:
		if x, ok := fastInt(data, h, id); ok && x == int64(int8(x)) {
			*v = int8(x)
			return true
		}
	case *uint64:
		if x, ok := fastInt(data, h, id); ok && x >= 0 {
			*v = uint64(x)
			return true
		}
	case *uint:
		if x, ok := fastInt(data, h, id); ok && x >= 0 && uint64(x) == uint64(uint(x)) {
			*v = uint(x)
			return true
		}
	case *uint32:
		if x, ok := fastInt(data, h, id); ok && x >= 0 && x <= math.MaxUint32 {
			*v = uint32(x)
			return true
		}
	case *uint16:
		if x, ok := fastInt(data, h, id); ok && x >= 0 && x <= math.MaxUint16 {
			*v = uint16(x)
			return true
		}
	case *uint8:
		if x, ok := fastInt(data, h, id); ok && x >= 0 && x <= math.MaxUint8 {
			*v = uint8(x)
			return true
		}
	case *float32:
		if id != 3 {
			return false
		}
		if h&wire.Flag64 == 0 && len(data) == 8 {
			*v = math.Float32frombits(binary.LittleEndian.Uint32(data[4:]))
			return true
		}
		if h&wire.Flag64 != 0 && len(data) == 12 {
			// As storeFloat: a finite float64 beyond float32's range does not fit.
			if f := math.Float64frombits(binary.LittleEndian.Uint64(data[4:])); math.IsInf(f, 0) || !(math.Abs(f) > math.MaxFloat32) {
				*v = float32(f)
				return true
			}
		}
	case *bool:
		if id == 1 && len(data) == 8 {
			*v = binary.LittleEndian.Uint32(data[4:]) != 0
			return true
		}
	case *string:
		if id != 4 {
			return false
		}
		b, n, err := wire.ConsumeString(data[4:])
		if err != nil || 4+n != len(data) {
			return false
		}
		// Printable ASCII needs none of stringBytes' work (no BOM, no NUL, valid UTF-8).
		for _, c := range b {
			if c-1 >= 0x7F {
				sb, err := stringBytes(d, b)
				if err != nil {
					return false
				}
				*v = string(sb)
				return true
			}
		}
		*v = string(b)
		return true
	case *Vector3:
		vid := uint32(9)
		if d == Godot3 {
			vid = 7
		}
		if id == vid && h&wire.Flag64 == 0 && len(data) == 16 {
			v.X = math.Float32frombits(binary.LittleEndian.Uint32(data[4:]))
			v.Y = math.Float32frombits(binary.LittleEndian.Uint32(data[8:]))
			v.Z = math.Float32frombits(binary.LittleEndian.Uint32(data[12:]))
			return true
		}
	}
	return false
}

func fastInt(data []byte, h, id uint32) (int64, bool) {
	if id != 2 {
		return 0, false
	}
	if h&wire.Flag64 == 0 {
		return int64(int32(binary.LittleEndian.Uint32(data[4:]))), len(data) == 8
	}
	if len(data) != 12 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(data[4:])), true
}

// decKind is the operation of a decPlan.
type decKind uint8

const (
	dkUnsupported decKind = iota
	dkBool
	dkInt
	dkUint
	dkFloat
	dkString
	dkReal   // a float math type whose memory order is the wire order
	dkGodot  // another type of this package: decoded generically, then stored
	dkRaw    // RawVariant
	dkIface  // interface
	dkPtr    // pointer
	dkStruct // Dictionary → struct
	dkSlice  // Array or packed array → slice
	dkArray  // Array or packed array → array
	dkMap    // Dictionary → map
)

// decPlan is the compiled decoder of one Go type.
type decPlan struct {
	kind         decKind
	rtype        reflect.Type
	size         uintptr
	unmarshaler  bool
	elemIndirect int
	elem, key    *decPlan
	n            int // array length
	// dkReal: the math type and its component count.
	real  Type
	comps int
	// dkSlice, dkArray: the packed array type with the element's memory layout, if any, the size
	// of its wire words (4 or 8), and whether the elements hold pointers.
	packed       Type
	packedWord   int
	elemPointers bool
	// dkStruct
	fields []decField
	byName map[string]int
	err    error
}

type decField struct {
	structField
	nameBytes []byte
	plan      *decPlan
}

// decPlanFor returns the cached decoder plan of t, building it on first use.
func decPlanFor(t reflect.Type) *decPlan {
	if p, ok := decPlans.Load(t); ok {
		return p.(*decPlan)
	}
	planMu.Lock()
	defer planMu.Unlock()
	b := planBuilder{dec: map[reflect.Type]*decPlan{}}
	p := b.decPlan(t)
	for t, p := range b.dec {
		decPlans.LoadOrStore(t, p)
	}
	return p
}

func (b *planBuilder) decPlan(t reflect.Type) *decPlan {
	if p, ok := decPlans.Load(t); ok {
		return p.(*decPlan)
	}
	if p, ok := b.dec[t]; ok {
		return p
	}
	p := &decPlan{rtype: t, size: t.Size()}
	b.dec[t] = p
	p.unmarshaler = implementsUnmarshal(t)
	if t == rawVariantType {
		p.kind = dkRaw
		return p
	}
	if vt, ok := real32Types[t]; ok {
		p.kind, p.real, p.comps = dkReal, vt, int(realCount[vt])
		return p
	}
	if _, ok := godotType(t); ok {
		p.kind = dkGodot
		return p
	}
	switch t.Kind() {
	case reflect.Bool:
		p.kind = dkBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = dkInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = dkUint
	case reflect.Float32, reflect.Float64:
		p.kind = dkFloat
	case reflect.String:
		p.kind = dkString
	case reflect.Interface:
		p.kind = dkIface
	case reflect.Pointer:
		p.kind = dkPtr
		p.elem = b.decPlan(t.Elem())
		if k := t.Elem().Kind(); k == reflect.Pointer || k == reflect.Interface {
			p.elemIndirect = 1
		}
	case reflect.Struct:
		p.kind = dkStruct
		fields, err := typeFields(t)
		if err != nil {
			p.kind, p.err = dkUnsupported, detail(ErrUnsupported, "%v", err)
			return p
		}
		for _, f := range fields {
			p.fields = append(p.fields, decField{structField: f, nameBytes: []byte(f.name), plan: b.decPlan(f.typ)})
		}
		if len(p.fields) > 8 {
			p.byName = make(map[string]int, len(p.fields))
			for i, f := range p.fields {
				p.byName[f.name] = i
			}
		}
	case reflect.Slice, reflect.Array:
		p.kind = dkSlice
		if t.Kind() == reflect.Array {
			p.kind, p.n = dkArray, t.Len()
		}
		p.elem = b.decPlan(t.Elem())
		p.elemPointers = hasPointers(t.Elem())
		if ps, ok := packedFor(t.Elem()); ok && ps.vt != TypePackedStringArray {
			p.packed = ps.vt
			p.packedWord = 4
			switch ps.slice.Elem() {
			case reflect.TypeFor[int64](), reflect.TypeFor[float64](), reflect.TypeFor[Vector2d](),
				reflect.TypeFor[Vector3d](), reflect.TypeFor[Vector4d]():
				p.packedWord = 8
			case reflect.TypeFor[byte]():
				p.packedWord = 1
			}
		}
	case reflect.Map:
		p.kind = dkMap
		p.key = b.decPlan(t.Key())
		p.elem = b.decPlan(t.Elem())
	default:
		p.kind, p.err = dkUnsupported, detail(ErrUnsupported, "no Variant decodes into %s", t)
	}
	return p
}

// hasPointers reports whether values of t contain pointers (so that clearing them needs the
// garbage collector's write barriers).
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true
}

// head reads the header at off exactly as decoder.value does, with the same errors.
func (dec *decoder) head(off, depth int) (uint32, Type, error) {
	if depth > dec.maxDepth {
		return 0, 0, dec.fail(off, 0, false, detail(ErrTooDeep, "more than %d levels", dec.maxDepth))
	}
	h, ok := dec.u32(off)
	if !ok {
		return 0, 0, dec.fail(off, 0, false, detail(ErrTruncated, "need a 4-byte header, have %d", max(len(dec.buf)-off, 0)))
	}
	t, ok := dec.d.TypeOf(h & wire.TypeMask)
	if !ok {
		return 0, 0, dec.fail(off, 0, false, detail(ErrUnknownType, "type id %d (%s has %d types)", h&wire.TypeMask, dec.d, dec.d.NumTypes()))
	}
	return h, t, nil
}

func (dec *decoder) mismatch(off int, t Type, pl *decPlan) error {
	return dec.fail(off, t, true, detail(ErrTypeMismatch, "cannot store %s in Go value of type %s", dec.d.TypeName(t), pl.rtype))
}

func (dec *decoder) short(off int, t Type, need int) error {
	return dec.fail(off, t, true, detail(ErrTruncated, "%s needs %s, have %d", dec.d.TypeName(t), plural(need, "byte"), max(len(dec.buf)-off, 0)))
}

// skip checks the Variant at off as Decode would and returns the offset after it.
func (dec *decoder) skip(off, depth int) (int, error) {
	_, next, err := dec.value(off, depth)
	return next, err
}

// into decodes the Variant at off into the value of plan pl at p and returns the offset after it.
func (dec *decoder) into(pl *decPlan, p uptr, off, depth int) (int, error) {
	h, t, err := dec.head(off, depth)
	if err != nil {
		return 0, err
	}
	if pl.unmarshaler {
		return dec.unmarshaler(pl, p, off, depth, t)
	}
	flag64 := h&wire.Flag64 != 0
	switch pl.kind {
	case dkBool:
		if t != TypeBool {
			return 0, dec.mismatch(off, t, pl)
		}
		x, ok := dec.u32(off + 4)
		if !ok {
			return 0, dec.short(off+4, t, 4)
		}
		*(*bool)(p) = x != 0
		return off + 8, nil

	case dkInt, dkUint, dkFloat:
		var i int64
		var f float64
		isInt := false
		next := off + 8
		switch t {
		case TypeInt:
			isInt = true
			if flag64 {
				x, ok := dec.u64(off + 4)
				if !ok {
					return 0, dec.short(off+4, t, 8)
				}
				i, next = int64(x), off+12
			} else {
				x, ok := dec.u32(off + 4)
				if !ok {
					return 0, dec.short(off+4, t, 4)
				}
				i = int64(int32(x))
			}
		case TypeFloat:
			if flag64 {
				x, ok := dec.u64(off + 4)
				if !ok {
					return 0, dec.short(off+4, t, 8)
				}
				f, next = math.Float64frombits(x), off+12
			} else {
				x, ok := dec.u32(off + 4)
				if !ok {
					return 0, dec.short(off+4, t, 4)
				}
				f = float64(math.Float32frombits(x))
			}
		default:
			return 0, dec.mismatch(off, t, pl)
		}
		var err error
		if isInt {
			err = storeInt(pl, p, i)
		} else {
			err = storeFloat(pl, p, f)
		}
		if err != nil {
			return 0, dec.fail(off, t, true, err)
		}
		return next, nil

	case dkString:
		if t != TypeString && t != TypeStringName {
			return 0, dec.mismatch(off, t, pl)
		}
		s, next, err := dec.str(off+4, 0, "")
		if err != nil {
			return 0, dec.fail(off+4, t, true, err)
		}
		*(*string)(p) = s
		return next, nil

	case dkReal:
		if t != pl.real {
			return 0, dec.mismatch(off, t, pl)
		}
		n := pl.comps
		if flag64 && dec.d == Godot4 && t != TypeColor {
			if len(dec.buf)-off-4 < 8*n {
				return 0, dec.short(off+4, t, 8*n)
			}
			c := sliceOf((*float32)(p), n)
			for i := range c {
				c[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(dec.buf[off+4+8*i:])))
			}
			return off + 4 + 8*n, nil
		}
		if len(dec.buf)-off-4 < 4*n {
			return 0, dec.short(off+4, t, 4*n)
		}
		wire.CopyUint32s(sliceOf((*uint32)(p), n), dec.buf[off+4:])
		return off + 4 + 4*n, nil

	case dkGodot:
		v, next, err := dec.value(off, depth)
		if err != nil {
			return 0, err
		}
		if v == nil {
			if pl.rtype.Kind() == reflect.Pointer || pl.rtype == reflect.TypeFor[ObjectID]() {
				typedmemclr(pl.rtype, p)
			}
			return next, nil
		}
		if !assignGodot(pl.rtype, p, v) {
			return 0, dec.mismatch(off, t, pl)
		}
		return next, nil

	case dkRaw:
		next, err := dec.skip(off, depth)
		if err != nil {
			return 0, err
		}
		r := (*RawVariant)(p)
		raw := dec.buf[off:min(next, len(dec.buf))]
		if cap(*r) < len(raw) && !dec.charge(sizeClass(len(raw))) {
			return 0, dec.fail(off, t, true, dec.allocErr("RawVariant", sizeClass(len(raw))))
		}
		*r = append((*r)[:0], raw...)
		return next, nil

	case dkIface:
		return dec.iface(pl, p, off, depth, t)

	case dkPtr:
		if t == TypeNil {
			*(*uptr)(p) = nil
			return off + 4, nil
		}
		q := *(*uptr)(p)
		if q == nil {
			if size := sizeClass(int(pl.elem.size)); !dec.charge(size) {
				return 0, dec.fail(off, t, true, dec.allocErr(pl.rtype.String(), size))
			}
			q = reflect.New(pl.rtype.Elem()).UnsafePointer()
			*(*uptr)(p) = q
		}
		return dec.into(pl.elem, q, off, depth+pl.elemIndirect)

	case dkStruct:
		if t != TypeDictionary {
			return 0, dec.mismatch(off, t, pl)
		}
		return dec.structValue(pl, p, off, depth, h)

	case dkSlice, dkArray:
		return dec.sequence(pl, p, off, depth, h, t)

	case dkMap:
		switch t {
		case TypeNil:
			*(*uptr)(p) = nil
			return off + 4, nil
		case TypeDictionary:
			return dec.mapValue(pl, p, off, depth, h)
		}
		return 0, dec.mismatch(off, t, pl)
	}
	return 0, dec.fail(off, t, true, pl.err)
}

func (dec *decoder) unmarshaler(pl *decPlan, p uptr, off, depth int, t Type) (int, error) {
	v, next, err := dec.value(off, depth)
	if err != nil {
		return 0, err
	}
	u := reflect.NewAt(pl.rtype, p).Interface().(Unmarshaler)
	if err := u.UnmarshalGodot(v, dec.d); err != nil {
		return 0, dec.fail(off, t, true, fmt.Errorf("%s.UnmarshalGodot: %w", pl.rtype, err))
	}
	return next, nil
}

func (dec *decoder) iface(pl *decPlan, p uptr, off, depth int, t Type) (int, error) {
	if pl.rtype.NumMethod() == 0 {
		v, next, err := dec.value(off, depth)
		if err != nil {
			return 0, err
		}
		*(*any)(p) = v
		return next, nil
	}
	cur := reflect.NewAt(pl.rtype, p).Elem()
	if t == TypeNil {
		cur.SetZero()
		return off + 4, nil
	}
	if !cur.IsNil() && cur.Elem().Kind() == reflect.Pointer && !cur.Elem().IsNil() {
		e := cur.Elem()
		return dec.into(decPlanFor(e.Type().Elem()), e.UnsafePointer(), off, depth+1)
	}
	v, next, err := dec.value(off, depth)
	if err != nil {
		return 0, err
	}
	if v == nil || !reflect.TypeOf(v).Implements(pl.rtype) {
		return 0, dec.mismatch(off, t, pl)
	}
	cur.Set(reflect.ValueOf(v))
	return next, nil
}

// storeInt stores an integer into an int, uint or float destination, checking its range.
func storeInt(pl *decPlan, p uptr, x int64) error {
	switch pl.kind {
	case dkInt:
		switch pl.size {
		case 1:
			if x < math.MinInt8 || x > math.MaxInt8 {
				return overflow(x, pl)
			}
			*(*int8)(p) = int8(x)
		case 2:
			if x < math.MinInt16 || x > math.MaxInt16 {
				return overflow(x, pl)
			}
			*(*int16)(p) = int16(x)
		case 4:
			if x < math.MinInt32 || x > math.MaxInt32 {
				return overflow(x, pl)
			}
			*(*int32)(p) = int32(x)
		default:
			*(*int64)(p) = x
		}
	case dkUint:
		if x < 0 || pl.size < 8 && uint64(x) >= 1<<(8*pl.size) {
			return overflow(x, pl)
		}
		switch pl.size {
		case 1:
			*(*uint8)(p) = uint8(x)
		case 2:
			*(*uint16)(p) = uint16(x)
		case 4:
			*(*uint32)(p) = uint32(x)
		default:
			*(*uint64)(p) = uint64(x)
		}
	case dkFloat:
		if pl.size == 4 {
			*(*float32)(p) = float32(x)
		} else {
			*(*float64)(p) = float64(x)
		}
	default:
		return detail(ErrTypeMismatch, "cannot store int in Go value of type %s", pl.rtype)
	}
	return nil
}

func overflow(x any, pl *decPlan) error {
	return detail(ErrRange, "%v does not fit in Go value of type %s", x, pl.rtype)
}

// storeFloat stores a float into a float destination, or into an integer one if it holds an
// integer.
func storeFloat(pl *decPlan, p uptr, f float64) error {
	switch pl.kind {
	case dkFloat:
		if pl.size == 4 {
			if !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
				return overflow(f, pl)
			}
			*(*float32)(p) = float32(f)
		} else {
			*(*float64)(p) = f
		}
		return nil
	case dkInt, dkUint:
		if f != math.Trunc(f) || math.IsInf(f, 0) {
			return detail(ErrTypeMismatch, "float %v is not an integer, for Go value of type %s", f, pl.rtype)
		}
		if f < -(1<<63) || f >= 1<<63 {
			return overflow(f, pl)
		}
		return storeInt(pl, p, int64(f))
	}
	return detail(ErrTypeMismatch, "cannot store float in Go value of type %s", pl.rtype)
}

// typedmemclr zeroes the value of type t at p.
func typedmemclr(t reflect.Type, p uptr) {
	reflect.NewAt(t, p).Elem().SetZero()
}

// assignGodot stores a generically decoded value v into a destination of one of this package's
// types, accepting the forms that mean the same thing.
func assignGodot(t reflect.Type, p uptr, v any) bool {
	dst := reflect.NewAt(t, p).Elem()
	vt := reflect.TypeOf(v)
	if vt == t {
		dst.Set(reflect.ValueOf(v))
		return true
	}
	switch d := dst.Addr().Interface().(type) {
	case *StringName:
		if s, ok := v.(string); ok {
			*d = StringName(s)
			return true
		}
	case *Dictionary:
		if x, ok := v.(*Dictionary); ok {
			*d = *x
			return true
		}
	case *Object:
		if x, ok := v.(*Object); ok {
			*d = *x
			return true
		}
	case *TypedArray:
		switch x := v.(type) {
		case *TypedArray:
			*d = *x
			return true
		case []any:
			*d = TypedArray{Values: x}
			return true
		}
	case **TypedArray:
		if x, ok := v.([]any); ok {
			*d = &TypedArray{Values: x}
			return true
		}
	}
	return false
}

// assignValue stores a generically decoded value into the destination of plan pl (used for the
// elements of packed arrays that are decoded element by element).
func assignValue(pl *decPlan, p uptr, v any) error {
	switch x := v.(type) {
	case int64:
		return storeInt(pl, p, x)
	case float64:
		return storeFloat(pl, p, x)
	}
	switch pl.kind {
	case dkString:
		if s, ok := v.(string); ok {
			*(*string)(p) = s
			return nil
		}
	case dkIface:
		rv := reflect.ValueOf(v)
		if rv.Type().Implements(pl.rtype) {
			reflect.NewAt(pl.rtype, p).Elem().Set(rv)
			return nil
		}
	case dkReal, dkGodot:
		if assignGodot(pl.rtype, p, v) {
			return nil
		}
	case dkPtr:
		q := *(*uptr)(p)
		if q == nil {
			q = reflect.New(pl.rtype.Elem()).UnsafePointer()
			*(*uptr)(p) = q
		}
		return assignValue(pl.elem, q, v)
	}
	return detail(ErrTypeMismatch, "cannot store %T in Go value of type %s", v, pl.rtype)
}

// sliceFor makes the slice at p (of plan pl, a slice type) n elements long, reusing its capacity,
// and returns its data. Reused elements are zeroed when zero is set.
func sliceFor(pl *decPlan, p uptr, n int, zero bool) uptr {
	h := (*sliceHeader)(p)
	if h.data != nil && h.cap >= n {
		h.len = n
		if zero && n > 0 {
			if pl.elemPointers {
				reflect.NewAt(pl.rtype, p).Elem().Clear()
			} else {
				clear(sliceOf((*byte)(h.data), uintptr(n)*pl.elem.size))
			}
		}
		return h.data
	}
	s := reflect.MakeSlice(pl.rtype, n, n)
	reflect.NewAt(pl.rtype, p).Elem().Set(s)
	return h.data
}

// sequence decodes an Array or a packed array into a slice or array.
func (dec *decoder) sequence(pl *decPlan, p uptr, off, depth int, h uint32, t Type) (int, error) {
	switch {
	case t == TypeNil:
		if pl.kind == dkSlice {
			typedmemclr(pl.rtype, p)
		}
		return off + 4, nil
	case t == TypeArray:
		return dec.arrayInto(pl, p, off, depth, h)
	case t == TypePackedStringArray && pl.elem.kind == dkString && !pl.elem.unmarshaler:
		return dec.stringsInto(pl, p, off)
	case t == pl.packed && t != 0:
		wide := h&wire.Flag64 != 0 && dec.d == Godot4
		word := pl.packedWord
		switch t {
		case TypePackedVector2Array, TypePackedVector3Array, TypePackedVector4Array:
			if wide != (word == 8) {
				return dec.packedElements(pl, p, off, depth, t)
			}
		}
		return dec.packedInto(pl, p, off, t)
	case t >= TypePackedByteArray && t <= TypePackedVector4Array:
		return dec.packedElements(pl, p, off, depth, t)
	}
	return 0, dec.mismatch(off, t, pl)
}

// arrayInto decodes an Array, typed or not, element by element.
func (dec *decoder) arrayInto(pl *decPlan, p uptr, off, depth int, h uint32) (int, error) {
	q := off + 4
	if dec.d == Godot4 {
		kind := ContainerKind(h >> wire.ContainerKeyShift & wire.ContainerKindMask)
		_, next, err := dec.containerType(q, depth, kind, "element")
		if err != nil {
			return 0, dec.fail(q, TypeArray, true, err)
		}
		q = next
	}
	cnt, ok := dec.u32(q)
	if !ok {
		return 0, dec.fail(q, TypeArray, true, detail(ErrTruncated, "element count needs 4 bytes, have %d", max(len(dec.buf)-q, 0)))
	}
	n := int(cnt & wire.CountMask)
	q += 4
	if int64(n)*4 > int64(len(dec.buf)-q) {
		return 0, dec.shortSeq(q, n, depth, TypeArray, false)
	}
	if !dec.take(n) {
		return 0, dec.fail(q, TypeArray, true, detail(ErrTooManyElements, "%s", plural(n, "element")))
	}
	data, keep, err := dec.seqStorage(pl, p, n, true)
	if err != nil {
		return 0, dec.fail(q, TypeArray, true, err)
	}
	for i := range n {
		var err error
		if i < keep {
			q, err = dec.into(pl.elem, addPtr(data, uintptr(i)*pl.elem.size), q, depth+1)
		} else {
			q, err = dec.skip(q, depth+1)
		}
		if err != nil {
			return 0, prependPath(err, "["+itoa(i)+"]")
		}
	}
	return q, nil
}

// shortSeq reports the error of an Array (or, with pairs, a Dictionary) whose count of n
// elements at q claims more than the rest of the input can hold. Nothing is allocated for the n
// elements; the elements are read one by one, as the engine (and Decode) does, so that the error
// is the one of the first element that does not decode: a full object where objects are not
// allowed, an unknown type, or the input's end.
func (dec *decoder) shortSeq(q, n, depth int, t Type, pairs bool) error {
	what := "elements"
	if pairs {
		what = "entries"
	}
	for i := range n {
		if !dec.take(1) {
			return dec.fail(q, t, true, detail(ErrTooManyElements, "%d %s", n, what))
		}
		path := "[" + itoa(i) + "]"
		if pairs {
			path = ".key(" + itoa(i) + ")"
		}
		k, next, err := dec.value(q, depth+1)
		if err != nil {
			return prependPath(err, path)
		}
		q = next
		if pairs {
			path = "[" + keyLabel(k) + "]"
			if q, err = dec.skip(q, depth+1); err != nil {
				return prependPath(err, path)
			}
		}
	}
	// Not reached: every element takes 4 bytes or more, so the input ends first.
	return dec.fail(q, t, true, detail(ErrTruncated, "%d %s", n, what))
}

// seqStorage returns where the n decoded elements go and how many of them are kept: all of them
// in a slice; for an array, the first len ones (the rest of the array is zeroed). A new slice is
// charged to the allocation budget.
func (dec *decoder) seqStorage(pl *decPlan, p uptr, n int, zero bool) (uptr, int, error) {
	if pl.kind == dkSlice {
		if h := (*sliceHeader)(p); h.data == nil || h.cap < n {
			size := int(pl.elem.size)
			if !dec.chargeN(n, size) || !dec.charge(sizeClass(n*size)-n*size) {
				return nil, 0, dec.allocErr(fmt.Sprintf("%s of %s", plural(n, "element"), pl.elem.rtype), n*size)
			}
		}
		return sliceFor(pl, p, n, zero), n, nil
	}
	if zero || n < pl.n {
		typedmemclr(pl.rtype, p)
	}
	return p, min(n, pl.n), nil
}

// packedInto copies a packed array whose elements have the destination's memory layout.
func (dec *decoder) packedInto(pl *decPlan, p uptr, off int, t Type) (int, error) {
	q := off + 4
	elemBytes := int(pl.elem.size)
	var n, end int
	var src []byte
	if t == TypePackedByteArray {
		b, _, err := wire.ConsumeBytes(dec.rest(q))
		if err != nil {
			return 0, dec.fail(q, t, true, dec.countErr(err, q, 1))
		}
		n, src, end = len(b), b, q+4+len(b)+wire.Pad(len(b))
	} else {
		var err error
		n, _, err = wire.ConsumeCount(dec.rest(q), elemBytes)
		if err != nil {
			return 0, dec.fail(q, t, true, dec.countErr(err, q, elemBytes))
		}
		src = dec.buf[q+4 : q+4+n*elemBytes]
		end = q + 4 + n*elemBytes
	}
	data, keep, err := dec.seqStorage(pl, p, n, false)
	if err != nil {
		return 0, dec.fail(q, t, true, err)
	}
	if keep > 0 {
		dst := sliceOf((*byte)(data), keep*elemBytes)
		switch pl.packedWord {
		case 8:
			wire.CopyUint64s(sliceOf((*uint64)(data), keep*elemBytes/8), src)
		case 4:
			wire.CopyUint32s(sliceOf((*uint32)(data), keep*elemBytes/4), src)
		default:
			copy(dst, src)
		}
	}
	return end, nil
}

// stringsInto decodes a PackedStringArray into a slice or array of strings.
func (dec *decoder) stringsInto(pl *decPlan, p uptr, off int) (int, error) {
	q := off + 4
	t := TypePackedStringArray
	cnt, ok := dec.u32(q)
	if !ok {
		return 0, dec.fail(q, t, true, detail(ErrTruncated, "element count needs 4 bytes, have %d", max(len(dec.buf)-q, 0)))
	}
	q += 4
	n := int(int32(cnt))
	if n < 0 {
		n = 0 // as the engine: a negative count is an empty array
	}
	if int64(n)*4 > int64(len(dec.buf)-q) {
		return 0, dec.fail(q, t, true, detail(ErrTruncated, "%s need at least %d bytes, have %d", plural(n, "string"), int64(n)*4, len(dec.buf)-q))
	}
	if !dec.take(n) {
		return 0, dec.fail(q, t, true, detail(ErrTooManyElements, "%s", plural(n, "string")))
	}
	data, keep, err := dec.seqStorage(pl, p, n, false)
	if err != nil {
		return 0, dec.fail(q, t, true, err)
	}
	for i := range n {
		s, next, err := dec.str(q, 0, "")
		if err != nil {
			return 0, prependPath(dec.fail(q, t, true, err), "["+itoa(i)+"]")
		}
		if i < keep {
			*(*string)(addPtr(data, uintptr(i)*pl.elem.size)) = s
		}
		q = next
	}
	return q, nil
}

// packedElements decodes a packed array into a slice or array whose elements have another
// layout, element by element (a PoolIntArray into []int64, a PackedVector3Array into []any …).
func (dec *decoder) packedElements(pl *decPlan, p uptr, off, depth int, t Type) (int, error) {
	v, next, err := dec.value(off, depth)
	if err != nil {
		return 0, err
	}
	rv := reflect.ValueOf(v)
	n := rv.Len()
	data, keep, err := dec.seqStorage(pl, p, n, true)
	if err != nil {
		return 0, dec.fail(off, t, true, err)
	}
	if pl.elem.kind == dkPtr {
		// assignValue allocates what each element points to.
		if size := sizeClass(int(pl.elem.elem.size)); !dec.chargeN(keep, size) {
			return 0, dec.fail(off, t, true, dec.allocErr(fmt.Sprintf("%s of %s", plural(keep, "element"), pl.elem.rtype), keep*size))
		}
	}
	at := func(i int) uptr { return addPtr(data, uintptr(i)*pl.elem.size) }
	for i := range keep {
		var err error
		switch s := v.(type) {
		case []byte:
			err = storeInt(pl.elem, at(i), int64(s[i]))
		case []int32:
			err = storeInt(pl.elem, at(i), int64(s[i]))
		case []int64:
			err = storeInt(pl.elem, at(i), s[i])
		case []float32:
			err = storeFloat(pl.elem, at(i), float64(s[i]))
		case []float64:
			err = storeFloat(pl.elem, at(i), s[i])
		default:
			err = assignValue(pl.elem, at(i), rv.Index(i).Interface())
		}
		if err != nil {
			return 0, prependPath(dec.fail(off, t, true, err), "["+itoa(i)+"]")
		}
	}
	return next, nil
}

// structValue decodes a Dictionary into a struct.
func (dec *decoder) structValue(pl *decPlan, p uptr, off, depth int, h uint32) (int, error) {
	q, n, err := dec.dictHeader(off, depth, h)
	if err != nil {
		return 0, err
	}
	hint := 0
	for i := range n {
		kh, kt, err := dec.head(q, depth+1)
		if err != nil {
			return 0, prependPath(err, ".key("+itoa(i)+")")
		}
		_ = kh
		field := -1
		var key []byte
		vq := 0
		if kt == TypeString || kt == TypeStringName {
			raw, kn, err := wire.ConsumeString(dec.rest(q + 4))
			if err != nil {
				_, err := dec.skip(q, depth+1) // for the engine's error
				return 0, prependPath(err, ".key("+itoa(i)+")")
			}
			key, err = stringBytes(dec.d, raw)
			if err != nil {
				_, err := dec.skip(q, depth+1)
				return 0, prependPath(err, ".key("+itoa(i)+")")
			}
			vq = q + 4 + kn
			field = pl.lookup(key, hint)
		} else {
			vq, err = dec.skip(q, depth+1)
			if err != nil {
				return 0, prependPath(err, ".key("+itoa(i)+")")
			}
		}
		if field < 0 {
			q, err = dec.skip(vq, depth+1)
			if err != nil {
				return 0, prependPath(err, "["+keyText(key, kt)+"]")
			}
			continue
		}
		hint = field + 1
		f := &pl.fields[field]
		fp := p
		for _, s := range f.steps {
			ptr := (*uptr)(addPtr(fp, s.off))
			if *ptr == nil {
				if size := sizeClass(int(s.elem.Size())); !dec.charge(size) {
					return 0, prependPath(dec.fail(vq, kt, true, dec.allocErr(s.elem.String(), size)), "."+f.goName)
				}
				*ptr = reflect.New(s.elem).UnsafePointer()
			}
			fp = *ptr
		}
		q, err = dec.into(f.plan, addPtr(fp, f.offset), vq, depth+1)
		if err != nil {
			return 0, prependPath(err, "."+f.goName)
		}
	}
	return q, nil
}

func keyText(key []byte, t Type) string {
	if t == TypeString {
		return fmt.Sprintf("%q", key)
	}
	if t == TypeStringName {
		return fmt.Sprintf("&%q", key)
	}
	return t.String()
}

// lookup finds the field named key: the one after the previous field first (Dictionaries that
// this package encoded list the fields in order), then any with that exact name, then any with
// that name in another case.
func (pl *decPlan) lookup(key []byte, hint int) int {
	if hint < len(pl.fields) && string(key) == pl.fields[hint].name {
		return hint
	}
	if pl.byName != nil {
		if i, ok := pl.byName[string(key)]; ok {
			return i
		}
	} else {
		for i := range pl.fields {
			if string(key) == pl.fields[i].name {
				return i
			}
		}
	}
	for i := range pl.fields {
		if bytes.EqualFold(key, pl.fields[i].nameBytes) {
			return i
		}
	}
	return -1
}

// dictHeader reads a Dictionary's typed descriptors and entry count, with the checks of
// decoder.dictionary, and returns the offset of the first key and the count.
func (dec *decoder) dictHeader(off, depth int, h uint32) (int, int, error) {
	q := off + 4
	if dec.d == Godot4 {
		for _, c := range []struct {
			shift uint
			what  string
		}{{wire.ContainerKeyShift, "key"}, {wire.ContainerValueShift, "value"}} {
			_, next, err := dec.containerType(q, depth, ContainerKind(h>>c.shift&wire.ContainerKindMask), c.what)
			if err != nil {
				return 0, 0, dec.fail(q, TypeDictionary, true, err)
			}
			q = next
		}
	}
	cnt, ok := dec.u32(q)
	if !ok {
		return 0, 0, dec.fail(q, TypeDictionary, true, detail(ErrTruncated, "entry count needs 4 bytes, have %d", max(len(dec.buf)-q, 0)))
	}
	n := int(cnt & wire.CountMask)
	q += 4
	if int64(n)*8 > int64(len(dec.buf)-q) {
		return 0, 0, dec.shortSeq(q, n, depth, TypeDictionary, true)
	}
	if !dec.take(n) {
		return 0, 0, dec.fail(q, TypeDictionary, true, detail(ErrTooManyElements, "%s", pluralForm(n, "entry", "entries")))
	}
	return q, n, nil
}

// mapValue decodes a Dictionary into a map.
func (dec *decoder) mapValue(pl *decPlan, p uptr, off, depth int, h uint32) (int, error) {
	q, n, err := dec.dictHeader(off, depth, h)
	if err != nil {
		return 0, err
	}
	// The map's slots (a key, a value and a control byte each, in groups of 8, at least half
	// full), its directory, and the key and value being decoded.
	ks, es := int(pl.key.size), int(pl.elem.size)
	slot := 2*(ks+es+1) + 8
	if !dec.chargeN(n, slot) || !dec.charge(sizeClass(ks)+sizeClass(es)) {
		return 0, dec.fail(off, TypeDictionary, true, dec.allocErr("a map of "+pluralForm(n, "entry", "entries"), n*slot))
	}
	mv := reflect.NewAt(pl.rtype, p).Elem()
	if mv.IsNil() {
		mv.Set(reflect.MakeMapWithSize(pl.rtype, n))
	}
	kv, vv := reflect.New(pl.key.rtype).Elem(), reflect.New(pl.elem.rtype).Elem()
	kp, vp := kv.Addr().UnsafePointer(), vv.Addr().UnsafePointer()
	for i := range n {
		kv.SetZero()
		kq := q
		if q, err = dec.into(pl.key, kp, q, depth+1); err != nil {
			return 0, prependPath(err, ".key("+itoa(i)+")")
		}
		if !kv.Comparable() {
			_, kt, _ := dec.head(kq, depth+1)
			return 0, prependPath(dec.fail(kq, kt, true, detail(ErrTypeMismatch, "a %s key (%T) cannot be a Go map key", dec.d.TypeName(kt), kv.Interface())), ".key("+itoa(i)+")")
		}
		vv.SetZero()
		if q, err = dec.into(pl.elem, vp, q, depth+1); err != nil {
			return 0, prependPath(err, "["+mapKeyLabel(kv)+"]")
		}
		mv.SetMapIndex(kv, vv)
	}
	return q, nil
}
