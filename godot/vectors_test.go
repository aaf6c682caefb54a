package godot

import (
	"bytes"
	"encoding/hex"
	"math"
	"reflect"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "\n", "", "\t", "").Replace(s))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// vector is a value and its exact encoding. The encodings come from Godot's own unit tests
// (tests/core/io/test_marshalls.h), from engine output reported in Godot issues, and from the
// real engines themselves (the differential tests in engine3_test.go and engine4_test.go).
type vector struct {
	name  string
	d     Dialect
	value any
	hex   string
}

var vectors = []vector{
	// Godot's unit tests (T4), identical in 3.x and 4.x for these ids.
	{"nil", Godot4, nil, "00000000"},
	{"int32 0x12345678", Godot4, int64(0x12345678), "02000000 78563412"},
	{"int64 flag", Godot4, int64(-1070935975390360081), "02000100 efcdab8967452 3f1"},
	{"float32 0.15625", Godot4, 0.15625, "03000000 0000203e"},
	{"float64 1/3", Godot4, 0.33333333333333333, "03000100 555555555555d53f"},
	{"typed Array[int]", Godot4, &TypedArray{Elem: ContainerType{Kind: ContainerBuiltin, Builtin: TypeInt}, Values: []any{int64(-1070935975390360081)}},
		"1c000100 02000000 01000000 02000100 efcdab8967452 3f1"},
	{"typed Dictionary[int,int]", Godot4, &Dictionary{Key: ContainerType{Kind: ContainerBuiltin, Builtin: TypeInt}, Value: ContainerType{Kind: ContainerBuiltin, Builtin: TypeInt},
		Entries: []Entry{{int64(-1070935975390360081), int64(-1070935975390360081)}}},
		"1b000500 02000000 02000000 01000000 02000100 efcdab8967452 3f1 02000100 efcdab8967452 3f1"},
	// Reported engine output.
	{"RID 13 (godot-docs#10662)", Godot4, RID(13), "17000000 0d000000 00000000"},
	{"Callable (godot-docs#12077)", Godot4, Callable{}, "19000000"},
	{"12000 (godot#4047)", Godot3, int64(12000), "02000000 e02e0000"},
	{"PoolStringArray ab (3.2.3)", Godot3, []string{"ab"}, "17000000 01000000 03000000 61620000"},
	{"NodePath Path2D/PathFollow2D/Sprite:position:x (godot#44999, zero-padded)", Godot3,
		NodePath{Names: []string{"Path2D", "PathFollow2D", "Sprite"}, SubNames: []string{"position", "x"}},
		"0f000000 03000080 02000000 00000000 06000000 50617468 32440000 0c000000 50617468 466f6c6c 6f773244 06000000 53707269 74650000 08000000 706f7369 74696f6e 01000000 78000000"},
	// Godot 3.2.3, observed (godot3-engine.md).
	{"put_var 1 payload", Godot3, int64(1), "02000000 01000000"},
	{"ab", Godot3, "ab", "04000000 02000000 61620000"},
	{"Vector2(1,2)", Godot3, Vector2{1, 2}, "05000000 0000803f 00000040"},
	{"PoolStringArray empty string", Godot3, []string{""}, "17000000 01000000 01000000 00000000"},
	{"-0.0", Godot3, math.Copysign(0, -1), "03000000 00000080"},
	{"RID (3.x loses the id)", Godot3, RID(0), "10000000"},
	{"object as id", Godot3, ObjectID(1234), "11000100 d2040000 00000000"},
	{"full Reference object", Godot3, &Object{Class: "Reference", Properties: []Property{{"script", nil}}},
		"11000000 09000000 5265666572656e6365000000 01000000 06000000 7363726970740000 00000000"},
	// Godot 4.6, observed (godot4-engine.md).
	{"Array[int]([1,2,3])", Godot4, &TypedArray{Elem: ContainerType{Kind: ContainerBuiltin, Builtin: TypeInt}, Values: []any{int64(1), int64(2), int64(3)}},
		"1c000100 02000000 03000000 02000000 01000000 02000000 02000000 02000000 03000000"},
	{"Dictionary[String,int]", Godot4, &Dictionary{Key: ContainerType{Kind: ContainerBuiltin, Builtin: TypeString}, Value: ContainerType{Kind: ContainerBuiltin, Builtin: TypeInt},
		Entries: []Entry{{"a", int64(1)}, {"b", int64(2)}}},
		"1b000500 04000000 02000000 02000000 04000000 01000000 61000000 02000000 01000000 04000000 01000000 62000000 02000000 02000000"},
	{"Basis rows", Godot4, Basis{Vector3{1, 2, 3}, Vector3{4, 5, 6}, Vector3{7, 8, 9}},
		"11000000 0000803F 00008040 0000E040 00000040 0000A040 00000041 00004040 0000C040 00001041"},
	// Derived from the source rules (godot-format.md §7.3).
	{"true", Godot3, true, "01000000 01000000"},
	{"-1", Godot3, int64(-1), "02000000 FFFFFFFF"},
	{"int32 max", Godot3, int64(2147483647), "02000000 FFFFFF7F"},
	{"int32 min", Godot3, int64(-2147483648), "02000000 00000080"},
	{"int32 max+1", Godot3, int64(2147483648), "02000100 00000080 00000000"},
	{"int32 min-1", Godot3, int64(-2147483649), "02000100 FFFFFF7F FFFFFFFF"},
	{"1.0", Godot3, 1.0, "03000000 0000803F"},
	{"0.1", Godot3, 0.1, "03000100 9A999999 9999B93F"},
	{"inf", Godot3, math.Inf(1), "03000000 0000807F"},
	{"empty string", Godot3, "", "04000000 00000000"},
	{"abc", Godot3, "abc", "04000000 03000000 61626300"},
	{"abcd", Godot3, "abcd", "04000000 04000000 61626364"},
	{"é", Godot3, "é", "04000000 02000000 C3A90000"},
	{"Vector2 double build", Godot4, Vector2d{1, 2}, "05000100 00000000 0000F03F 00000000 00000040"},
	{"Vector2i", Godot4, Vector2i{1, -1}, "06000000 01000000 FFFFFFFF"},
	{"Color 4", Godot4, Color{1, 0, 0, 1}, "14000000 0000803F 00000000 00000000 0000803F"},
	{"Color 3", Godot3, Color{1, 0, 0, 1}, "0E000000 0000803F 00000000 00000000 0000803F"},
	{"StringName", Godot4, StringName("a"), "15000000 01000000 61000000"},
	{"NodePath a/b:c 4", Godot4, NodePath{Names: []string{"a", "b"}, SubNames: []string{"c"}},
		"16000000 02000080 01000000 00000000 01000000 61000000 01000000 62000000 01000000 63000000"},
	{"NodePath /root", Godot4, NodePath{Names: []string{"root"}, Absolute: true}, "16000000 01000080 00000000 01000000 04000000 726F6F74"},
	{"NodePath a/b:c 3", Godot3, NodePath{Names: []string{"a", "b"}, SubNames: []string{"c"}},
		"0F000000 02000080 01000000 00000000 01000000 61000000 01000000 62000000 01000000 63000000"},
	{"[1, a] 4", Godot4, []any{int64(1), "a"}, "1C000000 02000000 02000000 01000000 04000000 01000000 61000000"},
	{"[1, a] 3", Godot3, []any{int64(1), "a"}, "13000000 02000000 02000000 01000000 04000000 01000000 61000000"},
	{"{a:1} 4", Godot4, NewDictionary("a", int64(1)), "1B000000 01000000 04000000 01000000 61000000 02000000 01000000"},
	{"{a:1} 3", Godot3, NewDictionary("a", int64(1)), "12000000 01000000 04000000 01000000 61000000 02000000 01000000"},
	{"Array[int]([])", Godot4, &TypedArray{Elem: ContainerType{Kind: ContainerBuiltin, Builtin: TypeInt}, Values: []any{}}, "1C000100 02000000 00000000"},
	{"Array[Node]([]) without objects", Godot4, &TypedArray{Elem: ContainerType{Kind: ContainerClassName, Builtin: TypeObject, Name: "EncodedObjectAsID"}, Values: []any{}},
		"1C000200 11000000 456E636F 6465644F 626A6563 74417349 44000000 00000000"},
	{"Array[Node]([]) with objects", Godot4, &TypedArray{Elem: ContainerType{Kind: ContainerClassName, Builtin: TypeObject, Name: "Node"}, Values: []any{}},
		"1C000200 04000000 4E6F6465 00000000"},
	{"Dictionary[String,int]({})", Godot4, &Dictionary{Key: ContainerType{Kind: ContainerBuiltin, Builtin: TypeString}, Value: ContainerType{Kind: ContainerBuiltin, Builtin: TypeInt}, Entries: []Entry{}},
		"1B000500 04000000 02000000 00000000"},
	{"PackedByteArray 4", Godot4, []byte{1, 2, 3}, "1D000000 03000000 01020300"},
	{"PoolByteArray 3", Godot3, []byte{1, 2, 3}, "14000000 03000000 01020300"},
	{"PackedInt32Array", Godot4, []int32{1, -1}, "1E000000 02000000 01000000 FFFFFFFF"},
	{"PackedInt64Array", Godot4, []int64{1}, "1F000000 01000000 01000000 00000000"},
	{"PackedFloat32Array", Godot4, []float32{1}, "20000000 01000000 0000803F"},
	{"PackedFloat64Array", Godot4, []float64{1}, "21000000 01000000 00000000 0000F03F"},
	{"PackedStringArray ab", Godot4, []string{"ab"}, "22000000 01000000 03000000 61620000"},
	{"PackedStringArray empty", Godot4, []string{""}, "22000000 01000000 01000000 00000000"},
	{"PackedStringArray abc d", Godot4, []string{"abc", "d"}, "22000000 02000000 04000000 61626300 02000000 64000000"},
	{"PackedVector2Array", Godot4, []Vector2{{1, 2}}, "23000000 01000000 0000803F 00000040"},
	{"PackedColorArray", Godot4, []Color{{0, 0, 0, 1}}, "25000000 01000000 00000000 00000000 00000000 0000803F"},
	{"PackedVector4Array", Godot4, []Vector4{{1, 2, 3, 4}}, "26000000 01000000 0000803F 00000040 00004040 00008040"},
	{"Transform2D identity 4", Godot4, Transform2D{X: Vector2{1, 0}, Y: Vector2{0, 1}}, "0B000000 0000803F 00000000 00000000 0000803F 00000000 00000000"},
	{"Transform2D identity 3", Godot3, Transform2D{X: Vector2{1, 0}, Y: Vector2{0, 1}}, "08000000 0000803F 00000000 00000000 0000803F 00000000 00000000"},
	{"Signal", Godot4, Signal{Name: "s", Object: 5}, "1A000000 01000000 73000000 05000000 00000000"},
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			want := unhex(t, v.hex)
			got, err := em(EncodeOptions{Dialect: v.d}).Marshal(v.value)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("encode %#v:\n got %x\nwant %x", v.value, got, want)
			}
			back, n, err := dm(DecodeOptions{Dialect: v.d, AllowObjects: true}).Decode(want)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if n != len(want) {
				t.Errorf("decode consumed %d of %d bytes", n, len(want))
			}
			if !valuesEqual(back, v.value) {
				t.Errorf("decode:\n got %#v\nwant %#v", back, v.value)
			}
		})
	}
}

// valuesEqual compares decoded values, treating NaN as equal to NaN with the same bits.
func valuesEqual(a, b any) bool {
	if fa, ok := a.(float64); ok {
		fb, ok := b.(float64)
		return ok && math.Float64bits(fa) == math.Float64bits(fb)
	}
	return reflect.DeepEqual(a, b)
}
