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
		godot.Vector2{1, -2}, godot.Vector2{nan32, float32(math.Copysign(0, -1))}, godot.Vector2i{1, -1},
		godot.Rect2{godot.Vector2{1, 2}, godot.Vector2{3, 4}}, godot.Rect2i{godot.Vector2i{1, 2}, godot.Vector2i{3, 4}},
		godot.Vector3{1, 2, 3}, godot.Vector3i{4, 5, 6},
		godot.Transform2D{godot.Vector2{1, 2}, godot.Vector2{3, 4}, godot.Vector2{5, 6}},
		godot.Vector4{1, 2, 3, 4}, godot.Vector4i{1, 2, 3, 4}, godot.Plane{godot.Vector3{0, 1, 0}, 5},
		godot.Quaternion{0, 0, 0, 1}, godot.AABB{godot.Vector3{1, 2, 3}, godot.Vector3{4, 5, 6}},
		godot.Basis{godot.Vector3{1, 2, 3}, godot.Vector3{4, 5, 6}, godot.Vector3{7, 8, 9}},
		godot.Transform3D{godot.Basis{godot.Vector3{1, 0, 0}, godot.Vector3{0, 1, 0}, godot.Vector3{0, 0, 1}}, godot.Vector3{7, 8, 9}},
		godot.Projection{godot.Vector4{1, 2, 3, 4}, godot.Vector4{5, 6, 7, 8}, godot.Vector4{9, 10, 11, 12}, godot.Vector4{13, 14, 15, 16}},
		godot.Color{1, 0.5, 0.25, 1},
		godot.Vector2d{0.1, 0.2}, godot.Vector3d{0.1, 0.2, 0.3}, godot.Vector4d{1, 2, 3, math.Pi},
		godot.Rect2d{godot.Vector2d{1, 2}, godot.Vector2d{3, 4}}, godot.Transform2Dd{godot.Vector2d{1, 2}, godot.Vector2d{3, 4}, godot.Vector2d{5, 6}},
		godot.Planed{godot.Vector3d{0, 1, 0}, 0.1}, godot.Quaterniond{0.1, 0, 0, 1}, godot.AABBd{godot.Vector3d{1, 2, 3}, godot.Vector3d{4, 5, 6}},
		godot.Basisd{godot.Vector3d{1, 2, 3}, godot.Vector3d{4, 5, 6}, godot.Vector3d{7, 8, 9.1}},
		godot.Transform3Dd{godot.Basisd{godot.Vector3d{1, 0, 0}, godot.Vector3d{0, 1, 0}, godot.Vector3d{0, 0, 1}}, godot.Vector3d{7, 8, 9.5}},
		godot.Projectiond{godot.Vector4d{1, 2, 3, 4}, godot.Vector4d{5, 6, 7, 8}, godot.Vector4d{9, 10, 11, 12}, godot.Vector4d{13, 14, 15, 0.1}},
		godot.NodePath{Names: []string{"a", "b/c"}, SubNames: []string{"x:y"}, Absolute: true}, godot.NodePath{},
		godot.RID(13), godot.ObjectID(99), godot.Callable{}, godot.Signal{Name: "s", Object: 5},
		&godot.Object{Class: "Node", Properties: []godot.Property{{"name", "n"}, {"script", nil}}},
		godot.NewDictionary("a", int64(1), int64(2), []any{"x"}),
		&godot.Dictionary{Key: godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: godot.TypeString},
			Value: godot.ContainerType{Kind: godot.ContainerClassName, Builtin: godot.TypeObject, Name: "Node"}, Entries: []godot.Entry{}},
		[]any{}, []any{int64(1), []any{"nested"}},
		&godot.TypedArray{Elem: godot.ContainerType{Kind: godot.ContainerScript, Builtin: godot.TypeObject, Name: "res://a.gd"}, Values: []any{}},
		[]byte{}, []byte{0, 1, 255}, []int32{1, -1}, []int64{math.MinInt64}, []float32{0.1, nan32}, []float64{0.1, math.Inf(-1)},
		[]string{"", "a", "\xff"}, []godot.Vector2{{1, 2}}, []godot.Vector3{{1, 2, 3}}, []godot.Vector4{{1, 2, 3, 4}},
		[]godot.Color{{1, 0, 0, 1}}, []godot.Vector2d{{0.1, 0.2}}, []godot.Vector3d{{0.1, 0.2, 0.3}}, []godot.Vector4d{{1, 2, 3, 0.4}},
	}
}

// TestRoundTrip checks that JSON → value gives back the value's exact bytes, in both indent styles.
func TestRoundTrip(t *testing.T) {
	enc := godot.EncOptions{Dialect: godot.Godot4}
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
	b, err := godot.EncOptions{Dialect: godot.Godot4}.Marshal(v)
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
	js, err := Marshal(godot.NewDictionary("pos", godot.Vector3{1, 2, 3}), godot.Godot3, "  ")
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
