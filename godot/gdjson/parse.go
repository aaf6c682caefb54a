package gdjson

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/internal/floattext"
)

// SyntaxError reports JSON that is not a valid document of this package's form. Path locates the
// offending value, e.g. `$.value[2].key`.
type SyntaxError struct {
	Path string
	Msg  string
	// Err is the cause when it is one of package godot's sentinels (godot.ErrTooDeep), else nil.
	Err error
}

// Error implements error. A long path is abbreviated (see godot.AbbreviatePath); the Path field
// keeps it whole.
func (e *SyntaxError) Error() string { return "gdjson: " + godot.AbbreviatePath(e.Path) + ": " + e.Msg }

// Unwrap returns Err.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Unmarshal parses the JSON form of one value. Either dialect's type names are accepted.
func Unmarshal(data []byte) (any, error) {
	return Decode(bytes.NewReader(data))
}

// Unmarshal parses the JSON form of one value. Either dialect's type names are accepted.
func (m DecodeMode) Unmarshal(data []byte) (any, error) {
	return m.Decode(bytes.NewReader(data))
}

// Decode reads the JSON form of one value from r.
func Decode(r io.Reader) (any, error) { return DecodeMode{}.Decode(r) }

// Decode reads the JSON form of one value from r.
func (m DecodeMode) Decode(r io.Reader) (any, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("gdjson: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &SyntaxError{Path: "$", Msg: "trailing data after the value"}
	}
	p := parser{}
	return p.value(raw, "$", top(m.o.MaxDepth))
}

type parser struct{}

func fail(path, format string, args ...any) error {
	return &SyntaxError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) value(raw any, path string, depth level) (any, error) {
	if depth.n > depth.max {
		return nil, &SyntaxError{Path: path, Msg: fmt.Sprintf("nested more than %d levels", depth.max), Err: godot.ErrTooDeep}
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fail(path, "want an object with a \"type\", got %s", kind(raw))
	}
	tn, ok := m["type"].(string)
	if !ok {
		return nil, fail(path, "missing \"type\"")
	}
	t, ok := godot.TypeByName(tn)
	if !ok {
		return nil, fail(path+".type", "unknown type %q", tn)
	}
	double, _ := m["double"].(bool)
	val := m["value"]
	vp := path + ".value"
	switch t {
	case godot.TypeNil:
		return nil, nil
	case godot.TypeBool:
		b, ok := val.(bool)
		if !ok {
			return nil, fail(vp, "want true or false")
		}
		return b, nil
	case godot.TypeInt:
		return int64Of(val, vp)
	case godot.TypeFloat:
		return float64Of(val, vp)
	case godot.TypeString, godot.TypeStringName:
		s, err := stringOf(m, path)
		if err != nil {
			return nil, err
		}
		if t == godot.TypeStringName {
			return godot.StringName(s), nil
		}
		return s, nil
	case godot.TypeVector2i, godot.TypeVector3i, godot.TypeVector4i:
		n := map[godot.Type]int{godot.TypeVector2i: 2, godot.TypeVector3i: 3, godot.TypeVector4i: 4}[t]
		c, err := intComps(val, vp, xyzw[:n])
		if err != nil {
			return nil, err
		}
		switch t {
		case godot.TypeVector2i:
			return godot.Vector2i{X: c[0], Y: c[1]}, nil
		case godot.TypeVector3i:
			return godot.Vector3i{X: c[0], Y: c[1], Z: c[2]}, nil
		}
		return godot.Vector4i{X: c[0], Y: c[1], Z: c[2], W: c[3]}, nil
	case godot.TypeRect2i:
		o, err := objOf(val, vp)
		if err != nil {
			return nil, err
		}
		pos, err := intComps(o["position"], vp+".position", xyzw[:2])
		if err != nil {
			return nil, err
		}
		size, err := intComps(o["size"], vp+".size", xyzw[:2])
		if err != nil {
			return nil, err
		}
		return godot.Rect2i{Position: godot.Vector2i{X: pos[0], Y: pos[1]}, Size: godot.Vector2i{X: size[0], Y: size[1]}}, nil
	case godot.TypeVector2, godot.TypeRect2, godot.TypeVector3, godot.TypeTransform2D, godot.TypeVector4,
		godot.TypePlane, godot.TypeQuaternion, godot.TypeAABB, godot.TypeBasis, godot.TypeTransform3D,
		godot.TypeProjection, godot.TypeColor:
		return mathValue(t, double, val, vp)
	case godot.TypeNodePath:
		o, err := objOf(val, vp)
		if err != nil {
			return nil, err
		}
		var np godot.NodePath
		_, hasNames := o["names"]
		_, hasSubs := o["subnames"]
		if !hasNames && !hasSubs {
			s, ok := o["path"].(string)
			if !ok {
				return nil, fail(vp, "want \"names\"/\"subnames\" or a \"path\"")
			}
			return godot.ParseNodePath(s), nil
		}
		if np.Names, err = stringList(o["names"], vp+".names"); err != nil {
			return nil, err
		}
		if np.SubNames, err = stringList(o["subnames"], vp+".subnames"); err != nil {
			return nil, err
		}
		if a, ok := o["absolute"]; ok {
			if np.Absolute, ok = a.(bool); !ok {
				return nil, fail(vp+".absolute", "want true or false")
			}
		}
		return np, nil
	case godot.TypeRID:
		u, err := uint64Of(val, vp)
		return godot.RID(u), err
	case godot.TypeObject:
		if id, ok := m["id"]; ok {
			u, err := uint64Of(id, path+".id")
			return godot.ObjectID(u), err
		}
		class, ok := m["class"].(string)
		if !ok {
			return nil, fail(path, "an Object needs an \"id\" or a \"class\"")
		}
		o := &godot.Object{Class: class}
		props, _ := m["properties"].([]any)
		if _, ok := m["properties"]; ok && props == nil {
			return nil, fail(path+".properties", "want an array")
		}
		for i, pr := range props {
			pp := fmt.Sprintf("%s.properties[%d]", path, i)
			pm, ok := pr.(map[string]any)
			if !ok {
				return nil, fail(pp, "want {\"name\": …, \"value\": …}")
			}
			name, ok := pm["name"].(string)
			if !ok {
				return nil, fail(pp+".name", "want a string")
			}
			v, err := p.value(pm["value"], pp+".value", depth.next())
			if err != nil {
				return nil, err
			}
			o.Properties = append(o.Properties, godot.Property{Name: name, Value: v})
		}
		return o, nil
	case godot.TypeCallable:
		return godot.Callable{}, nil
	case godot.TypeSignal:
		o, err := objOf(val, vp)
		if err != nil {
			return nil, err
		}
		name, ok := o["name"].(string)
		if !ok {
			return nil, fail(vp+".name", "want a string")
		}
		id, err := uint64Of(o["object"], vp+".object")
		return godot.Signal{Name: name, Object: godot.ObjectID(id)}, err
	case godot.TypeDictionary:
		list, ok := val.([]any)
		if !ok {
			return nil, fail(vp, "want an array of {\"key\", \"value\"} objects")
		}
		d := &godot.Dictionary{Entries: make([]godot.Entry, 0, len(list))}
		var err error
		if d.Key, err = containerOf(m["key_type"], path+".key_type"); err != nil {
			return nil, err
		}
		if d.Value, err = containerOf(m["value_type"], path+".value_type"); err != nil {
			return nil, err
		}
		for i, e := range list {
			ep := fmt.Sprintf("%s[%d]", vp, i)
			em, ok := e.(map[string]any)
			if !ok {
				return nil, fail(ep, "want {\"key\": …, \"value\": …}")
			}
			k, err := p.value(em["key"], ep+".key", depth.next())
			if err != nil {
				return nil, err
			}
			v, err := p.value(em["value"], ep+".value", depth.next())
			if err != nil {
				return nil, err
			}
			// Entries are kept as written, duplicates included: the JSON says what the bytes hold.
			d.Entries = append(d.Entries, godot.Entry{Key: k, Value: v})
		}
		return d, nil
	case godot.TypeArray:
		list, ok := val.([]any)
		if !ok {
			return nil, fail(vp, "want an array")
		}
		vals := make([]any, len(list))
		for i, e := range list {
			v, err := p.value(e, fmt.Sprintf("%s[%d]", vp, i), depth.next())
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		elem, err := containerOf(m["element"], path+".element")
		if err != nil {
			return nil, err
		}
		if elem.IsTyped() {
			return &godot.TypedArray{Elem: elem, Values: vals}, nil
		}
		return vals, nil
	case godot.TypePackedByteArray:
		s, ok := val.(string)
		if !ok {
			return nil, fail(vp, "want a hex string")
		}
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			return nil, fail(vp, "bad hex: %v", err)
		}
		return b, nil
	case godot.TypePackedInt32Array:
		return listOf(val, vp, func(x any, path string) (int32, error) {
			n, err := int64Of(x, path)
			if err == nil && (n < math.MinInt32 || n > math.MaxInt32) {
				err = fail(path, "%d does not fit in int32", n)
			}
			return int32(n), err
		})
	case godot.TypePackedInt64Array:
		return listOf(val, vp, int64Of)
	case godot.TypePackedFloat32Array:
		return listOf(val, vp, float32Of)
	case godot.TypePackedFloat64Array:
		return listOf(val, vp, float64Of)
	case godot.TypePackedStringArray:
		return stringList(val, vp)
	case godot.TypePackedVector2Array, godot.TypePackedVector3Array, godot.TypePackedVector4Array, godot.TypePackedColorArray:
		return packedVectors(t, double, val, vp)
	}
	return nil, fail(path, "type %s is not supported", tn)
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

func objOf(v any, path string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fail(path, "want an object, got %s", kind(v))
	}
	return m, nil
}

func stringOf(m map[string]any, path string) (string, error) {
	if h, ok := m["hex"]; ok {
		s, ok := h.(string)
		if !ok {
			return "", fail(path+".hex", "want a hex string")
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return "", fail(path+".hex", "bad hex: %v", err)
		}
		return string(b), nil
	}
	s, ok := m["value"].(string)
	if !ok {
		return "", fail(path+".value", "want a string")
	}
	return s, nil
}

func stringList(v any, path string) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fail(path, "want an array of strings")
	}
	out := make([]string, len(list))
	for i, x := range list {
		switch x := x.(type) {
		case string:
			out[i] = x
		case map[string]any:
			s, err := stringOf(x, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = s
		default:
			return nil, fail(fmt.Sprintf("%s[%d]", path, i), "want a string")
		}
	}
	return out, nil
}

func listOf[T any](v any, path string, f func(any, string) (T, error)) ([]T, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fail(path, "want an array")
	}
	out := make([]T, len(list))
	for i, x := range list {
		var err error
		if out[i], err = f(x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func int64Of(v any, path string) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fail(path, "want an integer, got %s", kind(v))
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return 0, fail(path, "want a 64-bit integer, got %s", n)
	}
	return i, nil
}

func uint64Of(v any, path string) (uint64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fail(path, "want an unsigned integer, got %s", kind(v))
	}
	u, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil {
		return 0, fail(path, "want an unsigned 64-bit integer, got %s", n)
	}
	return u, nil
}

// parseFloat reads a number or one of the strings of package floattext ("inf", "-inf", "NaN",
// "NaN:0x…") with the given precision (32 or 64).
func parseFloat(v any, path string, bits int) (float64, error) {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), bits)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, fail(path, "bad number %s", v)
		}
		return f, nil
	case string:
		u, err := floattext.Parse(v, bits)
		if err != nil {
			return 0, fail(path, "%v", err)
		}
		if bits == 32 {
			if f := math.Float32frombits(uint32(u)); f != f {
				return 0, errNaN32{uint32(u)}
			}
			return float64(math.Float32frombits(uint32(u))), nil
		}
		return math.Float64frombits(u), nil
	}
	return 0, fail(path, "%v", floattext.ErrNotFloat)
}

// errNaN32 carries float32 NaN bits, which do not survive a trip through float64.
type errNaN32 struct{ bits uint32 }

func (e errNaN32) Error() string { return "float32 NaN" }

func float64Of(v any, path string) (float64, error) { return parseFloat(v, path, 64) }

func float32Of(v any, path string) (float32, error) {
	f, err := parseFloat(v, path, 32)
	var nan errNaN32
	if errors.As(err, &nan) {
		return math.Float32frombits(nan.bits), nil
	}
	return float32(f), err
}

func intComps(v any, path string, keys []string) ([4]int32, error) {
	var c [4]int32
	m, err := objOf(v, path)
	if err != nil {
		return c, err
	}
	for i, k := range keys {
		n, err := int64Of(m[k], path+"."+k)
		if err != nil {
			return c, err
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return c, fail(path+"."+k, "%d does not fit in int32", n)
		}
		c[i] = int32(n)
	}
	return c, nil
}

// realComps reads the named float components of an object, each at the given precision.
func realComps(v any, path string, keys []string, dst []float64, bits int, nan32 []uint32) error {
	m, err := objOf(v, path)
	if err != nil {
		return err
	}
	for i, k := range keys {
		f, err := parseFloat(m[k], path+"."+k, bits)
		var nan errNaN32
		if errors.As(err, &nan) {
			nan32[i], f, err = nan.bits, 0, nil
		} else {
			nan32[i] = 0
		}
		if err != nil {
			return err
		}
		dst[i] = f
	}
	return nil
}

// mathValue reads a float math type by walking its layout: each entry names a sub-object (or "")
// and its component keys, in wire order.
func mathValue(t godot.Type, double bool, val any, path string) (any, error) {
	type part struct {
		key  string
		keys []string
	}
	var layout []part
	switch t {
	case godot.TypeVector2:
		layout = []part{{"", xyzw[:2]}}
	case godot.TypeVector3:
		layout = []part{{"", xyzw[:3]}}
	case godot.TypeVector4, godot.TypeQuaternion:
		layout = []part{{"", xyzw}}
	case godot.TypeColor:
		layout = []part{{"", rgba}}
	case godot.TypeRect2:
		layout = []part{{"position", xyzw[:2]}, {"size", xyzw[:2]}}
	case godot.TypeAABB:
		layout = []part{{"position", xyzw[:3]}, {"size", xyzw[:3]}}
	case godot.TypeTransform2D:
		layout = []part{{"x", xyzw[:2]}, {"y", xyzw[:2]}, {"origin", xyzw[:2]}}
	case godot.TypePlane:
		layout = []part{{"normal", xyzw[:3]}, {"", []string{"d"}}}
	case godot.TypeBasis:
		layout = []part{{"x", xyzw[:3]}, {"y", xyzw[:3]}, {"z", xyzw[:3]}}
	case godot.TypeTransform3D:
		layout = []part{{"basis.x", xyzw[:3]}, {"basis.y", xyzw[:3]}, {"basis.z", xyzw[:3]}, {"origin", xyzw[:3]}}
	case godot.TypeProjection:
		layout = []part{{"x", xyzw}, {"y", xyzw}, {"z", xyzw}, {"w", xyzw}}
	}
	bits := 32
	if double && t != godot.TypeColor {
		bits = 64
	} else {
		double = false
	}
	var c [16]float64
	var nans [16]uint32
	n := 0
	for _, pt := range layout {
		sub, sp := val, path
		for _, k := range strings.Split(pt.key, ".") {
			if k == "" {
				continue
			}
			m, err := objOf(sub, sp)
			if err != nil {
				return nil, err
			}
			sub, sp = m[k], sp+"."+k
		}
		if err := realComps(sub, sp, pt.keys, c[n:n+len(pt.keys)], bits, nans[n:n+len(pt.keys)]); err != nil {
			return nil, err
		}
		n += len(pt.keys)
	}
	if double {
		return fromComps64(t, c), nil
	}
	var c32 [16]float32
	for i := range n {
		if nans[i] != 0 {
			c32[i] = math.Float32frombits(nans[i])
		} else {
			c32[i] = float32(c[i])
		}
	}
	return fromComps32(t, c32), nil
}

func fromComps32(t godot.Type, c [16]float32) any {
	v2 := func(i int) godot.Vector2 { return godot.Vector2{X: c[i], Y: c[i+1]} }
	v3 := func(i int) godot.Vector3 { return godot.Vector3{X: c[i], Y: c[i+1], Z: c[i+2]} }
	v4 := func(i int) godot.Vector4 { return godot.Vector4{X: c[i], Y: c[i+1], Z: c[i+2], W: c[i+3]} }
	switch t {
	case godot.TypeVector2:
		return v2(0)
	case godot.TypeVector3:
		return v3(0)
	case godot.TypeVector4:
		return v4(0)
	case godot.TypeQuaternion:
		return godot.Quaternion{X: c[0], Y: c[1], Z: c[2], W: c[3]}
	case godot.TypeColor:
		return godot.Color{R: c[0], G: c[1], B: c[2], A: c[3]}
	case godot.TypeRect2:
		return godot.Rect2{Position: v2(0), Size: v2(2)}
	case godot.TypeAABB:
		return godot.AABB{Position: v3(0), Size: v3(3)}
	case godot.TypeTransform2D:
		return godot.Transform2D{X: v2(0), Y: v2(2), Origin: v2(4)}
	case godot.TypePlane:
		return godot.Plane{Normal: v3(0), D: c[3]}
	case godot.TypeBasis:
		return godot.Basis{X: v3(0), Y: v3(3), Z: v3(6)}
	case godot.TypeTransform3D:
		return godot.Transform3D{Basis: godot.Basis{X: v3(0), Y: v3(3), Z: v3(6)}, Origin: v3(9)}
	case godot.TypeProjection:
		return godot.Projection{X: v4(0), Y: v4(4), Z: v4(8), W: v4(12)}
	}
	return nil
}

func fromComps64(t godot.Type, c [16]float64) any {
	v2 := func(i int) godot.Vector2d { return godot.Vector2d{X: c[i], Y: c[i+1]} }
	v3 := func(i int) godot.Vector3d { return godot.Vector3d{X: c[i], Y: c[i+1], Z: c[i+2]} }
	v4 := func(i int) godot.Vector4d { return godot.Vector4d{X: c[i], Y: c[i+1], Z: c[i+2], W: c[i+3]} }
	switch t {
	case godot.TypeVector2:
		return v2(0)
	case godot.TypeVector3:
		return v3(0)
	case godot.TypeVector4:
		return v4(0)
	case godot.TypeQuaternion:
		return godot.Quaterniond{X: c[0], Y: c[1], Z: c[2], W: c[3]}
	case godot.TypeRect2:
		return godot.Rect2d{Position: v2(0), Size: v2(2)}
	case godot.TypeAABB:
		return godot.AABBd{Position: v3(0), Size: v3(3)}
	case godot.TypeTransform2D:
		return godot.Transform2Dd{X: v2(0), Y: v2(2), Origin: v2(4)}
	case godot.TypePlane:
		return godot.Planed{Normal: v3(0), D: c[3]}
	case godot.TypeBasis:
		return godot.Basisd{X: v3(0), Y: v3(3), Z: v3(6)}
	case godot.TypeTransform3D:
		return godot.Transform3Dd{Basis: godot.Basisd{X: v3(0), Y: v3(3), Z: v3(6)}, Origin: v3(9)}
	case godot.TypeProjection:
		return godot.Projectiond{X: v4(0), Y: v4(4), Z: v4(8), W: v4(12)}
	}
	return nil
}

func containerOf(v any, path string) (godot.ContainerType, error) {
	if v == nil {
		return godot.ContainerType{}, nil
	}
	m, err := objOf(v, path)
	if err != nil {
		return godot.ContainerType{}, err
	}
	if s, ok := m["builtin"].(string); ok {
		t, ok := godot.TypeByName(s)
		if !ok {
			return godot.ContainerType{}, fail(path+".builtin", "unknown type %q", s)
		}
		return godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: t}, nil
	}
	if s, ok := m["class"].(string); ok {
		return godot.ContainerType{Kind: godot.ContainerClassName, Builtin: godot.TypeObject, Name: s}, nil
	}
	if s, ok := m["script"].(string); ok {
		return godot.ContainerType{Kind: godot.ContainerScript, Builtin: godot.TypeObject, Name: s}, nil
	}
	return godot.ContainerType{}, fail(path, "want {\"builtin\": type}, {\"class\": name} or {\"script\": path}")
}

func packedVectors(t godot.Type, double bool, val any, path string) (any, error) {
	n := 4
	switch t {
	case godot.TypePackedVector2Array:
		n = 2
	case godot.TypePackedVector3Array:
		n = 3
	}
	list, ok := val.([]any)
	if !ok {
		return nil, fail(path, "want an array of [components]")
	}
	bits := 32
	if double && t != godot.TypePackedColorArray {
		bits = 64
	}
	flat32 := make([]float32, 0, len(list)*n)
	flat64 := make([]float64, 0, len(list)*n)
	for i, e := range list {
		ep := fmt.Sprintf("%s[%d]", path, i)
		tup, ok := e.([]any)
		if !ok || len(tup) != n {
			return nil, fail(ep, "want an array of %d numbers", n)
		}
		for j, x := range tup {
			if bits == 64 {
				f, err := float64Of(x, fmt.Sprintf("%s[%d]", ep, j))
				if err != nil {
					return nil, err
				}
				flat64 = append(flat64, f)
			} else {
				f, err := float32Of(x, fmt.Sprintf("%s[%d]", ep, j))
				if err != nil {
					return nil, err
				}
				flat32 = append(flat32, f)
			}
		}
	}
	m := len(list)
	switch {
	case t == godot.TypePackedColorArray:
		out := make([]godot.Color, m)
		for i := range out {
			out[i] = godot.Color{R: flat32[4*i], G: flat32[4*i+1], B: flat32[4*i+2], A: flat32[4*i+3]}
		}
		return out, nil
	case bits == 32 && n == 2:
		out := make([]godot.Vector2, m)
		for i := range out {
			out[i] = godot.Vector2{X: flat32[2*i], Y: flat32[2*i+1]}
		}
		return out, nil
	case bits == 32 && n == 3:
		out := make([]godot.Vector3, m)
		for i := range out {
			out[i] = godot.Vector3{X: flat32[3*i], Y: flat32[3*i+1], Z: flat32[3*i+2]}
		}
		return out, nil
	case bits == 32:
		out := make([]godot.Vector4, m)
		for i := range out {
			out[i] = godot.Vector4{X: flat32[4*i], Y: flat32[4*i+1], Z: flat32[4*i+2], W: flat32[4*i+3]}
		}
		return out, nil
	case n == 2:
		out := make([]godot.Vector2d, m)
		for i := range out {
			out[i] = godot.Vector2d{X: flat64[2*i], Y: flat64[2*i+1]}
		}
		return out, nil
	case n == 3:
		out := make([]godot.Vector3d, m)
		for i := range out {
			out[i] = godot.Vector3d{X: flat64[3*i], Y: flat64[3*i+1], Z: flat64[3*i+2]}
		}
		return out, nil
	}
	out := make([]godot.Vector4d, m)
	for i := range out {
		out[i] = godot.Vector4d{X: flat64[4*i], Y: flat64[4*i+1], Z: flat64[4*i+2], W: flat64[4*i+3]}
	}
	return out, nil
}
