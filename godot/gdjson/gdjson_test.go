package gdjson

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot"
)

// allValues holds at least one value of every type, with the awkward float and string cases.
func allValues() []any {
	nan32 := math.Float32frombits(0x7fc00001)
	return []any{
		nil, true, false, int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		0.5, 0.1, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0xfff8000000000001),
		"", "héllo", "\xed\xa0\x80", godot.StringName("sn"),
		godot.Vector2{X: 1, Y: -2}, godot.Vector2{X: nan32, Y: float32(math.Copysign(0, -1))}, godot.Vector2i{X: 1, Y: -1},
		godot.Rect2{Position: godot.Vector2{X: 1, Y: 2}, Size: godot.Vector2{X: 3, Y: 4}}, godot.Rect2i{Position: godot.Vector2i{X: 1, Y: 2}, Size: godot.Vector2i{X: 3, Y: 4}},
		godot.Vector3{X: 1, Y: 2, Z: 3}, godot.Vector3i{X: 4, Y: 5, Z: 6},
		godot.Transform2D{X: godot.Vector2{X: 1, Y: 2}, Y: godot.Vector2{X: 3, Y: 4}, Origin: godot.Vector2{X: 5, Y: 6}},
		godot.Vector4{X: 1, Y: 2, Z: 3, W: 4}, godot.Vector4i{X: 1, Y: 2, Z: 3, W: 4}, godot.Plane{Normal: godot.Vector3{X: 0, Y: 1, Z: 0}, D: 5},
		godot.Quaternion{X: 0, Y: 0, Z: 0, W: 1}, godot.AABB{Position: godot.Vector3{X: 1, Y: 2, Z: 3}, Size: godot.Vector3{X: 4, Y: 5, Z: 6}},
		godot.Basis{X: godot.Vector3{X: 1, Y: 2, Z: 3}, Y: godot.Vector3{X: 4, Y: 5, Z: 6}, Z: godot.Vector3{X: 7, Y: 8, Z: 9}},
		godot.Transform3D{Basis: godot.Basis{X: godot.Vector3{X: 1, Y: 0, Z: 0}, Y: godot.Vector3{X: 0, Y: 1, Z: 0}, Z: godot.Vector3{X: 0, Y: 0, Z: 1}}, Origin: godot.Vector3{X: 7, Y: 8, Z: 9}},
		godot.Projection{X: godot.Vector4{X: 1, Y: 2, Z: 3, W: 4}, Y: godot.Vector4{X: 5, Y: 6, Z: 7, W: 8}, Z: godot.Vector4{X: 9, Y: 10, Z: 11, W: 12}, W: godot.Vector4{X: 13, Y: 14, Z: 15, W: 16}},
		godot.Color{R: 1, G: 0.5, B: 0.25, A: 1},
		godot.Vector2d{X: 0.1, Y: 0.2}, godot.Vector3d{X: 0.1, Y: 0.2, Z: 0.3}, godot.Vector4d{X: 1, Y: 2, Z: 3, W: math.Pi},
		godot.Rect2d{Position: godot.Vector2d{X: 1, Y: 2}, Size: godot.Vector2d{X: 3, Y: 4}}, godot.Transform2Dd{X: godot.Vector2d{X: 1, Y: 2}, Y: godot.Vector2d{X: 3, Y: 4}, Origin: godot.Vector2d{X: 5, Y: 6}},
		godot.Planed{Normal: godot.Vector3d{X: 0, Y: 1, Z: 0}, D: 0.1}, godot.Quaterniond{X: 0.1, Y: 0, Z: 0, W: 1}, godot.AABBd{Position: godot.Vector3d{X: 1, Y: 2, Z: 3}, Size: godot.Vector3d{X: 4, Y: 5, Z: 6}},
		godot.Basisd{X: godot.Vector3d{X: 1, Y: 2, Z: 3}, Y: godot.Vector3d{X: 4, Y: 5, Z: 6}, Z: godot.Vector3d{X: 7, Y: 8, Z: 9.1}},
		godot.Transform3Dd{Basis: godot.Basisd{X: godot.Vector3d{X: 1, Y: 0, Z: 0}, Y: godot.Vector3d{X: 0, Y: 1, Z: 0}, Z: godot.Vector3d{X: 0, Y: 0, Z: 1}}, Origin: godot.Vector3d{X: 7, Y: 8, Z: 9.5}},
		godot.Projectiond{X: godot.Vector4d{X: 1, Y: 2, Z: 3, W: 4}, Y: godot.Vector4d{X: 5, Y: 6, Z: 7, W: 8}, Z: godot.Vector4d{X: 9, Y: 10, Z: 11, W: 12}, W: godot.Vector4d{X: 13, Y: 14, Z: 15, W: 0.1}},
		godot.NodePath{Names: []string{"a", "b/c"}, SubNames: []string{"x:y"}, Absolute: true}, godot.NodePath{},
		godot.RID(13), godot.ObjectID(99), godot.Callable{}, godot.Signal{Name: "s", Object: 5},
		&godot.Object{Class: "Node", Properties: []godot.Property{{Name: "name", Value: "n"}, {Name: "script", Value: nil}}},
		godot.NewDictionary("a", int64(1), int64(2), []any{"x"}),
		&godot.Dictionary{Key: godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: godot.TypeString},
			Value: godot.ContainerType{Kind: godot.ContainerClassName, Builtin: godot.TypeObject, Name: "Node"}, Entries: []godot.Entry{}},
		[]any{}, []any{int64(1), []any{"nested"}},
		&godot.TypedArray{Elem: godot.ContainerType{Kind: godot.ContainerScript, Builtin: godot.TypeObject, Name: "res://a.gd"}, Values: []any{}},
		[]byte{}, []byte{0, 1, 255}, []int32{1, -1}, []int64{math.MinInt64}, []float32{0.1, nan32}, []float64{0.1, math.Inf(-1)},
		[]string{"", "a", "\xff"}, []godot.Vector2{{X: 1, Y: 2}}, []godot.Vector3{{X: 1, Y: 2, Z: 3}}, []godot.Vector4{{X: 1, Y: 2, Z: 3, W: 4}},
		[]godot.Color{{R: 1, G: 0, B: 0, A: 1}}, []godot.Vector2d{{X: 0.1, Y: 0.2}}, []godot.Vector3d{{X: 0.1, Y: 0.2, Z: 0.3}}, []godot.Vector4d{{X: 1, Y: 2, Z: 3, W: 0.4}},
	}
}

// TestRoundTrip checks that JSON → value gives back the value's exact bytes, in both indent styles.
func TestRoundTrip(t *testing.T) {
	enc := em(godot.EncodeOptions{Dialect: godot.Godot4})
	for _, v := range allValues() {
		want, err := enc.Marshal(v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		for _, indent := range []string{"", "  "} {
			js, err := Marshal(v, godot.Godot4, indent)
			if err != nil {
				t.Fatalf("%#v: %v", v, err)
			}
			back, err := Unmarshal(js)
			if err != nil {
				t.Fatalf("%s: %v", js, err)
			}
			got, err := enc.Marshal(back)
			if err != nil {
				t.Fatalf("%s: re-encode: %v", js, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s\n got %x\nwant %x", js, got, want)
			}
		}
	}
}

func TestGodot3Names(t *testing.T) {
	js, err := Marshal([]any{[]int32{1}, godot.Quaternion{W: 1}, godot.Transform3D{}}, godot.Godot3, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"PoolIntArray"`, `"Quat"`, `"Transform"`} {
		if !bytes.Contains(js, []byte(name)) {
			t.Errorf("%s lacks %s", js, name)
		}
	}
	// Godot 3 names are read in any dialect, so JSON converts between dialects.
	v, err := Unmarshal(js)
	if err != nil {
		t.Fatal(err)
	}
	b, err := em(godot.EncodeOptions{Dialect: godot.Godot4}).Marshal(v)
	if err != nil || b[0] != 0x1c {
		t.Errorf("as Godot 4: %x, %v", b, err)
	}
}

func TestErrors(t *testing.T) {
	for _, in := range []string{
		`[]`, `{}`, `{"type": "nope"}`, `{"type": "int", "value": 1.5}`, `{"type": "int", "value": 99999999999999999999}`,
		`{"type": "Vector2", "value": {"x": 1}}`, `{"type": "PackedInt32Array", "value": [4294967296]}`,
		`{"type": "Array", "value": [1]}`, `{"type": "PackedByteArray", "value": "zz"}`, `{"type":"Nil"} {}`,
		`{"type": "Object"}`, `{"type": "Array", "element": {"builtin": "nope"}, "value": []}`,
	} {
		if _, err := Unmarshal([]byte(in)); err == nil {
			t.Errorf("%s: accepted", in)
		} else if !strings.HasPrefix(err.Error(), "gdjson: ") {
			t.Errorf("%s: error %q lacks the package prefix", in, err)
		}
	}
}

func TestIndentedShape(t *testing.T) {
	js, err := Marshal(godot.NewDictionary("pos", godot.Vector3{X: 1, Y: 2, Z: 3}), godot.Godot3, "  ")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "type": "Dictionary",
  "value": [
    {
      "key": {
        "type": "String",
        "value": "pos"
      },
      "value": {
        "type": "Vector3",
        "value": {"x": 1, "y": 2, "z": 3}
      }
    }
  ]
}`
	if string(js) != want {
		t.Errorf("got\n%s\nwant\n%s", js, want)
	}
}
