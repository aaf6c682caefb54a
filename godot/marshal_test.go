package godot

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"strings"
	"testing"
)

// Tests of the Go → Variant mapping (Marshal). Expected bytes are written out, or, for
// Dictionaries, given as the generic value (NewDictionary …) whose encoding the engine tests
// already pin down: a Go struct or map must encode exactly as that value does.

type (
	namedInt    int16
	namedFloat  float32
	namedString string
	blob        []byte
	path        []Vector3
	names       []string
	scores      []float64
	ids         []int64
)

// wideInt is 2^40 where int has 64 bits, and 2^8 on 32-bit machines, whose int cannot hold it;
// wideIntHex is its Godot 3 encoding.
const wideInt int = 1 << (bits.UintSize - 24)

var wideIntHex = map[bool]string{true: "02000100 00000000 00010000", false: "02000000 00010000"}[bits.UintSize == 64]

func mustMarshal(t *testing.T, d Dialect, v any) []byte {
	t.Helper()
	b, err := em(EncodeOptions{Dialect: d}).Marshal(v)
	if err != nil {
		t.Fatalf("Marshal(%#v) in %s: %v", v, d, err)
	}
	return b
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

func normHex(s string) string {
	return strings.ToLower(strings.NewReplacer(" ", "", "\n", "", "\t", "").Replace(s))
}

func TestMarshalScalars(t *testing.T) {
	nan32 := float32(math.NaN())
	for _, c := range []struct {
		name string
		d    Dialect
		v    any
		hex  string
	}{
		{"true", Godot3, true, "01000000 01000000"},
		{"named bool", Godot4, struct{ B bool }{false}, "1b000000 01000000 04000000 01000000 42000000 01000000 00000000"},
		{"int8", Godot3, int8(-1), "02000000 ffffffff"},
		{"named int16", Godot3, namedInt(-2), "02000000 feffffff"},
		{"int 2^40 takes 8 bytes", Godot3, wideInt, wideIntHex},
		{"uint8", Godot4, uint8(255), "02000000 ff000000"},
		{"uint32 beyond int32", Godot4, uint32(math.MaxUint32), "02000100 ffffffff 00000000"},
		{"uintptr", Godot4, uintptr(7), "02000000 07000000"},
		{"uint64 max int64", Godot4, uint64(math.MaxInt64), "02000100 ffffffff ffffff7f"},
		{"float32 0.5", Godot3, float32(0.5), "03000000 0000003f"},
		{"named float32 1.5", Godot3, namedFloat(1.5), "03000000 0000c03f"},
		{"named float32 NaN takes 8 bytes, as Godot widens it", Godot3, namedFloat(nan32), "03000100 000000e0 ffffff7f"},
		{"float64 0.1", Godot4, 0.1, "03000100 9a999999 9999b93f"},
		{"named string", Godot3, namedString("ab"), "04000000 02000000 61620000"},
		{"StringName in Godot 3 is a String", Godot3, StringName("ab"), "04000000 02000000 61620000"},
		{"StringName in Godot 4", Godot4, StringName("ab"), "15000000 02000000 61620000"},
		{"nil pointer", Godot3, (*int)(nil), "00000000"},
		{"pointer to int", Godot3, ptr(5), "02000000 05000000"},
		{"pointer to pointer", Godot3, ptr(ptr("a")), "04000000 01000000 61000000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "named float32 NaN takes 8 bytes, as Godot widens it" {
				// float64(NaN float32) keeps the quiet NaN payload; compute the expected bytes.
				want := em(EncodeOptions{Dialect: c.d})
				got, _ := want.Marshal(float64(nan32))
				c.hex = hexOf(got)
			}
			if got := hexOf(mustMarshal(t, c.d, c.v)); got != normHex(c.hex) {
				t.Errorf("got  %s\nwant %s", got, normHex(c.hex))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestMarshalSlices(t *testing.T) {
	for _, c := range []struct {
		name string
		d    Dialect
		v    any
		hex  string
	}{
		{"named []byte is PackedByteArray", Godot3, blob{1, 2, 3}, "14000000 03000000 01020300"},
		{"named []Vector3 is PackedVector3Array", Godot3, path{{1, 2, 3}}, "19000000 01000000 0000803f 00000040 00004040"},
		{"Godot 4 PackedVector3Array", Godot4, path{{1, 2, 3}}, "24000000 01000000 0000803f 00000040 00004040"},
		{"named []string", Godot3, names{"ab"}, "17000000 01000000 03000000 61620000"},
		{"[]namedString is PackedStringArray", Godot3, []namedString{"ab"}, "17000000 01000000 03000000 61620000"},
		{"[]int32", Godot3, []int32{-1}, "15000000 01000000 ffffffff"},
		{"[]float32", Godot3, []float32{0.5}, "16000000 01000000 0000003f"},
		{"[]Color", Godot3, []Color{{1, 0, 0, 1}}, "1a000000 01000000 0000803f 00000000 00000000 0000803f"},
		{"[]Vector2", Godot4, []Vector2{{1, 2}}, "23000000 01000000 0000803f 00000040"},
		{"[]int64 in Godot 4 is PackedInt64Array", Godot4, []int64{1}, "1f000000 01000000 01000000 00000000"},
		{"[]int64 in Godot 3 is an Array", Godot3, []int64{1, 1 << 40}, "13000000 02000000 02000000 01000000 02000100 00000000 00010000"},
		{"named []int64 in Godot 3", Godot3, ids{1}, "13000000 01000000 02000000 01000000"},
		{"[]float64 in Godot 4 is PackedFloat64Array", Godot4, scores{0.5}, "21000000 01000000 00000000 0000e03f"},
		{"[]float64 in Godot 3 is an Array", Godot3, []float64{0.5, 0.1}, "13000000 02000000 03000000 0000003f 03000100 9a999999 9999b93f"},
		{"[]int is an Array", Godot3, []int{1, 2}, "13000000 02000000 02000000 01000000 02000000 02000000"},
		{"[2]int is an Array", Godot4, [2]int{1, 2}, "1c000000 02000000 02000000 01000000 02000000 02000000"},
		{"[3]byte is an Array", Godot3, [3]byte{1, 2, 3}, "13000000 03000000 02000000 01000000 02000000 02000000 02000000 03000000"},
		{"[]uint16 is an Array", Godot3, []uint16{7}, "13000000 01000000 02000000 07000000"},
		{"nil []int is an empty Array", Godot3, []int(nil), "13000000 00000000"},
		{"nil named []Vector3 is empty", Godot3, path(nil), "19000000 00000000"},
		{"[]*int with nil", Godot3, []*int{nil, ptr(3)}, "13000000 02000000 00000000 02000000 03000000"},
		{"[]any", Godot3, []any{nil, "a"}, "13000000 02000000 00000000 04000000 01000000 61000000"},
		{"[][]string", Godot3, [][]string{{"a"}}, "13000000 01000000 17000000 01000000 02000000 61000000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := hexOf(mustMarshal(t, c.d, c.v)); got != normHex(c.hex) {
				t.Errorf("got  %s\nwant %s", got, normHex(c.hex))
			}
		})
	}
}

// sameAs checks that v encodes exactly as the generic value want does.
func sameAs(t *testing.T, d Dialect, v, want any) {
	t.Helper()
	got := mustMarshal(t, d, v)
	w := mustMarshal(t, d, want)
	if hexOf(got) != hexOf(w) {
		gv, _, _ := dm(DecodeOptions{Dialect: d}).Decode(got)
		t.Errorf("%s: %#v encodes as\n  %x (%v)\nwant\n  %x (%v)", d, v, got, dump(gv), w, dump(want))
	}
}

func dump(v any) string {
	switch v := v.(type) {
	case *Dictionary:
		var parts []string
		for _, e := range v.Entries {
			parts = append(parts, fmt.Sprintf("%s: %s", dump(e.Key), dump(e.Value)))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		var parts []string
		for _, e := range v {
			parts = append(parts, dump(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%#v", v)
}

type tagged struct {
	Plain     int
	Renamed   string `godot:"name"`
	Skipped   int    `godot:"-"`
	Dash      int    `godot:"-,"`
	EmptyOK   string `godot:",omitempty"`
	Kept      string `godot:"kept,omitempty"`
	unexp     int
	Interface any
}

type omitAll struct {
	B  bool           `godot:",omitempty"`
	I  int            `godot:",omitempty"`
	U  uint8          `godot:",omitempty"`
	F  float32        `godot:",omitempty"`
	S  string         `godot:",omitempty"`
	Sl []int          `godot:",omitempty"`
	M  map[string]int `godot:",omitempty"`
	P  *int           `godot:",omitempty"`
	If any            `godot:",omitempty"`
	A0 [0]int         `godot:",omitempty"`
	V  Vector3        `godot:",omitempty"` // structs are never empty, as in encoding/json
	Z  int            // no omitempty
}

type Base struct {
	ID   int64
	Name string
}

type Extra struct {
	Level int
	Name  string // conflicts with Base.Name at the same depth: dropped
}

type withEmbedded struct {
	Base
	*Extra
	Own string
}

type shadow struct {
	Base
	Name string // shallower: hides Base.Name
}

type tagWins struct {
	A struct{ X int }
	B
}

type B struct {
	X int `godot:"X"`
}

type tagConflict struct {
	Inner1
	Inner2
}

type Inner1 struct {
	V int `godot:"v"`
}

type Inner2 struct {
	V int
}

func TestMarshalStructs(t *testing.T) {
	for _, d := range []Dialect{Godot3, Godot4} {
		sameAs(t, d, tagged{Plain: 1, Renamed: "r", Skipped: 9, Dash: 2, Kept: "k", unexp: 5, Interface: Vector2{1, 2}},
			NewDictionary("Plain", int64(1), "name", "r", "-", int64(2), "kept", "k", "Interface", Vector2{1, 2}))
		sameAs(t, d, tagged{}, NewDictionary("Plain", int64(0), "name", "", "-", int64(0), "Interface", nil))
		sameAs(t, d, omitAll{}, NewDictionary("V", Vector3{}, "Z", int64(0)))
		sameAs(t, d, omitAll{B: true, I: -1, U: 1, F: 0.5, S: "s", Sl: []int{1}, M: map[string]int{"a": 1},
			P: ptr(0), If: 0, V: Vector3{1, 0, 0}, Z: 1},
			NewDictionary("B", true, "I", int64(-1), "U", int64(1), "F", 0.5, "S", "s", "Sl", []any{int64(1)},
				"M", NewDictionary("a", int64(1)), "P", int64(0), "If", int64(0), "V", Vector3{1, 0, 0}, "Z", int64(1)))
		// Embedded structs: promoted fields in order; a name at equal depth in two embedded
		// structs is dropped; a nil embedded pointer contributes nothing.
		sameAs(t, d, withEmbedded{Base: Base{1, "b"}, Extra: &Extra{2, "e"}, Own: "o"},
			NewDictionary("ID", int64(1), "Level", int64(2), "Own", "o"))
		sameAs(t, d, withEmbedded{Base: Base{1, "b"}, Own: "o"}, NewDictionary("ID", int64(1), "Own", "o"))
		sameAs(t, d, shadow{Base: Base{1, "deep"}, Name: "top"}, NewDictionary("ID", int64(1), "Name", "top"))
		sameAs(t, d, tagWins{A: struct{ X int }{1}, B: B{2}}, NewDictionary("A", NewDictionary("X", int64(1)), "X", int64(2)))
		sameAs(t, d, tagConflict{Inner1{1}, Inner2{2}}, NewDictionary("v", int64(1), "V", int64(2)))
		// Pointers to structs, and a struct given by value or by pointer.
		sameAs(t, d, &Base{3, "p"}, NewDictionary("ID", int64(3), "Name", "p"))
		sameAs(t, d, struct{ P *Base }{}, NewDictionary("P", nil))
		sameAs(t, d, struct{ P *Base }{&Base{4, "q"}}, NewDictionary("P", NewDictionary("ID", int64(4), "Name", "q")))
	}
}

type unexportedEmbed struct {
	base
	Own int
}

type base struct {
	Promoted int
	hidden   int
}

func TestMarshalUnexportedEmbedded(t *testing.T) {
	sameAs(t, Godot3, unexportedEmbed{base{1, 2}, 3}, NewDictionary("Promoted", int64(1), "Own", int64(3)))
}

type mapKey struct {
	A int
	B string
}

func TestMarshalMaps(t *testing.T) {
	for _, d := range []Dialect{Godot3, Godot4} {
		sameAs(t, d, map[string]int{"b": 2, "a": 1, "c": 3}, NewDictionary("a", int64(1), "b", int64(2), "c", int64(3)))
		sameAs(t, d, map[int]string{10: "x", -1: "y", 2: "z"}, NewDictionary(int64(-1), "y", int64(2), "z", int64(10), "x"))
		sameAs(t, d, map[uint8]bool{200: true, 3: false}, NewDictionary(int64(3), false, int64(200), true))
		sameAs(t, d, map[bool]int{true: 1, false: 0}, NewDictionary(false, int64(0), true, int64(1)))
		sameAs(t, d, map[float64]int{2.5: 1, -1: 2}, NewDictionary(-1.0, int64(2), 2.5, int64(1)))
		sameAs(t, d, map[namedString]int{"b": 1, "a": 2}, NewDictionary("a", int64(2), "b", int64(1)))
		sameAs(t, d, map[string]int(nil), NewDictionary())
		// Keys without a natural order are sorted by their encoding, which is deterministic.
		m := map[mapKey]int{{1, "x"}: 1, {0, "y"}: 2}
		one := mustMarshal(t, d, m)
		for range 20 {
			if again := mustMarshal(t, d, m); hexOf(again) != hexOf(one) {
				t.Fatalf("map[struct] encodes differently from run to run")
			}
		}
		sameAs(t, d, m, NewDictionary(NewDictionary("A", int64(0), "B", "y"), int64(2), NewDictionary("A", int64(1), "B", "x"), int64(1)))
		sameAs(t, d, map[any]int{"s": 1, int64(5): 2}, NewDictionary(int64(5), int64(2), "s", int64(1)))
		sameAs(t, d, map[[2]int]string{{2, 1}: "b", {1, 2}: "a"}, NewDictionary([]any{int64(1), int64(2)}, "a", []any{int64(2), int64(1)}, "b"))
	}
	// Keys that are different in Go but the same Variant.
	for name, m := range map[string]any{
		"int32 and int64 1": map[any]int{int32(1): 1, int64(1): 2},
		"two NaNs":          map[float64]int{math.NaN(): 1, math.NaN(): 2},
		"equal pointees":    map[*int]int{ptr(1): 1, ptr(1): 2},
		// Different bytes, one key to the engine: Godot 4 merges a String and a StringName of
		// the same text, and NaNs of any payload.
		"String and StringName":  map[any]int{"a": 1, StringName("a"): 2},
		"NaNs of other payloads": map[float64]int{math.NaN(): 1, math.Float64frombits(0xfff8000000000001): 2},
	} {
		_, err := Marshal(m)
		var ee *EncodeError
		if !errors.Is(err, ErrUnsupported) || !errors.As(err, &ee) || !strings.HasPrefix(ee.Path, ".key(") {
			t.Errorf("%s: err = %v, want ErrUnsupported at a key", name, err)
		}
	}
	// Godot 3 has no StringName; int 1 and float 1.0 stay two keys in both dialects.
	if _, err := Marshal(map[any]int{int64(1): 1, 1.0: 2}); err != nil {
		t.Errorf("1 and 1.0: %v", err)
	}
	if _, err := Marshal(map[any]int{"a": 1, "b": 2, StringName("c"): 3}); err != nil {
		t.Errorf("distinct String and StringName keys: %v", err)
	}
}

func TestMarshalGodotTypesInStructs(t *testing.T) {
	type all struct {
		V2   Vector2
		V3   Vector3
		C    Color
		Q    Quaternion
		R    Rect2
		T2   Transform2D
		B    Basis
		NP   NodePath
		SN   StringName
		RID  RID
		Obj  ObjectID
		D    *Dictionary
		DV   Dictionary
		Arr  []any
		Full Object
	}
	v := all{V2: Vector2{1, 2}, V3: Vector3{1, 2, 3}, C: Color{1, 0, 0, 1}, Q: Quaternion{0, 0, 0, 1},
		R: Rect2{Vector2{1, 2}, Vector2{3, 4}}, T2: Transform2D{Vector2{1, 0}, Vector2{0, 1}, Vector2{5, 6}},
		B: Basis{Vector3{1, 2, 3}, Vector3{4, 5, 6}, Vector3{7, 8, 9}}, NP: ParseNodePath("/root/a:b"),
		SN: "sn", RID: 9, Obj: 77, D: NewDictionary("k", int64(1)), DV: *NewDictionary(int64(1), "v"),
		Arr: []any{int64(1)}, Full: Object{Class: "Node", Properties: []Property{{"script", nil}}}}
	for _, d := range []Dialect{Godot3, Godot4} {
		sameAs(t, d, v, NewDictionary("V2", v.V2, "V3", v.V3, "C", v.C, "Q", v.Q, "R", v.R, "T2", v.T2, "B", v.B,
			"NP", v.NP, "SN", v.SN, "RID", v.RID, "Obj", v.Obj, "D", v.D, "DV", &v.DV, "Arr", v.Arr, "Full", &v.Full))
	}
	// Godot 4 double-precision builds widen the real_t types, in structs too; Color stays float32.
	type vc struct {
		V Vector3
		C Color
	}
	got, err := em(EncodeOptions{Dialect: Godot4, DoublePrecision: true}).Marshal(vc{Vector3{1, 2, 3}, Color{1, 1, 1, 1}})
	want, _ := em(EncodeOptions{Dialect: Godot4, DoublePrecision: true}).Marshal(NewDictionary("V", Vector3{1, 2, 3}, "C", Color{1, 1, 1, 1}))
	if err != nil || hexOf(got) != hexOf(want) {
		t.Errorf("double precision: %x, %v; want %x", got, err, want)
	}
	// A Godot 4 type in the Godot 3 dialect fails, naming the field.
	_, err = em(EncodeOptions{Dialect: Godot3}).Marshal(struct {
		Inner struct{ V Vector4 }
	}{})
	var ee *EncodeError
	if !errors.Is(err, ErrUnsupported) || !errors.As(err, &ee) || ee.Path != ".Inner.V" || ee.GoType != "godot.Vector4" {
		t.Errorf("Vector4 in Godot 3: %v (%#v)", err, ee)
	}
}

type typedFields struct {
	Ints    []int64    `godot:"ints,typed"`
	Strs    []string   `godot:"strs,typed"`
	Vecs    [2]Vector3 `godot:"vecs,typed"`
	Packed  [][]int32  `godot:"packed,typed"`
	Dicts   []Base     `godot:"dicts,typed"`
	Untyped []int64    `godot:"untyped"`
}

func TestMarshalTyped(t *testing.T) {
	v := typedFields{Ints: []int64{1, 1 << 40}, Strs: []string{"a"}, Vecs: [2]Vector3{{1, 2, 3}, {4, 5, 6}},
		Packed: [][]int32{{7}}, Dicts: []Base{{1, "x"}}, Untyped: []int64{2}}
	typed := func(et Type, vals ...any) *TypedArray {
		return &TypedArray{Elem: ContainerType{Kind: ContainerBuiltin, Builtin: et}, Values: vals}
	}
	sameAs(t, Godot4, v, NewDictionary(
		"ints", typed(TypeInt, int64(1), int64(1<<40)),
		"strs", typed(TypeString, "a"),
		"vecs", typed(TypeVector3, Vector3{1, 2, 3}, Vector3{4, 5, 6}),
		"packed", typed(TypePackedInt32Array, []int32{7}),
		"dicts", typed(TypeDictionary, NewDictionary("ID", int64(1), "Name", "x")),
		"untyped", []int64{2}))
	// The exact bytes of the typed Array[int], as Godot 4 writes [1] typed: 0x1c | builtin kind
	// at bit 16, the element type, the count.
	got := mustMarshal(t, Godot4, struct {
		A []int8 `godot:"a,typed"`
	}{[]int8{1}})
	if !strings.Contains(hexOf(got), normHex("1c000100 02000000 01000000 02000000 01000000")) {
		t.Errorf("typed []int8: %x", got)
	}
	// Godot 3 has no typed Arrays: the field is a plain Array (also for []int64, which has no
	// packed form there).
	sameAs(t, Godot3, v, NewDictionary(
		"ints", []any{int64(1), int64(1 << 40)}, "strs", []any{"a"},
		"vecs", []any{Vector3{1, 2, 3}, Vector3{4, 5, 6}}, "packed", []any{[]int32{7}},
		"dicts", []any{NewDictionary("ID", int64(1), "Name", "x")}, "untyped", []any{int64(2)}))
	// Element types without a single Variant type, and non-slices, cannot be typed.
	for name, v := range map[string]any{
		"[]any": struct {
			A []any `godot:",typed"`
		}{},
		"[]*int": struct {
			A []*int `godot:",typed"`
		}{},
		"int": struct {
			A int `godot:",typed"`
		}{},
		"unknown option": struct {
			A int `godot:",typo"`
		}{},
	} {
		if _, err := Marshal(v); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrUnsupported", name, err)
		}
	}
}

type celsius float64

func (c celsius) MarshalGodot(d Dialect) (any, error) { return fmt.Sprintf("%.1f°C", float64(c)), nil }

type counter struct{ n int }

// MarshalGodot has a pointer receiver; it records the receiver it was given.
func (c *counter) MarshalGodot(d Dialect) (any, error) {
	lastCounter = c
	return []any{int64(c.n), d.String()}, nil
}

var lastCounter *counter

type failing struct{}

func (failing) MarshalGodot(Dialect) (any, error) { return nil, errors.New("boom") }

type selfish struct{}

func (s selfish) MarshalGodot(Dialect) (any, error) { return s, nil }

type toStruct struct{ V int }

func (t toStruct) MarshalGodot(Dialect) (any, error) {
	return struct {
		Wrapped int `godot:"wrapped"`
	}{t.V}, nil
}

func TestMarshaler(t *testing.T) {
	sameAs(t, Godot3, celsius(21.5), "21.5°C")
	sameAs(t, Godot3, []celsius{1, 2}, []any{"1.0°C", "2.0°C"})
	sameAs(t, Godot4, struct{ T *celsius }{}, NewDictionary("T", nil))
	sameAs(t, Godot4, map[string]celsius{"a": 3}, NewDictionary("a", "3.0°C"))
	sameAs(t, Godot4, toStruct{7}, NewDictionary("wrapped", int64(7)))
	// A pointer-receiver method is called on addressable values (slice elements) themselves...
	cs := []counter{{1}, {2}}
	sameAs(t, Godot4, cs, []any{[]any{int64(1), "Godot 4"}, []any{int64(2), "Godot 4"}})
	if lastCounter != &cs[1] {
		t.Errorf("pointer method of a slice element got %p, want the element %p", lastCounter, &cs[1])
	}
	// ...and on a copy otherwise (a value passed to Marshal, a map value).
	c := counter{5}
	sameAs(t, Godot3, c, []any{int64(5), "Godot 3"})
	if lastCounter == &c {
		t.Errorf("pointer method of a value passed by value got the caller's variable")
	}
	sameAs(t, Godot3, &c, []any{int64(5), "Godot 3"})
	sameAs(t, Godot3, struct{ C counter }{counter{6}}, NewDictionary("C", []any{int64(6), "Godot 3"}))
	sameAs(t, Godot3, (*counter)(nil), nil)
	// Errors name the field; a Marshaler that returns itself ends with ErrTooDeep.
	_, err := Marshal(struct{ F []failing }{[]failing{{}}})
	var ee *EncodeError
	if !errors.As(err, &ee) || ee.Path != ".F[0]" || !strings.Contains(err.Error(), "boom") {
		t.Errorf("failing Marshaler: %v", err)
	}
	if _, err := Marshal(selfish{}); !errors.Is(err, ErrTooDeep) {
		t.Errorf("self-returning Marshaler: %v, want ErrTooDeep", err)
	}
}

// The pointer a Marshaler keeps must stay valid: a value passed to Append may live on the
// caller's stack, so the method must have been given heap memory.
func TestMarshalerKeepsValidPointer(t *testing.T) {
	var kept []*counter
	for i := range 100 {
		c := counter{i}
		if _, err := Append(nil, c); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, lastCounter)
		growStack(50)
	}
	runtime.GC()
	for i, k := range kept {
		if k.n != i {
			t.Fatalf("kept receiver %d holds %d", i, k.n)
		}
	}
}

//go:noinline
func growStack(n int) int {
	var pad [256]byte
	if n == 0 {
		return int(pad[0])
	}
	return growStack(n-1) + int(pad[n%256])
}

func TestMarshalRawVariant(t *testing.T) {
	inner := mustMarshal(t, Godot3, []any{int64(1), "x"})
	type env struct {
		Op   string
		Body RawVariant
		Opt  RawVariant `godot:",omitempty"`
	}
	sameAs(t, Godot3, env{"op", inner, nil}, NewDictionary("Op", "op", "Body", []any{int64(1), "x"}))
	sameAs(t, Godot3, RawVariant(nil), nil)
	for name, r := range map[string]RawVariant{
		"truncated":     inner[:len(inner)-1],
		"trailing":      append(append([]byte{}, inner...), 0, 0, 0, 0),
		"Godot 4 type":  unhex(t, "26000000 00000000"),
		"unknown type":  unhex(t, "ff000000"),
		"bad utf8":      unhex(t, "04000000 01000000 ff000000"),
		"nested in Map": nil,
	} {
		if r == nil {
			continue
		}
		if _, err := em(EncodeOptions{Dialect: Godot3}).Marshal(r); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", name, err)
		}
	}
}

type node struct {
	Name string
	Next *node
}

type selfPtr *selfPtr

func TestMarshalCycles(t *testing.T) {
	n := &node{Name: "a"}
	n.Next = n
	if _, err := Marshal(n); !errors.Is(err, ErrTooDeep) {
		t.Errorf("cyclic struct: %v", err)
	}
	var x any
	x = &x
	if _, err := Marshal(x); !errors.Is(err, ErrTooDeep) {
		t.Errorf("interface pointing to itself: %v", err)
	}
	var p selfPtr
	p = &p
	if _, err := Marshal(p); !errors.Is(err, ErrTooDeep) {
		t.Errorf("pointer to itself: %v", err)
	}
	s := []any{nil}
	s[0] = s
	if _, err := Marshal(s); !errors.Is(err, ErrTooDeep) {
		t.Errorf("slice containing itself: %v", err)
	}
	m := map[string]any{}
	m["m"] = m
	if _, err := Marshal(m); !errors.Is(err, ErrTooDeep) {
		t.Errorf("map containing itself: %v", err)
	}
	// A long but finite list is fine up to the limit.
	var head *node
	for range 500 {
		head = &node{Name: "n", Next: head}
	}
	if _, err := Marshal(head); err != nil {
		t.Errorf("500-long list: %v", err)
	}
	if _, err := em(EncodeOptions{MaxDepth: 100}).Marshal(head); !errors.Is(err, ErrTooDeep) {
		t.Errorf("500-long list with MaxDepth 100: %v", err)
	}
}

func TestMarshalErrors(t *testing.T) {
	type item struct{ Big uint64 }
	type inner struct{ Items []item }
	v := struct{ Inner inner }{inner{[]item{{1}, {2}, {math.MaxUint64}}}}
	_, err := Marshal(v)
	var ee *EncodeError
	if !errors.As(err, &ee) || ee.Path != ".Inner.Items[2].Big" || ee.GoType != "uint64" || !errors.Is(err, ErrUnsupported) {
		t.Errorf("uint64 overflow: %v (%#v)", err, ee)
	}
	if want := "godot: encoding uint64 at .Inner.Items[2].Big: unsupported value: 18446744073709551615 overflows Godot's int64"; err == nil || err.Error() != want {
		t.Errorf("message %q\nwant    %q", err, want)
	}
	for name, v := range map[string]any{
		"chan":       struct{ C chan int }{},
		"func":       map[string]any{"f": func() {}},
		"complex":    []complex64{1},
		"unsafe ptr": struct{ P *[]chan int }{&[]chan int{nil}},
	} {
		_, err := Marshal(v)
		if !errors.Is(err, ErrUnsupported) || !errors.As(err, &ee) || ee.Path == "" {
			t.Errorf("%s: %v", name, err)
		}
	}
	// On error, Append returns the buffer unchanged.
	buf := []byte{1, 2, 3}
	out, err := Append(buf, struct {
		A int
		C chan int
	}{})
	if err == nil || len(out) != 3 {
		t.Errorf("Append on error: %x, %v", out, err)
	}
}

type allocStruct struct {
	ID    int64
	HP    int32
	Speed float32
	Score float64
	Name  string
	Pos   Vector3
	Tags  []string
	Guild struct {
		Level int32
		Name  string
	}
}

// Marshalling a struct into a reused buffer allocates nothing, by pointer or by value.
func TestMarshalDoesNotAllocate(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	s := allocStruct{ID: 1 << 40, HP: 3, Speed: 1.5, Score: 0.1, Name: "ada", Pos: Vector3{1, 2, 3}, Tags: []string{"a", "b"}}
	s.Guild.Name = "g"
	buf := make([]byte, 0, 4096)
	enc := em(EncodeOptions{Dialect: Godot3})
	// What a value points to must be on the heap (a Marshaler may keep it), so the slices are
	// made outside the measured functions; the values themselves may be on the stack.
	ss := []allocStruct{s, s}
	p := path{{1, 2, 3}}
	m := map[string]func(){
		"pointer": func() { buf, _ = enc.Append(buf[:0], &s) },
		"value":   func() { buf, _ = enc.Append(buf[:0], s) },
		"slice":   func() { buf, _ = enc.Append(buf[:0], ss) },
		"named":   func() { buf, _ = enc.Append(buf[:0], p) },
		"map":     func() { buf, _ = enc.Append(buf[:0], struct{ M map[string]int }{}) },
	}
	for name, f := range m {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations per Append", name, n)
		}
	}
}
