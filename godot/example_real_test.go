package godot_test

import (
	"encoding/hex"
	"fmt"

	"github.com/gamewire/gamewire/godot"
)

// A Vector2 written with the 64-bit flag (by a double-precision build), x = 1e300: the default
// keeps the doubles, and RealSingle reads it as the official single-precision engine does.
func ExampleDecodeOptions_real() {
	data, _ := hex.DecodeString("050001009c7500883ce4377e9a9999999999b93f")
	v, _, _ := godot.Decode(data) // the default mode: Godot 4, RealLossless
	fmt.Printf("%T %v\n", v, v)
	single, _ := godot.DecodeOptions{Dialect: godot.Godot4, Real: godot.RealSingle}.DecodeMode()
	v, _, _ = single.Decode(data)
	fmt.Printf("%T %v\n", v, v)
	back, _ := godot.Append(nil, v)
	fmt.Printf("%x\n", back) // what the engine writes back: no flag, float32 components
	// Output:
	// godot.Vector2d {1e+300 0.1}
	// godot.Vector2 {+Inf 0.1}
	// 050000000000807fcdcccc3d
}

// VarToStr writes values as Godot's var_to_str does; Dictionary, TypedArray and Object print so
// with fmt too.
func ExampleVarToStr() {
	d := godot.NewDictionary("name", "ada", "pos", godot.Vector3{X: 1, Y: 2, Z: 3}, "tags", []string{"a"})
	fmt.Println(d)
	fmt.Println(godot.VarToStr([]any{int64(1), 2.0, godot.StringName("n"), godot.NodePath{Names: []string{"a"}}}))
	// Output:
	// {"name": "ada", "pos": Vector3(1, 2, 3), "tags": PackedStringArray("a")}
	// [1, 2.0, &"n", NodePath("a")]
}
