package godot

import (
	"math"
	"strings"
)

// Type is the kind of a Godot Variant, independent of the dialect. Its numeric values are Godot 4's
// Variant::Type ids; a [Dialect] maps them to and from the ids on the wire (Godot 3 numbers most
// types differently and lacks some of them).
type Type uint8

// The Variant types. Godot 3 has no Vector2i, Rect2i, Vector3i, Vector4, Vector4i, Projection,
// StringName, Callable, Signal, PackedInt64Array, PackedFloat64Array or PackedVector4Array.
const (
	TypeNil Type = iota
	TypeBool
	TypeInt
	TypeFloat
	TypeString
	TypeVector2
	TypeVector2i
	TypeRect2
	TypeRect2i
	TypeVector3
	TypeVector3i
	TypeTransform2D
	TypeVector4
	TypeVector4i
	TypePlane
	TypeQuaternion
	TypeAABB
	TypeBasis
	TypeTransform3D
	TypeProjection
	TypeColor
	TypeStringName
	TypeNodePath
	TypeRID
	TypeObject
	TypeCallable
	TypeSignal
	TypeDictionary
	TypeArray
	TypePackedByteArray
	TypePackedInt32Array
	TypePackedInt64Array
	TypePackedFloat32Array
	TypePackedFloat64Array
	TypePackedStringArray
	TypePackedVector2Array
	TypePackedVector3Array
	TypePackedColorArray
	TypePackedVector4Array

	numTypes // the number of types; not a type
)

// Vector2 is a 2D vector of real_t components (float32 in the official single-precision builds).
type Vector2 struct{ X, Y float32 }

// Vector2i is a 2D vector of 32-bit integers (Godot 4).
type Vector2i struct{ X, Y int32 }

// Rect2 is an axis-aligned rectangle: its position (the corner with the smallest coordinates) and size.
type Rect2 struct{ Position, Size Vector2 }

// Rect2i is an axis-aligned rectangle of integer coordinates (Godot 4).
type Rect2i struct{ Position, Size Vector2i }

// Vector3 is a 3D vector of real_t components.
type Vector3 struct{ X, Y, Z float32 }

// Vector3i is a 3D vector of 32-bit integers (Godot 4).
type Vector3i struct{ X, Y, Z int32 }

// Vector4 is a 4D vector of real_t components (Godot 4).
type Vector4 struct{ X, Y, Z, W float32 }

// Vector4i is a 4D vector of 32-bit integers (Godot 4).
type Vector4i struct{ X, Y, Z, W int32 }

// Transform2D is a 2D affine transform: the X and Y axis column vectors and the origin, as GDScript
// exposes them (transform.x, transform.y, transform.origin). The wire order is x.x, x.y, y.x, y.y,
// origin.x, origin.y.
type Transform2D struct{ X, Y, Origin Vector2 }

// Plane is a plane in Hessian normal form: points p with Normal·p = D.
type Plane struct {
	Normal Vector3
	D      float32
}

// Quaternion is a rotation quaternion (Godot 3 calls the type Quat). W is the real part.
type Quaternion struct{ X, Y, Z, W float32 }

// AABB is an axis-aligned bounding box: its position (minimum corner) and size.
type AABB struct{ Position, Size Vector3 }

// Basis is a 3×3 matrix given by its column vectors, as GDScript exposes them (basis.x, basis.y,
// basis.z). Godot stores and serializes the matrix row by row, so the wire order is x.x, y.x, z.x,
// x.y, y.y, z.y, x.z, y.z, z.z; the seeds' offset tables label these values wrongly.
type Basis struct{ X, Y, Z Vector3 }

// Transform3D is a 3D affine transform, a Basis and an origin (Godot 3 calls the type Transform).
type Transform3D struct {
	Basis  Basis
	Origin Vector3
}

// Projection is a 4×4 matrix given by its column vectors, serialized column by column (Godot 4).
type Projection struct{ X, Y, Z, W Vector4 }

// Color is an RGBA color of float32 components (never double precision, in any build). Components
// may exceed 1 for overbright colors.
type Color struct{ R, G, B, A float32 }

// StringName is Godot 4's interned string type. Its payload is that of a String. Encoded in the
// Godot 3 dialect it becomes a String, as Godot 3 itself does.
type StringName string

// NodePath is a path to a node and, after a colon, to a property or sub-property:
// "Path2D/Sprite:position:x" has the names [Path2D Sprite] and the subnames [position x].
// NodePath("/") is absolute with no names: both engines write it so, but only Godot 4 decodes it
// so; Godot 3 decodes it as the empty path.
type NodePath struct {
	Names    []string
	SubNames []string
	Absolute bool // the path starts with "/"
}

// String returns the path in Godot's text form, e.g. "/root/Main:position:x".
func (p NodePath) String() string {
	n := 0
	for _, s := range p.Names {
		n += len(s) + 1
	}
	for _, s := range p.SubNames {
		n += len(s) + 1
	}
	b := make([]byte, 0, n+1)
	if p.Absolute {
		b = append(b, '/')
	}
	for i, s := range p.Names {
		if i > 0 {
			b = append(b, '/')
		}
		b = append(b, s...)
	}
	for _, s := range p.SubNames {
		b = append(b, ':')
		b = append(b, s...)
	}
	return string(b)
}

// ParseNodePath splits a path in Godot's text form ("a/b:c", "/root") into names and subnames the
// way Godot's NodePath(String) constructor does: a leading "/" makes it absolute, empty names
// between slashes are dropped, and so is an empty subname at the end ("a:"); an empty subname
// anywhere else ("a::b") makes the whole path invalid, which the engine turns into the empty path.
func ParseNodePath(s string) NodePath {
	var p NodePath
	if len(s) > 0 && s[0] == '/' {
		p.Absolute = true
	}
	path := s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		path = s[:i]
		subs := s[i+1:]
		if strings.HasPrefix(subs, ":") || strings.Contains(subs, "::") {
			return NodePath{} // an empty subname
		}
		if subs != "" {
			p.SubNames = make([]string, 0, strings.Count(subs, ":")+1)
		}
		for subs != "" {
			sub, rest, more := strings.Cut(subs, ":")
			if sub == "" {
				return NodePath{}
			}
			p.SubNames = append(p.SubNames, sub)
			if !more {
				break
			}
			subs = rest
		}
	}
	start := 0
	if p.Absolute {
		start = 1
	}
	for i := start; i <= len(path); i++ {
		if i == len(path) || path[i] == '/' {
			if i > start {
				if p.Names == nil {
					p.Names = make([]string, 0, strings.Count(path[start:], "/")+1)
				}
				p.Names = append(p.Names, path[start:i])
			}
			start = i + 1
		}
	}
	return p
}

// RID is a resource id. Godot 3 serializes RIDs as the bare type header, so the id is lost and
// decodes as 0; Godot 4 writes the 64-bit id.
type RID uint64

// ObjectID is an Object encoded by its instance id (the header's OBJECT_AS_ID flag). This is how
// Godot sends objects unless full objects are asked for; the engine decodes it as an
// EncodedObjectAsID whose object_id is this value. The id 0 is a null object.
type ObjectID uint64

// Object is a full object: its class name and the values of its PROPERTY_USAGE_STORAGE properties,
// in the engine's property-list order. Godot decodes full objects only when allowed
// ([DecodeOptions].AllowObjects), because instantiating classes from the network is unsafe; this
// package never instantiates anything, it only carries the data. An empty Class is a null object
// in the old (Godot 3.2) full-object form.
type Object struct {
	Class      string
	Properties []Property
}

// Property is one stored property of a full [Object].
type Property struct {
	Name  string
	Value any
}

// Callable is a Godot 4 Callable. The engine serializes only the type header, so every Callable
// decodes as this empty value.
type Callable struct{}

// Signal is a Godot 4 Signal: the signal's name and the instance id of the object that owns it.
type Signal struct {
	Name   string
	Object ObjectID
}

// ContainerKind says how a typed container's element (or key, or value) type is described on the
// wire (Godot 4.3+ typed Arrays, 4.4+ typed Dictionaries).
type ContainerKind uint8

// The container kinds, as the two-bit fields of the header encode them.
const (
	ContainerNone      ContainerKind = iota // untyped: any Variant
	ContainerBuiltin                        // a builtin Variant type, e.g. Array[int]
	ContainerClassName                      // an Object class, e.g. Array[Node]
	ContainerScript                         // a script, by its res:// path
)

// ContainerType is the element type of a typed Array, or the key or value type of a typed
// Dictionary. The zero value is "untyped".
type ContainerType struct {
	Kind ContainerKind
	// Builtin is the element type for ContainerBuiltin (TypeObject is written for class and
	// script kinds by the engine itself and is implied here).
	Builtin Type
	// Name is the class name for ContainerClassName, or the script's resource path for
	// ContainerScript.
	Name string
}

// IsTyped reports whether t describes a typed container element.
func (t ContainerType) IsTyped() bool { return t.Kind != ContainerNone }

// TypedArray is a Godot 4.3+ typed Array such as Array[int] or Array[Node]. Untyped Arrays decode
// as []any.
type TypedArray struct {
	Elem   ContainerType
	Values []any
}

// Dictionary is a Godot Dictionary: an ordered list of key/value pairs with keys of any Variant
// type. Godot keeps insertion order and the wire format preserves it, so Dictionary is a slice, not
// a Go map. Entries may be built and changed directly; [Dictionary.Set] adds a key the way Godot
// does (replacing the value of an equal key in place). Key and Value describe a Godot 4.4+ typed
// Dictionary; their zero values mean untyped.
type Dictionary struct {
	Key, Value ContainerType
	Entries    []Entry
}

// Entry is one key/value pair of a [Dictionary].
type Entry struct {
	Key, Value any
}

// NewDictionary returns a Dictionary of the given alternating keys and values, added with Set.
// It panics if kv has an odd length.
func NewDictionary(kv ...any) *Dictionary {
	if len(kv)%2 != 0 {
		panic("godot: NewDictionary needs an even number of arguments")
	}
	d := &Dictionary{Entries: make([]Entry, 0, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		d.Set(kv[i], kv[i+1])
	}
	return d
}

// Len returns the number of entries.
func (d *Dictionary) Len() int {
	if d == nil {
		return 0
	}
	return len(d.Entries)
}

// Get returns the value stored under a key equal to key (see [KeyEqual]). It takes time
// proportional to the number of entries.
func (d *Dictionary) Get(key any) (any, bool) {
	if i := d.index(key); i >= 0 {
		return d.Entries[i].Value, true
	}
	return nil, false
}

// Set stores value under key. If an equal key exists its value is replaced and it keeps its
// position; otherwise the pair is appended, as Godot does.
func (d *Dictionary) Set(key, value any) {
	if i := d.index(key); i >= 0 {
		d.Entries[i].Value = value
		return
	}
	d.Entries = append(d.Entries, Entry{key, value})
}

// Delete removes the entry with a key equal to key and reports whether there was one. The order
// of the other entries is kept.
func (d *Dictionary) Delete(key any) bool {
	i := d.index(key)
	if i < 0 {
		return false
	}
	d.Entries = append(d.Entries[:i], d.Entries[i+1:]...)
	return true
}

func (d *Dictionary) index(key any) int {
	if d == nil {
		return -1
	}
	for i := range d.Entries {
		if KeyEqual(d.Entries[i].Key, key) {
			return i
		}
	}
	return -1
}

// float32bits/float64bits are used by equality and hashing.
func f32eq(a, b float32) bool { return a == b || (a != a && b != b) }
func f64eq(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
