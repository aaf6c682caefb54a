// Package godottest provides utilities for testing code that speaks the Godot Variant format
// against the real engines, in the spirit of net/http/httptest: a generator of random Variants
// that the engine round-trips byte for byte, and byte comparisons that ignore the bytes the
// engine leaves uninitialised, with readable hex diffs for failures.
//
// # What Rand generates
//
// [Rand] covers every type of the chosen dialect that survives the engine's own decode-and-encode
// round trip (bytes2var then var2bytes), with the values where encoders go wrong: ints around
// ±2^31 and at the int64 limits, floats that float32 holds exactly and that it does not, ±0,
// ±inf, NaNs with any payload and sign, float32 and float64 subnormals, strings of 0–5 bytes
// (every padding length) and longer, with 2-, 3- and 4-byte UTF-8, control characters and a
// U+FEFF inside, NodePaths absolute and relative with subnames and empty names, Arrays and
// Dictionaries nested to [Options].MaxDepth with keys of any type, and packed arrays, empty ones
// included.
//
// It leaves out what the engine does not give back unchanged, so that any difference between the
// engine's bytes and the codec's is a bug:
//
//   - Objects, in either form. An Object sent as an instance id comes back as an
//     EncodedObjectAsID carrying the id of that new object, not the original (Godot 3 fact 6);
//     a full Object needs allow_objects, instantiates arbitrary classes and gains or loses
//     properties. A null Object is NIL, which Rand does generate.
//   - Strings that start with U+FEFF: the engine drops a leading byte-order mark when it decodes
//     (fact 11, 24). U+FEFF elsewhere in a string is kept and is generated.
//   - Strings containing NUL: decoding stops at the first NUL byte (fact 24).
//   - Strings that are not UTF-8 in the dialect's sense. For Godot 3, Rand does generate what
//     3.2.3 accepts and writes back unchanged (encoded surrogates "eda080", code points above
//     U+10FFFF, 5- and 6-byte sequences: facts 12, 24) unless [Options].ValidUTF8 is set; never
//     overlong forms, which 3.2.3 accepts but rewrites ("e080af" → "/").
//   - For Godot 3, an absolute NodePath with no names and no subnames (NodePath("/")): it comes
//     back relative, as NodePath("") (facts 11, 25). Absolute paths with only subnames ("/:x")
//     keep the flag and are generated, and Godot 4.6 keeps NodePath("/") too.
//   - Godot 3 RIDs other than RID(0): 3.x writes only the header, so the id is lost (fact 8).
//   - Godot 3 Dictionary keys that contain a PoolRealArray holding a NaN, at any depth: such a key
//     is not equal to itself in 3.2.3, which then writes the pair as "[Deleted Object]": null
//     (fact 10). NaN is generated everywhere else in keys (a float key, Vector2, PoolVector2Array,
//     Array, …), where 3.2.3 handles it. For Godot 4 NaN is not excluded from keys: it equals NaN
//     as a key and in math values and packed arrays; as an Array element or a Dictionary value it
//     equals nothing, which makes such a key distinct from every other, as the engine keeps it.
//   - Dictionary keys that the engine treats as equal: within one Dictionary, keys are distinct as
//     [godot.KeyEqual] sees them (ints and floats differ, ±0 are equal, NaN equals NaN, Arrays and
//     packed arrays compare by content), and for Godot 4 a String and a StringName with the same
//     text also count as equal, as Godot 4's Dictionary compares them.
//   - For Godot 4: Object-typed containers (Array[Node] and such, which need objects), and the
//     double-precision math types unless [Options].DoublePrecision asks for a precision=double
//     build (whose engine turns every single-precision value into a double one).
//
// The Godot 3 rules above were checked against the real 3.2.3 engine (godot/engine3_test.go runs
// tens of thousands of Rand values through it). The Godot 4 rules follow the format spec and the
// Godot 4.6 observations; Signal, RID and typed containers in particular are yet to be confirmed
// by that engine's differential tests.
//
// Rand is deterministic: the same *rand.Rand state and Options give the same value, so a failing
// test can print its seed and be replayed.
package godottest

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gamewire/gamewire/godot"
)

// Default knobs of [Options].
const (
	DefaultMaxDepth     = 3
	DefaultMaxLen       = 6
	DefaultMaxStringLen = 40
)

// Options configures [Rand]. The zero value generates Godot 4 values with the default knobs.
type Options struct {
	// Dialect selects the engine generation whose types and round-trip rules apply.
	Dialect godot.Dialect
	// MaxDepth bounds nesting: Arrays and Dictionaries (and their keys) nest at most MaxDepth
	// levels below the value returned. 0 means DefaultMaxDepth; a negative value generates no
	// containers at all.
	MaxDepth int
	// MaxLen bounds the number of elements of Arrays, Dictionaries and packed arrays, and of
	// names and subnames of a NodePath. 0 means DefaultMaxLen.
	MaxLen int
	// MaxStringLen bounds the length of strings in runes. Most strings are 0–5 bytes long, to
	// cover every padding length; a few are up to MaxStringLen runes. 0 means
	// DefaultMaxStringLen.
	MaxStringLen int
	// Types restricts the values generated, at every level, to these types (in the dialect's
	// sense: TypeArray also stands for typed Arrays). Containers are generated only if listed;
	// when a listed container cannot nest deeper, it is generated empty. Nil means
	// Types(Dialect).
	Types []godot.Type
	// ValidUTF8 restricts Godot 3 strings to valid UTF-8. By default Godot 3 strings may also
	// hold the sequences 3.2.3 accepts and writes back unchanged: encoded surrogates, code
	// points above U+10FFFF and 5- and 6-byte forms. (Godot 4 strings are always valid UTF-8.)
	ValidUTF8 bool
	// Untyped makes Godot 4 Arrays and Dictionaries untyped only. By default about a quarter
	// of them are typed with a builtin element (key, value) type.
	Untyped bool
	// DoublePrecision generates the values of a Godot 4 build with precision=double: the real_t
	// math types and packed vector arrays as godot.Vector2d, …, []godot.Vector3d, which encode
	// with 8-byte components. Such an engine cannot give back the single-precision forms.
	DoublePrecision bool
}

// Types returns the types that [Rand] generates for dialect d by default: every type of the
// dialect except Object. See the package comment for what is left out within each type.
func Types(d godot.Dialect) []godot.Type {
	var ts []godot.Type
	for id := range d.NumTypes() {
		t, _ := d.TypeOf(uint32(id))
		if t == godot.TypeObject {
			continue
		}
		ts = append(ts, t)
	}
	return ts
}

// Rand returns a random Variant value for o.Dialect, drawn from r. See the package comment for
// what it covers and what it leaves out.
func Rand(r *rand.Rand, o Options) any {
	g := newGen(r, o)
	return g.value(0, false)
}

// RandType returns a random value of type t, or nil if o.Dialect has no type t or Rand never
// generates it (TypeObject). o.Types restricts the elements of a container t, not t itself.
func RandType(r *rand.Rand, o Options, t godot.Type) any {
	if !o.Dialect.Has(t) || t == godot.TypeObject {
		return nil
	}
	g := newGen(r, o)
	return g.typed(t, 0, false)
}

type gen struct {
	r     *rand.Rand
	o     Options
	types []godot.Type
	// leaves and containers split types for choosing at the depth limit.
	leaves, containers []godot.Type
}

func newGen(r *rand.Rand, o Options) *gen {
	if o.MaxDepth == 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxLen <= 0 {
		o.MaxLen = DefaultMaxLen
	}
	if o.MaxStringLen <= 0 {
		o.MaxStringLen = DefaultMaxStringLen
	}
	if o.Dialect != godot.Godot4 {
		o.DoublePrecision = false
		o.Untyped = true
	}
	g := &gen{r: r, o: o}
	src := o.Types
	if src == nil {
		src = Types(o.Dialect)
	}
	for _, t := range src {
		if !o.Dialect.Has(t) || t == godot.TypeObject || slices.Contains(g.types, t) {
			continue
		}
		g.types = append(g.types, t)
		if t == godot.TypeArray || t == godot.TypeDictionary {
			g.containers = append(g.containers, t)
		} else {
			g.leaves = append(g.leaves, t)
		}
	}
	return g
}

func (g *gen) godot3() bool { return g.o.Dialect == godot.Godot3 }

// value returns a random value at the given depth (0 = the top). inKey says that the value is
// (inside) a Dictionary key.
func (g *gen) value(depth int, inKey bool) any {
	if len(g.types) == 0 {
		return nil
	}
	var t godot.Type
	switch {
	case depth < g.o.MaxDepth && len(g.containers) > 0 && (len(g.leaves) == 0 || g.r.IntN(5) == 0):
		// One value in five is a container, so that nesting is common.
		t = g.containers[g.r.IntN(len(g.containers))]
	case len(g.leaves) > 0:
		t = g.leaves[g.r.IntN(len(g.leaves))]
	default:
		t = g.containers[g.r.IntN(len(g.containers))] // generated empty at the depth limit
	}
	return g.typed(t, depth, inKey)
}

// n returns a random element count in [0, MaxLen], favouring small ones.
func (g *gen) n() int {
	if g.r.IntN(4) == 0 {
		return g.r.IntN(g.o.MaxLen + 1)
	}
	return g.r.IntN(min(g.o.MaxLen, 3) + 1)
}

func (g *gen) typed(t godot.Type, depth int, inKey bool) any {
	switch t {
	case godot.TypeNil:
		return nil
	case godot.TypeBool:
		return g.r.IntN(2) == 1
	case godot.TypeInt:
		return g.int64()
	case godot.TypeFloat:
		return g.float64()
	case godot.TypeString:
		return g.string()
	case godot.TypeStringName:
		return godot.StringName(g.string())
	case godot.TypeVector2:
		if g.o.DoublePrecision {
			return g.v2d()
		}
		return g.v2()
	case godot.TypeVector2i:
		return godot.Vector2i{X: g.int32(), Y: g.int32()}
	case godot.TypeRect2:
		if g.o.DoublePrecision {
			return godot.Rect2d{Position: g.v2d(), Size: g.v2d()}
		}
		return godot.Rect2{Position: g.v2(), Size: g.v2()}
	case godot.TypeRect2i:
		return godot.Rect2i{Position: godot.Vector2i{X: g.int32(), Y: g.int32()}, Size: godot.Vector2i{X: g.int32(), Y: g.int32()}}
	case godot.TypeVector3:
		if g.o.DoublePrecision {
			return g.v3d()
		}
		return g.v3()
	case godot.TypeVector3i:
		return godot.Vector3i{X: g.int32(), Y: g.int32(), Z: g.int32()}
	case godot.TypeTransform2D:
		if g.o.DoublePrecision {
			return godot.Transform2Dd{X: g.v2d(), Y: g.v2d(), Origin: g.v2d()}
		}
		return godot.Transform2D{X: g.v2(), Y: g.v2(), Origin: g.v2()}
	case godot.TypeVector4:
		if g.o.DoublePrecision {
			return g.v4d()
		}
		return g.v4()
	case godot.TypeVector4i:
		return godot.Vector4i{X: g.int32(), Y: g.int32(), Z: g.int32(), W: g.int32()}
	case godot.TypePlane:
		if g.o.DoublePrecision {
			return godot.Planed{Normal: g.v3d(), D: g.float64()}
		}
		return godot.Plane{Normal: g.v3(), D: g.float32()}
	case godot.TypeQuaternion:
		if g.o.DoublePrecision {
			return godot.Quaterniond(g.v4d())
		}
		return godot.Quaternion(g.v4())
	case godot.TypeAABB:
		if g.o.DoublePrecision {
			return godot.AABBd{Position: g.v3d(), Size: g.v3d()}
		}
		return godot.AABB{Position: g.v3(), Size: g.v3()}
	case godot.TypeBasis:
		if g.o.DoublePrecision {
			return godot.Basisd{X: g.v3d(), Y: g.v3d(), Z: g.v3d()}
		}
		return godot.Basis{X: g.v3(), Y: g.v3(), Z: g.v3()}
	case godot.TypeTransform3D:
		if g.o.DoublePrecision {
			return godot.Transform3Dd{Basis: godot.Basisd{X: g.v3d(), Y: g.v3d(), Z: g.v3d()}, Origin: g.v3d()}
		}
		return godot.Transform3D{Basis: godot.Basis{X: g.v3(), Y: g.v3(), Z: g.v3()}, Origin: g.v3()}
	case godot.TypeProjection:
		if g.o.DoublePrecision {
			return godot.Projectiond{X: g.v4d(), Y: g.v4d(), Z: g.v4d(), W: g.v4d()}
		}
		return godot.Projection{X: g.v4(), Y: g.v4(), Z: g.v4(), W: g.v4()}
	case godot.TypeColor:
		return g.color()
	case godot.TypeNodePath:
		return g.nodePath()
	case godot.TypeRID:
		if g.godot3() {
			return godot.RID(0)
		}
		return godot.RID(g.uint64())
	case godot.TypeCallable:
		return godot.Callable{}
	case godot.TypeSignal:
		return godot.Signal{Name: g.validString(), Object: godot.ObjectID(g.uint64())}
	case godot.TypeDictionary:
		return g.dictionary(depth, inKey)
	case godot.TypeArray:
		return g.array(depth, inKey)
	case godot.TypePackedByteArray:
		b := make([]byte, g.n()*g.byteScale())
		for i := range b {
			b[i] = byte(g.r.Uint32())
		}
		return b
	case godot.TypePackedInt32Array:
		s := make([]int32, g.n())
		for i := range s {
			s[i] = g.int32()
		}
		return s
	case godot.TypePackedInt64Array:
		s := make([]int64, g.n())
		for i := range s {
			s[i] = g.int64()
		}
		return s
	case godot.TypePackedFloat32Array:
		s := make([]float32, g.n())
		for i := range s {
			s[i] = g.float32()
			if inKey && g.godot3() {
				// Godot 3 fact 10: a key holding a PoolRealArray with a NaN is not equal to
				// itself and is written as "[Deleted Object]".
				for math.IsNaN(float64(s[i])) {
					s[i] = g.float32()
				}
			}
		}
		return s
	case godot.TypePackedFloat64Array:
		s := make([]float64, g.n())
		for i := range s {
			s[i] = g.float64()
		}
		return s
	case godot.TypePackedStringArray:
		s := make([]string, g.n())
		for i := range s {
			s[i] = g.string()
		}
		return s
	case godot.TypePackedVector2Array:
		if g.o.DoublePrecision {
			s := make([]godot.Vector2d, g.n())
			for i := range s {
				s[i] = g.v2d()
			}
			return s
		}
		s := make([]godot.Vector2, g.n())
		for i := range s {
			s[i] = g.v2()
		}
		return s
	case godot.TypePackedVector3Array:
		if g.o.DoublePrecision {
			s := make([]godot.Vector3d, g.n())
			for i := range s {
				s[i] = g.v3d()
			}
			return s
		}
		s := make([]godot.Vector3, g.n())
		for i := range s {
			s[i] = g.v3()
		}
		return s
	case godot.TypePackedVector4Array:
		if g.o.DoublePrecision {
			s := make([]godot.Vector4d, g.n())
			for i := range s {
				s[i] = g.v4d()
			}
			return s
		}
		s := make([]godot.Vector4, g.n())
		for i := range s {
			s[i] = g.v4()
		}
		return s
	case godot.TypePackedColorArray:
		s := make([]godot.Color, g.n())
		for i := range s {
			s[i] = g.color()
		}
		return s
	}
	return nil
}

// byteScale makes a byte array sometimes long enough to matter, while n() keeps its length
// modulo 4 (the padding) varied.
func (g *gen) byteScale() int {
	if g.r.IntN(8) == 0 {
		return 1 + g.r.IntN(16)
	}
	return 1
}

func (g *gen) array(depth int, inKey bool) any {
	if depth >= g.o.MaxDepth && len(g.leaves) == 0 {
		return []any{}
	}
	if !g.o.Untyped && g.r.IntN(4) == 0 {
		if et, ok := g.elemType(); ok {
			vals := make([]any, g.n())
			for i := range vals {
				vals[i] = g.typed(et, depth+1, inKey)
			}
			return &godot.TypedArray{Elem: godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: et}, Values: vals}
		}
	}
	vals := make([]any, g.n())
	for i := range vals {
		vals[i] = g.value(depth+1, inKey)
	}
	return vals
}

// elemType picks a builtin element type for a typed container (Godot 4): any generated type but
// Nil (Array[Nil] is untyped) and, below the depth limit, containers.
func (g *gen) elemType() (godot.Type, bool) {
	var cands []godot.Type
	for _, t := range g.types {
		if t != godot.TypeNil {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		return 0, false
	}
	return cands[g.r.IntN(len(cands))], true
}

func (g *gen) dictionary(depth int, inKey bool) any {
	d := &godot.Dictionary{}
	if depth >= g.o.MaxDepth && len(g.leaves) == 0 {
		return d
	}
	var kt, vt godot.Type
	typedKey, typedValue := false, false
	if !g.o.Untyped && g.r.IntN(4) == 0 {
		kt, typedKey = g.elemType()
		if g.r.IntN(2) == 0 {
			vt, typedValue = g.elemType()
		}
		if typedKey {
			d.Key = godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: kt}
		}
		if typedValue {
			d.Value = godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: vt}
		}
	}
	n := g.n()
	for range n {
		var k, v any
		if typedKey {
			k = g.typed(kt, depth+1, true)
		} else {
			k = g.value(depth+1, true)
		}
		if typedValue {
			v = g.typed(vt, depth+1, inKey)
		} else {
			v = g.value(depth+1, inKey)
		}
		if g.hasKey(d, k) {
			continue // the engine would merge the two keys
		}
		d.Entries = append(d.Entries, godot.Entry{Key: k, Value: v})
	}
	return d
}

// hasKey reports whether d has a key the engine considers equal to k.
func (g *gen) hasKey(d *godot.Dictionary, k any) bool {
	for _, e := range d.Entries {
		if godot.KeyEqual(e.Key, k) || !g.godot3() && godot.KeyEqual(stringLike(e.Key), stringLike(k)) {
			return true
		}
	}
	return false
}

// stringLike maps a StringName to a string: Godot 4's Dictionary treats them as the same key.
func stringLike(k any) any {
	if s, ok := k.(godot.StringName); ok {
		return string(s)
	}
	return k
}

func (g *gen) nodePath() godot.NodePath {
	var p godot.NodePath
	nn := g.r.IntN(min(g.o.MaxLen, 4) + 1)
	ns := 0
	if g.r.IntN(2) == 0 {
		ns = g.r.IntN(min(g.o.MaxLen, 3) + 1)
	}
	for range nn {
		p.Names = append(p.Names, g.pathName())
	}
	for range ns {
		p.SubNames = append(p.SubNames, g.pathName())
	}
	// NodePath("/"), absolute without names or subnames, comes back relative from Godot 3 (Godot
	// 4.6 keeps it): generated for Godot 4 only.
	p.Absolute = (nn+ns > 0 || !g.godot3()) && g.r.IntN(2) == 0
	return p
}

// pathName returns a NodePath name: usually a short identifier, sometimes empty, ".", "..", or a
// string with "/" or ":" (which the engine keeps as one name), or any string.
func (g *gen) pathName() string {
	switch g.r.IntN(10) {
	case 0:
		return ""
	case 1:
		return []string{".", "..", "a/b", "x:y", "/", ":", "root", "Main"}[g.r.IntN(8)]
	case 2, 3:
		return g.string()
	}
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789"
	b := make([]byte, 1+g.r.IntN(8))
	for i := range b {
		b[i] = letters[g.r.IntN(len(letters))]
	}
	return string(b)
}

// Ints.

var int64Edges = []int64{
	0, 1, -1, 2, 127, 128, 255, 256, 65535, 65536, -32768,
	math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt32 - 1, math.MinInt32 + 1,
	math.MaxUint32, math.MaxUint32 + 1, -math.MaxUint32,
	math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
	1 << 53, 1<<53 + 1, -(1 << 53),
}

func (g *gen) int64() int64 {
	switch g.r.IntN(5) {
	case 0, 1:
		return int64Edges[g.r.IntN(len(int64Edges))]
	case 2:
		return int64(g.r.IntN(2001) - 1000)
	case 3:
		return int64(int32(g.r.Uint32()))
	}
	return int64(g.r.Uint64())
}

var int32Edges = []int32{0, 1, -1, 255, 256, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1, 1 << 24, -(1 << 24)}

func (g *gen) int32() int32 {
	switch g.r.IntN(3) {
	case 0:
		return int32Edges[g.r.IntN(len(int32Edges))]
	case 1:
		return int32(g.r.IntN(201) - 100)
	}
	return int32(g.r.Uint32())
}

func (g *gen) uint64() uint64 {
	switch g.r.IntN(3) {
	case 0:
		return []uint64{0, 1, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64, math.MaxUint64}[g.r.IntN(6)]
	case 1:
		return uint64(g.r.IntN(100000))
	}
	return g.r.Uint64()
}

// Floats.

// float64Edges are REAL values around the 4-byte/8-byte boundary and the IEEE special cases.
var float64Edges = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, 0.1, -0.1, 1.0 / 3, 2.5, 1e10, 1e20, -1e20, 1e300, -1e300, 1e-300,
	16777216, 16777217, -16777217, 1 << 100, 1<<100 + 1<<60, 123456789.123,
	math.Inf(1), math.Inf(-1),
	math.MaxFloat32, -math.MaxFloat32, math.MaxFloat64, -math.MaxFloat64,
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
	0x1p-126,   // smallest normal float32
	0x1p-127,   // a float32 subnormal
	0x1.8p-149, // between float32 subnormals: inexact
	0x1p-1022,  // smallest normal float64
	0x1p-1074 * 12345,
}

// nan64s are NaN bit patterns: quiet and signalling, both signs, with payloads.
var nan64s = []uint64{
	0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0000000000001,
	0x7FF8000000000001, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x7FF8000020000000, 0x7FF4000000000000,
}

func (g *gen) float64() float64 {
	switch g.r.IntN(9) {
	case 8:
		return math.Copysign(0, float64(g.r.IntN(2)*2-1)) // ±0, which encoders tend to get wrong
	case 0, 1:
		return float64Edges[g.r.IntN(len(float64Edges))]
	case 2:
		if g.r.IntN(2) == 0 {
			return math.Float64frombits(nan64s[g.r.IntN(len(nan64s))])
		}
		// Any NaN: exponent all ones, a non-zero mantissa, either sign.
		return math.Float64frombits(0x7FF0000000000000 | g.r.Uint64()&0x800FFFFFFFFFFFFF | 1<<uint(g.r.IntN(52)))
	case 3:
		return float64(g.float32()) // exact in float32: 4 bytes, unless NaN
	case 4:
		return float64(g.r.IntN(20001)-10000) / 64 // exact small values
	case 5:
		return (g.r.Float64() - 0.5) * math.Pow(10, float64(g.r.IntN(40)-20)) // usually inexact
	case 6:
		return math.Float64frombits(g.r.Uint64() & 0x800FFFFFFFFFFFFF) // a float64 subnormal or ±0
	}
	return math.Float64frombits(g.r.Uint64()) // any bits, NaN included
}

var float32Edges = []float32{
	0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 0.1, 1e10, -1e-10, 16777216, 3.4028235e38, -3.4028235e38,
	float32(math.Inf(1)), float32(math.Inf(-1)), math.SmallestNonzeroFloat32, 0x1p-126, -0x1p-127,
}

var nan32s = []uint32{0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FA00000}

// float32 returns a real_t component: Godot 3 (and single-precision Godot 4) keep these as
// float32 from decode to encode, so every bit pattern, signalling NaNs included, survives.
func (g *gen) float32() float32 {
	switch g.r.IntN(7) {
	case 6:
		return float32(math.Copysign(0, float64(g.r.IntN(2)*2-1)))
	case 0, 1:
		return float32Edges[g.r.IntN(len(float32Edges))]
	case 2:
		return math.Float32frombits(nan32s[g.r.IntN(len(nan32s))])
	case 3:
		return float32(g.r.IntN(2001)-1000) / 8
	case 4:
		return math.Float32frombits(g.r.Uint32() & 0x807FFFFF) // a subnormal or ±0
	}
	return math.Float32frombits(g.r.Uint32())
}

func (g *gen) v2() godot.Vector2 { return godot.Vector2{X: g.float32(), Y: g.float32()} }
func (g *gen) v3() godot.Vector3 {
	return godot.Vector3{X: g.float32(), Y: g.float32(), Z: g.float32()}
}
func (g *gen) v4() godot.Vector4 {
	return godot.Vector4{X: g.float32(), Y: g.float32(), Z: g.float32(), W: g.float32()}
}
func (g *gen) v2d() godot.Vector2d { return godot.Vector2d{X: g.float64(), Y: g.float64()} }
func (g *gen) v3d() godot.Vector3d {
	return godot.Vector3d{X: g.float64(), Y: g.float64(), Z: g.float64()}
}
func (g *gen) v4d() godot.Vector4d {
	return godot.Vector4d{X: g.float64(), Y: g.float64(), Z: g.float64(), W: g.float64()}
}
func (g *gen) color() godot.Color {
	return godot.Color{R: g.float32(), G: g.float32(), B: g.float32(), A: g.float32()}
}

// Strings.

// string returns a string for the dialect: valid UTF-8, or for Godot 3 (unless ValidUTF8) also
// the extended forms 3.2.3 round-trips.
func (g *gen) string() string {
	return g.str(g.godot3() && !g.o.ValidUTF8)
}

func (g *gen) validString() string { return g.str(false) }

func (g *gen) str(lax bool) string {
	var n int
	switch g.r.IntN(10) {
	case 0, 1, 2, 3, 4, 5:
		n = g.r.IntN(6) // 0–5 runes: mostly ASCII, so every padding length occurs
	case 6, 7, 8:
		n = g.r.IntN(min(12, g.o.MaxStringLen) + 1)
	default:
		n = g.r.IntN(g.o.MaxStringLen + 1)
	}
	b := make([]byte, 0, n*2)
	for i := range n {
		c := g.rune(lax)
		if i == 0 && c == 0xFEFF {
			c = 'B' // a leading byte-order mark is dropped by the engine's decoder
		}
		b = appendExtendedUTF8(b, c)
	}
	return string(b)
}

var specialRunes = []rune{
	'\t', '\n', '\r', 0x01, 0x1F, 0x7F, ' ', '"', '\\', '/', ':', '%', '{', '}', '@', '.',
	0x80, 0xE9, 0x7FF, 0x800, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0xE000, 0x10000, 0x1F600, 0x10FFFF,
}

// rune returns a code point; NUL never (decoding stops at NUL).
func (g *gen) rune(lax bool) rune {
	switch k := g.r.IntN(20); {
	case k < 10:
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-"
		return rune(letters[g.r.IntN(len(letters))])
	case k < 12:
		return specialRunes[g.r.IntN(len(specialRunes))]
	case k < 14:
		return rune(0x80 + g.r.IntN(0x800-0x80)) // 2 bytes
	case k < 17:
		for {
			c := rune(0x800 + g.r.IntN(0x10000-0x800)) // 3 bytes
			if c < 0xD800 || c > 0xDFFF {
				return c
			}
		}
	case k < 19 || !lax:
		return rune(0x10000 + g.r.IntN(0x110000-0x10000)) // 4 bytes
	}
	// Godot 3 only: what String::parse_utf8 accepts and String::utf8 writes back unchanged.
	switch g.r.IntN(4) {
	case 0:
		return rune(0xD800 + g.r.IntN(0x800)) // a surrogate, as a 3-byte sequence
	case 1:
		return rune(0x110000 + g.r.IntN(0x200000-0x110000)) // above U+10FFFF, 4 bytes
	case 2:
		return rune(0x200000 + g.r.IntN(0x4000000-0x200000)) // 5 bytes
	}
	return rune(0x4000000 + g.r.Int32N(0x7FFFFFFF-0x4000000)) // 6 bytes
}

// appendExtendedUTF8 encodes c in the original (RFC 2279) UTF-8, which also has forms for
// surrogates and code points up to 2^31-1; for valid code points it is standard UTF-8.
func appendExtendedUTF8(b []byte, c rune) []byte {
	u := uint32(c)
	switch {
	case u < 0x80:
		return append(b, byte(u))
	case u < 0x800:
		return append(b, 0xC0|byte(u>>6), 0x80|byte(u&0x3F))
	case u < 0x10000:
		return append(b, 0xE0|byte(u>>12), 0x80|byte(u>>6&0x3F), 0x80|byte(u&0x3F))
	case u < 0x200000:
		return append(b, 0xF0|byte(u>>18), 0x80|byte(u>>12&0x3F), 0x80|byte(u>>6&0x3F), 0x80|byte(u&0x3F))
	case u < 0x4000000:
		return append(b, 0xF8|byte(u>>24), 0x80|byte(u>>18&0x3F), 0x80|byte(u>>12&0x3F), 0x80|byte(u>>6&0x3F), 0x80|byte(u&0x3F))
	}
	return append(b, 0xFC|byte(u>>30), 0x80|byte(u>>24&0x3F), 0x80|byte(u>>18&0x3F), 0x80|byte(u>>12&0x3F), 0x80|byte(u>>6&0x3F), 0x80|byte(u&0x3F))
}
