package godot

import "fmt"

// Dialect selects the wire dialect: the engine generation whose type table and rules are used.
// The zero value is Godot 4, which most users run today.
type Dialect uint8

// The dialects.
const (
	// Godot4 is the format of Godot 4.x (var_to_bytes, put_var, FileAccess.store_var), as the
	// newest engine writes it: type ids 0–38, typed Arrays and Dictionaries, RID as u64, Signal,
	// Callable, and the real_t = double flag on vector and matrix types.
	Godot4 Dialect = iota
	// Godot3 is the format of Godot 3.x (var2bytes, put_var, File.store_var): type ids 0–26, as the
	// real Godot 3.2.3 engine writes it.
	Godot3
)

func (d Dialect) String() string {
	switch d {
	case Godot3:
		return "Godot 3"
	case Godot4:
		return "Godot 4"
	}
	return fmt.Sprintf("Dialect(%d)", uint8(d))
}

// ParseDialect accepts "3", "4", "godot3", "godot4", "v3", "v4" (any case) and returns the dialect.
func ParseDialect(s string) (Dialect, error) {
	switch s {
	case "3", "godot3", "Godot3", "godot 3", "Godot 3", "v3", "3.x":
		return Godot3, nil
	case "4", "godot4", "Godot4", "godot 4", "Godot 4", "v4", "4.x":
		return Godot4, nil
	}
	return 0, fmt.Errorf("godot: unknown dialect %q (want 3 or 4)", s)
}

// godot3IDs maps Godot 3 wire ids (index) to types.
var godot3IDs = [...]Type{
	0: TypeNil, 1: TypeBool, 2: TypeInt, 3: TypeFloat, 4: TypeString, 5: TypeVector2, 6: TypeRect2,
	7: TypeVector3, 8: TypeTransform2D, 9: TypePlane, 10: TypeQuaternion, 11: TypeAABB, 12: TypeBasis,
	13: TypeTransform3D, 14: TypeColor, 15: TypeNodePath, 16: TypeRID, 17: TypeObject,
	18: TypeDictionary, 19: TypeArray, 20: TypePackedByteArray, 21: TypePackedInt32Array,
	22: TypePackedFloat32Array, 23: TypePackedStringArray, 24: TypePackedVector2Array,
	25: TypePackedVector3Array, 26: TypePackedColorArray,
}

// godot3Wire maps types to Godot 3 wire ids; noWire marks types Godot 3 lacks.
var godot3Wire [numTypes]uint8

const noWire = 0xFF

func init() {
	for i := range godot3Wire {
		godot3Wire[i] = noWire
	}
	for id, t := range godot3IDs {
		godot3Wire[t] = uint8(id)
	}
}

// NumTypes returns the number of wire type ids of the dialect (Godot's VARIANT_MAX): 27 for
// Godot 3, 39 for Godot 4.
func (d Dialect) NumTypes() int {
	if d == Godot3 {
		return len(godot3IDs)
	}
	return int(numTypes)
}

// TypeOf returns the type with wire id id, and false if the dialect has no such id.
func (d Dialect) TypeOf(id uint32) (Type, bool) {
	if d == Godot3 {
		if id < uint32(len(godot3IDs)) {
			return godot3IDs[id], true
		}
		return 0, false
	}
	if id < uint32(numTypes) {
		return Type(id), true
	}
	return 0, false
}

// WireID returns t's wire id in the dialect, and false if the dialect has no such type.
func (d Dialect) WireID(t Type) (uint32, bool) {
	if t >= numTypes {
		return 0, false
	}
	if d == Godot3 {
		id := godot3Wire[t]
		return uint32(id), id != noWire
	}
	return uint32(t), true
}

// Has reports whether the dialect has type t.
func (d Dialect) Has(t Type) bool {
	_, ok := d.WireID(t)
	return ok
}

var typeNames4 = [numTypes]string{
	"Nil", "bool", "int", "float", "String", "Vector2", "Vector2i", "Rect2", "Rect2i", "Vector3",
	"Vector3i", "Transform2D", "Vector4", "Vector4i", "Plane", "Quaternion", "AABB", "Basis",
	"Transform3D", "Projection", "Color", "StringName", "NodePath", "RID", "Object", "Callable",
	"Signal", "Dictionary", "Array", "PackedByteArray", "PackedInt32Array", "PackedInt64Array",
	"PackedFloat32Array", "PackedFloat64Array", "PackedStringArray", "PackedVector2Array",
	"PackedVector3Array", "PackedColorArray", "PackedVector4Array",
}

var typeNames3 = map[Type]string{
	TypeQuaternion: "Quat", TypeTransform3D: "Transform", TypePackedByteArray: "PoolByteArray",
	TypePackedInt32Array: "PoolIntArray", TypePackedFloat32Array: "PoolRealArray",
	TypePackedStringArray: "PoolStringArray", TypePackedVector2Array: "PoolVector2Array",
	TypePackedVector3Array: "PoolVector3Array", TypePackedColorArray: "PoolColorArray",
}

// TypeName returns Godot's name of the type in the dialect, such as "PoolVector3Array" (Godot 3)
// or "PackedVector3Array" (Godot 4).
func (d Dialect) TypeName(t Type) string {
	if t >= numTypes {
		return fmt.Sprintf("Type(%d)", uint8(t))
	}
	if d == Godot3 {
		if n, ok := typeNames3[t]; ok {
			return n
		}
	}
	return typeNames4[t]
}

// TypeByName returns the type a dialect calls name (as [Dialect.TypeName] spells it). Godot 3
// and Godot 4 names are both accepted, whatever the dialect.
func TypeByName(name string) (Type, bool) {
	for t, n := range typeNames4 {
		if n == name {
			return Type(t), true
		}
	}
	for t, n := range typeNames3 {
		if n == name {
			return t, true
		}
	}
	return 0, false
}

// String returns the Godot 4 name of the type.
func (t Type) String() string { return Godot4.TypeName(t) }
