package godot

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/gamewire/gamewire/godot/wire"
)

// Decoder limits.
const (
	// DefaultMaxDepth is the default nesting limit: containers and objects may nest this deep
	// below the top-level value, which is Godot's own limit (Variant::MAX_RECURSION_DEPTH, enforced
	// by Godot 3.3+ and 4.x; Godot 3.2.3 has none and crashes near 25 000 levels).
	DefaultMaxDepth = 1024
	// DefaultMaxElements is the default limit on the total number of Array elements, Dictionary
	// entries, PackedStringArray strings, NodePath names and Object properties in one value.
	// Packed numeric arrays are limited by the input's size instead.
	DefaultMaxElements = 1 << 22
)

// NoLimit, as the value of a limit (MaxDepth, MaxElements, MaxAllocBytes, MaxMessageBytes),
// means none; 0 means the limit's default. Other negative limits are invalid.
const NoLimit = -1

// DecodeOptions configures decoding. The zero value decodes Godot 4 with the engine's defaults:
// no full objects, nesting up to DefaultMaxDepth, at most DefaultMaxElements elements. Options are
// checked once and turned into a [DecodeMode], which decodes.
type DecodeOptions struct {
	// Dialect selects the Godot 3 or Godot 4 type table and rules.
	Dialect Dialect
	// AllowObjects permits full objects (class name and properties), like the allow_objects
	// argument of bytes2var/get_var. Without it, a full object fails with ErrObjectsNotAllowed,
	// as the engine fails with ERR_UNAUTHORIZED. Objects encoded as instance ids are always
	// accepted. Nothing is ever instantiated: objects decode as *Object data. As in the engine,
	// it also decides what the object types of Godot 4 typed containers decode as: without it,
	// every class, script or builtin Object type becomes the class EncodedObjectAsID; with it, a
	// script type must be a res:// path (else ErrContainerType), and so must a full object's
	// "script" property, if it is not Nil (else ErrScriptProperty).
	AllowObjects bool
	// MaxDepth bounds nesting: values nested deeper than MaxDepth levels below the top fail with
	// ErrTooDeep. 0 means DefaultMaxDepth. With NoLimit, only the input bounds nesting (a
	// level takes 8 bytes): hostile input of some megabytes then nests deep enough for the
	// decoder's recursion to reach Go's 1 GB stack limit, a fatal error that no recover catches.
	// Use NoLimit only for trusted input.
	MaxDepth int
	// MaxElements bounds the total number of elements (see DefaultMaxElements), counting the
	// elements that converting a value for a typed container creates (an Array made of a packed
	// array) and the names parsed from a String made a NodePath. 0 means DefaultMaxElements; NoLimit
	// means none (MaxAllocBytes still bounds memory).
	MaxElements int
	// MaxAllocBytes bounds the memory that decoding one value allocates, in bytes: a value that would
	// need more fails with ErrAllocLimit. Every allocation is charged before it is made (rounded up
	// to the Go runtime's size classes); beyond MaxAllocBytes, a decode allocates only the unused tails
	// of the chunks in which it packs small values, less than 128 KiB in all. 0 means
	// DefaultMaxAllocFactor (24) bytes per byte of input plus DefaultMaxAllocSlack (64 KiB), which
	// every value that Decode returns fits (the most a byte of input can need is 17 bytes, for a
	// PackedByteArray converted to an Array of ints), but which a Go destination of Unmarshal with
	// large elements may not ([]T of a 1 KiB struct T from an Array of empty Dictionaries needs 128
	// bytes per byte of input): set MaxAllocBytes for those. NoLimit means none.
	MaxAllocBytes int
	// LegacyNodePath accepts the obsolete NodePath format, a single String ("a/b:c") without
	// bit 31 in its first word, which the seeds document but engines since 3.0 reject
	// (ErrOldNodePath). The string is split as NodePath(String) does.
	LegacyNodePath bool
	// Real reproduces what an engine build whose real_t is single or double precision makes of
	// Godot 4 math values (Vector2 … Projection, but not Color) and packed vector arrays. The
	// zero value, RealLossless, keeps what the bytes hold.
	Real Real
}

// Real is the precision of an engine build's real_t, for [DecodeOptions.Real].
type Real uint8

const (
	// RealLossless keeps the bytes' own precision: float32 components decode as Vector2 …,
	// components written with the 64-bit flag as Vector2d … . Re-encoding gives the same bytes.
	RealLossless Real = iota
	// RealSingle reads as the official Godot 4 builds do (real_t is float): components written
	// with the 64-bit flag are rounded to float32 (1e300 becomes +Inf; a NaN keeps its sign and
	// the top of its payload, quieted), and the values decode as Vector2 …, which encode without
	// the flag, as the engine writes them back.
	RealSingle
	// RealDouble reads as a double-precision build (precision=double) does: float32 components
	// widen to float64, and the values decode as Vector2d …, which encode with the flag.
	RealDouble
)

// ParseReal reads a real_t precision by name: "single" (or "float"), "double", or "lossless"
// (or "").
func ParseReal(s string) (Real, error) {
	switch strings.ToLower(s) {
	case "", "lossless":
		return RealLossless, nil
	case "single", "float", "float32":
		return RealSingle, nil
	case "double", "float64":
		return RealDouble, nil
	}
	return 0, fmt.Errorf("godot: unknown real_t precision %q (want single, double or lossless)", s)
}

// String names the precision as ParseReal reads it.
func (r Real) String() string {
	switch r {
	case RealLossless:
		return "lossless"
	case RealSingle:
		return "single"
	case RealDouble:
		return "double"
	}
	return fmt.Sprintf("Real(%d)", uint8(r))
}

// narrow rounds a float64 to float32 as a C++ static_cast<float> does on the engine's
// platforms: to nearest, overflowing to infinity; a NaN keeps its sign and the top 23 bits of its
// payload and is quieted. (Go's float32() of a NaN is not specified.)
func narrow(f float64) float32 {
	if f != f {
		b := math.Float64bits(f)
		return math.Float32frombits(uint32(b>>63)<<31 | 0x7fc00000 | uint32(b>>29)&0x7fffff)
	}
	return float32(f)
}

// DecodeMode decodes with options checked once by [DecodeOptions.DecodeMode]. It is immutable and
// safe for concurrent use. The zero value decodes with the default options (Godot 4), as the
// package-level functions do.
type DecodeMode struct {
	// o holds the options with NoLimit made math.MaxInt, so that the decoder needs no case of
	// its own for it; 0 still means the default.
	o DecodeOptions
}

// DecodeMode checks o and returns the mode that decodes with it. A negative limit other than
// NoLimit, an unknown Dialect or an unknown Real fails.
func (o DecodeOptions) DecodeMode() (DecodeMode, error) {
	if err := checkDialect(o.Dialect); err != nil {
		return DecodeMode{}, err
	}
	if o.Real > RealDouble {
		return DecodeMode{}, fmt.Errorf("godot: DecodeOptions.Real: unknown precision %d", o.Real)
	}
	var err error
	if o.MaxDepth, err = checkLimit("MaxDepth", o.MaxDepth); err != nil {
		return DecodeMode{}, err
	}
	if o.MaxElements, err = checkLimit("MaxElements", o.MaxElements); err != nil {
		return DecodeMode{}, err
	}
	if o.MaxAllocBytes, err = checkLimit("MaxAllocBytes", o.MaxAllocBytes); err != nil {
		return DecodeMode{}, err
	}
	return DecodeMode{o: o}, nil
}

// checkDialect fails for a Dialect that is neither Godot3 nor Godot4.
func checkDialect(d Dialect) error {
	if d != Godot3 && d != Godot4 {
		return fmt.Errorf("godot: unknown dialect %d", d)
	}
	return nil
}

// checkLimit returns the internal form of a limit: math.MaxInt for NoLimit, v itself for 0
// (the default) and positive values. Other negative values fail.
func checkLimit(name string, v int) (int, error) {
	switch {
	case v == NoLimit:
		return math.MaxInt, nil
	case v < 0:
		return 0, fmt.Errorf("godot: DecodeOptions.%s is %d: want a positive limit, 0 (the default) or NoLimit", name, v)
	}
	return v, nil
}

// publicLimit is checkLimit reversed.
func publicLimit(v int) int {
	if v == math.MaxInt {
		return NoLimit
	}
	return v
}

// Options returns the options m decodes with.
func (m DecodeMode) Options() DecodeOptions {
	o := m.o
	o.MaxDepth, o.MaxElements, o.MaxAllocBytes = publicLimit(o.MaxDepth), publicLimit(o.MaxElements), publicLimit(o.MaxAllocBytes)
	return o
}

// Decode decodes one Godot 4 Variant from the start of data; see [DecodeMode.Decode].
func Decode(data []byte) (v any, n int, err error) { return DecodeMode{}.Decode(data) }

// Decode decodes one Variant from the start of data and returns it with the number of bytes it
// took. Bytes after it are not examined, as in the engine (bytes_to_var ignores them).
//
// Values decode to these Go types: nil, bool, int64, float64, string, [StringName], the math
// types ([Vector2] … [Projection], [Color]; the …d types when the 64-bit flag marks a
// double-precision build), [NodePath], [RID], [ObjectID], *[Object], [Callable], [Signal],
// *[Dictionary], []any (an untyped Array), *[TypedArray], []byte, []int32, []int64, []float32,
// []float64, []string, []Vector2, []Vector3, []Vector4, []Color (and []Vector2d, []Vector3d,
// []Vector4d). A null Object decodes as nil, as the engine re-encodes it.
//
// Dictionaries merge equal keys as the dialect's engine does ([Dialect.KeyEqual]; the last value
// wins, the first key stays). Godot 4 typed Arrays and the keys of typed Dictionaries hold what
// the engine keeps: an element of another type is converted where Godot converts it (1.5 becomes
// 1 in an Array[int], a String a StringName …) and dropped where it does not, and an object must
// be of the container's class (for the classes this package knows) or script.
//
// Errors are *[DecodeError]s that wrap one of the package's sentinel errors. Decode never panics,
// and allocates no more than MaxAllocBytes (by default 24 times len(data), plus 64 KiB).
//
// A top-level int (outside -256 … 255), float, Vector2, Vector3 or Color is put in the interface
// by Go (8 or 16 bytes). Values inside containers are packed in a decode's own chunks instead
// (see MaxAllocBytes).
//
// The dialect must be the one of the engine that wrote the bytes, and a wrong one often does not
// fail: the two dialects number their types differently from type 6 on. A Godot 3 Dictionary
// (type 18) read as Godot 4 is a Transform3D whose twelve floats are the Dictionary's entry count
// and the bytes of its keys (tiny denormals and NaN-like values); a Godot 3 Vector3 (7) is a
// Rect2 four bytes short (ErrTruncated); Godot 4 values from type 27 on (Dictionary, Array and
// the packed arrays) are unknown types to Godot 3. Signs of a wrong dialect: a type you did not
// send, floats made of text bytes, and, with [DecodeMode.Unmarshal], ErrTypeMismatch where the
// right dialect decodes cleanly.
func (m DecodeMode) Decode(data []byte) (v any, n int, err error) { return decodeTop(&m.o, data) }

// decodeTop is Decode. Decode is small enough to be inlined, so that a call passes the options by
// address rather than copying them, and decodeTop decodes a top-level bool, int, float, Vector2,
// Vector3 or Color (32-bit components) itself, without setting up a decoder and exactly as value
// does at depth 0, before it hands anything else, or input too short, to decode. Go's own
// conversion puts the value in the interface (8 or 16 bytes; none for bools and ints in
// -256 … 255).
func decodeTop(o *DecodeOptions, data []byte) (any, int, error) {
	if len(data) < 8 {
		return o.decode(data)
	}
	h := binary.LittleEndian.Uint32(data)
	// What value charges to the allocation budget: a budget smaller than that leaves the value,
	// and the error, to it. (The default budget is at least DefaultMaxAllocSlack.)
	if uint(o.MaxAllocBytes-1) < maxScalarCost-1 && !scalarFits(h, o.Dialect, o.MaxAllocBytes) {
		return o.decode(data)
	}
	// Each case reads its own bytes: reads of different widths from the same offset, shared,
	// would be compiled as single-byte loads.
	flag64 := h&wire.Flag64 != 0
	switch id := h & wire.TypeMask; id { // bool, int and float have the same ids in both dialects
	case 1:
		return binary.LittleEndian.Uint32(data[4:]) != 0, 8, nil
	case 2:
		switch {
		case !flag64:
			return boxInt64(int64(int32(binary.LittleEndian.Uint32(data[4:])))), 8, nil
		case len(data) >= 12:
			return boxInt64(int64(binary.LittleEndian.Uint64(data[4:]))), 12, nil
		}
	case 3:
		switch {
		case !flag64:
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4:]))), 8, nil
		case len(data) >= 12:
			return math.Float64frombits(binary.LittleEndian.Uint64(data[4:])), 12, nil
		}
	default:
		// The math types, whose ids differ: Vector2 is 5 in both dialects, Vector3 7 in Godot 3
		// and 9 in Godot 4 (TypeOf's table reads any dialect but Godot3 as Godot 4), Color 14
		// and 20. Godot 4's double-precision components (the 64-bit flag, or RealDouble) are the
		// decoder's, except for Color, which has no such form.
		g3 := o.Dialect == Godot3
		double := o.Dialect == Godot4 && (flag64 || o.Real == RealDouble)
		switch {
		case id == 5 && len(data) >= 12 && !double:
			return Vector2{f32(data[4:]), f32(data[8:])}, 12, nil
		case (id == 7 && g3 || id == 9 && !g3) && len(data) >= 16 && !double:
			return Vector3{f32(data[4:]), f32(data[8:]), f32(data[12:])}, 16, nil
		case (id == 14 && g3 || id == 20 && !g3) && len(data) >= 20:
			return Color{f32(data[4:]), f32(data[8:]), f32(data[12:]), f32(data[16:])}, 20, nil
		}
	}
	return o.decode(data)
}

// f32 reads a little-endian float32.
func f32(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

// decode is Decode past its fast path: it sets up a decoder.
func (o *DecodeOptions) decode(data []byte) (any, int, error) {
	var dec decoder
	o.initDecoder(&dec, data)
	v, end, err := dec.value(0, 0)
	if err != nil {
		return nil, 0, finishPath(err)
	}
	return v, min(end, len(data)), nil
}

// maxScalarCost is the most that value charges for a type decodeTop decodes (fixedCost of
// Vector3 and Color); TestMaxScalarCost checks it.
const maxScalarCost = 16

// scalarFits reports whether the budget maxBytes covers what value charges for the value whose
// header is h.
func scalarFits(h uint32, d Dialect, maxBytes int) bool {
	t, ok := d.TypeOf(h & wire.TypeMask)
	return ok && int(fixedCost[t]) <= maxBytes
}

// smallNegInts holds -256..-1 for boxInt64; it is never written.
var smallNegInts = func() (t [256]int64) {
	for i := range t {
		t[i] = int64(i) - 256
	}
	return t
}()

// boxInt64 returns v in an interface. Like Go's own conversion it does not allocate for 0..255,
// and it does not allocate for -256..-1 either: those point into a table that is never written.
func boxInt64(v int64) any {
	if uint64(v+256) < 256 {
		return box(int64Type, uptr(&smallNegInts[v+256]))
	}
	return v
}

// initDecoder sets up dec, which is zero, to decode data. It sets the fields one by one rather
// than returning a decoder: a returned decoder is built on the stack and copied, and the copy
// reads whole words of what was just written a byte at a time (a store-forwarding stall), which
// costs about 4 ns per Decode.
func (o *DecodeOptions) initDecoder(dec *decoder, data []byte) {
	dec.buf, dec.d, dec.allowObjects, dec.legacyNodePath = data, o.Dialect, o.AllowObjects, o.LegacyNodePath
	dec.maxDepth, dec.elems, dec.bytes, dec.real = o.MaxDepth, o.MaxElements, o.maxBytes(data), o.Real
	if dec.maxDepth <= 0 {
		dec.maxDepth = DefaultMaxDepth
	}
	if dec.elems <= 0 {
		dec.elems = DefaultMaxElements
	}
}

type decoder struct {
	buf            []byte
	d              Dialect
	allowObjects   bool
	legacyNodePath bool
	real           Real
	maxDepth       int
	elems          int // remaining element budget
	bytes          int // remaining allocation budget (alloc.go)
	// tr, when set, receives every field decoded (Explain).
	tr *tracer
	// keys hashes Dictionary keys, for all the Dictionaries of the value (see Dictionary.add).
	keys *keyHasher
	a    allocator
}

func (dec *decoder) fail(off int, t Type, hasType bool, err error) error {
	if oe, ok := err.(*offsetError); ok {
		off, err = oe.off, oe.err
	}
	// After a PackedByteArray whose padding is missing, the engine looks for the next field
	// past the end of the input; the error points at the end.
	off = min(off, len(dec.buf))
	return &DecodeError{Offset: int64(off), Dialect: dec.d, Type: t, HasType: hasType, Err: err}
}

// offsetError is an error found inside a field whose offset differs from the field's start (the
// bytes of a string, after its length); fail uses the inner offset.
type offsetError struct {
	off int
	err error
}

func (e *offsetError) Error() string { return e.err.Error() }
func (e *offsetError) Unwrap() error { return e.err }

func (dec *decoder) boxInt(v int64, depth int) any {
	if depth > 0 {
		return dec.a.boxInt(v)
	}
	return boxInt64(v)
}

func (dec *decoder) boxFloat(v float64, depth int) any {
	if depth > 0 {
		return dec.a.boxFloat(v)
	}
	return v
}

func (dec *decoder) u32(p int) (uint32, bool) {
	if p < 0 || len(dec.buf)-p < 4 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(dec.buf[p:]), true
}

func (dec *decoder) u64(p int) (uint64, bool) {
	if p < 0 || len(dec.buf)-p < 8 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(dec.buf[p:]), true
}

func (dec *decoder) rest(p int) []byte {
	if p >= len(dec.buf) {
		return nil
	}
	return dec.buf[p:]
}

// take reserves n elements of the budget.
func (dec *decoder) take(n int) bool {
	if n > dec.elems {
		return false
	}
	dec.elems -= n
	return true
}

// tracedValue is value for Explain: it opens the Variant's field and completes it with the
// Variant's length and decoded value. The decoder calls it instead of value where dec.tr is set, so that
// decoding without a tracer pays no extra call.
func (dec *decoder) tracedValue(p, depth int) (any, int, error) {
	mark := dec.tr.openVariant(p)
	v, end, err := dec.value(p, depth)
	dec.tr.closeVariant(dec, mark, v, min(end, len(dec.buf)), err)
	return v, end, err
}

// value decodes the Variant at buf[p:] and returns it with the offset just after it.
func (dec *decoder) value(p, depth int) (any, int, error) {
	if depth > dec.maxDepth {
		return nil, 0, dec.fail(p, 0, false, detail(ErrTooDeep, "more than %d levels", dec.maxDepth))
	}
	h, ok := dec.u32(p)
	if !ok {
		return nil, 0, dec.fail(p, 0, false, detail(ErrTruncated, "need a 4-byte header, have %s", plural(max(len(dec.buf)-p, 0), "byte")))
	}
	t, ok := dec.d.TypeOf(h & wire.TypeMask)
	if !ok {
		return nil, 0, dec.fail(p, 0, false, detail(ErrUnknownType, "type id %d (%s has %d types)", h&wire.TypeMask, dec.d, dec.d.NumTypes()))
	}
	if dec.tr != nil {
		dec.tr.header(dec, h, t)
	}
	start := p
	p += 4
	fail := func(off int, err error) (any, int, error) {
		return nil, 0, dec.fail(off, t, true, err)
	}
	short := func(need int) (any, int, error) {
		return fail(p, detail(ErrTruncated, "%s needs %s, have %d", dec.d.TypeName(t), plural(need, "byte"), max(len(dec.buf)-p, 0)))
	}
	flag64 := h&wire.Flag64 != 0
	cost := int(fixedCost[t])
	if flag64 && dec.d == Godot4 && realCount[t] > 0 && t != TypeColor {
		cost = sizeClass(8 * int(realCount[t]))
	}
	if !dec.charge(cost) {
		return fail(start, dec.allocErr(dec.d.TypeName(t), cost))
	}

	switch t {
	case TypeNil:
		return nil, p, nil

	case TypeBool:
		x, ok := dec.u32(p)
		if !ok {
			return short(4)
		}
		if dec.tr != nil {
			dec.tr.leaf(p, 4, "bool", "value", x != 0, "")
		}
		return x != 0, p + 4, nil

	case TypeInt:
		if flag64 {
			x, ok := dec.u64(p)
			if !ok {
				return short(8)
			}
			if dec.tr != nil {
				dec.tr.leaf(p, 8, "int64", "value", int64(x), "")
			}
			return dec.boxInt(int64(x), depth), p + 8, nil
		}
		x, ok := dec.u32(p)
		if !ok {
			return short(4)
		}
		if dec.tr != nil {
			dec.tr.leaf(p, 4, "int32", "value", int64(int32(x)), "")
		}
		return dec.boxInt(int64(int32(x)), depth), p + 4, nil

	case TypeFloat:
		if flag64 {
			x, ok := dec.u64(p)
			if !ok {
				return short(8)
			}
			f := math.Float64frombits(x)
			if dec.tr != nil {
				dec.tr.leaf(p, 8, "float64", "value", f, fmtFloat(f))
			}
			return dec.boxFloat(f, depth), p + 8, nil
		}
		x, ok := dec.u32(p)
		if !ok {
			return short(4)
		}
		f := float64(math.Float32frombits(x))
		if dec.tr != nil {
			dec.tr.leaf(p, 4, "float32", "value", float64(math.Float32frombits(x)), fmtFloat32(math.Float32frombits(x)))
		}
		return dec.boxFloat(f, depth), p + 4, nil

	case TypeString, TypeStringName:
		s, next, err := dec.str(p, depth, "")
		if err != nil {
			return fail(p, err)
		}
		if t == TypeStringName {
			return StringName(s), next, nil
		}
		if depth > 0 {
			return dec.a.boxString(s), next, nil
		}
		return s, next, nil

	case TypeVector2i, TypeRect2i, TypeVector3i, TypeVector4i:
		n := int(intCount[t])
		if len(dec.buf)-p < 4*n {
			return short(4 * n)
		}
		var c [4]int32
		for i := range n {
			c[i] = int32(binary.LittleEndian.Uint32(dec.buf[p+4*i:]))
			if dec.tr != nil {
				dec.tr.leaf(p+4*i, 4, "int32", componentName(t, i), int64(c[i]), "")
			}
		}
		return intVecValue(t, &c), p + 4*n, nil

	case TypeVector2, TypeRect2, TypeVector3, TypeTransform2D, TypeVector4, TypePlane,
		TypeQuaternion, TypeAABB, TypeBasis, TypeTransform3D, TypeProjection, TypeColor:
		n := int(realCount[t])
		if flag64 && dec.d == Godot4 && t != TypeColor {
			if len(dec.buf)-p < 8*n {
				return short(8 * n)
			}
			var c [16]float64
			for i := range n {
				c[i] = math.Float64frombits(binary.LittleEndian.Uint64(dec.buf[p+8*i:]))
				if dec.tr != nil {
					dec.tr.leaf(p+8*i, 8, "float64", componentName(t, i), float64(c[i]), fmtFloat(c[i]))
				}
			}
			if dec.real == RealSingle {
				var s [16]float32
				for i := range n {
					s[i] = narrow(c[i])
				}
				return real32Value(t, &s), p + 8*n, nil
			}
			return real64Value(t, &c), p + 8*n, nil
		}
		if len(dec.buf)-p < 4*n {
			return short(4 * n)
		}
		var c [16]float32
		for i := range n {
			c[i] = math.Float32frombits(binary.LittleEndian.Uint32(dec.buf[p+4*i:]))
			if dec.tr != nil {
				dec.tr.leaf(p+4*i, 4, "float32", componentName(t, i), float64(c[i]), fmtFloat32(c[i]))
			}
		}
		if dec.real == RealDouble && dec.d == Godot4 && t != TypeColor {
			var w [16]float64
			for i := range n {
				w[i] = float64(c[i])
			}
			return real64Value(t, &w), p + 4*n, nil
		}
		if depth > 0 {
			switch t {
			case TypeVector2:
				return box(vector2Type, dec.a.vectors2.put(Vector2{c[0], c[1]})), p + 4*n, nil
			case TypeVector3:
				return box(vector3Type, dec.a.vectors3.put(Vector3{c[0], c[1], c[2]})), p + 4*n, nil
			case TypeColor:
				return box(colorType, dec.a.colors.put(Color{c[0], c[1], c[2], c[3]})), p + 4*n, nil
			}
		}
		return real32Value(t, &c), p + 4*n, nil

	case TypeNodePath:
		return dec.nodePath(p, depth)

	case TypeRID:
		if dec.d == Godot3 {
			return RID(0), p, nil
		}
		x, ok := dec.u64(p)
		if !ok {
			return short(8)
		}
		if dec.tr != nil {
			dec.tr.leaf(p, 8, "u64", "RID id", uint64(x), "")
		}
		return RID(x), p + 8, nil

	case TypeObject:
		return dec.object(p, depth, h)

	case TypeCallable:
		return Callable{}, p, nil

	case TypeSignal:
		name, next, err := dec.str(p, depth, "signal name ")
		if err != nil {
			return fail(p, err)
		}
		id, ok := dec.u64(next)
		if !ok {
			p = next
			return short(8)
		}
		if dec.tr != nil {
			dec.tr.leaf(next, 8, "u64", "object id", uint64(id), "")
		}
		return Signal{Name: name, Object: ObjectID(id)}, next + 8, nil

	case TypeDictionary:
		return dec.dictionary(p, depth, h)

	case TypeArray:
		return dec.array(p, depth, h)

	case TypePackedByteArray:
		b, _, err := wire.ConsumeBytes(dec.rest(p))
		if err != nil {
			return fail(p, dec.countErr(err, p, 1))
		}
		if dec.tr != nil {
			dec.tr.leaf(p, 4, "u32", "count", int64(len(b)), "")
			dec.tr.bytes(p+4, b)
		}
		if !dec.charge(sizeClass(len(b))) {
			return fail(p, dec.allocErr("PackedByteArray", sizeClass(len(b))))
		}
		out := make([]byte, len(b))
		copy(out, b)
		// The engine counts the padding even where it is missing (it is never checked), which
		// makes a following element fail as truncated; returning the unclamped end does the same.
		return out, p + 4 + len(b) + wire.Pad(len(b)), nil

	case TypePackedInt32Array, TypePackedFloat32Array, TypePackedInt64Array, TypePackedFloat64Array,
		TypePackedVector2Array, TypePackedVector3Array, TypePackedVector4Array, TypePackedColorArray:
		return dec.packed(p, depth, t, flag64)

	case TypePackedStringArray:
		return dec.packedStrings(p, depth)
	}
	return fail(start, fmt.Errorf("%w: type %d", ErrUnknownType, t))
}

// countErr gives a packed array's count error its details.
func (dec *decoder) countErr(err error, p, elem int) error {
	if have := len(dec.buf) - p; have < 4 {
		return detail(err, "element count needs 4 bytes, have %d", max(have, 0))
	}
	x, _ := dec.u32(p)
	if err == wire.ErrNegativeLength {
		return detail(err, "count %d", int32(x))
	}
	return detail(err, "count %d of %d-byte elements needs %s, have %d", x, elem, plural(int(int64(x)*int64(elem)), "byte"), max(len(dec.buf)-p-4, 0))
}

// str decodes a String primitive at p.
func (dec *decoder) str(p, depth int, what string) (string, int, error) {
	b, n, err := wire.ConsumeString(dec.rest(p))
	if err != nil {
		x, _ := dec.u32(p)
		switch err {
		case wire.ErrNegativeLength:
			return "", 0, detail(err, "%sstring length %d", what, int32(x))
		default:
			if len(dec.buf)-p < 4 {
				return "", 0, detail(err, "%sstring length needs 4 bytes, have %d", what, max(len(dec.buf)-p, 0))
			}
			return "", 0, detail(err, "%sstring of %s and %d padding needs %s, have %d", what, plural(int(x), "byte"), wire.Pad(int(x)), plural(int(int64(x)+int64(wire.Pad(int(x)))), "byte"), len(dec.buf)-p-4)
		}
	}
	sb, err := stringBytes(dec.d, b)
	if err != nil {
		return "", 0, &offsetError{p + 4, detail(err, "%s%q", what, b)}
	}
	// The copy, and the bytes that Godot 3's rules may have rewritten (no more than the input's).
	cost := sizeClass(len(sb))
	if !aliases(sb, b) {
		cost += sizeClass(len(b))
	}
	if !dec.charge(cost) {
		return "", 0, dec.allocErr(what+"string", cost)
	}
	var s string
	if depth > 0 {
		s = dec.a.str(sb)
	} else {
		s = string(sb)
	}
	if dec.tr != nil {
		dec.tr.str(p, what, b, s)
	}
	return s, p + n, nil
}

// nodePath decodes a NodePath payload at p.
func (dec *decoder) nodePath(p, depth int) (any, int, error) {
	fail := func(off int, err error) (any, int, error) {
		return nil, 0, dec.fail(off, TypeNodePath, true, err)
	}
	first, ok := dec.u32(p)
	if !ok {
		return fail(p, detail(ErrTruncated, "NodePath needs 4 bytes, have %d", max(len(dec.buf)-p, 0)))
	}
	if first&wire.NodePathNewFormat == 0 {
		if !dec.legacyNodePath {
			return fail(p, detail(ErrOldNodePath, "first word %#08x lacks bit 31", first))
		}
		s, next, err := dec.str(p, depth, "old-format path ")
		if err != nil {
			return fail(p, err)
		}
		np, err := dec.parseNodePath(s)
		if err != nil {
			return fail(p+4, err)
		}
		return np, next, nil
	}
	if len(dec.buf)-p < 12 {
		return fail(p, detail(ErrTruncated, "NodePath needs 12 bytes, have %d", len(dec.buf)-p))
	}
	names := first &^ wire.NodePathNewFormat
	subs, _ := dec.u32(p + 4)
	flags, _ := dec.u32(p + 8)
	if dec.tr != nil {
		dec.tr.leaf(p, 4, "u32", "name count", int64(names), fmt.Sprintf("%d | 0x80000000 (new format)", names))
		dec.tr.leaf(p+4, 4, "u32", "subname count", int64(subs), "")
		prop := ""
		if flags&wire.NodePathProperty != 0 {
			prop = ", obsolete property flag: one more subname"
		}
		dec.tr.leaf(p+8, 4, "u32", "flags", int64(flags), fmt.Sprintf("%#x (absolute %v%s)", flags, flags&wire.NodePathAbsolute != 0, prop))
	}
	if flags&wire.NodePathProperty != 0 {
		subs++
	}
	// The engine adds the counts in uint32, so that they wrap around; it reads the first
	// min(names, total) strings as names and the rest as subnames.
	total := names + subs
	names = min(names, total)
	p += 12
	if uint64(total)*4 > uint64(len(dec.buf)-p) {
		return fail(p, detail(ErrTruncated, "%s need at least %d bytes, have %d", plural(int(total), "name"), uint64(total)*4, len(dec.buf)-p))
	}
	if !dec.take(int(total)) {
		return fail(p, detail(ErrTooManyElements, "%s", plural(int(total), "name")))
	}
	if !dec.chargeN(int(total), 16) {
		return fail(p, dec.allocErr(plural(int(total), "name"), int(total)*16))
	}
	var np NodePath
	if total > 0 {
		all := make([]string, total)
		for i := range all {
			what := "name "
			if uint32(i) >= names {
				what = "subname "
			}
			s, next, err := dec.str(p, depth, what)
			if err != nil {
				return fail(p, err)
			}
			if dec.tr != nil {
				dec.tr.nodePathPad(p)
			}
			all[i], p = s, next
		}
		np.Names = all[:names:names]
		if total > names {
			np.SubNames = all[names:]
		}
	}
	// Godot 3 builds an empty path when there are no names and no subnames, dropping the
	// absolute flag; Godot 4.6 keeps it (NodePath("/")).
	if total > 0 || dec.d == Godot4 {
		np.Absolute = flags&wire.NodePathAbsolute != 0
	}
	return np, p, nil
}

// object decodes an Object payload at p.
func (dec *decoder) object(p, depth int, h uint32) (any, int, error) {
	fail := func(off int, err error) (any, int, error) {
		return nil, 0, dec.fail(off, TypeObject, true, err)
	}
	if h&wire.FlagObjectAsID != 0 {
		id, ok := dec.u64(p)
		if !ok {
			return fail(p, detail(ErrTruncated, "object id needs 8 bytes, have %d", max(len(dec.buf)-p, 0)))
		}
		if dec.tr != nil {
			dec.tr.leaf(p, 8, "u64", "instance id", uint64(id), fmt.Sprintf("%d (EncodedObjectAsID)", id))
		}
		if id == 0 {
			return nil, p + 8, nil
		}
		return ObjectID(id), p + 8, nil
	}
	if !dec.allowObjects {
		return fail(p, detail(ErrObjectsNotAllowed, "decode with AllowObjects to read full objects"))
	}
	class, next, err := dec.str(p, depth, "class name ")
	if err != nil {
		return fail(p, err)
	}
	p = next
	if class == "" {
		return nil, p, nil
	}
	cnt, ok := dec.u32(p)
	if !ok {
		return fail(p, detail(ErrTruncated, "property count needs 4 bytes, have %d", max(len(dec.buf)-p, 0)))
	}
	if dec.tr != nil {
		dec.tr.leaf(p, 4, "u32", "property count", int64(int32(cnt)), "")
	}
	p += 4
	n := int(int32(cnt))
	if n < 0 {
		n = 0 // the engine reads the count as int32 and loops zero times
	}
	if int64(n)*8 > int64(len(dec.buf)-p) {
		return fail(p, detail(ErrTruncated, "%s need at least %d bytes, have %d", pluralForm(n, "property", "properties"), int64(n)*8, len(dec.buf)-p))
	}
	if !dec.take(n) {
		return fail(p, detail(ErrTooManyElements, "%s", pluralForm(n, "property", "properties")))
	}
	if size := int(sizeOf(Property{})); !dec.chargeN(n, size) {
		return fail(p, dec.allocErr(pluralForm(n, "property", "properties"), n*size))
	}
	obj := &Object{Class: class, Properties: make([]Property, n)}
	for i := range obj.Properties {
		name, next, err := dec.str(p, depth, "property name ")
		if err != nil {
			return fail(p, err)
		}
		vp := next
		var v any
		if dec.tr != nil {
			dec.tr.enterf(".%s", name)
			v, next, err = dec.tracedValue(next, depth+1)
		} else {
			v, next, err = dec.value(next, depth+1)
		}
		if err != nil {
			return nil, 0, prependPath(err, "."+name)
		}
		if dec.tr != nil {
			dec.tr.leave()
		}
		if name == "script" && v != nil && dec.d == Godot4 {
			// Godot 4.3+ sends an object's script as the script's path, and loads it.
			if s, ok := v.(string); !ok || !strings.HasPrefix(s, "res://") {
				return nil, 0, prependPath(dec.fail(vp, TypeObject, true,
					detail(ErrScriptProperty, "%s is not a res:// path", keyLabel(v))), ".script")
			}
		}
		obj.Properties[i] = Property{name, v}
		p = next
	}
	return obj, p, nil
}

// encodedObjectAsID is the class the engine gives objects sent as instance ids, and every object
// type of a typed container decoded without full objects.
const encodedObjectAsID = "EncodedObjectAsID"

// containerType decodes a typed-container descriptor of the given kind at p (Godot 4). As in the
// engine, without AllowObjects every object type (a builtin Object, a class, a script) becomes
// the class EncodedObjectAsID, and with it a script must be a res:// path.
func (dec *decoder) containerType(p, depth int, kind ContainerKind, what string) (ContainerType, int, error) {
	ct := ContainerType{Kind: kind}
	asID := ContainerType{Kind: ContainerClassName, Builtin: TypeObject, Name: encodedObjectAsID}
	switch kind {
	case ContainerNone:
		return ct, p, nil
	case ContainerBuiltin:
		id, ok := dec.u32(p)
		if !ok {
			return ct, 0, detail(ErrTruncated, "%s type needs 4 bytes, have %d", what, max(len(dec.buf)-p, 0))
		}
		t, ok := dec.d.TypeOf(id)
		if !ok {
			return ct, 0, detail(ErrContainerType, "%s builtin type %d out of range", what, id)
		}
		if dec.tr != nil {
			dec.tr.leaf(p, 4, "u32", what+" type", int64(id), fmt.Sprintf("%d %s", id, dec.d.TypeName(t)))
		}
		if t == TypeObject && !dec.allowObjects {
			return asID, p + 4, nil
		}
		ct.Builtin = t
		return ct, p + 4, nil
	default:
		s, next, err := dec.str(p, depth, what+" ")
		if err != nil {
			return ct, 0, err
		}
		if !dec.allowObjects {
			return asID, next, nil
		}
		if kind == ContainerScript && !strings.HasPrefix(s, "res://") {
			return ct, 0, &offsetError{p + 4, detail(ErrContainerType, "%s script %q is not a res:// path", what, s)}
		}
		ct.Builtin = TypeObject
		ct.Name = s
		return ct, next, nil
	}
}

// countFits reports whether n elements of at least size bytes each fit in the input after p. The
// engine does not check a count against the input: it fails at the first missing or bad element,
// and so does the decoder. A count that fits is charged to the element budget at once; otherwise
// each element is charged as it is decoded, so that no more elements than the input can hold are
// ever allocated or charged.
func (dec *decoder) countFits(n, p, size int) bool {
	return int64(n)*int64(size) <= int64(len(dec.buf)-p)
}

// array decodes an Array payload at p.
func (dec *decoder) array(p, depth int, h uint32) (any, int, error) {
	fail := func(off int, err error) (any, int, error) {
		return nil, 0, dec.fail(off, TypeArray, true, err)
	}
	var elem ContainerType
	if dec.d == Godot4 {
		kind := ContainerKind(h >> wire.ContainerKeyShift & wire.ContainerKindMask)
		var err error
		var next int
		elem, next, err = dec.containerType(p, depth, kind, "element")
		if err != nil {
			return fail(p, err)
		}
		p = next
	}
	cnt, ok := dec.u32(p)
	if !ok {
		return fail(p, detail(ErrTruncated, "element count needs 4 bytes, have %d", max(len(dec.buf)-p, 0)))
	}
	n := int(cnt & wire.CountMask)
	if dec.tr != nil {
		dec.tr.leaf(p, 4, "u32", "element count", int64(n), "")
	}
	p += 4
	fits := dec.countFits(n, p, 4)
	if fits && !dec.take(n) {
		return fail(p, detail(ErrTooManyElements, "%s", plural(n, "element")))
	}
	// The engine makes the Array typed only when the element's builtin type is not Nil, and then
	// checks every element it adds (admit).
	typed := elem.Kind != ContainerNone && !(elem.Kind == ContainerBuiltin && elem.Builtin == TypeNil)
	capacity := min(n, max(len(dec.buf)-p, 0)/4)
	if !dec.chargeN(capacity, 16) {
		return fail(p, dec.allocErr(plural(capacity, "element"), capacity*16))
	}
	vals := dec.a.anys(capacity)
	k := 0
	for i := range n {
		if !fits && !dec.take(1) {
			return fail(p, detail(ErrTooManyElements, "%s", plural(n, "element")))
		}
		var v any
		var next int
		var err error
		if dec.tr != nil {
			dec.tr.enterf("[%d]", i)
			v, next, err = dec.tracedValue(p, depth+1)
		} else {
			v, next, err = dec.value(p, depth+1)
		}
		if err != nil {
			return nil, 0, prependPath(err, fmt.Sprintf("[%d]", i))
		}
		if dec.tr != nil {
			dec.tr.leave()
		}
		p = next
		if typed {
			if v, ok, err = dec.admit(&elem, v); err != nil {
				return nil, 0, prependPath(dec.fail(p, TypeArray, true, err), fmt.Sprintf("[%d]", i))
			} else if !ok {
				continue
			}
		}
		if k < len(vals) {
			vals[k] = v
		} else {
			vals = append(vals, v) // not reached: every element takes 4 bytes or more
		}
		k++
	}
	vals = vals[:k]
	if typed {
		return &TypedArray{Elem: elem, Values: vals}, p, nil
	}
	return box(sliceType, dec.a.slices.put(vals)), p, nil
}

// dictionary decodes a Dictionary payload at p.
func (dec *decoder) dictionary(p, depth int, h uint32) (any, int, error) {
	fail := func(off int, err error) (any, int, error) {
		return nil, 0, dec.fail(off, TypeDictionary, true, err)
	}
	d := (*Dictionary)(dec.a.dicts.put(Dictionary{}))
	if dec.d == Godot4 {
		var err error
		var next int
		d.Key, next, err = dec.containerType(p, depth, ContainerKind(h>>wire.ContainerKeyShift&wire.ContainerKindMask), "key")
		if err != nil {
			return fail(p, err)
		}
		p = next
		d.Value, next, err = dec.containerType(p, depth, ContainerKind(h>>wire.ContainerValueShift&wire.ContainerKindMask), "value")
		if err != nil {
			return fail(p, err)
		}
		p = next
		if d.Key.Kind == ContainerBuiltin && d.Key.Builtin == TypeNil {
			d.Key = ContainerType{}
		}
		if d.Value.Kind == ContainerBuiltin && d.Value.Builtin == TypeNil {
			d.Value = ContainerType{}
		}
		if d.Key.Kind == ContainerScript {
			// Godot 4.6 (Dictionary::set_typed) gives the values the key's script: values of a
			// class or script type become of the key's script, and values of any other type make
			// set_typed fail, which leaves the Dictionary untyped.
			switch d.Value.Kind {
			case ContainerClassName, ContainerScript:
				d.Value = d.Key
			default:
				d.Key, d.Value = ContainerType{}, ContainerType{}
			}
		}
	}
	cnt, ok := dec.u32(p)
	if !ok {
		return fail(p, detail(ErrTruncated, "entry count needs 4 bytes, have %d", max(len(dec.buf)-p, 0)))
	}
	n := int(cnt & wire.CountMask)
	if dec.tr != nil {
		dec.tr.leaf(p, 4, "u32", "entry count", int64(n), "")
	}
	p += 4
	fits := dec.countFits(n, p, 8)
	if fits && !dec.take(n) {
		return fail(p, detail(ErrTooManyElements, "%s", pluralForm(n, "entry", "entries")))
	}
	// A typed Dictionary checks each key as it is added (admit), not the values.
	typedKey := d.Key.Kind != ContainerNone
	capacity := min(n, max(len(dec.buf)-p, 0)/8)
	// The entries, and the index of their keys if there are enough to need one.
	size := int(sizeOf(Entry{}))
	if capacity >= linearKeys {
		size += keyIndexCost
	}
	if !dec.chargeN(capacity, size) {
		return fail(p, dec.allocErr(pluralForm(capacity, "entry", "entries"), capacity*size))
	}
	d.Entries = dec.a.entryList(capacity)
	var idx *keyIndex
	for i := 0; i < n; i++ {
		if !fits && !dec.take(1) {
			return fail(p, detail(ErrTooManyElements, "%s", pluralForm(n, "entry", "entries")))
		}
		var k, v any
		var next int
		var err error
		if dec.tr != nil {
			dec.tr.openEntry(p)
			k, next, err = dec.tracedValue(p, depth+1)
		} else {
			k, next, err = dec.value(p, depth+1)
		}
		if err != nil {
			return nil, 0, prependPath(err, fmt.Sprintf(".key(%d)", i))
		}
		if dec.tr != nil {
			dec.tr.entryValue(k)
			v, next, err = dec.tracedValue(next, depth+1)
		} else {
			v, next, err = dec.value(next, depth+1)
		}
		if err != nil {
			return nil, 0, prependPath(err, "["+keyLabel(k)+"]")
		}
		if dec.tr != nil {
			dec.tr.closeEntry()
		}
		p = next
		if typedKey {
			if k, ok, err = dec.admit(&d.Key, k); err != nil {
				return nil, 0, prependPath(dec.fail(p, TypeDictionary, true, err), fmt.Sprintf(".key(%d)", i))
			} else if !ok {
				continue
			}
		}
		d.add(dec.d, k, v, &idx, &dec.keys)
	}
	return d, p, nil
}

// keyLabel renders a key for error paths.
func keyLabel(k any) string {
	switch k := k.(type) {
	case string:
		return fmt.Sprintf("%q", k)
	case StringName:
		return fmt.Sprintf("&%q", string(k))
	case int64:
		return fmt.Sprint(k)
	}
	return fmt.Sprintf("%T", k)
}

// packed decodes a packed array of fixed-size elements at p.
func (dec *decoder) packed(p, depth int, t Type, flag64 bool) (any, int, error) {
	wide := flag64 && dec.d == Godot4
	var comps, size int // components per element, bytes per component
	switch t {
	case TypePackedInt32Array, TypePackedFloat32Array:
		comps, size = 1, 4
	case TypePackedInt64Array, TypePackedFloat64Array:
		comps, size = 1, 8
	case TypePackedVector2Array:
		comps, size = 2, 4
	case TypePackedVector3Array:
		comps, size = 3, 4
	case TypePackedVector4Array, TypePackedColorArray:
		comps, size = 4, 4
	}
	if wide && (t == TypePackedVector2Array || t == TypePackedVector3Array || t == TypePackedVector4Array) {
		size = 8
	}
	elem := comps * size
	n, _, err := wire.ConsumeCount(dec.rest(p), elem)
	if err != nil {
		return nil, 0, dec.fail(p, t, true, dec.countErr(err, p, elem))
	}
	// A packed vector array read for an engine of the other precision is converted while it is
	// copied, into elements of that precision (DecodeOptions.Real).
	vector := dec.d == Godot4 && (t == TypePackedVector2Array || t == TypePackedVector3Array || t == TypePackedVector4Array)
	narrowing := vector && wide && dec.real == RealSingle
	widening := vector && !wide && dec.real == RealDouble
	outElem := elem
	switch {
	case narrowing:
		outElem = comps * 4
	case widening:
		outElem = comps * 8
	}
	if !dec.charge(sizeClass(n * outElem)) {
		return nil, 0, dec.fail(p, t, true, dec.allocErr(dec.d.TypeName(t), sizeClass(n*outElem)))
	}
	if dec.tr != nil {
		dec.tr.leaf(p, 4, "u32", "count", int64(n), "")
	}
	p += 4
	data := dec.buf[p : p+n*elem]
	if dec.tr != nil {
		dec.tr.packed(dec, p, t, n, comps, size)
	}
	end := p + n*elem
	var out any
	switch {
	case narrowing:
		out = narrowVectors(data, n, comps)
	case widening:
		out = widenVectors(data, n, comps)
	case t == TypePackedInt32Array:
		out = packedSlice[int32](data, n)
	case t == TypePackedFloat32Array:
		out = packedSlice[float32](data, n)
	case t == TypePackedInt64Array:
		out = packedSlice[int64](data, n)
	case t == TypePackedFloat64Array:
		out = packedSlice[float64](data, n)
	case t == TypePackedColorArray:
		out = packedSlice[Color](data, n)
	case t == TypePackedVector2Array && !wide:
		out = packedSlice[Vector2](data, n)
	case t == TypePackedVector3Array && !wide:
		out = packedSlice[Vector3](data, n)
	case t == TypePackedVector4Array && !wide:
		out = packedSlice[Vector4](data, n)
	case t == TypePackedVector2Array:
		out = packedSlice[Vector2d](data, n)
	case t == TypePackedVector3Array:
		out = packedSlice[Vector3d](data, n)
	case t == TypePackedVector4Array:
		out = packedSlice[Vector4d](data, n)
	}
	return out, end, nil
}

// narrowVectors reads n double-precision vectors of comps components (2, 3 or 4) from data and
// rounds them to single precision, as a single-precision engine does.
func narrowVectors(data []byte, n, comps int) any {
	comp := func(i int) float32 { return narrow(math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))) }
	switch comps {
	case 2:
		out := make([]Vector2, n)
		for i := range out {
			out[i] = Vector2{comp(2 * i), comp(2*i + 1)}
		}
		return out
	case 3:
		out := make([]Vector3, n)
		for i := range out {
			out[i] = Vector3{comp(3 * i), comp(3*i + 1), comp(3*i + 2)}
		}
		return out
	}
	out := make([]Vector4, n)
	for i := range out {
		out[i] = Vector4{comp(4 * i), comp(4*i + 1), comp(4*i + 2), comp(4*i + 3)}
	}
	return out
}

// widenVectors reads n single-precision vectors of comps components (2, 3 or 4) from data and
// widens them to double precision, as a double-precision engine does.
func widenVectors(data []byte, n, comps int) any {
	comp := func(i int) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))) }
	switch comps {
	case 2:
		out := make([]Vector2d, n)
		for i := range out {
			out[i] = Vector2d{comp(2 * i), comp(2*i + 1)}
		}
		return out
	case 3:
		out := make([]Vector3d, n)
		for i := range out {
			out[i] = Vector3d{comp(3 * i), comp(3*i + 1), comp(3*i + 2)}
		}
		return out
	}
	out := make([]Vector4d, n)
	for i := range out {
		out[i] = Vector4d{comp(4 * i), comp(4*i + 1), comp(4*i + 2), comp(4*i + 3)}
	}
	return out
}

// packedSlice copies the n elements of a packed array in data into a new []T. T is a
// pointer-free type made of 4-byte or 8-byte little-endian words (int32, float32, float64, the
// float vectors, Color …).
func packedSlice[T any](data []byte, n int) []T {
	if hostLittle {
		return cloneAs[T](data, n)
	}
	s := make([]T, n)
	var zero T
	if n > 0 {
		size := int(sizeOf(zero))
		if elemWord[T]() == 8 {
			wire.CopyUint64s(sliceOf((*uint64)(uptr(sliceData(s))), n*size/8), data)
		} else {
			wire.CopyUint32s(sliceOf((*uint32)(uptr(sliceData(s))), n*size/4), data)
		}
	}
	return s
}

// elemWord returns the word size of a packed element type: 8 for int64, float64 and the
// double-precision vectors, otherwise 4.
func elemWord[T any]() int {
	var zero T
	switch any(zero).(type) {
	case int64, float64, Vector2d, Vector3d, Vector4d:
		return 8
	}
	return 4
}

// packedStrings decodes a PackedStringArray (PoolStringArray) at p.
func (dec *decoder) packedStrings(p, depth int) (any, int, error) {
	fail := func(off int, err error) (any, int, error) {
		return nil, 0, dec.fail(off, TypePackedStringArray, true, err)
	}
	cnt, ok := dec.u32(p)
	if !ok {
		return fail(p, detail(ErrTruncated, "element count needs 4 bytes, have %d", max(len(dec.buf)-p, 0)))
	}
	if dec.tr != nil {
		dec.tr.leaf(p, 4, "u32", "count", int64(int32(cnt)), "")
	}
	p += 4
	n := int(int32(cnt))
	if n < 0 {
		n = 0 // the engine reads the count as int32 and decodes an empty array
	}
	if int64(n)*4 > int64(len(dec.buf)-p) {
		return fail(p, detail(ErrTruncated, "%s need at least %d bytes, have %d", plural(n, "string"), int64(n)*4, len(dec.buf)-p))
	}
	if !dec.take(n) {
		return fail(p, detail(ErrTooManyElements, "%s", plural(n, "string")))
	}
	if !dec.chargeN(n, 16) {
		return fail(p, dec.allocErr(plural(n, "string"), n*16))
	}
	out := make([]string, n)
	for i := range out {
		s, next, err := dec.str(p, depth, "")
		if err != nil {
			return nil, 0, prependPath(dec.fail(p, TypePackedStringArray, true, err), fmt.Sprintf("[%d]", i))
		}
		out[i], p = s, next
	}
	return out, p, nil
}
