// Package samples holds the inputs that the inspector's tests share: the protocol
// documentation's GSF request and a Godot 4 value of every type, with what the tree shows.
package samples

import "github.com/gamewire/gamewire/godot"

// GSFRequest is the 22-byte GetClientVersionInfo request of the protocol documentation (seed
// 000), in hex.
const GSFRequest = "15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00"

// Godot4EveryType returns a Godot 4 Array holding a value of every Variant type, and, for each
// element, "Type=value" as the inspector's tree shows it.
func Godot4EveryType() (any, []string) {
	d := &godot.Dictionary{}
	d.Entries = []godot.Entry{{Key: "k", Value: int64(1)}}
	v := []any{
		nil, true, int64(-7), 2.5, "héllo",
		godot.Vector2{X: 1, Y: 2}, godot.Vector2i{X: 3, Y: 4},
		godot.Rect2{Position: godot.Vector2{X: 1, Y: 2}, Size: godot.Vector2{X: 3, Y: 4}},
		godot.Rect2i{Position: godot.Vector2i{X: 1, Y: 2}, Size: godot.Vector2i{X: 3, Y: 4}},
		godot.Vector3{X: 1.5, Y: 0, Z: -2}, godot.Vector3i{X: 1, Y: 2, Z: 3},
		godot.Transform2D{X: godot.Vector2{X: 1}, Y: godot.Vector2{Y: 1}, Origin: godot.Vector2{X: 5, Y: 6}},
		godot.Vector4{X: 1, Y: 2, Z: 3, W: 4}, godot.Vector4i{X: 1, Y: 2, Z: 3, W: 4},
		godot.Plane{Normal: godot.Vector3{Y: 1}, D: 2},
		godot.Quaternion{W: 1},
		godot.AABB{Size: godot.Vector3{X: 1, Y: 1, Z: 1}},
		godot.Basis{X: godot.Vector3{X: 1}, Y: godot.Vector3{Y: 1}, Z: godot.Vector3{Z: 1}},
		godot.Transform3D{Basis: godot.Basis{X: godot.Vector3{X: 1}, Y: godot.Vector3{Y: 1}, Z: godot.Vector3{Z: 1}}, Origin: godot.Vector3{X: 7}},
		godot.Projection{X: godot.Vector4{X: 1}, Y: godot.Vector4{Y: 1}, Z: godot.Vector4{Z: 1}, W: godot.Vector4{W: 1}},
		godot.Color{R: 1, G: 0.5, B: 0, A: 1},
		godot.StringName("name"), godot.ParseNodePath("/root/Main:position"), godot.RID(42),
		&godot.Object{Class: "Node"}, godot.Callable{}, godot.Signal{Name: "hit", Object: 9},
		d, []any{int64(1), "two"},
		[]byte{1, 2, 3}, []int32{1, -1}, []int64{1 << 40}, []float32{0.5}, []float64{0.1},
		[]string{"a", "b"}, []godot.Vector2{{X: 1, Y: 2}}, []godot.Vector3{{X: 1, Y: 2, Z: 3}},
		[]godot.Color{{R: 1, A: 1}}, []godot.Vector4{{X: 1, Y: 2, Z: 3, W: 4}},
	}
	want := []string{
		"Nil=null", "bool=true", "int=-7", "float=2.5", `String="héllo"`,
		"Vector2=Vector2(1, 2)", "Vector2i=Vector2i(3, 4)", "Rect2=Rect2(1, 2, 3, 4)", "Rect2i=Rect2i(1, 2, 3, 4)",
		"Vector3=Vector3(1.5, 0, -2)", "Vector3i=Vector3i(1, 2, 3)", "Transform2D=Transform2D(1, 0, 0, 1, 5, 6)",
		"Vector4=Vector4(1, 2, 3, 4)", "Vector4i=Vector4i(1, 2, 3, 4)", "Plane=Plane(0, 1, 0, 2)",
		"Quaternion=Quaternion(0, 0, 0, 1)", "AABB=AABB(0, 0, 0, 1, 1, 1)",
		"Basis=Basis(1, 0, 0, 0, 1, 0, 0, 0, 1)", "Transform3D=Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 7, 0, 0)",
		"Projection=Projection(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)", "Color=Color(1, 0.5, 0, 1)",
		`StringName=&"name"`, `NodePath=^"/root/Main:position"`, "RID=RID(42)", "Object=Node {0 properties}",
		"Callable=Callable()", `Signal=Signal("hit", object 9)`, `Dictionary={"k": 1}`, `Array=[1, "two"]`,
		"PackedByteArray=[01 02 03]", "PackedInt32Array=[1, -1]", "PackedInt64Array=[1099511627776]",
		"PackedFloat32Array=[0.5]", "PackedFloat64Array=[0.1]", `PackedStringArray=["a", "b"]`,
		"PackedVector2Array=[Vector2(1, 2)]", "PackedVector3Array=[Vector3(1, 2, 3)]",
		"PackedColorArray=[Color(1, 0, 0, 1)]", "PackedVector4Array=[Vector4(1, 2, 3, 4)]",
	}
	return v, want
}
