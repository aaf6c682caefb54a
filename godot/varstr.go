package godot

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// VarToStr returns the text Godot 4's var_to_str writes for a value of the generic value model,
// on one line: null, true, 5, 1.0, "text", &"name", NodePath("a/b:c"), Vector2(1, 2),
// Color(1, 0, 0, 1), [1, "a"], Array[int]([1, 2]), {"a": 1, "b": Vector3(0, 0, 0)},
// Dictionary[String, int]({"a": 1}), PackedByteArray(1, 2), Object(Node,"name":"x").
// Dictionaries print on one line and in insertion order (var_to_str puts each entry on its own
// line and sorts the keys); an RID keeps its id (RID(13)). Values nested deeper than 64 levels print as "…". It is what the String methods
// of [Dictionary], [TypedArray] and [Object] return.
func VarToStr(v any) string {
	var b strings.Builder
	writeVar(&b, v, 0)
	return b.String()
}

// String returns the Dictionary in var_to_str form, e.g. {"hp": 100, "pos": Vector2(1, 2)}.
func (d *Dictionary) String() string { return VarToStr(d) }

// String returns the Array in var_to_str form, e.g. Array[int]([1, 2]).
func (a *TypedArray) String() string { return VarToStr(a) }

// String returns the Object in var_to_str form, e.g. Object(Node,"name":"x").
func (o *Object) String() string { return VarToStr(o) }

const maxVarStrDepth = 64

func writeVar(b *strings.Builder, v any, depth int) {
	if depth > maxVarStrDepth {
		b.WriteString("…")
		return
	}
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case int:
		b.WriteString(strconv.Itoa(v))
	case int32:
		b.WriteString(strconv.FormatInt(int64(v), 10))
	case float64:
		b.WriteString(varFloat(v, 64, true))
	case float32:
		b.WriteString(varFloat(float64(v), 32, true))
	case string:
		varString(b, v)
	case StringName:
		b.WriteByte('&')
		varString(b, string(v))
	case NodePath:
		b.WriteString("NodePath(")
		varString(b, v.String())
		b.WriteByte(')')
	case RID:
		fmt.Fprintf(b, "RID(%d)", uint64(v))
	case ObjectID:
		if v == 0 {
			b.WriteString("null")
		} else {
			fmt.Fprintf(b, `Object(EncodedObjectAsID,"object_id":%d)`, uint64(v))
		}
	case *Object:
		if v == nil || v.Class == "" {
			b.WriteString("null")
			return
		}
		b.WriteString("Object(")
		b.WriteString(v.Class)
		for _, p := range v.Properties {
			b.WriteByte(',')
			varString(b, p.Name)
			b.WriteByte(':')
			writeVar(b, p.Value, depth+1)
		}
		b.WriteByte(')')
	case Callable:
		b.WriteString("Callable()")
	case Signal:
		b.WriteString("Signal()")
	case []any:
		varList(b, v, depth)
	case *TypedArray:
		if v == nil {
			b.WriteString("[]")
			return
		}
		if !v.Elem.IsTyped() {
			varList(b, v.Values, depth)
			return
		}
		b.WriteString("Array[")
		b.WriteString(containerText(v.Elem))
		b.WriteString("](")
		varList(b, v.Values, depth)
		b.WriteByte(')')
	case TypedArray:
		writeVar(b, &v, depth)
	case *Dictionary:
		varDict(b, v, depth)
	case Dictionary:
		varDict(b, &v, depth)
	case []byte:
		varPacked(b, "PackedByteArray", len(v), func(i int) string { return strconv.Itoa(int(v[i])) })
	case []int32:
		varPacked(b, "PackedInt32Array", len(v), func(i int) string { return strconv.FormatInt(int64(v[i]), 10) })
	case []int64:
		varPacked(b, "PackedInt64Array", len(v), func(i int) string { return strconv.FormatInt(v[i], 10) })
	case []float32:
		varPacked(b, "PackedFloat32Array", len(v), func(i int) string { return varFloat(float64(v[i]), 32, false) })
	case []float64:
		varPacked(b, "PackedFloat64Array", len(v), func(i int) string { return varFloat(v[i], 64, false) })
	case []string:
		b.WriteString("PackedStringArray(")
		for i, s := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			varString(b, s)
		}
		b.WriteByte(')')
	default:
		rv := reflect.ValueOf(v)
		if name, ok := mathTypeName(rv.Type()); ok {
			b.WriteString(name)
			b.WriteByte('(')
			b.WriteString(strings.Join(components(rv, nil), ", "))
			b.WriteByte(')')
			return
		}
		if rv.Kind() == reflect.Slice {
			if name, ok := mathTypeName(rv.Type().Elem()); ok {
				// []Vector2 … []Color: PackedVector2Array(1, 2, 3, 4)
				var comps []string
				for i := range rv.Len() {
					comps = components(rv.Index(i), comps)
				}
				b.WriteString("Packed" + name + "Array(" + strings.Join(comps, ", ") + ")")
				return
			}
		}
		fmt.Fprint(b, v)
	}
}

// mathTypeName returns the Godot name of a math type of this package (Vector2d is Vector2).
func mathTypeName(t reflect.Type) (string, bool) {
	if t.PkgPath() != reflect.TypeFor[Vector2]().PkgPath() || t.Kind() != reflect.Struct {
		return "", false
	}
	switch n := t.Name(); n {
	case "Vector2", "Vector2i", "Rect2", "Rect2i", "Vector3", "Vector3i", "Vector4", "Vector4i", "Transform2D",
		"Plane", "Quaternion", "AABB", "Basis", "Transform3D", "Projection", "Color":
		return n, true
	case "Vector2d", "Rect2d", "Vector3d", "Vector4d", "Transform2Dd", "Planed", "Quaterniond", "AABBd", "Basisd",
		"Transform3Dd", "Projectiond":
		return strings.TrimSuffix(n, "d"), true
	}
	return "", false
}

// components appends the numbers of a math value in var_to_str's order: fields in order, except
// that a Basis is written row by row.
func components(v reflect.Value, dst []string) []string {
	switch v.Kind() {
	case reflect.Float32:
		return append(dst, varFloat(v.Float(), 32, false))
	case reflect.Float64:
		return append(dst, varFloat(v.Float(), 64, false))
	case reflect.Int32:
		return append(dst, strconv.FormatInt(v.Int(), 10))
	case reflect.Struct:
		if n := v.Type().Name(); n == "Basis" || n == "Basisd" {
			for row := range 3 {
				for col := range 3 {
					dst = components(v.Field(col).Field(row), dst)
				}
			}
			return dst
		}
		for i := range v.NumField() {
			dst = components(v.Field(i), dst)
		}
	}
	return dst
}

// varFloat writes a float as var_to_str does: inf, inf_neg, nan, and a whole standalone float
// with ".0" (1.0), but a component of a math type or packed array without it (Vector2(1, 2)).
func varFloat(f float64, bits int, standalone bool) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "inf_neg"
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if standalone && !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// varString writes a quoted string with var_to_str's escapes: \\ and \".
func varString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		if r == '\\' || r == '"' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
}

func varList(b *strings.Builder, vals []any, depth int) {
	b.WriteByte('[')
	for i, x := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		writeVar(b, x, depth+1)
	}
	b.WriteByte(']')
}

func varDict(b *strings.Builder, d *Dictionary, depth int) {
	if d == nil {
		b.WriteString("{}")
		return
	}
	typed := d.Key.IsTyped() || d.Value.IsTyped()
	if typed {
		b.WriteString("Dictionary[" + containerText(d.Key) + ", " + containerText(d.Value) + "](")
	}
	b.WriteByte('{')
	for i, e := range d.Entries {
		if i > 0 {
			b.WriteString(", ")
		}
		writeVar(b, e.Key, depth+1)
		b.WriteString(": ")
		writeVar(b, e.Value, depth+1)
	}
	b.WriteByte('}')
	if typed {
		b.WriteByte(')')
	}
}

// containerText is a container element type as var_to_str writes it: int, Node,
// Resource("res://x.gd"), or Variant for untyped.
func containerText(t ContainerType) string {
	switch t.Kind {
	case ContainerBuiltin:
		return Godot4.TypeName(t.Builtin)
	case ContainerClassName:
		return t.Name
	case ContainerScript:
		return `Resource("` + t.Name + `")`
	}
	return "Variant"
}

func varPacked(b *strings.Builder, name string, n int, elem func(int) string) {
	b.WriteString(name)
	b.WriteByte('(')
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(elem(i))
	}
	b.WriteByte(')')
}
