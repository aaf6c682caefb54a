package godot

import (
	"errors"
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
	dec := dm(DecodeOptions{Dialect: Godot4, Real: RealDouble})
	v, _, err := dec.Decode(unhex(t, "05000000 cdcccc3d 0000c07f"))
	want := Vector2d{X: float64(float32(0.1)), Y: float64(math.Float32frombits(0x7fc00000))}
	if got, ok := v.(Vector2d); err != nil || !ok || got.X != want.X || !math.IsNaN(got.Y) {
		t.Fatalf("%#v, %v", v, err)
	}
	b, err := em(EncodeOptions{Dialect: Godot4, DoublePrecision: true}).Append(nil, v)
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
	v, _, _ = dm(DecodeOptions{Dialect: Godot3, Real: RealDouble}).Decode(unhex(t, "05000000 0000803f 0000803f"))
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

// TestRealPackedBudget: a packed vector array converted for DecodeOptions.Real is converted while
// it is copied and charged to MaxAllocBytes at the size of the converted slice: widening needs twice
// the bytes of the wire, narrowing half.
func TestRealPackedBudget(t *testing.T) {
	const n = 1000
	single := make([]Vector3, n)
	double := make([]Vector3d, n)
	for i := range single {
		single[i] = Vector3{float32(i), 0.1, -float32(i)}
		double[i] = Vector3d{float64(i), 0.1, -float64(i)}
	}
	singleWire, err := em(EncodeOptions{Dialect: Godot4}).Marshal(single)
	if err != nil {
		t.Fatal(err)
	}
	doubleWire, err := em(EncodeOptions{Dialect: Godot4, DoublePrecision: true}).Marshal(double)
	if err != nil {
		t.Fatal(err)
	}
	// Widening 12 000 bytes of components needs 24 000 (27 000 with the size class).
	widen := dm(DecodeOptions{Dialect: Godot4, Real: RealDouble, MaxAllocBytes: 20_000})
	if _, _, err := widen.Decode(singleWire); !errors.Is(err, ErrAllocLimit) {
		t.Errorf("widening within 20 000 bytes: %v, want ErrAllocLimit", err)
	}
	widen = dm(DecodeOptions{Dialect: Godot4, Real: RealDouble, MaxAllocBytes: 28_000})
	v, _, err := widen.Decode(singleWire)
	if got, ok := v.([]Vector3d); err != nil || !ok || len(got) != n || got[7] != (Vector3d{7, float64(float32(0.1)), -7}) {
		t.Errorf("widening within 28 000 bytes: %T, %v", v, err)
	}
	// Narrowing 24 000 bytes of components needs 12 000 (13 500 with the size class).
	narrowing := dm(DecodeOptions{Dialect: Godot4, Real: RealSingle, MaxAllocBytes: 14_000})
	v, _, err = narrowing.Decode(doubleWire)
	if got, ok := v.([]Vector3); err != nil || !ok || len(got) != n || got[7] != (Vector3{7, 0.1, -7}) {
		t.Errorf("narrowing within 14 000 bytes: %T, %v", v, err)
	}
	narrowing = dm(DecodeOptions{Dialect: Godot4, Real: RealSingle, MaxAllocBytes: 11_000})
	if _, _, err := narrowing.Decode(doubleWire); !errors.Is(err, ErrAllocLimit) {
		t.Errorf("narrowing within 11 000 bytes: %v, want ErrAllocLimit", err)
	}
	// Every component count, both ways, against converting the lossless decode.
	for _, vals := range []any{[]Vector2d{{1.5, -2}}, []Vector3d{{1, 2, 3}, {4, 5, 6}}, []Vector4d{{0.1, 0.2, 0.3, math.Inf(-1)}}} {
		b, err := em(EncodeOptions{Dialect: Godot4, DoublePrecision: true}).Marshal(vals)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := dm(DecodeOptions{Dialect: Godot4, Real: RealSingle}).Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := dm(DecodeOptions{Dialect: Godot4, Real: RealDouble}).Decode(mustMarshal(t, Godot4, got))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(back) != fmt.Sprint(widenAll(vals)) {
			t.Errorf("%v: narrowed %v, widened back %v", vals, got, back)
		}
	}
}

// widenAll rounds each component of a double-precision vector slice to float32 and back.
func widenAll(v any) any {
	r := func(f float64) float64 { return float64(float32(f)) }
	switch v := v.(type) {
	case []Vector2d:
		out := make([]Vector2d, len(v))
		for i, e := range v {
			out[i] = Vector2d{r(e.X), r(e.Y)}
		}
		return out
	case []Vector3d:
		out := make([]Vector3d, len(v))
		for i, e := range v {
			out[i] = Vector3d{r(e.X), r(e.Y), r(e.Z)}
		}
		return out
	case []Vector4d:
		out := make([]Vector4d, len(v))
		for i, e := range v {
			out[i] = Vector4d{r(e.X), r(e.Y), r(e.Z), r(e.W)}
		}
		return out
	}
	return v
}
