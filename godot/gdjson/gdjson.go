package gdjson

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/internal/floattext"
)

// NoLimit, as MaxDepth, means no nesting limit but the JSON reader's own (about 5 000 Godot
// levels when reading); 0 means godot.DefaultMaxDepth.
const NoLimit = godot.NoLimit

// EncodeOptions configures writing the JSON form. The zero value writes Godot 4 type names on
// one line. Options are checked once and turned into an [EncodeMode], which writes.
type EncodeOptions struct {
	// Dialect picks the type names written.
	Dialect godot.Dialect
	// Indent indents the JSON written by this string a level; "" writes one line.
	Indent string
	// MaxDepth bounds nesting as [godot.DecodeOptions.MaxDepth] does: containers may nest this
	// many levels below the top. 0 means godot.DefaultMaxDepth; NoLimit is refused, because a
	// cyclic value would recurse until Go's stack limit ends the program.
	MaxDepth int
}

// DecodeOptions configures reading the JSON form. The zero value reads either dialect's type
// names with the default nesting limit. Options are checked once and turned into a
// [DecodeMode], which reads.
type DecodeOptions struct {
	// MaxDepth bounds nesting as [godot.DecodeOptions.MaxDepth] does. 0 means
	// godot.DefaultMaxDepth; NoLimit leaves only the bound of the standard library's JSON reader:
	// 10 000 JSON levels, about 5 000 Godot levels.
	MaxDepth int
}

// EncodeMode writes the JSON form with options checked by [EncodeOptions.EncodeMode]. It is
// immutable and safe for concurrent use; the zero value writes with the default options.
type EncodeMode struct{ o EncodeOptions }

// DecodeMode reads the JSON form with options checked by [DecodeOptions.DecodeMode]. It is
// immutable and safe for concurrent use; the zero value reads with the default options.
type DecodeMode struct{ o DecodeOptions }

// EncodeMode checks o and returns the mode that writes with it: an unknown Dialect or a negative
// MaxDepth fails.
func (o EncodeOptions) EncodeMode() (EncodeMode, error) {
	if o.Dialect != godot.Godot3 && o.Dialect != godot.Godot4 {
		return EncodeMode{}, fmt.Errorf("gdjson: unknown dialect %d", o.Dialect)
	}
	if o.MaxDepth < 0 {
		return EncodeMode{}, fmt.Errorf("gdjson: EncodeOptions.MaxDepth is %d: want a positive limit or 0 (the default)", o.MaxDepth)
	}
	return EncodeMode{o}, nil
}

// DecodeMode checks o and returns the mode that reads with it: a negative MaxDepth other than
// NoLimit fails.
func (o DecodeOptions) DecodeMode() (DecodeMode, error) {
	if o.MaxDepth < NoLimit {
		return DecodeMode{}, fmt.Errorf("gdjson: DecodeOptions.MaxDepth is %d: want a positive limit, 0 (the default) or NoLimit", o.MaxDepth)
	}
	return DecodeMode{o}, nil
}

// Options returns the options m writes with.
func (m EncodeMode) Options() EncodeOptions { return m.o }

// Options returns the options m reads with.
func (m DecodeMode) Options() DecodeOptions { return m.o }

// top is the level of a top-level value under the nesting limit max.
func top(max int) level {
	switch {
	case max == NoLimit:
		return level{max: math.MaxInt}
	case max > 0:
		return level{max: max}
	}
	return level{max: godot.DefaultMaxDepth}
}

// level is the nesting level of a value and the limit.
type level struct{ n, max int }

func (l level) next() level { return level{l.n + 1, l.max} }

// Marshal returns the JSON form of v with type names of dialect d, indented by indent (on one
// line if indent is "").
func Marshal(v any, d godot.Dialect, indent string) ([]byte, error) {
	return EncodeMode{EncodeOptions{Dialect: d, Indent: indent}}.Marshal(v)
}

// Marshal returns the JSON form of v.
func (m EncodeMode) Marshal(v any) ([]byte, error) {
	n, err := build(v, m.o.Dialect, top(m.o.MaxDepth))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	write(&buf, n, 0, m.o.Indent)
	return buf.Bytes(), nil
}

// Encode writes the JSON form of v to w, followed by a new line.
func Encode(w io.Writer, v any, d godot.Dialect, indent string) error {
	return EncodeMode{EncodeOptions{Dialect: d, Indent: indent}}.Encode(w, v)
}

// Encode writes the JSON form of v to w, followed by a new line.
func (m EncodeMode) Encode(w io.Writer, v any) error {
	b, err := m.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// The JSON is built as a small tree first, so that it can be indented and keep member order.
type (
	node any      // one of obj, flat, arr, rows, lit
	obj  []member // an object, one member a line
	flat []member // an object on one line (vector components)
	arr  []node   // an array, one element a line
	rows []string // an array of short raw JSON values, one a line
	lit  string   // raw JSON text
)

type member struct {
	key string
	val node
}

func jstr(s string) lit {
	b, _ := json.Marshal(s)
	return lit(b)
}

func write(buf *bytes.Buffer, n node, depth int, indent string) {
	nl := func(d int) {
		if indent != "" {
			buf.WriteByte('\n')
			for range d {
				buf.WriteString(indent)
			}
		}
	}
	colon := ":"
	if indent != "" {
		colon = ": "
	}
	switch n := n.(type) {
	case lit:
		buf.WriteString(string(n))
	case flat:
		buf.WriteByte('{')
		for i, m := range n {
			if i > 0 {
				buf.WriteByte(',')
				if indent != "" {
					buf.WriteByte(' ')
				}
			}
			buf.WriteString(string(jstr(m.key)))
			buf.WriteString(colon)
			write(buf, m.val, depth, indent)
		}
		buf.WriteByte('}')
	case obj:
		buf.WriteByte('{')
		for i, m := range n {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(depth + 1)
			buf.WriteString(string(jstr(m.key)))
			buf.WriteString(colon)
			write(buf, m.val, depth+1, indent)
		}
		nl(depth)
		buf.WriteByte('}')
	case arr:
		buf.WriteByte('[')
		for i, e := range n {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(depth + 1)
			write(buf, e, depth+1, indent)
		}
		if len(n) > 0 {
			nl(depth)
		}
		buf.WriteByte(']')
	case rows:
		buf.WriteByte('[')
		for i, e := range n {
			if i > 0 {
				buf.WriteByte(',')
			}
			nl(depth + 1)
			buf.WriteString(e)
		}
		if len(n) > 0 {
			nl(depth)
		}
		buf.WriteByte(']')
	}
}

// f32 and f64 render floats so that they parse back to the same bits.
func f32(f float32) string {
	switch {
	case f != f:
		return `"` + floattext.NaN32Text(f) + `"`
	case math.IsInf(float64(f), 1):
		return `"inf"`
	case math.IsInf(float64(f), -1):
		return `"-inf"`
	}
	return strconv.FormatFloat(float64(f), 'g', -1, 32)
}

func f64(f float64) string {
	switch {
	case math.IsNaN(f):
		return `"` + floattext.NaN64Text(f) + `"`
	case math.IsInf(f, 1):
		return `"inf"`
	case math.IsInf(f, -1):
		return `"-inf"`
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

var (
	xyzw = []string{"x", "y", "z", "w"}
	rgba = []string{"r", "g", "b", "a"}
)

func comps(keys []string, vals ...string) flat {
	f := make(flat, len(vals))
	for i, v := range vals {
		f[i] = member{keys[i], lit(v)}
	}
	return f
}

func c32(c ...float32) []string {
	s := make([]string, len(c))
	for i, f := range c {
		s[i] = f32(f)
	}
	return s
}

func c64(c ...float64) []string {
	s := make([]string, len(c))
	for i, f := range c {
		s[i] = f64(f)
	}
	return s
}

func ci(c ...int32) []string {
	s := make([]string, len(c))
	for i, v := range c {
		s[i] = strconv.FormatInt(int64(v), 10)
	}
	return s
}

func v2(v godot.Vector2) flat   { return comps(xyzw, c32(v.X, v.Y)...) }
func v3(v godot.Vector3) flat   { return comps(xyzw, c32(v.X, v.Y, v.Z)...) }
func v4(v godot.Vector4) flat   { return comps(xyzw, c32(v.X, v.Y, v.Z, v.W)...) }
func v2d(v godot.Vector2d) flat { return comps(xyzw, c64(v.X, v.Y)...) }
func v3d(v godot.Vector3d) flat { return comps(xyzw, c64(v.X, v.Y, v.Z)...) }
func v4d(v godot.Vector4d) flat { return comps(xyzw, c64(v.X, v.Y, v.Z, v.W)...) }
func v2i(v godot.Vector2i) flat { return comps(xyzw, ci(v.X, v.Y)...) }

func typed(d godot.Dialect, t godot.Type, double bool, val node) obj {
	o := obj{{"type", jstr(d.TypeName(t))}}
	if double {
		o = append(o, member{"double", lit("true")})
	}
	return append(o, member{"value", val})
}

// stringNode gives a string as JSON text, or as hex when it is not valid UTF-8.
func stringNode(s string) (key string, val node) {
	if utf8.ValidString(s) {
		return "value", jstr(s)
	}
	return "hex", jstr(hex.EncodeToString([]byte(s)))
}

func strs(ss []string) node {
	a := make(arr, len(ss))
	for i, s := range ss {
		if utf8.ValidString(s) {
			a[i] = jstr(s)
		} else {
			a[i] = obj{{"hex", jstr(hex.EncodeToString([]byte(s)))}}
		}
	}
	return a
}

func containerNode(d godot.Dialect, ct godot.ContainerType) node {
	switch ct.Kind {
	case godot.ContainerBuiltin:
		return flat{{"builtin", jstr(d.TypeName(ct.Builtin))}}
	case godot.ContainerClassName:
		return flat{{"class", jstr(ct.Name)}}
	case godot.ContainerScript:
		return flat{{"script", jstr(ct.Name)}}
	}
	return nil
}

func build(v any, d godot.Dialect, depth level) (node, error) {
	if depth.n > depth.max {
		return nil, fmt.Errorf("gdjson: value nested more than %d levels: %w", depth.max, godot.ErrTooDeep)
	}
	switch v := v.(type) {
	case nil:
		return obj{{"type", jstr(d.TypeName(godot.TypeNil))}}, nil
	case bool:
		return typed(d, godot.TypeBool, false, lit(strconv.FormatBool(v))), nil
	case int64:
		return typed(d, godot.TypeInt, false, lit(strconv.FormatInt(v, 10))), nil
	case int:
		return typed(d, godot.TypeInt, false, lit(strconv.Itoa(v))), nil
	case float64:
		return typed(d, godot.TypeFloat, false, lit(f64(v))), nil
	case float32:
		return typed(d, godot.TypeFloat, false, lit(f64(float64(v)))), nil
	case string:
		k, n := stringNode(v)
		return obj{{"type", jstr(d.TypeName(godot.TypeString))}, {k, n}}, nil
	case godot.StringName:
		k, n := stringNode(string(v))
		return obj{{"type", jstr(d.TypeName(godot.TypeStringName))}, {k, n}}, nil
	case godot.Vector2:
		return typed(d, godot.TypeVector2, false, v2(v)), nil
	case godot.Vector2i:
		return typed(d, godot.TypeVector2i, false, v2i(v)), nil
	case godot.Rect2:
		return typed(d, godot.TypeRect2, false, obj{{"position", v2(v.Position)}, {"size", v2(v.Size)}}), nil
	case godot.Rect2i:
		return typed(d, godot.TypeRect2i, false, obj{{"position", v2i(v.Position)}, {"size", v2i(v.Size)}}), nil
	case godot.Vector3:
		return typed(d, godot.TypeVector3, false, v3(v)), nil
	case godot.Vector3i:
		return typed(d, godot.TypeVector3i, false, comps(xyzw, ci(v.X, v.Y, v.Z)...)), nil
	case godot.Transform2D:
		return typed(d, godot.TypeTransform2D, false, obj{{"x", v2(v.X)}, {"y", v2(v.Y)}, {"origin", v2(v.Origin)}}), nil
	case godot.Vector4:
		return typed(d, godot.TypeVector4, false, v4(v)), nil
	case godot.Vector4i:
		return typed(d, godot.TypeVector4i, false, comps(xyzw, ci(v.X, v.Y, v.Z, v.W)...)), nil
	case godot.Plane:
		return typed(d, godot.TypePlane, false, obj{{"normal", v3(v.Normal)}, {"d", lit(f32(v.D))}}), nil
	case godot.Quaternion:
		return typed(d, godot.TypeQuaternion, false, comps(xyzw, c32(v.X, v.Y, v.Z, v.W)...)), nil
	case godot.AABB:
		return typed(d, godot.TypeAABB, false, obj{{"position", v3(v.Position)}, {"size", v3(v.Size)}}), nil
	case godot.Basis:
		return typed(d, godot.TypeBasis, false, obj{{"x", v3(v.X)}, {"y", v3(v.Y)}, {"z", v3(v.Z)}}), nil
	case godot.Transform3D:
		return typed(d, godot.TypeTransform3D, false, obj{{"basis", obj{{"x", v3(v.Basis.X)}, {"y", v3(v.Basis.Y)}, {"z", v3(v.Basis.Z)}}}, {"origin", v3(v.Origin)}}), nil
	case godot.Projection:
		return typed(d, godot.TypeProjection, false, obj{{"x", v4(v.X)}, {"y", v4(v.Y)}, {"z", v4(v.Z)}, {"w", v4(v.W)}}), nil
	case godot.Color:
		return typed(d, godot.TypeColor, false, comps(rgba, c32(v.R, v.G, v.B, v.A)...)), nil
	case godot.Vector2d:
		return typed(d, godot.TypeVector2, true, v2d(v)), nil
	case godot.Rect2d:
		return typed(d, godot.TypeRect2, true, obj{{"position", v2d(v.Position)}, {"size", v2d(v.Size)}}), nil
	case godot.Vector3d:
		return typed(d, godot.TypeVector3, true, v3d(v)), nil
	case godot.Transform2Dd:
		return typed(d, godot.TypeTransform2D, true, obj{{"x", v2d(v.X)}, {"y", v2d(v.Y)}, {"origin", v2d(v.Origin)}}), nil
	case godot.Vector4d:
		return typed(d, godot.TypeVector4, true, v4d(v)), nil
	case godot.Planed:
		return typed(d, godot.TypePlane, true, obj{{"normal", v3d(v.Normal)}, {"d", lit(f64(v.D))}}), nil
	case godot.Quaterniond:
		return typed(d, godot.TypeQuaternion, true, comps(xyzw, c64(v.X, v.Y, v.Z, v.W)...)), nil
	case godot.AABBd:
		return typed(d, godot.TypeAABB, true, obj{{"position", v3d(v.Position)}, {"size", v3d(v.Size)}}), nil
	case godot.Basisd:
		return typed(d, godot.TypeBasis, true, obj{{"x", v3d(v.X)}, {"y", v3d(v.Y)}, {"z", v3d(v.Z)}}), nil
	case godot.Transform3Dd:
		return typed(d, godot.TypeTransform3D, true, obj{{"basis", obj{{"x", v3d(v.Basis.X)}, {"y", v3d(v.Basis.Y)}, {"z", v3d(v.Basis.Z)}}}, {"origin", v3d(v.Origin)}}), nil
	case godot.Projectiond:
		return typed(d, godot.TypeProjection, true, obj{{"x", v4d(v.X)}, {"y", v4d(v.Y)}, {"z", v4d(v.Z)}, {"w", v4d(v.W)}}), nil
	case godot.NodePath:
		return typed(d, godot.TypeNodePath, false, obj{
			{"path", jstr(v.String())}, {"names", strs(v.Names)}, {"subnames", strs(v.SubNames)}, {"absolute", lit(strconv.FormatBool(v.Absolute))},
		}), nil
	case godot.RID:
		return typed(d, godot.TypeRID, false, lit(strconv.FormatUint(uint64(v), 10))), nil
	case godot.ObjectID:
		return obj{{"type", jstr(d.TypeName(godot.TypeObject))}, {"id", lit(strconv.FormatUint(uint64(v), 10))}}, nil
	case *godot.Object:
		if v == nil {
			return obj{{"type", jstr(d.TypeName(godot.TypeNil))}}, nil
		}
		props := make(arr, len(v.Properties))
		for i, p := range v.Properties {
			pv, err := build(p.Value, d, depth.next())
			if err != nil {
				return nil, err
			}
			props[i] = obj{{"name", jstr(p.Name)}, {"value", pv}}
		}
		return obj{{"type", jstr(d.TypeName(godot.TypeObject))}, {"class", jstr(v.Class)}, {"properties", props}}, nil
	case godot.Callable:
		return obj{{"type", jstr(d.TypeName(godot.TypeCallable))}}, nil
	case godot.Signal:
		return typed(d, godot.TypeSignal, false, obj{{"name", jstr(v.Name)}, {"object", lit(strconv.FormatUint(uint64(v.Object), 10))}}), nil
	case *godot.Dictionary:
		if v == nil {
			return obj{{"type", jstr(d.TypeName(godot.TypeNil))}}, nil
		}
		return buildDict(v, d, depth)
	case godot.Dictionary:
		return buildDict(&v, d, depth)
	case []any:
		return buildArray(v, godot.ContainerType{}, d, depth)
	case *godot.TypedArray:
		if v == nil {
			return obj{{"type", jstr(d.TypeName(godot.TypeNil))}}, nil
		}
		return buildArray(v.Values, v.Elem, d, depth)
	case godot.TypedArray:
		return buildArray(v.Values, v.Elem, d, depth)
	case []byte:
		return typed(d, godot.TypePackedByteArray, false, jstr(hex.EncodeToString(v))), nil
	case []int32:
		return typed(d, godot.TypePackedInt32Array, false, rowsOf(v, func(x int32) string { return strconv.FormatInt(int64(x), 10) })), nil
	case []int64:
		return typed(d, godot.TypePackedInt64Array, false, rowsOf(v, func(x int64) string { return strconv.FormatInt(x, 10) })), nil
	case []float32:
		return typed(d, godot.TypePackedFloat32Array, false, rowsOf(v, f32)), nil
	case []float64:
		return typed(d, godot.TypePackedFloat64Array, false, rowsOf(v, f64)), nil
	case []string:
		return typed(d, godot.TypePackedStringArray, false, strs(v)), nil
	case []godot.Vector2:
		return typed(d, godot.TypePackedVector2Array, false, rowsOf(v, func(x godot.Vector2) string { return tuple(c32(x.X, x.Y)) })), nil
	case []godot.Vector3:
		return typed(d, godot.TypePackedVector3Array, false, rowsOf(v, func(x godot.Vector3) string { return tuple(c32(x.X, x.Y, x.Z)) })), nil
	case []godot.Vector4:
		return typed(d, godot.TypePackedVector4Array, false, rowsOf(v, func(x godot.Vector4) string { return tuple(c32(x.X, x.Y, x.Z, x.W)) })), nil
	case []godot.Color:
		return typed(d, godot.TypePackedColorArray, false, rowsOf(v, func(x godot.Color) string { return tuple(c32(x.R, x.G, x.B, x.A)) })), nil
	case []godot.Vector2d:
		return typed(d, godot.TypePackedVector2Array, true, rowsOf(v, func(x godot.Vector2d) string { return tuple(c64(x.X, x.Y)) })), nil
	case []godot.Vector3d:
		return typed(d, godot.TypePackedVector3Array, true, rowsOf(v, func(x godot.Vector3d) string { return tuple(c64(x.X, x.Y, x.Z)) })), nil
	case []godot.Vector4d:
		return typed(d, godot.TypePackedVector4Array, true, rowsOf(v, func(x godot.Vector4d) string { return tuple(c64(x.X, x.Y, x.Z, x.W)) })), nil
	}
	return nil, fmt.Errorf("gdjson: %T is not a Godot value", v)
}

func rowsOf[T any](v []T, f func(T) string) rows {
	r := make(rows, len(v))
	for i, x := range v {
		r[i] = f(x)
	}
	return r
}

func tuple(s []string) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, x := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(x)
	}
	b.WriteByte(']')
	return b.String()
}

func buildArray(vals []any, elem godot.ContainerType, d godot.Dialect, depth level) (node, error) {
	a := make(arr, len(vals))
	for i, x := range vals {
		n, err := build(x, d, depth.next())
		if err != nil {
			return nil, err
		}
		a[i] = n
	}
	o := obj{{"type", jstr(d.TypeName(godot.TypeArray))}}
	if ct := containerNode(d, elem); ct != nil {
		o = append(o, member{"element", ct})
	}
	return append(o, member{"value", a}), nil
}

func buildDict(v *godot.Dictionary, d godot.Dialect, depth level) (node, error) {
	a := make(arr, len(v.Entries))
	for i, e := range v.Entries {
		k, err := build(e.Key, d, depth.next())
		if err != nil {
			return nil, err
		}
		x, err := build(e.Value, d, depth.next())
		if err != nil {
			return nil, err
		}
		a[i] = obj{{"key", k}, {"value", x}}
	}
	o := obj{{"type", jstr(d.TypeName(godot.TypeDictionary))}}
	if ct := containerNode(d, v.Key); ct != nil {
		o = append(o, member{"key_type", ct})
	}
	if ct := containerNode(d, v.Value); ct != nil {
		o = append(o, member{"value_type", ct})
	}
	return append(o, member{"value", a}), nil
}
