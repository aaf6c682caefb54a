// Package gdjson converts Godot Variant values (as package godot represents them) to and from a
// lossless JSON form: every value is an object that names its Godot type and holds its
// components, so that JSON → bytes gives back exactly the bytes that were decoded.
//
// The form of each type:
//
//	{"type": "Nil"}
//	{"type": "bool", "value": true}
//	{"type": "int", "value": -5}
//	{"type": "float", "value": 0.1}              also "inf", "-inf", "NaN" (the quiet NaN
//	                                              0x7ff8000000000000), "NaN:0x7ff8000000000001"
//	                                              (any other NaN, by its bits)
//	{"type": "String", "value": "héllo"}         or {"type": "String", "hex": "eda080"} when the
//	                                              bytes are not valid UTF-8 (Godot 3 surrogates)
//	{"type": "StringName", "value": "a"}
//	{"type": "Vector2", "value": {"x": 1, "y": 2}}            and Vector2i, Vector3, Vector3i,
//	                                                           Vector4, Vector4i, Quaternion
//	{"type": "Rect2", "value": {"position": {…}, "size": {…}}}  and Rect2i, AABB
//	{"type": "Transform2D", "value": {"x": {…}, "y": {…}, "origin": {…}}}
//	{"type": "Plane", "value": {"normal": {…}, "d": 1}}
//	{"type": "Basis", "value": {"x": {…}, "y": {…}, "z": {…}}}   (column vectors)
//	{"type": "Transform3D", "value": {"basis": {…}, "origin": {…}}}
//	{"type": "Projection", "value": {"x": {…}, "y": {…}, "z": {…}, "w": {…}}}
//	{"type": "Color", "value": {"r": 1, "g": 0, "b": 0, "a": 1}}
//	{"type": "NodePath", "value": {"path": "/a:b", "names": ["a"], "subnames": ["b"], "absolute": true}}
//	{"type": "RID", "value": 13}
//	{"type": "Object", "id": 1234}                               an object sent as its instance id
//	{"type": "Object", "class": "Node", "properties": [{"name": "x", "value": {…}}]}
//	{"type": "Callable"}
//	{"type": "Signal", "value": {"name": "pressed", "object": 5}}
//	{"type": "Dictionary", "value": [{"key": {…}, "value": {…}}, …]}
//	{"type": "Array", "value": [{…}, …]}
//	{"type": "PackedByteArray", "value": "01ff"}                 hex
//	{"type": "PackedInt32Array", "value": [1, -1]}               and PackedInt64Array,
//	                                                             PackedFloat32Array, PackedFloat64Array
//	{"type": "PackedStringArray", "value": ["a", "b"]}
//	{"type": "PackedVector3Array", "value": [[1, 2, 3], …]}      and PackedVector2/4Array,
//	                                                             PackedColorArray ([r, g, b, a])
//
// Type names follow the dialect (Godot 3 says Quat, Transform, PoolIntArray …) and either
// dialect's names are accepted on input, so a value can be converted from one dialect to the other.
// A real_t value of a double-precision build carries "double": true. Typed Arrays carry
// "element": {"builtin": "int"} or {"class": "Node"} or {"script": "res://x.gd"}; typed
// Dictionaries "key" and "value" descriptors of the same shape under "key_type" and
// "value_type". Float components print in the shortest form that parses back to the same
// float32 or float64; numbers are read back with the same precision.
package gdjson
