package godot

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// Tests of the Variant → Go mapping (Unmarshal).

// unmarshalHex decodes hex into a new value of T.
// intOrNil is v as an int where int has 64 bits, and nil on 32-bit machines.
func intOrNil(v int64) any {
	if bits.UintSize == 32 {
		return nil
	}
	return int(v)
}

// errUnless64 is nil where int has 64 bits, and err on 32-bit machines.
func errUnless64(err error) error {
	if bits.UintSize == 32 {
		return err
	}
	return nil
}

func unmarshalHex[T any](t *testing.T, d Dialect, h string) (T, error) {
	t.Helper()
	var v T
	err := dm(DecodeOptions{Dialect: d}).Unmarshal(unhex(t, h), &v)
	return v, err
}

// wantDecodeErr checks that err is a *DecodeError wrapping sentinel at offset, with path.
func wantDecodeErr(t *testing.T, err, sentinel error, offset int, path string) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, sentinel) || de.Offset != int64(offset) || de.Path != path {
		t.Errorf("err = %v (%#v); want %v at byte %d, path %q", err, de, sentinel, offset, path)
	}
}

func TestUnmarshalNumbers(t *testing.T) {
	for _, c := range []struct {
		name string
		h    string
		into any // pointer to a zero value
		want any
		err  error
	}{
		{"int32 wire into int8", "02000000 ffffffff", new(int8), int8(-1), nil},
		{"int into int16 max", "02000000 ff7f0000", new(int16), int16(math.MaxInt16), nil},
		{"int 300 into int8", "02000000 2c010000", new(int8), nil, ErrRange},
		{"int into uint8 255", "02000000 ff000000", new(uint8), uint8(255), nil},
		{"int 256 into uint8", "02000000 00010000", new(uint8), nil, ErrRange},
		{"-1 into uint", "02000000 ffffffff", new(uint), nil, ErrRange},
		{"int64 into int32", "02000100 00000000 01000000", new(int32), nil, ErrRange},
		{"int64 into int", "02000100 00000000 01000000", new(int), intOrNil(1 << 32), errUnless64(ErrRange)},
		{"int64 into uint64", "02000100 ffffffff ffffff7f", new(uint64), uint64(math.MaxInt64), nil},
		{"int into uint32", "02000100 ffffffff 00000000", new(uint32), uint32(math.MaxUint32), nil},
		{"int into float64", "02000000 07000000", new(float64), 7.0, nil},
		{"integral float into int", "03000000 00004040", new(int), 3, nil},
		{"fractional float into int", "03000000 0000003f", new(int), nil, ErrTypeMismatch},
		{"huge float into int64", "03000000 0000807f", new(int64), nil, ErrTypeMismatch}, // +inf
		{"1e19 into int64", "03000100 00000000 e0cce843", new(int64), nil, ErrRange},
		{"float32 wire into float32", "03000000 0000c03f", new(float32), float32(1.5), nil},
		{"1e300 into float32", "03000100 9c75881b 7c7ae67e", new(float32), nil, ErrRange},
		{"inf into float32", "03000000 0000807f", new(float32), float32(math.Inf(1)), nil},
		{"double into named float", "03000100 9a999999 9999b93f", new(celsius), celsius(0.1), nil},
		{"bool", "01000000 05000000", new(bool), true, nil},
		{"string into int", "04000000 01000000 61000000", new(int), nil, ErrTypeMismatch},
		{"int into bool", "02000000 01000000", new(bool), nil, ErrTypeMismatch},
		{"truncated int", "02000000 0100", new(int), nil, ErrTruncated},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(unhex(t, c.h), c.into)
			if c.err != nil {
				var de *DecodeError
				if !errors.Is(err, c.err) || !errors.As(err, &de) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := reflect.ValueOf(c.into).Elem().Interface(); got != c.want {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

func TestUnmarshalStrings(t *testing.T) {
	if s, err := unmarshalHex[string](t, Godot4, "15000000 02000000 61620000"); err != nil || s != "ab" {
		t.Errorf("StringName into string: %q, %v", s, err)
	}
	if s, err := unmarshalHex[StringName](t, Godot4, "04000000 02000000 61620000"); err != nil || s != "ab" {
		t.Errorf("String into StringName: %q, %v", s, err)
	}
	if s, err := unmarshalHex[namedString](t, Godot3, "04000000 02000000 61620000"); err != nil || s != "ab" {
		t.Errorf("String into named string: %q, %v", s, err)
	}
	// As the engine: a leading BOM is dropped and a NUL ends the string.
	if s, err := unmarshalHex[string](t, Godot4, "04000000 05000000 efbbbf61 62000000"); err != nil || s != "ab" {
		t.Errorf("BOM: %q, %v", s, err)
	}
	if s, err := unmarshalHex[string](t, Godot3, "04000000 03000000 61006200"); err != nil || s != "a" {
		t.Errorf("NUL: %q, %v", s, err)
	}
	if s, err := unmarshalHex[string](t, Godot4, "04000000 04000000 7f20c3a9"); err != nil || s != "\x7f é" {
		t.Errorf("DEL and é: %q, %v", s, err)
	}
	// Godot 3 canonicalises what its lax UTF-8 parser accepts; Godot 4 rejects it.
	if s, err := unmarshalHex[string](t, Godot3, "04000000 03000000 e080af00"); err != nil || s != "/" {
		t.Errorf("Godot 3 overlong: %q, %v", s, err)
	}
	_, err := unmarshalHex[string](t, Godot4, "04000000 03000000 e080af00")
	wantDecodeErr(t, err, ErrInvalidUTF8, 8, "")
	_, err = unmarshalHex[struct{ S string }](t, Godot4, "1b000000 01000000 04000000 01000000 53000000 04000000 01000000 ff000000")
	wantDecodeErr(t, err, ErrInvalidUTF8, 28, ".S")
}

type player struct {
	Base
	Name   string   `godot:"name"`
	HP     int      `godot:"hp"`
	Pos    Vector3  `godot:"pos"`
	Tags   []string `godot:"tags"`
	Inv    []item   `godot:"inv"`
	Stats  map[string]int
	Guild  *string `godot:"guild"`
	Skip   int     `godot:"-"`
	hidden int
}

type item struct {
	Name string `godot:"item"`
	Qty  uint8  `godot:"qty"`
}

func TestUnmarshalStruct(t *testing.T) {
	for _, d := range []Dialect{Godot3, Godot4} {
		wire := mustMarshal(t, d, NewDictionary(
			"name", "ada", "ID", int64(7), "hp", int64(99), "pos", Vector3{1, 2, 3},
			"tags", []string{"a", "b"}, "unknown", []any{"ignored", NewDictionary(int64(1), 2.5)},
			int64(5), "non-string keys are ignored too",
			"inv", []any{NewDictionary("item", "wand", "qty", int64(1))},
			"Stats", NewDictionary("str", int64(3)), "guild", "g", "Skip", int64(9), "hidden", int64(9),
		))
		p := player{Skip: 1, hidden: 2}
		if err := dm(DecodeOptions{Dialect: d}).Unmarshal(wire, &p); err != nil {
			t.Fatal(err)
		}
		want := player{Base: Base{ID: 7}, Name: "ada", HP: 99, Pos: Vector3{1, 2, 3}, Tags: []string{"a", "b"},
			Inv: []item{{"wand", 1}}, Stats: map[string]int{"str": 3}, Guild: ptr("g"), Skip: 1, hidden: 2}
		if !reflect.DeepEqual(p, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", d, p, want)
		}
		// Marshal then Unmarshal gives the value back.
		var back player
		if err := dm(DecodeOptions{Dialect: d}).Unmarshal(mustMarshal(t, d, &want), &back); err != nil {
			t.Fatal(err)
		}
		want.Skip, want.hidden = 0, 0
		if !reflect.DeepEqual(back, want) {
			t.Errorf("%s round trip:\n got %+v\nwant %+v", d, back, want)
		}
	}
	// Case-insensitive match when there is no exact one; fields absent from the Dictionary keep
	// their values; Nil into a pointer clears it.
	v := struct {
		Name  string
		Kept  int
		Guild *int
	}{Kept: 5, Guild: ptr(1)}
	if err := Unmarshal(mustMarshal(t, Godot4, NewDictionary("NAME", "x", "guild", nil)), &v); err != nil || v.Name != "x" || v.Kept != 5 || v.Guild != nil {
		t.Errorf("got %+v, %v", v, err)
	}
	// A field promoted through a nil embedded pointer is allocated.
	var we withEmbedded
	if err := Unmarshal(mustMarshal(t, Godot4, NewDictionary("Level", int64(3), "ID", int64(4))), &we); err != nil || we.Extra == nil || we.Level != 3 || we.ID != 4 {
		t.Errorf("embedded pointer: %+v, %v", we, err)
	}
	// Anything but a Dictionary (or Nil) into a struct is a mismatch.
	_, err := unmarshalHex[player](t, Godot3, "13000000 00000000")
	wantDecodeErr(t, err, ErrTypeMismatch, 0, "")
}

func TestUnmarshalErrorPaths(t *testing.T) {
	type leaf struct{ Small int8 }
	type mid struct{ Items []leaf }
	type top struct{ Inner mid }
	data := mustMarshal(t, Godot3, NewDictionary("Inner", NewDictionary("Items", []any{
		NewDictionary("Small", int64(1)), NewDictionary("Small", int64(300))})))
	var v top
	err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(data, &v)
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, ErrRange) || de.Path != ".Inner.Items[1].Small" {
		t.Fatalf("err = %v", err)
	}
	if got := data[de.Offset : de.Offset+8]; hexOf(got) != "020000002c010000" {
		t.Errorf("offset %d points at %x, not at the int 300", de.Offset, got)
	}
	if want := fmt.Sprintf("godot: decoding int at byte %d (at .Inner.Items[1].Small): number out of range: 300 does not fit in Go value of type int8", de.Offset); err.Error() != want {
		t.Errorf("message %q\nwant    %q", err, want)
	}
	// Map values and unknown entries name the key.
	_, err = unmarshalHex[map[string]int](t, Godot3, "12000000 01000000 04000000 01000000 6b000000 04000000 00000000")
	wantDecodeErr(t, err, ErrTypeMismatch, 20, `["k"]`)
	_, err = unmarshalHex[struct{}](t, Godot3, "12000000 01000000 04000000 01000000 6b000000 04000000 05000000")
	wantDecodeErr(t, err, ErrTruncated, 24, `["k"]`)
	_, err = unmarshalHex[struct{}](t, Godot3, "12000000 01000000 04000000 20000000 6b000000 04000000 05000000")
	wantDecodeErr(t, err, ErrTruncated, 12, ".key(0)")
	// Trailing bytes.
	_, err = unmarshalHex[int](t, Godot3, "02000000 01000000 00")
	wantDecodeErr(t, err, ErrTrailingData, 8, "")
	// Not a pointer.
	if err := Unmarshal(unhex(t, "00000000"), struct{}{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("non-pointer: %v", err)
	}
	if err := Unmarshal(unhex(t, "00000000"), (*int)(nil)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("nil pointer: %v", err)
	}
	// Types with no Variant form.
	_, err = unmarshalHex[struct{ C chan int }](t, Godot3, "12000000 01000000 04000000 01000000 43000000 00000000")
	wantDecodeErr(t, err, ErrUnsupported, 20, ".C")
}

func TestUnmarshalSlices(t *testing.T) {
	// An Array element by element, into slices and arrays.
	if v, err := unmarshalHex[[]int](t, Godot3, "13000000 02000000 02000000 01000000 03000000 00000040"); err != nil || !reflect.DeepEqual(v, []int{1, 2}) {
		t.Errorf("[]int: %v, %v", v, err)
	}
	if v, err := unmarshalHex[[]int](t, Godot3, "13000000 00000000"); err != nil || v == nil || len(v) != 0 {
		t.Errorf("empty Array into nil []int: %#v, %v", v, err)
	}
	if v, err := unmarshalHex[[3]int](t, Godot3, "13000000 02000000 02000000 01000000 02000000 02000000"); err != nil || v != [3]int{1, 2, 0} {
		t.Errorf("short Array into [3]int: %v, %v", v, err)
	}
	if v, err := unmarshalHex[[1]int](t, Godot3, "13000000 02000000 02000000 01000000 02000000 02000000"); err != nil || v != [1]int{1} {
		t.Errorf("long Array into [1]int: %v, %v", v, err)
	}
	_, err := unmarshalHex[[1]int](t, Godot3, "13000000 02000000 02000000 01000000 ff000000")
	wantDecodeErr(t, err, ErrUnknownType, 16, "[1]")
	// Packed arrays of the same layout: one copy; into another element type: element by element.
	if v, err := unmarshalHex[[]int64](t, Godot3, "15000000 02000000 ffffffff 02000000"); err != nil || !reflect.DeepEqual(v, []int64{-1, 2}) {
		t.Errorf("PoolIntArray into []int64: %v, %v", v, err)
	}
	_, err = unmarshalHex[[]int8](t, Godot3, "15000000 02000000 ffffffff 00010000")
	wantDecodeErr(t, err, ErrRange, 0, "[1]")
	if v, err := unmarshalHex[blob](t, Godot3, "14000000 03000000 01020300"); err != nil || !reflect.DeepEqual(v, blob{1, 2, 3}) {
		t.Errorf("PoolByteArray into named []byte: %v, %v", v, err)
	}
	if v, err := unmarshalHex[[4]byte](t, Godot3, "14000000 03000000 01020300"); err != nil || v != [4]byte{1, 2, 3, 0} {
		t.Errorf("PoolByteArray into [4]byte: %v, %v", v, err)
	}
	if v, err := unmarshalHex[[]uint16](t, Godot3, "14000000 02000000 0102"); err != nil || !reflect.DeepEqual(v, []uint16{1, 2}) {
		t.Errorf("PoolByteArray (no padding) into []uint16: %v, %v", v, err)
	}
	if v, err := unmarshalHex[[]float64](t, Godot3, "16000000 01000000 0000003f"); err != nil || !reflect.DeepEqual(v, []float64{0.5}) {
		t.Errorf("PoolRealArray into []float64: %v, %v", v, err)
	}
	if v, err := unmarshalHex[names](t, Godot3, "17000000 02000000 03000000 61620000 01000000 00000000"); err != nil || !reflect.DeepEqual(v, names{"ab", ""}) {
		t.Errorf("PoolStringArray into named []string: %v, %v", v, err)
	}
	if v, err := unmarshalHex[[]any](t, Godot3, "17000000 01000000 03000000 61620000"); err != nil || !reflect.DeepEqual(v, []any{"ab"}) {
		t.Errorf("PoolStringArray into []any: %v, %v", v, err)
	}
	if v, err := unmarshalHex[[]Vector2](t, Godot3, "18000000 01000000 0000803f 00000040"); err != nil || !reflect.DeepEqual(v, []Vector2{{1, 2}}) {
		t.Errorf("PoolVector2Array: %v, %v", v, err)
	}
	if v, err := unmarshalHex[[]any](t, Godot3, "19000000 01000000 0000803f 00000040 00004040"); err != nil || !reflect.DeepEqual(v, []any{Vector3{1, 2, 3}}) {
		t.Errorf("PoolVector3Array into []any: %v, %v", v, err)
	}
	_, err = unmarshalHex[[]string](t, Godot3, "19000000 01000000 0000803f 00000040 00004040")
	wantDecodeErr(t, err, ErrTypeMismatch, 0, "[0]")
	_, err = unmarshalHex[[]int](t, Godot3, "04000000 00000000")
	wantDecodeErr(t, err, ErrTypeMismatch, 0, "")
	// A Godot 4 typed Array into a slice, and a double-precision PackedVector3Array into []Vector3d.
	if v, err := unmarshalHex[[]int64](t, Godot4, "1c000100 02000000 01000000 02000000 05000000"); err != nil || !reflect.DeepEqual(v, []int64{5}) {
		t.Errorf("Array[int] into []int64: %v, %v", v, err)
	}
	if v, err := unmarshalHex[[]Vector3d](t, Godot4, "24000100 01000000 00000000 0000f03f 00000000 00000040 00000000 00000840"); err != nil || !reflect.DeepEqual(v, []Vector3d{{1, 2, 3}}) {
		t.Errorf("double PackedVector3Array: %v, %v", v, err)
	}
	// Nil into a slice makes it nil.
	s := []int{1}
	if err := Unmarshal(unhex(t, "00000000"), &s); err != nil || s != nil {
		t.Errorf("Nil into slice: %v, %v", s, err)
	}
}

// Decoding into a slice with enough capacity reuses its backing array: a packed array is one
// copy into it, and reused elements are zeroed before decoding.
func TestUnmarshalReusesCapacity(t *testing.T) {
	vs := make([]Vector3, 1, 8)
	data := mustMarshal(t, Godot3, []Vector3{{1, 2, 3}, {4, 5, 6}})
	before := unsafe.SliceData(vs)
	if err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	if unsafe.SliceData(vs) != before || !reflect.DeepEqual(vs, []Vector3{{1, 2, 3}, {4, 5, 6}}) {
		t.Errorf("got %v (same array %v)", vs, unsafe.SliceData(vs) == before)
	}
	g3 := dm(DecodeOptions{Dialect: Godot3})
	if n := testing.AllocsPerRun(10, func() { _ = g3.Unmarshal(data, &vs) }); n != 0 {
		t.Errorf("%v allocations decoding into a slice with capacity", n)
	}
	items := []item{{"old", 9}, {"old", 9}}
	data = mustMarshal(t, Godot3, []any{NewDictionary("qty", int64(1))})
	if err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(data, &items); err != nil || !reflect.DeepEqual(items, []item{{"", 1}}) {
		t.Errorf("reused struct elements: %+v, %v", items, err)
	}
}

func TestUnmarshalMaps(t *testing.T) {
	data := mustMarshal(t, Godot4, NewDictionary(int64(3), "c", int64(1), "a"))
	m := map[int]string{9: "kept"}
	if err := Unmarshal(data, &m); err != nil || !reflect.DeepEqual(m, map[int]string{1: "a", 3: "c", 9: "kept"}) {
		t.Errorf("into existing map: %v, %v", m, err)
	}
	if v, err := unmarshalHex[map[string]int](t, Godot3, "12000000 00000000"); err != nil || v == nil {
		t.Errorf("empty Dictionary into nil map: %#v, %v", v, err)
	}
	// Struct keys, and keys of any type.
	data = mustMarshal(t, Godot4, map[mapKey]int{{1, "x"}: 1, {2, "y"}: 2})
	if v, err := unmarshalHex[map[mapKey]int](t, Godot4, hexOf(data)); err != nil || !reflect.DeepEqual(v, map[mapKey]int{{1, "x"}: 1, {2, "y"}: 2}) {
		t.Errorf("struct keys: %v, %v", v, err)
	}
	data = mustMarshal(t, Godot4, NewDictionary(int64(1), "i", "s", 2.5, Vector2{1, 2}, nil))
	if v, err := unmarshalHex[map[any]any](t, Godot4, hexOf(data)); err != nil || !reflect.DeepEqual(v, map[any]any{int64(1): "i", "s": 2.5, Vector2{1, 2}: nil}) {
		t.Errorf("any keys: %v, %v", v, err)
	}
	// A key of the wrong type.
	_, err := unmarshalHex[map[int]int](t, Godot3, hexOf(mustMarshal(t, Godot3, NewDictionary("k", int64(1)))))
	wantDecodeErr(t, err, ErrTypeMismatch, 8, ".key(0)")
	// A key type Godot cannot produce, such as an unhashable Variant into map[any]: a decoded
	// Array is a []any, which is not comparable.
	_, err = unmarshalHex[map[any]int](t, Godot3, hexOf(mustMarshal(t, Godot3, NewDictionary([]any{}, int64(1)))))
	wantDecodeErr(t, err, ErrTypeMismatch, 8, ".key(0)")
}

type iface interface{ Area() float64 }

type square struct{ Side float64 }

func (s *square) Area() float64 { return s.Side * s.Side }

func TestUnmarshalInterfaces(t *testing.T) {
	var v any
	if err := Unmarshal(mustMarshal(t, Godot4, []any{int64(1), "a"}), &v); err != nil || !reflect.DeepEqual(v, []any{int64(1), "a"}) {
		t.Errorf("any: %#v, %v", v, err)
	}
	s := struct{ Shape iface }{Shape: &square{}}
	if err := Unmarshal(mustMarshal(t, Godot4, NewDictionary("Shape", NewDictionary("Side", 2.0))), &s); err != nil || s.Shape.Area() != 4 {
		t.Errorf("non-empty interface holding a pointer: %+v, %v", s, err)
	}
	var e error
	err := Unmarshal(mustMarshal(t, Godot4, "x"), &e)
	wantDecodeErr(t, err, ErrTypeMismatch, 0, "")
	e = errors.New("x")
	if err := Unmarshal(mustMarshal(t, Godot4, nil), &e); err != nil || e != nil {
		t.Errorf("Nil into error: %v, %v", e, err)
	}
	var st fmt.Stringer
	if err := Unmarshal(mustMarshal(t, Godot4, ParseNodePath("a/b")), &st); err != nil || st.String() != "a/b" {
		t.Errorf("NodePath into fmt.Stringer: %v, %v", st, err)
	}
}

type team int

func (tm *team) UnmarshalGodot(v any, d Dialect) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("team: want a String, got %T", v)
	}
	switch s {
	case "none":
		*tm = 0
	case "red":
		*tm = 1
	case "blue":
		*tm = 2
	default:
		return fmt.Errorf("team: unknown %q", s)
	}
	return nil
}

func (tm team) MarshalGodot(Dialect) (any, error) { return [...]string{"none", "red", "blue"}[tm], nil }

func TestUnmarshaler(t *testing.T) {
	type roster struct {
		Teams []team
		Lead  *team
	}
	var r roster
	if err := Unmarshal(mustMarshal(t, Godot4, NewDictionary("Teams", []any{"blue", "red"}, "Lead", "red")), &r); err != nil ||
		!reflect.DeepEqual(r.Teams, []team{2, 1}) || r.Lead == nil || *r.Lead != 1 {
		t.Errorf("got %+v, %v", r, err)
	}
	// The round trip through MarshalGodot.
	var back roster
	if err := Unmarshal(mustMarshal(t, Godot4, r), &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("round trip %+v, %v", back, err)
	}
	err := Unmarshal(mustMarshal(t, Godot4, NewDictionary("Teams", []any{"red", "green"})), &r)
	var de *DecodeError
	if !errors.As(err, &de) || de.Path != ".Teams[1]" || !strings.Contains(err.Error(), `unknown "green"`) {
		t.Errorf("Unmarshaler error: %v", err)
	}
	// Nil into a pointer to an Unmarshaler sets it to nil without a call.
	r.Lead = new(team)
	if err := Unmarshal(mustMarshal(t, Godot4, NewDictionary("Lead", nil)), &r); err != nil || r.Lead != nil {
		t.Errorf("Nil into *team: %v, %v", r.Lead, err)
	}
}

func TestUnmarshalRawVariant(t *testing.T) {
	type env struct {
		Op   string
		Body RawVariant
	}
	body := mustMarshal(t, Godot3, NewDictionary("x", []any{int64(1), 0.1, "s"}))
	data := mustMarshal(t, Godot3, env{"move", body})
	var e env
	if err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	if e.Op != "move" || hexOf(e.Body) != hexOf(body) {
		t.Errorf("got %s %x, want %x", e.Op, e.Body, body)
	}
	// The bytes are a copy, and decode later.
	data[len(data)-1] = 0xEE
	var later struct{ X []any }
	if err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(e.Body, &later); err != nil || later.X[2] != "s" {
		t.Errorf("deferred decode: %+v, %v", later, err)
	}
	// Invalid bytes are not captured.
	var r RawVariant
	err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(unhex(t, "13000000 01000000 ff000000"), &r)
	wantDecodeErr(t, err, ErrUnknownType, 8, "[0]")
}

func TestUnmarshalGodotTypes(t *testing.T) {
	d := NewDictionary("k", int64(1))
	var dv Dictionary
	if err := Unmarshal(mustMarshal(t, Godot4, d), &dv); err != nil || !KeyEqual(&dv, d) {
		t.Errorf("Dictionary value: %v, %v", dv, err)
	}
	var ta TypedArray
	if err := Unmarshal(mustMarshal(t, Godot4, []any{int64(1)}), &ta); err != nil || !reflect.DeepEqual(ta.Values, []any{int64(1)}) {
		t.Errorf("untyped Array into TypedArray: %v, %v", ta, err)
	}
	var np NodePath
	if err := Unmarshal(mustMarshal(t, Godot4, ParseNodePath("/root:x")), &np); err != nil || np.String() != "/root:x" {
		t.Errorf("NodePath: %v, %v", np, err)
	}
	var c Color
	if err := Unmarshal(mustMarshal(t, Godot4, Color{1, 0.5, 0, 1}), &c); err != nil || c != (Color{1, 0.5, 0, 1}) {
		t.Errorf("Color: %v, %v", c, err)
	}
	var v3 Vector3
	err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(mustMarshal(t, Godot3, Vector2{1, 2}), &v3)
	wantDecodeErr(t, err, ErrTypeMismatch, 0, "")
	// A double-precision Vector3 narrows into Vector3.
	if err := Unmarshal(mustMarshal(t, Godot4, Vector3d{1, 2, 0.1}), &v3); err != nil || v3 != (Vector3{1, 2, 0.1}) {
		t.Errorf("Vector3d into Vector3: %v, %v", v3, err)
	}
	var obj ObjectID = 5
	if err := Unmarshal(unhex(t, "18000100 00000000 00000000"), &obj); err != nil || obj != 0 {
		t.Errorf("null object id: %v, %v", obj, err)
	}
}

func TestUnmarshalLimits(t *testing.T) {
	deep := "1c000000 01000000"
	data := unhex(t, strings.Repeat(deep, 20)+"00000000")
	var v any
	if err := dm(DecodeOptions{MaxDepth: 10}).Unmarshal(data, &v); !errors.Is(err, ErrTooDeep) {
		t.Errorf("deep Array into any: %v", err)
	}
	type nest struct{ N []nest }
	var n nest
	if err := dm(DecodeOptions{MaxDepth: 10}).Unmarshal(mustMarshal(t, Godot4, nestOf(20)), &n); !errors.Is(err, ErrTooDeep) {
		t.Errorf("deep struct: %v", err)
	}
	var p selfPtr
	if err := Unmarshal(unhex(t, "02000000 01000000"), &p); !errors.Is(err, ErrTooDeep) {
		t.Errorf("pointer to itself: %v", err)
	}
	if err := dm(DecodeOptions{MaxElements: 3}).Unmarshal(mustMarshal(t, Godot4, []int{1, 2, 3, 4}), new([]int)); !errors.Is(err, ErrTooManyElements) {
		t.Errorf("MaxElements: %v", err)
	}
	if err := dm(DecodeOptions{MaxElements: 3}).Unmarshal(mustMarshal(t, Godot4, []string{"a", "b", "c", "d"}), new([]string)); !errors.Is(err, ErrTooManyElements) {
		t.Errorf("MaxElements strings: %v", err)
	}
	// A count beyond the input fails before allocating for it.
	huge := unhex(t, "1c000000 ffffff7f")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if err := Unmarshal(huge, new([]int)); !errors.Is(err, ErrTruncated) {
			t.Fatalf("lying count: %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 10<<10 {
		t.Errorf("%d bytes allocated for 10 inputs with a lying count", n)
	}
	if err := Unmarshal(unhex(t, "18000000 04000000 4e6f6465 00000000"), new(any)); !errors.Is(err, ErrObjectsNotAllowed) {
		t.Errorf("full object: %v", err)
	}
}

func nestOf(n int) any {
	var v any = NewDictionary("N", []any{})
	for range n {
		v = NewDictionary("N", []any{v})
	}
	return v
}

// A count that claims more elements than the input holds fails where Decode and the engine
// fail: at the first element that does not decode, not with a blanket ErrTruncated.
func TestUnmarshalShortCountFailsAtTheFirstBadElement(t *testing.T) {
	for _, c := range []struct {
		name, hex string
		want      error
	}{
		{"Array of 87, first a full object", "13000000 57000000 11000000 01000000", ErrObjectsNotAllowed},
		{"Array of 87, first an unknown type", "13000000 57000000 ff000000", ErrUnknownType},
		{"Array of 87, all there is fine", "13000000 57000000 02000000 01000000", ErrTruncated},
		{"Dictionary of 9, a key a full object", "12000000 09000000 11000000 01000000", ErrObjectsNotAllowed},
		{"Dictionary of 9, a value a full object", "12000000 09000000 02000000 01000000 11000000 01000000", ErrObjectsNotAllowed},
	} {
		data := unhex(t, c.hex)
		_, _, derr := dm(DecodeOptions{Dialect: Godot3}).Decode(data)
		if !errors.Is(derr, c.want) {
			t.Errorf("%s: Decode: %v, want %v", c.name, derr, c.want)
		}
		var a []any
		var m map[int]any
		var v any
		for _, dst := range []any{&a, &m, &v} {
			if _, isMap := dst.(*map[int]any); isMap != strings.HasPrefix(c.name, "Dictionary") {
				continue
			}
			err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(data, dst)
			var de *DecodeError
			if !errors.Is(err, c.want) || !errors.As(err, &de) {
				t.Errorf("%s: Unmarshal into %T: %v, want %v", c.name, dst, err, c.want)
				continue
			}
			var dde *DecodeError
			if errors.As(derr, &dde) && dde.Offset != de.Offset {
				t.Errorf("%s: Unmarshal into %T fails at byte %d, Decode at %d", c.name, dst, de.Offset, dde.Offset)
			}
		}
	}
}
