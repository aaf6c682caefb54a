package godot

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Godot 4 checks every element it adds to a typed Array, and every key it adds to a typed
// Dictionary (the values of a typed Dictionary are not checked when decoding), and the decoder adds
// them one by one: an element of the wrong type is converted when Variant::can_convert_strict
// allows it and dropped otherwise, and an object must be of the container's class (or script).
// admit reproduces that for the decoded values. The conversion table and the conversions below
// were read off the Godot 4.6 engine (see TestEngine4Hostile and TestTypedConversions); where a
// conversion depends on engine data this package does not have (Color names, the text form of
// floats, String.to_int, the class tree beyond the classes of knownParents) the value is kept
// unconverted, and the engine converts it when it decodes the value again.

// convResult is what a typed container does with a value of another type.
type convResult uint8

const (
	convDrop convResult = iota // the engine drops the value
	convDone                   // converted exactly as the engine does
	convKeep                   // the engine converts it in a way not reproduced here: kept as it is
)

// admit returns the value a Godot 4 typed container of type ct stores for v, and false if the
// engine drops v.
func admit(ct *ContainerType, v any) (any, bool) {
	target := TypeObject
	if ct.Kind == ContainerBuiltin {
		target = ct.Builtin
	}
	vt, known := variantType(v)
	if !known {
		return v, true // not a decoded value: leave it alone
	}
	if vt == target {
		if target != TypeObject {
			return v, true
		}
		return v, admitObject(ct, v)
	}
	if vt == TypeNil && target == TypeObject {
		return v, true // a null object fits every object type
	}
	out, r := convert(target, vt, v)
	switch r {
	case convDone:
		return out, true
	case convKeep:
		return v, true
	}
	return nil, false
}

// knownParents is the class tree of a few engine classes, each with its base class. Other
// classes are unknown here: an object of an unknown class is admitted into any class-typed
// container, since only the engine's ClassDB could tell.
var knownParents = map[string]string{
	"Object": "", "RefCounted": "Object", "Node": "Object", "Resource": "RefCounted",
	"EncodedObjectAsID": "RefCounted", "Script": "Resource", "GDScript": "Script",
	"CanvasItem": "Node", "Node2D": "CanvasItem", "Control": "CanvasItem", "Node3D": "Node",
	"Timer": "Node", "Viewport": "Node", "Window": "Viewport",
}

// isClass reports whether class is base or inherits from it: 1 yes, 0 no, -1 unknown.
func isClass(class, base string) int {
	for c := class; ; {
		if c == base {
			return 1
		}
		parent, ok := knownParents[c]
		if !ok {
			return -1
		}
		if parent == "" {
			return 0
		}
		c = parent
	}
}

// admitObject checks an object (ObjectID or *Object) against a class- or script-typed container.
func admitObject(ct *ContainerType, v any) bool {
	class, script := "EncodedObjectAsID", ""
	if o, ok := v.(*Object); ok {
		class = o.Class
		for _, p := range o.Properties {
			if p.Name == "script" {
				script, _ = p.Value.(string)
			}
		}
	}
	switch ct.Kind {
	case ContainerClassName:
		return ct.Name == "" || isClass(class, ct.Name) != 0
	case ContainerScript:
		// The script's base class is unknown here; an object without a script never fits. A
		// different script may inherit from this one: only the engine can tell, so it is admitted.
		return script != ""
	}
	return true // builtin Object: any object
}

// variantType returns the Variant type of a decoded value.
func variantType(v any) (Type, bool) {
	switch v.(type) {
	case nil:
		return TypeNil, true
	case bool:
		return TypeBool, true
	case int64:
		return TypeInt, true
	case float64:
		return TypeFloat, true
	case string:
		return TypeString, true
	case StringName:
		return TypeStringName, true
	case Vector2i:
		return TypeVector2i, true
	case Rect2i:
		return TypeRect2i, true
	case Vector3i:
		return TypeVector3i, true
	case Vector4i:
		return TypeVector4i, true
	case NodePath:
		return TypeNodePath, true
	case RID:
		return TypeRID, true
	case ObjectID, *Object:
		return TypeObject, true
	case Callable:
		return TypeCallable, true
	case Signal:
		return TypeSignal, true
	case *Dictionary:
		return TypeDictionary, true
	case []any, *TypedArray:
		return TypeArray, true
	case []byte:
		return TypePackedByteArray, true
	case []int32:
		return TypePackedInt32Array, true
	case []int64:
		return TypePackedInt64Array, true
	case []float32:
		return TypePackedFloat32Array, true
	case []float64:
		return TypePackedFloat64Array, true
	case []string:
		return TypePackedStringArray, true
	case []Vector2, []Vector2d:
		return TypePackedVector2Array, true
	case []Vector3, []Vector3d:
		return TypePackedVector3Array, true
	case []Color:
		return TypePackedColorArray, true
	case []Vector4, []Vector4d:
		return TypePackedVector4Array, true
	case Vector2, Vector2d:
		return TypeVector2, true
	case Rect2, Rect2d:
		return TypeRect2, true
	case Vector3, Vector3d:
		return TypeVector3, true
	case Transform2D, Transform2Dd:
		return TypeTransform2D, true
	case Vector4, Vector4d:
		return TypeVector4, true
	case Plane, Planed:
		return TypePlane, true
	case Quaternion, Quaterniond:
		return TypeQuaternion, true
	case AABB, AABBd:
		return TypeAABB, true
	case Basis, Basisd:
		return TypeBasis, true
	case Transform3D, Transform3Dd:
		return TypeTransform3D, true
	case Projection, Projectiond:
		return TypeProjection, true
	case Color:
		return TypeColor, true
	}
	return 0, false
}

// convert converts v, of type vt, to type t as Godot 4's Variant::construct does for the pairs
// that Variant::can_convert_strict allows.
func convert(t, vt Type, v any) (any, convResult) {
	switch t {
	case TypeBool:
		switch v := v.(type) {
		case int64:
			return v != 0, convDone
		case float64:
			return v != 0, convDone // NaN is true
		}
	case TypeInt:
		switch v := v.(type) {
		case bool:
			return bool64(v), convDone
		case float64:
			return satInt64(v), convDone
		}
	case TypeFloat:
		switch v := v.(type) {
		case bool:
			return float64(bool64(v)), convDone
		case int64:
			return float64(v), convDone
		}
	case TypeString:
		switch v := v.(type) {
		case StringName:
			return string(v), convDone
		case NodePath:
			return v.String(), convDone
		}
	case TypeStringName:
		if s, ok := v.(string); ok {
			return StringName(s), convDone
		}
	case TypeNodePath:
		if s, ok := v.(string); ok {
			return ParseNodePath(s), convDone
		}
	case TypeVector2, TypeVector2i, TypeRect2, TypeRect2i, TypeVector3, TypeVector3i, TypeVector4, TypeVector4i:
		return convertVector(t, v)
	case TypeTransform2D:
		switch v := v.(type) {
		case Transform3D:
			b := v.Basis
			return Transform2D{Vector2{b.X.X, b.X.Y}, Vector2{b.Y.X, b.Y.Y}, Vector2{v.Origin.X, v.Origin.Y}}, convDone
		case Transform3Dd:
			return nil, convKeep
		}
	case TypeQuaternion:
		switch v := v.(type) {
		case Basis:
			return basisQuaternion(v), convDone
		case Basisd:
			return nil, convKeep
		}
	case TypeBasis:
		switch v := v.(type) {
		case Quaternion:
			return quaternionBasis(v), convDone
		case Quaterniond:
			return nil, convKeep
		}
	case TypeTransform3D:
		switch v := v.(type) {
		case Transform2D:
			return Transform3D{Basis{Vector3{v.X.X, v.X.Y, 0}, Vector3{v.Y.X, v.Y.Y, 0}, Vector3{0, 0, 1}},
				Vector3{v.Origin.X, v.Origin.Y, 0}}, convDone
		case Basis:
			return Transform3D{Basis: v}, convDone
		case Quaternion:
			return Transform3D{Basis: quaternionBasis(v)}, convDone
		case Projection:
			xyz := func(c Vector4) Vector3 { return Vector3{c.X, c.Y, c.Z} }
			return Transform3D{Basis{xyz(v.X), xyz(v.Y), xyz(v.Z)}, xyz(v.W)}, convDone
		case Transform2Dd, Basisd, Quaterniond, Projectiond:
			return nil, convKeep
		}
	case TypeProjection:
		switch v := v.(type) {
		case Transform3D:
			b := v.Basis
			return Projection{Vector4{b.X.X, b.X.Y, b.X.Z, 0}, Vector4{b.Y.X, b.Y.Y, b.Y.Z, 0},
				Vector4{b.Z.X, b.Z.Y, b.Z.Z, 0}, Vector4{v.Origin.X, v.Origin.Y, v.Origin.Z, 1}}, convDone
		case Transform3Dd:
			return nil, convKeep
		}
	case TypeColor:
		switch v := v.(type) {
		case int64:
			return hexColor(uint32(v)), convDone
		case string:
			if c, ok := htmlColor(v); ok {
				return c, convDone
			}
			return nil, convKeep // a color name, or not a color (black): the engine's table decides
		}
	case TypeRID:
		switch v := v.(type) {
		case ObjectID:
			return RID(0), convDone
		case *Object:
			if v.Class == "Object" || v.Class == "RefCounted" || v.Class == "Node" {
				return RID(0), convDone
			}
			return nil, convKeep
		}
	case TypeArray:
		return packedToArray(v)
	case TypePackedByteArray, TypePackedInt32Array, TypePackedInt64Array, TypePackedFloat32Array,
		TypePackedFloat64Array, TypePackedStringArray, TypePackedVector2Array, TypePackedVector3Array,
		TypePackedColorArray, TypePackedVector4Array:
		if vt == TypeArray {
			return arrayToPacked(t, v)
		}
	}
	return nil, convDrop
}

// bool64 is a bool as the engine's int: 1 or 0.
func bool64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// satInt64 converts like the engine's int64_t(double) on its WebAssembly build: toward zero,
// saturating, NaN as 0.
func satInt64(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= 1<<63:
		return math.MaxInt64
	case f <= -(1 << 63):
		return math.MinInt64
	}
	return int64(f)
}

// satInt32 is satInt64 for int32.
func satInt32(f float64) int32 {
	switch {
	case f != f:
		return 0
	case f >= 1<<31:
		return math.MaxInt32
	case f <= -(1 << 31):
		return math.MinInt32
	}
	return int32(f)
}

// satUint32 is satInt64 for uint32 (negative values give 0).
func satUint32(f float64) uint32 {
	switch {
	case f != f || f <= 0:
		return 0
	case f >= 1<<32:
		return math.MaxUint32
	}
	return uint32(f)
}

// convertVector converts between the float and integer vectors and rectangles of one size.
func convertVector(t Type, v any) (any, convResult) {
	f := func(x int32) float32 { return float32(x) }
	i := func(x float32) int32 { return satInt32(float64(x)) }
	switch v := v.(type) {
	case Vector2i:
		if t == TypeVector2 {
			return Vector2{f(v.X), f(v.Y)}, convDone
		}
	case Vector2:
		if t == TypeVector2i {
			return Vector2i{i(v.X), i(v.Y)}, convDone
		}
	case Rect2i:
		if t == TypeRect2 {
			return Rect2{Vector2{f(v.Position.X), f(v.Position.Y)}, Vector2{f(v.Size.X), f(v.Size.Y)}}, convDone
		}
	case Rect2:
		if t == TypeRect2i {
			return Rect2i{Vector2i{i(v.Position.X), i(v.Position.Y)}, Vector2i{i(v.Size.X), i(v.Size.Y)}}, convDone
		}
	case Vector3i:
		if t == TypeVector3 {
			return Vector3{f(v.X), f(v.Y), f(v.Z)}, convDone
		}
	case Vector3:
		if t == TypeVector3i {
			return Vector3i{i(v.X), i(v.Y), i(v.Z)}, convDone
		}
	case Vector4i:
		if t == TypeVector4 {
			return Vector4{f(v.X), f(v.Y), f(v.Z), f(v.W)}, convDone
		}
	case Vector4:
		if t == TypeVector4i {
			return Vector4i{i(v.X), i(v.Y), i(v.Z), i(v.W)}, convDone
		}
	case Vector2d, Rect2d, Vector3d, Vector4d:
		switch t {
		case TypeVector2i, TypeRect2i, TypeVector3i, TypeVector4i:
			return nil, convKeep // double precision: see the …d types
		}
	}
	return nil, convDrop
}

// mul and add round to float32 after every operation (no fused multiply-add), as the engine's
// real_t arithmetic does.
func mul(a, b float32) float32 { return float32(a * b) }
func add(a, b float32) float32 { return float32(a + b) }
func sub(a, b float32) float32 { return float32(a - b) }

// quaternionBasis is Basis(Quaternion) of the engine.
func quaternionBasis(q Quaternion) Basis {
	d := add(add(add(mul(q.X, q.X), mul(q.Y, q.Y)), mul(q.Z, q.Z)), mul(q.W, q.W))
	s := 2 / d
	xs, ys, zs := mul(q.X, s), mul(q.Y, s), mul(q.Z, s)
	wx, wy, wz := mul(q.W, xs), mul(q.W, ys), mul(q.W, zs)
	xx, xy, xz := mul(q.X, xs), mul(q.X, ys), mul(q.X, zs)
	yy, yz, zz := mul(q.Y, ys), mul(q.Y, zs), mul(q.Z, zs)
	rows := [16]float32{
		sub(1, add(yy, zz)), sub(xy, wz), add(xz, wy),
		add(xy, wz), sub(1, add(xx, zz)), sub(yz, wx),
		sub(xz, wy), add(yz, wx), sub(1, add(xx, yy)),
	}
	return basis32(&rows)
}

// basisQuaternion is Quaternion(Basis) of the engine (Basis::get_quaternion), which accepts a
// basis that is not a rotation without complaint in release builds.
func basisQuaternion(b Basis) Quaternion {
	var c [16]float32
	basisComps32(b, &c)
	m := func(i, j int) float32 { return c[3*i+j] }
	sqrt := func(x float32) float32 { return float32(math.Sqrt(float64(x))) }
	var q [4]float32 // x, y, z, w
	if trace := add(add(m(0, 0), m(1, 1)), m(2, 2)); trace > 0 {
		s := sqrt(add(trace, 1))
		q[3] = mul(s, 0.5)
		s = 0.5 / s
		q[0] = mul(sub(m(2, 1), m(1, 2)), s)
		q[1] = mul(sub(m(0, 2), m(2, 0)), s)
		q[2] = mul(sub(m(1, 0), m(0, 1)), s)
	} else {
		i := 0
		if m(0, 0) < m(1, 1) {
			i = 1
			if m(1, 1) < m(2, 2) {
				i = 2
			}
		} else if m(0, 0) < m(2, 2) {
			i = 2
		}
		j, k := (i+1)%3, (i+2)%3
		s := sqrt(add(sub(sub(m(i, i), m(j, j)), m(k, k)), 1))
		q[i] = mul(s, 0.5)
		s = 0.5 / s
		q[3] = mul(sub(m(k, j), m(j, k)), s)
		q[j] = mul(add(m(j, i), m(i, j)), s)
		q[k] = mul(add(m(k, i), m(i, k)), s)
	}
	return Quaternion{q[0], q[1], q[2], q[3]}
}

// hexColor is Color::hex: 0xRRGGBBAA.
func hexColor(c uint32) Color {
	ch := func(shift uint) float32 { return float32(c>>shift&0xFF) / 255 }
	return Color{ch(24), ch(16), ch(8), ch(0)}
}

// htmlColor parses an HTML color code as Color(String) does when the text is one: "#" optional,
// then 3, 4, 6 or 8 hex digits (RGB, RGBA, RRGGBB, RRGGBBAA).
func htmlColor(s string) (Color, bool) {
	if len(s) > 0 && s[0] == '#' {
		s = s[1:]
	}
	switch len(s) {
	case 3, 4, 6, 8:
	default:
		return Color{}, false
	}
	digits := make([]uint32, len(s))
	for i := range len(s) {
		d, err := strconv.ParseUint(s[i:i+1], 16, 8)
		if err != nil {
			return Color{}, false
		}
		digits[i] = uint32(d)
	}
	c := Color{A: 1}
	ch := [4]*float32{&c.R, &c.G, &c.B, &c.A}
	if len(s) < 5 {
		for i, d := range digits {
			*ch[i] = float32(d) / 15
		}
	} else {
		for i := 0; i < len(digits); i += 2 {
			*ch[i/2] = float32(digits[i]<<4|digits[i+1]) / 255
		}
	}
	return c, true
}

// packedToArray is Array(Packed…Array): one Variant per element.
func packedToArray(v any) (any, convResult) {
	var out []any
	switch v := v.(type) {
	case []byte:
		out = mapAny(v, func(x byte) any { return int64(x) })
	case []int32:
		out = mapAny(v, func(x int32) any { return int64(x) })
	case []int64:
		out = mapAny(v, func(x int64) any { return x })
	case []float32:
		out = mapAny(v, func(x float32) any { return float64(x) })
	case []float64:
		out = mapAny(v, func(x float64) any { return x })
	case []string:
		out = mapAny(v, func(x string) any { return x })
	case []Vector2:
		out = mapAny(v, func(x Vector2) any { return x })
	case []Vector3:
		out = mapAny(v, func(x Vector3) any { return x })
	case []Vector4:
		out = mapAny(v, func(x Vector4) any { return x })
	case []Color:
		out = mapAny(v, func(x Color) any { return x })
	case []Vector2d:
		out = mapAny(v, func(x Vector2d) any { return x })
	case []Vector3d:
		out = mapAny(v, func(x Vector3d) any { return x })
	case []Vector4d:
		out = mapAny(v, func(x Vector4d) any { return x })
	default:
		return nil, convDrop
	}
	return out, convDone
}

func mapAny[T any](s []T, f func(T) any) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// arrayToPacked is Packed…Array(Array): every element converted the loose way Variant's
// conversion operators do (an int to a String, a Vector3 to a Vector2, anything unconvertible to
// zero). Where an element needs engine code not reproduced here (parsing a String as a number or
// a color, printing a float), the Array is kept as it is.
func arrayToPacked(t Type, v any) (any, convResult) {
	var vals []any
	switch a := v.(type) {
	case []any:
		vals = a
	case *TypedArray:
		vals = a.Values
	}
	ok := true
	// num is the element as the numeric conversion operators see it: n for ints and bools, f
	// for floats; zero for the types that convert to 0.
	num := func(e any) (n int64, f float64, isFloat bool) {
		switch e := e.(type) {
		case bool:
			return bool64(e), 0, false
		case int64:
			return e, 0, false
		case float64:
			return 0, e, true
		case nil, Vector2, Vector2i, Vector3, []any, *Dictionary, Color, NodePath:
			return 0, 0, false
		}
		ok = false
		return 0, 0, false
	}
	vec := func(e any) (c [4]float32) {
		switch e := e.(type) {
		case Vector2:
			c[0], c[1] = e.X, e.Y
		case Vector2i:
			c[0], c[1] = float32(e.X), float32(e.Y)
		case Vector3:
			c[0], c[1], c[2] = e.X, e.Y, e.Z
		case Vector3i:
			c[0], c[1], c[2] = float32(e.X), float32(e.Y), float32(e.Z)
		case Vector4:
			c = [4]float32{e.X, e.Y, e.Z, e.W}
		case Vector4i:
			c = [4]float32{float32(e.X), float32(e.Y), float32(e.Z), float32(e.W)}
		case nil, bool, int64, float64, string, []any, *Dictionary, StringName, Color, NodePath, Rect2:
		default:
			ok = false
		}
		return c
	}
	var out any
	switch t {
	case TypePackedByteArray:
		out = mapSlice(vals, func(e any) byte {
			n, f, isFloat := num(e)
			if isFloat {
				return byte(satUint32(f))
			}
			return byte(n)
		})
	case TypePackedInt32Array:
		out = mapSlice(vals, func(e any) int32 {
			n, f, isFloat := num(e)
			if isFloat {
				return satInt32(f)
			}
			return int32(n)
		})
	case TypePackedInt64Array:
		out = mapSlice(vals, func(e any) int64 {
			n, f, isFloat := num(e)
			if isFloat {
				return satInt64(f)
			}
			return n
		})
	case TypePackedFloat32Array:
		out = mapSlice(vals, func(e any) float32 {
			n, f, isFloat := num(e)
			if isFloat {
				return float32(f)
			}
			return float32(n)
		})
	case TypePackedFloat64Array:
		out = mapSlice(vals, func(e any) float64 {
			n, f, isFloat := num(e)
			if isFloat {
				return f
			}
			return float64(n)
		})
	case TypePackedStringArray:
		out = mapSlice(vals, func(e any) string {
			switch e := e.(type) {
			case string:
				return e
			case StringName:
				return string(e)
			case NodePath:
				return e.String()
			case bool:
				return strconv.FormatBool(e)
			case int64:
				return strconv.FormatInt(e, 10)
			case nil:
				return "<null>"
			}
			ok = false
			return ""
		})
	case TypePackedVector2Array:
		out = mapSlice(vals, func(e any) Vector2 { c := vec(e); return Vector2{c[0], c[1]} })
	case TypePackedVector3Array:
		out = mapSlice(vals, func(e any) Vector3 { c := vec(e); return Vector3{c[0], c[1], c[2]} })
	case TypePackedVector4Array:
		out = mapSlice(vals, func(e any) Vector4 { c := vec(e); return Vector4{c[0], c[1], c[2], c[3]} })
	case TypePackedColorArray:
		out = mapSlice(vals, func(e any) Color {
			switch e := e.(type) {
			case Color:
				return e
			case int64:
				return hexColor(uint32(e))
			case nil, bool, float64, Vector2, Vector2i, Vector3, Vector4, []any, *Dictionary, StringName, NodePath:
				return Color{A: 1}
			}
			ok = false
			return Color{}
		})
	}
	if !ok {
		return nil, convKeep
	}
	return out, convDone
}

func mapSlice[T any](s []any, f func(any) T) []T {
	out := make([]T, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// admit is admit with what the conversion creates charged to the decoder's budgets: the elements
// of an Array made of a packed array and of a packed array made of an Array, and the names of a
// NodePath made of a String, count against MaxElements, and the memory of every converted value
// against MaxAllocBytes. It fails with ErrTooManyElements or ErrAllocLimit.
func (dec *decoder) admit(ct *ContainerType, v any) (any, bool, error) {
	target := TypeObject
	if ct.Kind == ContainerBuiltin {
		target = ct.Builtin
	}
	if vt, known := variantType(v); known && vt != target {
		elems, bytes := convCost(target, v)
		if !dec.take(elems) {
			return nil, false, detail(ErrTooManyElements, "converting %s to %s makes %s", dec.d.TypeName(vt), dec.d.TypeName(target), plural(elems, "element"))
		}
		if !dec.charge(bytes) {
			return nil, false, dec.allocErr("converting "+dec.d.TypeName(vt)+" to "+dec.d.TypeName(target), bytes)
		}
	}
	v, ok := admit(ct, v)
	return v, ok, nil
}

// parseNodePath is ParseNodePath with the names charged to the decoder's budgets.
func (dec *decoder) parseNodePath(s string) (NodePath, error) {
	names := nodePathNames(s)
	if !dec.take(names) {
		return NodePath{}, detail(ErrTooManyElements, "a NodePath of %s", plural(names, "name"))
	}
	if !dec.chargeN(names, 16) {
		return NodePath{}, dec.allocErr(fmt.Sprintf("a NodePath of %s", plural(names, "name")), names*16)
	}
	return ParseNodePath(s), nil
}

// nodePathNames is the most names and subnames that ParseNodePath can find in s.
func nodePathNames(s string) int {
	return strings.Count(s, "/") + strings.Count(s, ":") + 1
}

// convCost returns the elements and bytes that converting v, which is not of type t, to type t
// creates: nothing if the engine does not convert it.
func convCost(t Type, v any) (elems, bytes int) {
	box := int(fixedCost[t])
	switch t {
	case TypeArray:
		var n, size int
		switch v := v.(type) {
		case []byte:
			n, size = len(v), 0 // ints below 256 are boxed without allocating
		case []int32:
			n, size = len(v), 8
		case []int64:
			n, size = len(v), 8
		case []float32:
			n, size = len(v), 8
		case []float64:
			n, size = len(v), 8
		case []string:
			n, size = len(v), 16
		case []Vector2:
			n, size = len(v), 8
		case []Vector3, []Vector4, []Color, []Vector2d:
			n, size = reflectLen(v), 16
		case []Vector3d, []Vector4d:
			n, size = reflectLen(v), 32
		default:
			return 0, 0
		}
		return n, box + sizeClass(16*n) + n*size
	case TypeNodePath:
		if s, ok := v.(string); ok {
			n := nodePathNames(s)
			return n, box + sizeClass(16*n)
		}
		return 0, 0
	case TypeString:
		if p, ok := v.(NodePath); ok {
			n := 1
			for _, s := range p.Names {
				n += len(s) + 1
			}
			for _, s := range p.SubNames {
				n += len(s) + 1
			}
			return 0, box + 2*sizeClass(n)
		}
	case TypePackedByteArray, TypePackedInt32Array, TypePackedInt64Array, TypePackedFloat32Array,
		TypePackedFloat64Array, TypePackedStringArray, TypePackedVector2Array, TypePackedVector3Array,
		TypePackedColorArray, TypePackedVector4Array:
		vals, ok := arrayValues(v)
		if !ok {
			return 0, 0
		}
		size := packedElemSize[t]
		bytes = box + sizeClass(len(vals)*size)
		if t == TypePackedStringArray {
			for _, e := range vals {
				switch e := e.(type) {
				case int64:
					bytes += 24 // strconv.FormatInt
				case NodePath:
					_, b := convCost(TypeString, e)
					bytes += b
				}
			}
		}
		return len(vals), bytes
	}
	return 0, box
}

// packedElemSize is the size of a Go element of each packed array type (single precision).
var packedElemSize = [numTypes]int{TypePackedByteArray: 1, TypePackedInt32Array: 4, TypePackedInt64Array: 8,
	TypePackedFloat32Array: 4, TypePackedFloat64Array: 8, TypePackedStringArray: 16,
	TypePackedVector2Array: 8, TypePackedVector3Array: 12, TypePackedColorArray: 16,
	TypePackedVector4Array: 16}

// reflectLen returns the length of a slice of math values.
func reflectLen(v any) int {
	switch v := v.(type) {
	case []Vector3:
		return len(v)
	case []Vector4:
		return len(v)
	case []Color:
		return len(v)
	case []Vector2d:
		return len(v)
	case []Vector3d:
		return len(v)
	case []Vector4d:
		return len(v)
	}
	return 0
}
