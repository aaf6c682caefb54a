package godot

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/gamewire/gamewire/godot/wire"
)

// EncodeOptions configures encoding. The zero value encodes Godot 4 as an official
// (single-precision) build does. Options are checked once and turned into an [EncodeMode], which
// encodes.
type EncodeOptions struct {
	// Dialect selects the Godot 3 or Godot 4 type table and rules.
	Dialect Dialect
	// DoublePrecision writes the real_t math types (Vector2, Rect2, Vector3, Transform2D, Vector4,
	// Plane, Quaternion, AABB, Basis, Transform3D, Projection) and PackedVector2/3/4Array as a
	// Godot 4 build with precision=double does: 8-byte components and the 64-bit header flag.
	// Color, integer vectors and PackedFloat32Array are unaffected. Godot 4 only.
	DoublePrecision bool
	// MaxDepth bounds nesting like DecodeOptions.MaxDepth; deeper (or cyclic) values fail with
	// ErrTooDeep, as the engine's "Potential infinite recursion detected". 0 means
	// DefaultMaxDepth. NoLimit is refused: a cyclic value would recurse until Go's stack limit
	// ends the program.
	MaxDepth int
}

// EncodeMode encodes with options checked once by [EncodeOptions.EncodeMode]. It is immutable and
// safe for concurrent use. The zero value encodes with the default options (Godot 4, single
// precision), as the package-level functions do.
type EncodeMode struct {
	o EncodeOptions
}

// EncodeMode checks o and returns the mode that encodes with it. An unknown Dialect,
// DoublePrecision with Godot3, or a negative MaxDepth fails.
func (o EncodeOptions) EncodeMode() (EncodeMode, error) {
	if err := checkDialect(o.Dialect); err != nil {
		return EncodeMode{}, err
	}
	if o.DoublePrecision && o.Dialect != Godot4 {
		return EncodeMode{}, fmt.Errorf("godot: EncodeOptions.DoublePrecision: Godot 3 has no double-precision form")
	}
	if o.MaxDepth < 0 {
		return EncodeMode{}, fmt.Errorf("godot: EncodeOptions.MaxDepth is %d: want a positive limit or 0 (the default); an encoder needs a limit to stop at a cycle", o.MaxDepth)
	}
	return EncodeMode{o: o}, nil
}

// Options returns the options m encodes with.
func (m EncodeMode) Options() EncodeOptions { return m.o }

// Marshal encodes v as a Godot 4 Variant; see [EncodeMode.Append].
func Marshal(v any) ([]byte, error) { return EncodeMode{}.Append(nil, v) }

// Append encodes v as a Godot 4 Variant and appends it to b; see [EncodeMode.Append].
func Append(b []byte, v any) ([]byte, error) { return EncodeMode{}.Append(b, v) }

// Marshal encodes v and returns the bytes; see [EncodeMode.Append].
func (m EncodeMode) Marshal(v any) ([]byte, error) { return m.Append(nil, v) }

// Append encodes v and appends its bytes to b, byte for byte as the engine's encoder
// (var2bytes / var_to_bytes) writes the same value: an int takes 4 bytes unless it needs 8, a float
// takes 4 bytes exactly when float32 holds it (NaN always takes 8), padding is zero, and
// Dictionaries keep their order. Encoding into a reused buffer does not allocate for scalars,
// math types, strings and packed arrays.
//
// Like the engines: in Godot 4, a string's NUL bytes, and whatever in it is not UTF-8 (such as
// the surrogates a Godot 3 decode keeps), are written as U+FFFD, as Godot 4 writes the characters
// UTF-8 cannot carry; in Godot 3, a Dictionary key that Godot 3 finds unequal to itself (a
// PoolRealArray holding a NaN) is written, with its value, as "[Deleted Object]": null. Typed
// containers are written as they are, without checking their elements.
//
// v may hold any type that [DecodeMode.Decode] returns, and also: the other Go integer types
// (int, int8 … uint64), float32, Dictionary, TypedArray, and []any. Values nested deeper than
// MaxDepth fail with ErrTooDeep. On error, b is returned unchanged with an *[EncodeError].
//
// Any other Go value is encoded by reflection, as encoding/json maps Go values to JSON (and
// [DecodeMode.Unmarshal] maps them back):
//
//   - bool, the integer kinds, float32, float64 and string, named types too, as bool, int, float
//     and String; a uint64 beyond int64 fails.
//   - slices whose elements are of kind uint8, int32, int64, float32, float64 or string, or are
//     Vector2, Vector3, Vector4 or Color (named slice types too, such as type Path []Vector3), as
//     the matching packed array. Godot 3 has no PackedInt64Array or PackedFloat64Array, so there
//     []int64 and []float64 are Arrays. Other slices, and arrays, are Arrays.
//   - maps as Dictionaries whose keys are sorted, so that the bytes are deterministic: strings
//     bytewise, numbers numerically, false before true, other keys by their encoded bytes. Keys
//     that encode alike (int32(1) and int64(1) in a map[any]V, two NaNs) fail with
//     ErrUnsupported, as Godot would merge them.
//   - structs as Dictionaries with a String key per field, in declaration order: the field name
//     or the name of a `godot:"name"` tag. `godot:"-"` skips the field; the option omitempty skips
//     false, 0, "", nil and empty slices, maps and arrays; the option typed writes a slice or
//     array whose elements have one Variant type as a typed Array such as Array[int] (Godot 4; a
//     plain Array in Godot 3). Unexported fields are skipped, and the fields of embedded structs
//     are promoted as in encoding/json.
//   - nil pointers and interfaces as Nil; nil slices and maps as empty containers, because Godot
//     has no null Array or Dictionary.
//   - [Marshaler]s and [RawVariant]s as their documentation says.
//
// Cyclic values fail with ErrTooDeep; errors name the Go path, such as ".Inner.Items[2].ID".
// Append does not keep v. Encoding a struct, by pointer or by value, into a reused buffer does not
// allocate; what v points to is heap memory (the compiler arranges that), because a Marshaler may
// keep it.
func (m EncodeMode) Append(b []byte, v any) ([]byte, error) {
	e := encoder{d: m.o.Dialect, double: m.o.DoublePrecision && m.o.Dialect == Godot4, maxDepth: m.o.MaxDepth}
	if e.maxDepth <= 0 {
		e.maxDepth = DefaultMaxDepth
	}
	out, err := e.value(b, v, 0)
	if err != nil {
		return b, err
	}
	return out, nil
}

type encoder struct {
	d        Dialect
	double   bool
	maxDepth int
}

func (e *encoder) header(b []byte, t Type, flags uint32) []byte {
	id, _ := e.d.WireID(t)
	return wire.AppendUint32(b, id|flags)
}

// need fails unless the dialect has type t.
func (e *encoder) need(t Type, v any) error {
	if e.d.Has(t) {
		return nil
	}
	return encErr(v, detail(ErrUnsupported, "%s has no %s type", e.d, Godot4.TypeName(t)))
}

func encErr(v any, err error) error {
	return &EncodeError{GoType: goTypeName(v), Err: err}
}

// goTypeName names v's dynamic type without letting v escape.
func goTypeName(v any) string {
	if t := reflect.TypeOf(v); t != nil {
		return t.String()
	}
	return "nil"
}

func (e *encoder) value(b []byte, v any, depth int) ([]byte, error) {
	if depth > e.maxDepth {
		return b, encErr(v, detail(ErrTooDeep, "more than %d levels (a cycle?)", e.maxDepth))
	}
	switch v := v.(type) {
	case nil:
		return e.header(b, TypeNil, 0), nil
	case bool:
		b = e.header(b, TypeBool, 0)
		if v {
			return wire.AppendUint32(b, 1), nil
		}
		return wire.AppendUint32(b, 0), nil
	case int64:
		return e.int(b, v), nil
	case int:
		return e.int(b, int64(v)), nil
	case int32:
		return e.int(b, int64(v)), nil
	case int16:
		return e.int(b, int64(v)), nil
	case int8:
		return e.int(b, int64(v)), nil
	case uint8:
		return e.int(b, int64(v)), nil
	case uint16:
		return e.int(b, int64(v)), nil
	case uint32:
		return e.int(b, int64(v)), nil
	case uint:
		if uint64(v) > math.MaxInt64 {
			return b, encErr(v, detail(ErrUnsupported, "%d overflows Godot's int64", v))
		}
		return e.int(b, int64(v)), nil
	case uint64:
		if v > math.MaxInt64 {
			return b, encErr(v, detail(ErrUnsupported, "%d overflows Godot's int64", v))
		}
		return e.int(b, int64(v)), nil
	case float64:
		return e.float(b, v), nil
	case float32:
		b = e.header(b, TypeFloat, 0)
		return wire.AppendFloat32(b, v), nil
	case string:
		b = e.header(b, TypeString, 0)
		if e.d == Godot4 && !plainASCII(v) {
			v = fix4(v)
		}
		return wire.AppendString(b, v), nil
	case StringName:
		if e.d == Godot3 {
			b = e.header(b, TypeString, 0) // Godot 3 has no StringName Variant
		} else {
			b = e.header(b, TypeStringName, 0)
		}
		return e.str(b, string(v)), nil
	case Vector2i:
		return e.ints(b, v, TypeVector2i, v.X, v.Y)
	case Vector3i:
		return e.ints(b, v, TypeVector3i, v.X, v.Y, v.Z)
	case Vector4i:
		return e.ints(b, v, TypeVector4i, v.X, v.Y, v.Z, v.W)
	case Rect2i:
		return e.ints(b, v, TypeRect2i, v.Position.X, v.Position.Y, v.Size.X, v.Size.Y)
	case NodePath:
		return e.nodePath(b, v), nil
	case RID:
		b = e.header(b, TypeRID, 0)
		if e.d == Godot3 {
			return b, nil // Godot 3 writes no payload: the id is lost
		}
		return wire.AppendUint64(b, uint64(v)), nil
	case ObjectID:
		b = e.header(b, TypeObject, wire.FlagObjectAsID)
		return wire.AppendUint64(b, uint64(v)), nil
	case *Object:
		if v == nil {
			return e.header(b, TypeNil, 0), nil
		}
		return e.object(b, v, depth)
	case Callable:
		if err := e.need(TypeCallable, v); err != nil {
			return b, err
		}
		return e.header(b, TypeCallable, 0), nil
	case Signal:
		if err := e.need(TypeSignal, v); err != nil {
			return b, err
		}
		b = e.header(b, TypeSignal, 0)
		b = e.str(b, v.Name)
		return wire.AppendUint64(b, uint64(v.Object)), nil
	case *Dictionary:
		if v == nil {
			return e.header(b, TypeNil, 0), nil
		}
		return e.dictionary(b, v, depth)
	case Dictionary:
		return e.dictionary(b, &v, depth)
	case []any:
		return e.array(b, ContainerType{}, v, depth)
	case *TypedArray:
		if v == nil {
			return e.header(b, TypeNil, 0), nil
		}
		return e.array(b, v.Elem, v.Values, depth)
	case TypedArray:
		return e.array(b, v.Elem, v.Values, depth)
	case []byte:
		b = e.header(b, TypePackedByteArray, 0)
		return wire.AppendBytes(b, v), nil
	case []int32:
		b = e.header(b, TypePackedInt32Array, 0)
		b = wire.AppendUint32(b, uint32(len(v)))
		return wire.AppendUint32s(b, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))), nil
	case []float32:
		b = e.header(b, TypePackedFloat32Array, 0)
		b = wire.AppendUint32(b, uint32(len(v)))
		return wire.AppendUint32s(b, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))), nil
	case []int64:
		if e.d == Godot3 {
			return e.int64Array(b, v), nil // Godot 3 has no PackedInt64Array
		}
		b = e.header(b, TypePackedInt64Array, 0)
		b = wire.AppendUint32(b, uint32(len(v)))
		return wire.AppendUint64s(b, unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), len(v))), nil
	case []float64:
		if e.d == Godot3 {
			return e.float64Array(b, v), nil // Godot 3 has no PackedFloat64Array
		}
		b = e.header(b, TypePackedFloat64Array, 0)
		b = wire.AppendUint32(b, uint32(len(v)))
		return wire.AppendUint64s(b, unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), len(v))), nil
	case []string:
		b = e.header(b, TypePackedStringArray, 0)
		b = wire.AppendUint32(b, uint32(len(v)))
		for _, s := range v {
			if e.d == Godot4 && !plainASCII(s) {
				s = fix4(s)
			}
			b = wire.AppendPackedString(b, s)
		}
		return b, nil
	case []Color:
		b = e.header(b, TypePackedColorArray, 0)
		b = wire.AppendUint32(b, uint32(len(v)))
		return wire.AppendUint32s(b, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*4)), nil
	case []Vector2:
		return e.vectors32(b, TypePackedVector2Array, unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*2), len(v))
	case []Vector3:
		return e.vectors32(b, TypePackedVector3Array, unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*3), len(v))
	case []Vector4:
		return e.vectors32(b, TypePackedVector4Array, unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*4), len(v))
	case []Vector2d:
		return e.vectors64(b, TypePackedVector2Array, unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*2), len(v))
	case []Vector3d:
		return e.vectors64(b, TypePackedVector3Array, unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*3), len(v))
	case []Vector4d:
		return e.vectors64(b, TypePackedVector4Array, unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*4), len(v))
	}
	return e.other(b, v, depth)
}

func (e *encoder) int(b []byte, v int64) []byte {
	if v < math.MinInt32 || v > math.MaxInt32 {
		b = e.header(b, TypeInt, wire.Flag64)
		return wire.AppendUint64(b, uint64(v))
	}
	b = e.header(b, TypeInt, 0)
	return wire.AppendUint32(b, uint32(int32(v)))
}

// float writes 4 bytes when float32 holds v exactly (NaN never compares equal, so NaN takes 8).
func (e *encoder) float(b []byte, v float64) []byte {
	if f := float32(v); float64(f) == v {
		b = e.header(b, TypeFloat, 0)
		return wire.AppendFloat32(b, f)
	}
	b = e.header(b, TypeFloat, wire.Flag64)
	return wire.AppendFloat64(b, v)
}

func (e *encoder) ints(b []byte, v any, t Type, c ...int32) ([]byte, error) {
	if err := e.need(t, v); err != nil {
		return b, err
	}
	b = e.header(b, t, 0)
	for _, x := range c {
		b = wire.AppendUint32(b, uint32(x))
	}
	return b, nil
}

// math encodes the float math types, or fails for a type with no Variant form.
func (e *encoder) math(b []byte, v any) ([]byte, error) {
	var c32 [16]float32
	if t, ok := real32Comps(v, &c32); ok {
		if err := e.need(t, v); err != nil {
			return b, err
		}
		n := int(realCount[t])
		if e.double && t != TypeColor {
			b = e.header(b, t, wire.Flag64)
			for _, x := range c32[:n] {
				b = wire.AppendFloat64(b, float64(x))
			}
			return b, nil
		}
		b = e.header(b, t, 0)
		for _, x := range c32[:n] {
			b = wire.AppendFloat32(b, x)
		}
		return b, nil
	}
	var c64 [16]float64
	if t, ok := real64Comps(v, &c64); ok {
		if e.d != Godot4 {
			return b, encErr(v, detail(ErrUnsupported, "Godot 3 has no double-precision %s", Godot3.TypeName(t)))
		}
		b = e.header(b, t, wire.Flag64)
		for _, x := range c64[:realCount[t]] {
			b = wire.AppendFloat64(b, x)
		}
		return b, nil
	}
	return b, encErr(v, detail(ErrUnsupported, "no Variant type for %s", goTypeName(v)))
}

func (e *encoder) vectors32(b []byte, t Type, comps []float32, n int) ([]byte, error) {
	if err := e.need(t, nil); err != nil {
		return b, err
	}
	if e.double {
		b = e.header(b, t, wire.Flag64)
		b = wire.AppendUint32(b, uint32(n))
		for _, x := range comps {
			b = wire.AppendFloat64(b, float64(x))
		}
		return b, nil
	}
	b = e.header(b, t, 0)
	b = wire.AppendUint32(b, uint32(n))
	return wire.AppendUint32s(b, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(comps))), len(comps))), nil
}

func (e *encoder) vectors64(b []byte, t Type, comps []float64, n int) ([]byte, error) {
	if e.d != Godot4 {
		return b, &EncodeError{GoType: "[]" + Godot4.TypeName(t)[len("Packed"):len(Godot4.TypeName(t))-len("Array")] + "d",
			Err: detail(ErrUnsupported, "Godot 3 has no double-precision %s", Godot3.TypeName(t))}
	}
	b = e.header(b, t, wire.Flag64)
	b = wire.AppendUint32(b, uint32(n))
	return wire.AppendUint64s(b, unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(comps))), len(comps))), nil
}

// maySelfUnequal3 is the quick test before selfUnequal3: only a PoolRealArray or an Array can be.
func maySelfUnequal3(k any) bool {
	switch k.(type) {
	case []float32, []any:
		return true
	}
	return false
}

// deletedObject is what Godot 3 writes for a Dictionary key it cannot look up.
const deletedObject = "[Deleted Object]"

// str appends a String primitive. Godot 4's String holds UTF-32, and String::utf8 writes the
// replacement character U+FFFD for what UTF-8 cannot carry or the decoder would cut (NUL,
// surrogates, code points past U+10FFFF); a Go string that is not valid UTF-8 gets the same
// treatment. Godot 3 writes such characters as they are (CESU-8 surrogates, 5- and 6-byte
// forms), so its strings are written unchanged.
func (e *encoder) str(b []byte, s string) []byte {
	if e.d == Godot4 && !plainASCII(s) {
		return wire.AppendString(b, fix4(s))
	}
	return wire.AppendString(b, s)
}

// plainASCII reports whether s is ASCII without NUL, which every dialect writes unchanged.
func plainASCII(s string) bool {
	var bits byte // bit 7 is set by a byte ≥ 0x80, and by 0 (0 - 1 = 0xFF)
	for i := 0; i < len(s); i++ {
		bits |= s[i] | (s[i] - 1)
	}
	return bits < 0x80
}

// fix4 returns s as Godot 4's String::utf8 writes it: NUL and every character UTF-8 cannot hold
// becomes U+FFFD. Invalid bytes are read as Godot 3 reads them, so that a surrogate or an
// overlong code point that a Godot 3 decode kept counts as one character; what even Godot 3
// cannot read becomes one U+FFFD per byte. Valid UTF-8 without NUL is returned as it is.
func fix4(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0 || r == utf8.RuneError && n <= 1 {
			if r != 0 {
				n = godot3RuneLen(s[i:])
			}
			out = utf8.AppendRune(out, utf8.RuneError)
			i += n
			continue
		}
		out = append(out, s[i:i+n]...)
		i += n
	}
	return string(out)
}

// godot3RuneLen returns the length of the character that Godot 3's UTF-8 parser reads at the
// start of s (surrogates, 4-byte values past U+10FFFF, 5- and 6-byte forms, 3-byte overlongs), or
// 1 if it reads none.
func godot3RuneLen(s string) int {
	c := s[0]
	n := godot3SeqLen(c)
	if n <= 1 || n > len(s) || n == 2 && c&0x1E == 0 {
		return 1
	}
	for k := 1; k < n; k++ {
		if s[k]&0xC0 != 0x80 {
			return 1
		}
	}
	if _, err := godot3UTF8([]byte(s[:n])); err != nil {
		return 1
	}
	return n
}

func (e *encoder) nodePath(b []byte, p NodePath) []byte {
	b = e.header(b, TypeNodePath, 0)
	b = wire.AppendUint32(b, uint32(len(p.Names))|wire.NodePathNewFormat)
	b = wire.AppendUint32(b, uint32(len(p.SubNames)))
	var flags uint32
	if p.Absolute {
		// Both engines write the flag even without names (NodePath("/")); Godot 3 drops it when
		// it decodes such a path, Godot 4 keeps it.
		flags = wire.NodePathAbsolute
	}
	b = wire.AppendUint32(b, flags)
	for _, s := range p.Names {
		b = e.str(b, s)
	}
	for _, s := range p.SubNames {
		b = e.str(b, s)
	}
	return b
}

func (e *encoder) object(b []byte, o *Object, depth int) ([]byte, error) {
	b = e.header(b, TypeObject, 0)
	b = e.str(b, o.Class)
	if o.Class == "" {
		return b, nil // the old (Godot 3.2) form of a null full object
	}
	b = wire.AppendUint32(b, uint32(len(o.Properties)))
	for _, p := range o.Properties {
		b = e.str(b, p.Name)
		var err error
		if b, err = e.value(b, p.Value, depth+1); err != nil {
			return b, prependPath(err, "."+p.Name)
		}
	}
	return b, nil
}

// containerType appends a typed-container descriptor (Godot 4).
func (e *encoder) containerType(b []byte, ct ContainerType) ([]byte, error) {
	switch ct.Kind {
	case ContainerNone:
		return b, nil
	case ContainerBuiltin:
		id, ok := e.d.WireID(ct.Builtin)
		if !ok {
			return b, fmt.Errorf("%w: element type %d", ErrContainerType, ct.Builtin)
		}
		return wire.AppendUint32(b, id), nil
	case ContainerClassName, ContainerScript:
		return e.str(b, ct.Name), nil
	}
	return b, fmt.Errorf("%w: kind %d", ErrContainerType, ct.Kind)
}

func (e *encoder) array(b []byte, elem ContainerType, vals []any, depth int) ([]byte, error) {
	start := len(b)
	var flags uint32
	if elem.Kind != ContainerNone {
		if e.d != Godot4 {
			return b, &EncodeError{GoType: "*godot.TypedArray", Err: detail(ErrUnsupported, "Godot 3 has no typed Arrays")}
		}
		flags = uint32(elem.Kind) << wire.ContainerKeyShift
	}
	b = e.header(b, TypeArray, flags)
	b, err := e.containerType(b, elem)
	if err != nil {
		return b[:start], &EncodeError{GoType: "*godot.TypedArray", Err: err}
	}
	b = wire.AppendUint32(b, uint32(len(vals)))
	for i, v := range vals {
		if b, err = e.value(b, v, depth+1); err != nil {
			return b[:start], prependPath(err, fmt.Sprintf("[%d]", i))
		}
	}
	return b, nil
}

func (e *encoder) dictionary(b []byte, d *Dictionary, depth int) ([]byte, error) {
	start := len(b)
	var flags uint32
	if d.Key.Kind != ContainerNone || d.Value.Kind != ContainerNone {
		if e.d != Godot4 {
			return b, &EncodeError{GoType: "*godot.Dictionary", Err: detail(ErrUnsupported, "Godot 3 has no typed Dictionaries")}
		}
		flags = uint32(d.Key.Kind)<<wire.ContainerKeyShift | uint32(d.Value.Kind)<<wire.ContainerValueShift
	}
	b = e.header(b, TypeDictionary, flags)
	b, err := e.containerType(b, d.Key)
	if err == nil {
		b, err = e.containerType(b, d.Value)
	}
	if err != nil {
		return b[:start], &EncodeError{GoType: "*godot.Dictionary", Err: err}
	}
	b = wire.AppendUint32(b, uint32(len(d.Entries)))
	for i, en := range d.Entries {
		if e.d == Godot3 && maySelfUnequal3(en.Key) && selfUnequal3(en.Key, 0) {
			// Godot 3.2.3 writes each pair by looking its key up again; a key that is not equal
			// to itself is not found, and the pair comes out as "[Deleted Object]": null.
			b = e.header(b, TypeString, 0)
			b = wire.AppendString(b, deletedObject)
			b = e.header(b, TypeNil, 0)
			continue
		}
		if b, err = e.value(b, en.Key, depth+1); err != nil {
			return b[:start], prependPath(err, fmt.Sprintf(".key(%d)", i))
		}
		if b, err = e.value(b, en.Value, depth+1); err != nil {
			return b[:start], prependPath(err, "["+keyLabel(en.Key)+"]")
		}
	}
	return b, nil
}
