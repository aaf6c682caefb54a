package godot

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// TestStringMethods: fmt prints the container and object types in var_to_str form, not their
// Go internals.
func TestStringMethods(t *testing.T) {
	d := NewDictionary("hp", int64(100), "pos", Vector2{X: 1, Y: 2})
	obj := &Object{Class: "Node", Properties: []Property{{Name: "name", Value: "x"}, {Name: "meta", Value: d}}}
	arr := &TypedArray{Elem: ContainerType{Kind: ContainerBuiltin, Builtin: TypeInt}, Values: []any{int64(1), int64(2)}}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{d, `{"hp": 100, "pos": Vector2(1, 2)}`},
		{arr, `Array[int]([1, 2])`},
		{obj, `Object(Node,"name":"x","meta":{"hp": 100, "pos": Vector2(1, 2)})`},
		{[]any{d, arr}, `[{"hp": 100, "pos": Vector2(1, 2)} Array[int]([1, 2])]`}, // fmt's own slice syntax around
		{NodePath{Absolute: true, Names: []string{"root"}, SubNames: []string{"x"}}, `/root:x`},
		{(*Dictionary)(nil), `{}`},
		{&Dictionary{Key: ContainerType{Kind: ContainerBuiltin, Builtin: TypeString}}, `Dictionary[String, Variant]({})`},
	} {
		if got := fmt.Sprint(tc.v); got != tc.want {
			t.Errorf("fmt.Sprint(%#v) = %s, want %s", tc.v, got, tc.want)
		}
	}
	// A Dictionary that holds itself prints a bounded text.
	self := NewDictionary()
	self.Set("me", self)
	if s := self.String(); len(s) > 2000 {
		t.Errorf("self-holding Dictionary: %d bytes", len(s))
	}
}

// TestRealDouble: a double-precision build widens float32 components and writes the values back
// with the 64-bit flag.
func TestRealDouble(t *testing.T) {
	dec := DecOptions{Dialect: Godot4, Real: RealDouble}
	v, _, err := dec.Decode(unhex(t, "05000000 cdcccc3d 0000c07f"))
	want := Vector2d{X: float64(float32(0.1)), Y: float64(math.Float32frombits(0x7fc00000))}
	if got, ok := v.(Vector2d); err != nil || !ok || got.X != want.X || !math.IsNaN(got.Y) {
		t.Fatalf("%#v, %v", v, err)
	}
	b, err := EncOptions{Dialect: Godot4, DoublePrecision: true}.Append(nil, v)
	if err != nil || hexOf(b) != "05000100000000a09999b93f000000000000f87f" {
		t.Errorf("%x, %v", b, err)
	}
	v, _, err = dec.Decode(unhex(t, "24000000 01000000 0000803f 00000040 00004040"))
	if !reflect.DeepEqual(v, []Vector3d{{1, 2, 3}}) || err != nil {
		t.Errorf("packed: %#v, %v", v, err)
	}
	// Color is never real_t; Godot 3 has no 64-bit math values.
	v, _, _ = dec.Decode(unhex(t, "14000000 0000803f 0000803f 0000803f 0000803f"))
	if _, ok := v.(Color); !ok {
		t.Errorf("Color: %T", v)
	}
	v, _, _ = DecOptions{Dialect: Godot3, Real: RealDouble}.Decode(unhex(t, "05000000 0000803f 0000803f"))
	if _, ok := v.(Vector2); !ok {
		t.Errorf("Godot 3 Vector2: %T", v)
	}
	for s, want := range map[string]Real{"single": RealSingle, "double": RealDouble, "": RealLossless, "lossless": RealLossless} {
		if r, err := ParseReal(s); r != want || err != nil || (s != "" && r.String() != s) {
			t.Errorf("ParseReal(%q) = %v, %v", s, r, err)
		}
	}
	if _, err := ParseReal("half"); err == nil {
		t.Error("ParseReal(half) accepted")
	}
}
