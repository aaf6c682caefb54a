package godot

import (
	"bytes"
	"encoding/hex"
	"math"
	"testing"
)

// The engine behaviours below were found by the differential tests (engine3_test.go,
// engine4_test.go): every expected byte string here is what the real engine (Godot 3.2.3 or 4.6)
// wrote. These tests check them without the engines.

// roundTrip decodes in with o and re-encodes the result in the same dialect.
func roundTrip(t *testing.T, o DecodeOptions, in string) (any, string) {
	t.Helper()
	v, _, err := dm(o).Decode(unhex(t, in))
	if err != nil {
		t.Fatalf("decode %s: %v", in, err)
	}
	b, err := em(EncodeOptions{Dialect: o.Dialect}).Marshal(v)
	if err != nil {
		t.Fatalf("re-encode %#v: %v", v, err)
	}
	return v, hex.EncodeToString(b)
}

func normHexString(t *testing.T, s string) string { return hex.EncodeToString(unhex(t, s)) }

// deletedPair is the pair Godot 3 writes for a key it cannot look up: "[Deleted Object]": null.
const deletedPair = "04000000 10000000 5b44656c 65746564 204f626a 6563745d 00000000"

func TestEngineRoundTrips(t *testing.T) {
	g3 := DecodeOptions{Dialect: Godot3}
	g4 := DecodeOptions{Dialect: Godot4}
	g4o := DecodeOptions{Dialect: Godot4, AllowObjects: true}
	elem := "0d000000 7265733a 2f2f656c 656d2e67 64000000" // "res://elem.gd"
	node := "04000000 4e6f6465"                            // "Node"
	asID := "11000000 456e636f 6465644f 626a6563 74417349 44000000"
	tests := []struct {
		name string
		o    DecodeOptions
		in   string
		want string
	}{
		// Godot 3: a PoolRealArray key equals another only with the same bits and no NaN; one
		// with a NaN is not even equal to itself, and comes back as "[Deleted Object]": null.
		{"PoolRealArray keys +0 and -0 stay apart", g3,
			"12000000 02000000 16000000 02000000 00000000 0000803f 02000000 01000000 16000000 02000000 00000080 0000803f 02000000 02000000",
			"12000000 02000000 16000000 02000000 00000000 0000803f 02000000 01000000 16000000 02000000 00000080 0000803f 02000000 02000000"},
		{"PoolRealArray keys with the same bits merge", g3,
			"12000000 02000000 16000000 01000000 0000803f 02000000 01000000 16000000 01000000 0000803f 02000000 02000000",
			"12000000 01000000 16000000 01000000 0000803f 02000000 02000000"},
		{"PoolRealArray keys holding NaN", g3,
			"12000000 02000000 16000000 02000000 0000c07f 0000803f 02000000 01000000 16000000 02000000 0000c07f 0000803f 02000000 02000000",
			"12000000 02000000" + deletedPair + deletedPair},
		{"an Array key holding a PoolRealArray with NaN", g3,
			"12000000 01000000 13000000 01000000 16000000 01000000 0000c07f 02000000 01000000",
			"12000000 01000000" + deletedPair},
		{"float keys +0 and -0 merge", g3,
			"12000000 02000000 03000000 00000000 02000000 01000000 03000000 00000080 02000000 02000000",
			"12000000 01000000 03000000 00000000 02000000 02000000"},
		// NodePath counts add up in uint32.
		{"NodePath subname count wraps the total to 1 (3)", g3,
			"0f000000 02000080 ffffffff 00000000 02000000 684c0000", "0f000000 01000080 00000000 00000000 02000000 684c0000"},
		{"NodePath subname count wraps the total to 0 (3)", g3, "0f000000 02000080 feffffff 01000000", "0f000000 00000080 00000000 00000000"},
		{"NodePath subname count wraps the total to 1 (4)", g4,
			"16000000 02000080 ffffffff 00000000 02000000 684c0000", "16000000 01000080 00000000 00000000 02000000 684c0000"},
		// An absolute path without names: Godot 3 drops the flag, Godot 4.6 keeps it.
		{"NodePath(\"/\") (3)", g3, "0f000000 00000080 00000000 01000000", "0f000000 00000080 00000000 00000000"},
		{"NodePath(\"/\") (4)", g4, "16000000 00000080 00000000 01000000", "16000000 00000080 00000000 01000000"},
		{"absolute NodePath with only a subname (3)", g3,
			"0f000000 00000080 01000000 01000000 01000000 78000000", "0f000000 00000080 01000000 01000000 01000000 78000000"},
		// Godot 4: a String and a StringName of the same text are one key; the first keeps its
		// type, the last value wins. Inside an Array key they differ; as keys of a Dictionary key
		// they are one again.
		{"String then StringName key", g4,
			"1b000000 02000000 04000000 01000000 61000000 02000000 01000000 15000000 01000000 61000000 02000000 02000000",
			"1b000000 01000000 04000000 01000000 61000000 02000000 02000000"},
		{"StringName then String key", g4,
			"1b000000 02000000 15000000 01000000 61000000 02000000 01000000 04000000 01000000 61000000 02000000 02000000",
			"1b000000 01000000 15000000 01000000 61000000 02000000 02000000"},
		{"keys [\"a\"] and [&\"a\"] differ", g4,
			"1b000000 02000000 1c000000 01000000 04000000 01000000 61000000 02000000 01000000 1c000000 01000000 15000000 01000000 61000000 02000000 02000000",
			"1b000000 02000000 1c000000 01000000 04000000 01000000 61000000 02000000 01000000 1c000000 01000000 15000000 01000000 61000000 02000000 02000000"},
		{"keys {\"a\": 1} and {&\"a\": 1} merge", g4,
			"1b000000 02000000 1b000000 01000000 04000000 01000000 61000000 02000000 01000000 02000000 01000000 1b000000 01000000 15000000 01000000 61000000 02000000 01000000 02000000 02000000",
			"1b000000 01000000 1b000000 01000000 04000000 01000000 61000000 02000000 01000000 02000000 02000000"},
		{"NodePath keys \"\" and \"/\" differ", g4,
			"1b000000 02000000 16000000 00000080 00000000 00000000 02000000 01000000 16000000 00000080 00000000 01000000 02000000 02000000",
			"1b000000 02000000 16000000 00000080 00000000 00000000 02000000 01000000 16000000 00000080 00000000 01000000 02000000 02000000"},
		// Typed containers check what they are given.
		{"Array[int] drops a String and null, converts 1.5", g4,
			"1c000100 02000000 03000000 04000000 01000000 61000000 00000000 03000000 0000c03f",
			"1c000100 02000000 01000000 02000000 01000000"},
		{"Array[float] converts an int", g4, "1c000100 03000000 01000000 02000000 05000000", "1c000100 03000000 01000000 03000000 0000a040"},
		{"Array[StringName] converts a String", g4,
			"1c000100 15000000 01000000 04000000 01000000 61000000", "1c000100 15000000 01000000 15000000 01000000 61000000"},
		{"Dictionary[int, int] drops a String key, keeps a String value", g4,
			"1b000500 02000000 02000000 02000000 04000000 01000000 61000000 02000000 01000000 02000000 01000000 04000000 01000000 61000000",
			"1b000500 02000000 02000000 01000000 02000000 01000000 04000000 01000000 61000000"},
		{"Dictionary[float, int] merges the keys 1 and 1.0", g4,
			"1b000500 03000000 02000000 02000000 02000000 01000000 02000000 01000000 03000000 0000803f 02000000 02000000",
			"1b000500 03000000 02000000 01000000 03000000 0000803f 02000000 02000000"},
		// Without objects, every object type is EncodedObjectAsID.
		{"Array[Node] without objects", g4, "1c000200" + node + "00000000", "1c000200" + asID + "00000000"},
		{"Array of builtin Object without objects", g4, "1c000100 18000000 00000000", "1c000200" + asID + "00000000"},
		{"Array[elem.gd] without objects", g4, "1c000300" + elem + "00000000", "1c000200" + asID + "00000000"},
		{"Dictionary[Node, Node] without objects", g4, "1b000a00" + node + node + "00000000", "1b000a00" + asID + asID + "00000000"},
		{"Array of builtin Object with objects", g4o, "1c000100 18000000 00000000", "1c000100 18000000 00000000"},
		// Dictionary::set_typed gives the values the key's script.
		{"Dictionary[elem.gd, int] is untyped", g4o, "1b000700" + elem + "02000000 00000000", "1b000000 00000000"},
		{"Dictionary[elem.gd, Node] has elem.gd values", g4o, "1b000b00" + elem + node + "00000000", "1b000f00" + elem + elem + "00000000"},
		{"Array[Node] drops an int and a RefCounted", g4o,
			"1c000200" + node + "02000000 02000000 05000000 18000000 0a000000 52656643 6f756e74 65640000 01000000 06000000 73637269 70740000 00000000",
			"1c000200" + node + "00000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := roundTrip(t, tt.o, tt.in)
			if want := normHexString(t, tt.want); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestEngineRejects(t *testing.T) {
	g3 := DecodeOptions{Dialect: Godot3}
	g4 := DecodeOptions{Dialect: Godot4}
	g4o := DecodeOptions{Dialect: Godot4, AllowObjects: true}
	script := func(hex string) string {
		return "18000000 0a000000 52656643 6f756e74 65640000 01000000 06000000 73637269 70740000" + hex
	}
	tests := []struct {
		name   string
		o      DecodeOptions
		hex    string
		want   error
		offset int
	}{
		// The engine does not check a count against the input: it fails at the first bad element.
		{"Array count past the end, a full object first (3)", g3, "13000000 57000000 11000000 01000000", ErrObjectsNotAllowed, 12},
		{"Dictionary count past the end, a full object first (3)", g3, "12000000 57000000 11000000 01000000", ErrObjectsNotAllowed, 12},
		{"Array count past the end, a full object first (4)", g4, "1c000000 57000000 18000000 01000000", ErrObjectsNotAllowed, 12},
		{"Array count past the end", g4, "1c000000 57000000 00000000", ErrTruncated, 12},
		// With objects, a script must be a res:// path.
		{"Array of script user://x.gd", g4o, "1c000300 0b000000 75736572 3a2f2f78 2e676400 00000000", ErrContainerType, 8},
		{"Array of script \"\"", g4o, "1c000300 00000000 00000000", ErrContainerType, 8},
		{"Dictionary[int, user://x.gd]", g4o, "1b000d00 02000000 0b000000 75736572 3a2f2f78 2e676400 00000000", ErrContainerType, 12},
		{"script property 5", g4o, script("02000000 05000000"), ErrScriptProperty, 36},
		{"script property user://x.gd", g4o, script("04000000 0b000000 75736572 3a2f2f78 2e676400"), ErrScriptProperty, 36},
		{"script property \"\"", g4o, script("04000000 00000000"), ErrScriptProperty, 36},
		{"script property StringName", g4o, script("15000000 0d000000 7265733a 2f2f656c 656d2e67 64000000"), ErrScriptProperty, 36},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decodeErr(t, tt.o, unhex(t, tt.hex), tt.want, tt.offset)
		})
	}
	// Without objects, a script type is not looked at, and with them a res:// one is accepted.
	for _, o := range []DecodeOptions{g4, g4o} {
		if _, _, err := dm(o).Decode(unhex(t, "1c000300 0d000000 7265733a 2f2f656c 656d2e67 64000000 00000000")); err != nil {
			t.Errorf("AllowObjects %v: Array[elem.gd]: %v", o.AllowObjects, err)
		}
	}
	if _, _, err := dm(g4).Decode(unhex(t, "1c000300 0b000000 75736572 3a2f2f78 2e676400 00000000")); err != nil {
		t.Errorf("Array of script user://x.gd without objects: %v", err)
	}
	v, _, err := dm(g4o).Decode(unhex(t, script("04000000 0d000000 7265733a 2f2f656c 656d2e67 64000000")))
	if o, ok := v.(*Object); err != nil || !ok || o.Properties[0].Value != "res://elem.gd" {
		t.Errorf("script property res://elem.gd: %#v, %v", v, err)
	}
	// Godot 3 sends a script as a full object: no such check.
	if _, _, err := dm(DecodeOptions{Dialect: Godot3, AllowObjects: true}).Decode(unhex(t,
		"11000000 09000000 5265666572656e6365000000 01000000 06000000 73637269 70740000 02000000 05000000")); err != nil {
		t.Errorf("Godot 3 script property 5: %v", err)
	}
}

func TestEncoderEngineForms(t *testing.T) {
	tests := []struct {
		name string
		d    Dialect
		v    any
		want string
	}{
		// Both engines write the absolute flag of NodePath("/").
		{"NodePath(\"/\") (3)", Godot3, NodePath{Absolute: true}, "0f000000 00000080 00000000 01000000"},
		{"NodePath(\"/\") (4)", Godot4, NodePath{Absolute: true}, "16000000 00000080 00000000 01000000"},
		// Godot 3.2.3 cannot look up a key that is not equal to itself.
		{"PoolRealArray key with NaN (3)", Godot3, NewDictionary([]float32{float32(math.NaN())}, int64(1)), "12000000 01000000" + deletedPair},
		{"PoolRealArray key with NaN (4)", Godot4, NewDictionary([]float32{math.Float32frombits(0x7fc00000)}, int64(1)),
			"1b000000 01000000 20000000 01000000 0000c07f 02000000 01000000"},
		// Godot 4's String::utf8 writes U+FFFD for NUL and surrogates (corpus string/nul-inside,
		// string/lone-surrogate, pstr/nul-inside); a Go string that is not UTF-8 gets the same.
		{"NUL in a String (4)", Godot4, "a\x00b", "04000000 05000000 61efbfbd 62000000"},
		{"surrogate in a String (4)", Godot4, "\xed\xa0\x80x", "04000000 04000000 efbfbd78"},
		{"invalid bytes in a String (4)", Godot4, "\xffa\xc3", "04000000 07000000 efbfbd61 efbfbd00"},
		{"NUL in a PackedStringArray (4)", Godot4, []string{"a\x00b"}, "22000000 01000000 06000000 61efbfbd 62000000"},
		{"NUL in a StringName (4)", Godot4, StringName("\x00"), "15000000 03000000 efbfbd00"},
		{"surrogate in a String (3)", Godot3, "\xed\xa0\x80", "04000000 03000000 eda08000"},
		// A leading U+FEFF is written, as the engine writes it; both decoders drop it, so it
		// does not survive a round trip in the engine either (by design: matching the engine).
		{"leading U+FEFF (4)", Godot4, "\ufeffx", "04000000 04000000 efbbbf78"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := em(EncodeOptions{Dialect: tt.d}).Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if want := unhex(t, tt.want); !bytes.Equal(b, want) {
				t.Errorf("got  %x\nwant %x", b, want)
			}
		})
	}
	for _, d := range []Dialect{Godot3, Godot4} {
		if v, _, err := dm(DecodeOptions{Dialect: d}).Decode(unhex(t, "04000000 04000000 efbbbf78")); err != nil || v != "x" {
			t.Errorf("%v: a leading BOM decodes as %q, %v", d, v, err)
		}
	}
}

func TestDialectKeyEqual(t *testing.T) {
	nan := float32(math.NaN())
	d1, d2 := NewDictionary("a", int64(1)), NewDictionary(StringName("a"), int64(1))
	tests := []struct {
		name   string
		a, b   any
		g3, g4 bool
	}{
		{"String and StringName", "a", StringName("a"), true, true},
		{"Arrays of String and StringName", []any{"a"}, []any{StringName("a")}, true, false},
		{"Dictionaries with String and StringName keys", d1, d2, false, true},
		{"the same Dictionary", d1, d1, true, true},
		{"Dictionaries with String and StringName values", NewDictionary(int64(1), "a"), NewDictionary(int64(1), StringName("a")), false, false},
		{"PoolRealArray +0 and -0", []float32{0}, []float32{float32(math.Copysign(0, -1))}, false, true},
		{"PoolRealArray NaN", []float32{nan}, []float32{nan}, false, true},
		{"PoolRealArray equal", []float32{1.5}, []float32{1.5}, true, true},
		{"Arrays of PoolRealArray NaN", []any{[]float32{nan}}, []any{[]float32{nan}}, false, true},
		{"float NaN", math.NaN(), math.NaN(), true, true},
		{"PoolVector2Array NaN", []Vector2{{nan, 0}}, []Vector2{{nan, 0}}, true, true},
		{"int and float", int64(1), 1.0, false, false},
		{"object ids", ObjectID(5), ObjectID(5), true, true},
		{"NodePaths \"\" and \"/\"", NodePath{}, NodePath{Absolute: true}, false, false},
		{"typed and untyped Arrays", &TypedArray{Elem: ContainerType{Kind: ContainerBuiltin, Builtin: TypeInt}, Values: []any{int64(1)}}, []any{int64(1)}, true, true},
	}
	for _, tt := range tests {
		if got := Godot3.KeyEqual(tt.a, tt.b); got != tt.g3 {
			t.Errorf("Godot3.KeyEqual(%s) = %v", tt.name, got)
		}
		if got := Godot4.KeyEqual(tt.a, tt.b); got != tt.g4 {
			t.Errorf("Godot4.KeyEqual(%s) = %v", tt.name, got)
		}
		if got := KeyEqual(tt.a, tt.b); got != tt.g4 {
			t.Errorf("KeyEqual(%s) = %v", tt.name, got)
		}
	}
	// Dictionary.Set follows Godot 4: the first key keeps its type, the value is replaced.
	d := NewDictionary("a", int64(1), StringName("a"), int64(2))
	if len(d.Entries) != 1 || d.Entries[0].Key != "a" || d.Entries[0].Value != int64(2) {
		t.Errorf("NewDictionary(\"a\", 1, &\"a\", 2) = %#v", d.Entries)
	}
	// Decoded object ids are new objects each, which the engine compares by identity.
	for _, dl := range []Dialect{Godot3, Godot4} {
		id, _ := dl.WireID(TypeObject)
		dict, _ := dl.WireID(TypeDictionary)
		in := []byte{byte(dict), 0, 0, 0, 2, 0, 0, 0}
		for i := range 2 {
			in = append(in, byte(id), 0, 1, 0, 5, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, byte(i), 0, 0, 0)
		}
		v, _, err := dm(DecodeOptions{Dialect: dl}).Decode(in)
		if err != nil || v.(*Dictionary).Len() != 2 {
			t.Errorf("%v: two object-id keys 5: %#v, %v", dl, v, err)
		}
	}
}

func TestParseNodePathEngineRules(t *testing.T) {
	tests := []struct {
		in   string
		want NodePath
	}{
		{"", NodePath{}},
		{"/", NodePath{Absolute: true}},
		{"//", NodePath{Absolute: true}},
		{"a//b", NodePath{Names: []string{"a", "b"}}},
		{"/a//b/", NodePath{Names: []string{"a", "b"}, Absolute: true}},
		{"a:", NodePath{Names: []string{"a"}}},
		{":", NodePath{}},
		{"a:b:c", NodePath{Names: []string{"a"}, SubNames: []string{"b", "c"}}},
		{"a:b:", NodePath{Names: []string{"a"}, SubNames: []string{"b"}}},
		{"::x", NodePath{}},
		{"a:b::c", NodePath{}},
		{"x/./y", NodePath{Names: []string{"x", ".", "y"}}},
		{"%u/x", NodePath{Names: []string{"%u", "x"}}},
	}
	for _, tt := range tests {
		if got := ParseNodePath(tt.in); !valuesEqual(got, tt.want) {
			t.Errorf("ParseNodePath(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

// typedConversions are elements of other types in typed Arrays, as Godot 4.6 converts them (or
// drops them: want ""); the expected bytes are the engine's.
var typedConversions = []struct {
	name  string
	elem  Type
	value any
	want  string // the element's encoding after the conversion; "" if the engine drops it
}{
	{"int 2 to bool", TypeBool, int64(2), "01000000 01000000"},
	{"NaN to bool", TypeBool, math.NaN(), "01000000 01000000"},
	{"-0.0 to bool", TypeBool, math.Copysign(0, -1), "01000000 00000000"},
	{"1e300 to int", TypeInt, 1e300, "02000100 ffffffff ffffff7f"},
	{"-inf to int", TypeInt, math.Inf(-1), "02000100 00000000 00000080"},
	{"NaN to int", TypeInt, math.NaN(), "02000000 00000000"},
	{"-2.5 to int", TypeInt, -2.5, "02000000 feffffff"},
	{"4294967296.5 to int", TypeInt, 4294967296.5, "02000100 00000000 01000000"},
	{"true to int", TypeInt, true, "02000000 01000000"},
	{"2^53+1 to float", TypeFloat, int64(1<<53 + 1), "03000000 0000005a"},
	{"16777217 to float", TypeFloat, int64(16777217), "03000100 00000010 00007041"},
	{"a String to int", TypeInt, "12", ""},
	{"null to int", TypeInt, nil, ""},
	{"an int to String", TypeString, int64(1), ""},
	{"a NodePath to String", TypeString, ParseNodePath("/a/b:c:d"), "04000000 08000000 2f612f62 3a633a64"},
	{"a String to NodePath", TypeNodePath, "/a//b:c:", "16000000 02000080 01000000 01000000 01000000 61000000 01000000 62000000 01000000 63000000"},
	{"an invalid String to NodePath", TypeNodePath, "a::b", "16000000 00000080 00000000 00000000"},
	{"a StringName to NodePath", TypeNodePath, StringName("a"), ""},
	{"a Vector2 to Vector2i", TypeVector2i, Vector2{1.5, -2.5}, "06000000 01000000 feffffff"},
	{"NaN and inf to Vector2i", TypeVector2i, Vector2{float32(math.NaN()), float32(math.Inf(-1))}, "06000000 00000000 00000080"},
	{"a Vector2i to Vector2", TypeVector2, Vector2i{16777217, -1}, "05000000 0000804b 000080bf"},
	{"a Rect2 to Rect2i", TypeRect2i, Rect2{Vector2{1.9, -1.9}, Vector2{3e9, -3e9}}, "08000000 01000000 ffffffff ffffff7f 00000080"},
	{"a Vector3 to Vector2", TypeVector2, Vector3{1, 2, 3}, ""},
	{"a Transform3D to Transform2D", TypeTransform2D, Transform3D{Basis{Vector3{1, 2, 3}, Vector3{4, 5, 6}, Vector3{7, 8, 9}}, Vector3{10, 11, 12}},
		"0b000000 0000803f 00000040 00008040 0000a040 00002041 00003041"},
	{"a Transform2D to Transform3D", TypeTransform3D, Transform2D{Vector2{1, 2}, Vector2{3, 4}, Vector2{5, 6}},
		"12000000 0000803f 00004040 00000000 00000040 00008040 00000000 00000000 00000000 0000803f 0000a040 0000c040 00000000"},
	{"a Projection to Transform3D", TypeTransform3D, Projection{Vector4{1, 2, 3, 4}, Vector4{5, 6, 7, 8}, Vector4{9, 10, 11, 12}, Vector4{13, 14, 15, 16}},
		"12000000 0000803f 0000a040 00001041 00000040 0000c040 00002041 00004040 0000e040 00003041 00005041 00006041 00007041"},
	{"a Transform3D to Projection", TypeProjection, Transform3D{Basis{Vector3{1, 2, 3}, Vector3{4, 5, 6}, Vector3{7, 8, 9}}, Vector3{10, 11, 12}},
		"13000000 0000803f 00000040 00004040 00000000 00008040 0000a040 0000c040 00000000 0000e040 00000041 00001041 00000000 00002041 00003041 00004041 0000803f"},
	{"a Quaternion to Basis", TypeBasis, Quaternion{0.1, 0.2, 0.3, 0.9},
		"11000000 d4ef393f a2bc06bf a05be23e 744b1c3f f21a4a3f ec5881bd 28afa1be 29afa13e 790d653f"},
	{"Quaternion(1, 2, 3, 4) to Transform3D", TypeTransform3D, Quaternion{1, 2, 3, 4},
		"12000000 8888083e acaa2abf bcbb3b3f f0ee6e3f aaaaaa3e 8a88083e abaaaabe acaa2a3f aaaa2a3f 00000000 00000000 00000000"},
	{"a Basis to Quaternion", TypeQuaternion, Basis{Vector3{1, 2, 3}, Vector3{4, 5, 6}, Vector3{7, 8, 9}}, "0f000000 000080be 0000003f 000080be 00000040"},
	{"a rotation to Quaternion", TypeQuaternion, Basis{Vector3{0.36, 0.48, -0.8}, Vector3{-0.8, 0.6, 0}, Vector3{0.48, 0.64, 0.6}},
		"0f000000 cccc4cbe cccccc3e cccccc3e cdcc4c3f"},
	{"a half turn to Quaternion", TypeQuaternion, Basis{Vector3{-1, 0, 0}, Vector3{0, 1, 0}, Vector3{0, 0, -1}}, "0f000000 00000000 0000803f 00000000 00000000"},
	{"an int to Color", TypeColor, int64(0x80FF00C0), "14000000 8180003f 0000803f 00000000 c1c0403f"},
	{"\"abc\" to Color", TypeColor, "abc", "14000000 abaa2a3f bcbb3b3f cdcc4c3f 0000803f"},
	{"\"#11223344\" to Color", TypeColor, "#11223344", "14000000 8988883d 8988083e cdcc4c3e 8988883e"},
	{"a float to Color", TypeColor, 0.5, ""},
	{"an object id to RID", TypeRID, ObjectID(5), "17000000 00000000 00000000"},
	{"a PackedFloat32Array to Array", TypeArray, []float32{1.5}, "1c000000 01000000 03000000 0000c03f"},
	{"an Array to PackedByteArray", TypePackedByteArray, []any{int64(300), int64(-129), 256.5, -1.5, 1e10, math.NaN()},
		"1d000000 06000000 2c7f0000 ff000000"},
	{"an Array to PackedInt32Array", TypePackedInt32Array, []any{int64(1) << 32, 1.5, -1e10, true, nil, Vector2{1, 0}},
		"1e000000 06000000 00000000 01000000 00000080 01000000 00000000 00000000"},
	{"an Array to PackedStringArray", TypePackedStringArray, []any{"a", int64(-5), true, nil, StringName("s"), ParseNodePath("/a:b")},
		"22000000 06000000 02000000 61000000 03000000 2d350000 05000000 74727565 00000000 07000000 3c6e756c 6c3e0000 02000000 73000000 05000000 2f613a62 00000000"},
	{"an Array to PackedVector2Array", TypePackedVector2Array, []any{Vector3i{1, 2, 3}, Vector4{1, 2, 3, 4}, int64(1), Rect2{}},
		"23000000 04000000 0000803f 00000040 0000803f 00000040 00000000 00000000 00000000 00000000"},
	{"an Array to PackedColorArray", TypePackedColorArray, []any{int64(-1), nil},
		"25000000 02000000 0000803f 0000803f 0000803f 0000803f 00000000 00000000 00000000 0000803f"},
	{"a Plane to AABB", TypeAABB, Plane{Vector3{1, 0, 0}, 2}, ""},
}

func TestTypedConversions(t *testing.T) {
	for _, tt := range typedConversions {
		t.Run(tt.name, func(t *testing.T) {
			ct := ContainerType{Kind: ContainerBuiltin, Builtin: tt.elem}
			in, err := em(EncodeOptions{}).Marshal(&TypedArray{Elem: ct, Values: []any{tt.value}})
			if err != nil {
				t.Fatal(err)
			}
			v, _, err := Decode(in)
			if err != nil {
				t.Fatal(err)
			}
			ta := v.(*TypedArray)
			if tt.want == "" {
				if len(ta.Values) != 0 {
					t.Errorf("kept %#v, want it dropped", ta.Values)
				}
				return
			}
			if len(ta.Values) != 1 {
				t.Fatalf("dropped it, want %s", tt.want)
			}
			got, err := Marshal(ta.Values[0])
			if err != nil {
				t.Fatal(err)
			}
			if want := unhex(t, tt.want); !bytes.Equal(got, want) {
				t.Errorf("converted to %#v\n got %x\nwant %x", ta.Values[0], got, want)
			}
		})
	}
}

// A zero Quaternion makes a Basis of NaNs (the engine's are negative quiet NaNs, as x86 makes
// them; the sign of a NaN made from 0 × inf depends on the processor).
func TestZeroQuaternionBasis(t *testing.T) {
	out, r := convert(TypeBasis, TypeQuaternion, Quaternion{})
	var c [16]float32
	if _, ok := real32Comps(out, &c); r != convDone || !ok {
		t.Fatalf("%#v, %v", out, r)
	}
	for _, x := range c[:9] {
		if x == x {
			t.Errorf("%#v is not all NaN", out)
		}
	}
}

// An object in a class- or script-typed container: the engine checks its class against the
// class tree (known here for a few classes) and its script.
func TestTypedObjects(t *testing.T) {
	rc := &Object{Class: "RefCounted", Properties: []Property{{"script", nil}}}
	res := &Object{Class: "Resource"}
	withScript := &Object{Class: "RefCounted", Properties: []Property{{"script", "res://elem.gd"}}}
	unknown := &Object{Class: "MyNode"}
	class := func(name string) ContainerType {
		return ContainerType{Kind: ContainerClassName, Builtin: TypeObject, Name: name}
	}
	script := ContainerType{Kind: ContainerScript, Builtin: TypeObject, Name: "res://elem.gd"}
	tests := []struct {
		name string
		ct   ContainerType
		v    any
		keep bool
	}{
		{"Resource in Array[RefCounted]", class("RefCounted"), res, true},
		{"RefCounted in Array[Resource]", class("Resource"), rc, false},
		{"RefCounted in Array[Node]", class("Node"), rc, false},
		{"RefCounted in Array[NoSuchClass]", class("NoSuchClass"), rc, false},
		{"object id in Array[Node]", class("Node"), ObjectID(5), false},
		{"object id in Array[RefCounted]", class("RefCounted"), ObjectID(5), true},
		{"null in Array[Node]", class("Node"), nil, true},
		{"int in Array[Node]", class("Node"), int64(1), false},
		{"an unknown class in Array[Node]: only the engine knows", class("Node"), unknown, true},
		{"RefCounted without a script in Array[elem.gd]", script, rc, false},
		{"RefCounted with elem.gd in Array[elem.gd]", script, withScript, true},
		{"object id in Array[elem.gd]", script, ObjectID(5), false},
	}
	for _, tt := range tests {
		if _, keep := admit(&tt.ct, tt.v); keep != tt.keep {
			t.Errorf("%s: kept %v, want %v", tt.name, keep, tt.keep)
		}
	}
}

// variantType knows the type of every value the decoder returns.
func TestVariantTypeOfDecoded(t *testing.T) {
	for _, v := range vectors {
		data := unhex(t, v.hex)
		got, _, err := dm(DecodeOptions{Dialect: v.d, AllowObjects: true}).Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := v.d.TypeOf(uint32(data[0]))
		if vt, ok := variantType(got); !ok || vt != want {
			t.Errorf("%s: variantType(%#v) = %v, %v; want %v", v.name, got, vt, ok, want)
		}
	}
}
