package bitproto

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/bitstream"
)

// wideInt is 2^40 where int has 64 bits, and 2^8 on 32-bit machines, whose int cannot hold it.
const wideInt = 1 << (bits.UintSize - 24)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Types shaped like the reference's messages (spec §4.5).

type OID struct {
	Class  int32
	Type   int32
	Server int32
	Number int64
}

type QTH struct {
	SW, SX, SY, SZ bool
	CX, CY, CZ     rune `bits:"char"`
}

type Asset struct {
	OID  OID
	Name string
}

type AssetContainer struct {
	Assets []Asset
}

// Tier embeds AssetContainer: its fields come first, inline, with no null bit.
type Tier struct {
	AssetContainer
	ID      OID
	Created time.Time
}

type GetClientVersionInfo struct {
	ClientName string
}

func TestClientVersionInfoBody(t *testing.T) {
	b, err := Marshal(&GetClientVersionInfo{ClientName: "AmazingWorld"})
	if err != nil || hex.EncodeToString(b) != "c180416d617a696e67576f726c64" {
		t.Fatalf("Marshal = %x, %v", b, err)
	}
	var v GetClientVersionInfo
	if err := Unmarshal(b, &v); err != nil || v.ClientName != "AmazingWorld" {
		t.Fatalf("Unmarshal = %+v, %v", v, err)
	}
	// A non-pointer is accepted too (it is copied).
	b2, err := Marshal(GetClientVersionInfo{ClientName: "AmazingWorld"})
	if err != nil || !bytes.Equal(b, b2) {
		t.Fatalf("Marshal(value) = %x, %v", b2, err)
	}
}

// TestLayoutAgainstWriter encodes a struct of every kind of field and compares the bytes with
// the same layout written by hand through bitstream.Writer, call by call.
func TestLayoutAgainstWriter(t *testing.T) {
	type Inner struct{ A, B int32 }
	type Embedded struct{ E bool }
	type All struct {
		Embedded
		Bool    bool
		Byte    uint8
		SByte   int8
		I16     int16
		U16     uint16
		I32     int32
		U32     uint32
		I64     int64
		U64     uint64
		Int     int   `bits:"int32"`
		Long    int   `bits:"int64"`
		Char    rune  `bits:"char"`
		Short   int32 `bits:"int16"`
		F32     float32
		F64     float64
		F32As64 float32 `bits:"float64"`
		Str     string
		Empty   string
		Raw     []byte
		NilRaw  []byte
		StrRaw  string `bits:"bytes"`
		When    time.Time
		Never   time.Time
		Obj     Inner
		InlObj  Inner `bits:",inline"`
		Ptr     *Inner
		NilPtr  *Inner
		Opt     *int64
		NoOpt   *int64
		Objs    []Inner
		NilObjs []Inner
		Strs    []string
		Chars   []int32 `bits:"char"`
		InlObjs []Inner `bits:",inline"`
		Ptrs    []*Inner
		Map     map[string]int32
		NilMap  map[string]Inner
		Skipped string `bits:"-"`
		private int32
	}
	five := int64(5)
	when := time.Date(2021, 7, 24, 0, 0, 0, 0, time.UTC)
	v := All{
		Embedded: Embedded{E: true}, Bool: true, Byte: 0xab, SByte: -2, I16: -129, U16: 0xffff, I32: 566,
		U32: 0xffffffff, I64: 1 << 47, U64: math.MaxUint64, Int: -7, Long: wideInt, Char: 'А', Short: -300,
		F32: 1.5, F64: -2.25, F32As64: 0.5, Str: "AmazingWorld", Raw: []byte{1, 2, 3}, NilRaw: nil, StrRaw: "xy",
		When: when, Obj: Inner{1, 2}, InlObj: Inner{3, 4}, Ptr: &Inner{5, 6}, Opt: &five,
		Objs: []Inner{{7, 8}, {}}, Strs: []string{"a", ""}, Chars: []int32{'A', 0xE000}, InlObjs: []Inner{{9, 10}},
		Ptrs: []*Inner{nil, {11, 12}}, Map: map[string]int32{"z": 1, "a": 2, "m": 3}, Skipped: "x", private: 9,
	}
	got, err := Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}

	var w bitstream.Writer
	w.WriteBool(true) // Embedded.E, inline
	w.WriteBool(true)
	w.WriteByte(0xab)
	w.WriteByte(0xfe)
	w.WriteInt16(-129)
	w.WriteInt16(-1)
	w.WriteInt32(566)
	w.WriteInt32(-1)
	w.WriteInt64(1 << 47)
	w.WriteInt64(-1)
	w.WriteInt32(-7)
	w.WriteInt64(wideInt)
	w.WriteChar('А')
	w.WriteInt16(-300)
	w.WriteFloat32(1.5)
	w.WriteFloat64(-2.25)
	w.WriteFloat64(0.5)
	w.WriteString("AmazingWorld")
	w.WriteString("")
	w.WriteBytes([]byte{1, 2, 3})
	w.WriteBytes(nil)
	w.WriteString("xy")
	w.WriteDate(when)
	w.WriteDate(time.Time{})
	w.WriteNull(false) // Obj
	w.WriteInt32(1)
	w.WriteInt32(2)
	w.WriteInt32(3) // InlObj: no null bit
	w.WriteInt32(4)
	w.WriteNull(false) // Ptr
	w.WriteInt32(5)
	w.WriteInt32(6)
	w.WriteNull(true)  // NilPtr
	w.WriteNull(false) // Opt
	w.WriteInt64(5)
	w.WriteNull(true) // NoOpt
	w.WriteCount(2)   // Objs: each element has a null bit
	w.WriteNull(false)
	w.WriteInt32(7)
	w.WriteInt32(8)
	w.WriteNull(false)
	w.WriteInt32(0)
	w.WriteInt32(0)
	w.WriteCount(-1) // NilObjs
	w.WriteCount(2)  // Strs: no null bits
	w.WriteString("a")
	w.WriteString("")
	w.WriteCount(2) // Chars
	w.WriteChar('A')
	w.WriteChar(0xE000)
	w.WriteCount(1) // InlObjs: no null bits
	w.WriteInt32(9)
	w.WriteInt32(10)
	w.WriteCount(2) // Ptrs
	w.WriteNull(true)
	w.WriteNull(false)
	w.WriteInt32(11)
	w.WriteInt32(12)
	w.WriteCount(3) // Map: sorted keys
	w.WriteString("a")
	w.WriteInt32(2)
	w.WriteString("m")
	w.WriteInt32(3)
	w.WriteString("z")
	w.WriteInt32(1)
	w.WriteCount(-1) // NilMap
	if want := w.Bytes(); !bytes.Equal(got, want) {
		t.Fatalf("Marshal:\n got %x\nwant %x", got, want)
	}

	var back All
	if err := Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	want := v
	want.Skipped, want.private = "", 0
	want.Chars = []int32{'A', -8192} // char U+E000 reads back negative, as in the reference
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("Unmarshal:\n got %+v\nwant %+v", back, want)
	}
	if back.NilRaw != nil || back.NilObjs != nil || back.NilMap != nil || back.Objs == nil || back.Ptrs[0] != nil {
		t.Error("nil and empty are not kept apart")
	}
}

func TestSpecVectors(t *testing.T) {
	type nullInt struct{ V *int64 }
	type nilSlice struct{ S []OID }
	type emptySlice struct{ S []OID }
	five := int64(5)
	tests := []struct {
		name string
		v    any
		hex  string
	}{
		{"Null[int64]{}", &nullInt{}, "80"},
		{"Null[int64](5)", &nullInt{V: &five}, "4a"},
		{"nil slice", &nilSlice{}, "bc"},
		{"empty slice", &emptySlice{S: []OID{}}, "80"},
		{"empty body struct", &struct{}{}, ""},
		{"QTH", &QTH{SW: true, SZ: true, CX: 'A', CY: 0, CZ: -1}, "9c8305e0"},
	}
	for _, tc := range tests {
		b, err := Marshal(tc.v)
		if err != nil || hex.EncodeToString(b) != tc.hex {
			t.Errorf("%s: Marshal = %x, %v; want %s", tc.name, b, err, tc.hex)
			continue
		}
		back := reflect.New(reflect.TypeOf(tc.v).Elem())
		if err := Unmarshal(b, back.Interface()); err != nil || !reflect.DeepEqual(back.Interface(), tc.v) {
			t.Errorf("%s: Unmarshal = %+v, %v", tc.name, back.Elem(), err)
		}
	}
}

func TestEmbeddedInline(t *testing.T) {
	tier := Tier{
		AssetContainer: AssetContainer{Assets: []Asset{{OID: OID{1, 2, 3, 4}, Name: "a"}}},
		ID:             OID{Number: 1 << 40},
	}
	got, err := Marshal(&tier)
	if err != nil {
		t.Fatal(err)
	}
	var w bitstream.Writer
	w.WriteCount(1) // Assets, inline from the embedded AssetContainer
	w.WriteNull(false)
	w.WriteNull(false) // Asset.OID
	w.WriteInt32(1)
	w.WriteInt32(2)
	w.WriteInt32(3)
	w.WriteInt64(4)
	w.WriteString("a")
	w.WriteNull(false) // ID
	w.WriteInt32(0)
	w.WriteInt32(0)
	w.WriteInt32(0)
	w.WriteInt64(1 << 40)
	w.WriteDate(time.Time{})
	if !bytes.Equal(got, w.Bytes()) {
		t.Fatalf("got %x, want %x", got, w.Bytes())
	}
	var back Tier
	if err := Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, tier) {
		t.Fatalf("back %+v, %v", back, err)
	}
}

func TestNullObjectDecodesToZero(t *testing.T) {
	type M struct {
		O OID
		P *OID
		S []OID
	}
	// O null, P null, S = [null, {1,...}].
	var w bitstream.Writer
	w.WriteNull(true)
	w.WriteNull(true)
	w.WriteCount(2)
	w.WriteNull(true)
	w.WriteNull(false)
	w.WriteInt32(1)
	w.WriteInt32(0)
	w.WriteInt32(0)
	w.WriteInt64(0)
	// Decode into a value that has data everywhere: nulls must clear it.
	m := M{O: OID{Class: 9}, P: &OID{Class: 9}, S: make([]OID, 2, 4)}
	m.S[0].Class = 9
	backing := &m.S[0]
	if err := Unmarshal(w.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m.O != (OID{}) || m.P != nil || len(m.S) != 2 || m.S[0] != (OID{}) || m.S[1].Class != 1 {
		t.Fatalf("got %+v", m)
	}
	if &m.S[0] != backing {
		t.Error("a slice with enough capacity was not reused")
	}
}

// Status is sent as its name string, like the reference's SessionStatus.
type Status int32

const (
	StatusOK Status = iota
	StatusBanned
)

func (s Status) MarshalBits(w *bitstream.Writer) error {
	switch s {
	case StatusOK:
		w.WriteString("OK")
	case StatusBanned:
		w.WriteString("BANNED")
	default:
		return fmt.Errorf("unknown status %d", s)
	}
	return nil
}

func (s *Status) UnmarshalBits(r *bitstream.Reader) error {
	name, err := r.ReadString()
	if err != nil {
		return err
	}
	switch name {
	case "OK":
		*s = StatusOK
	case "BANNED":
		*s = StatusBanned
	default:
		*s = -1 // unknown names become -1, as in the reference
	}
	return nil
}

// Vec writes itself (no reflection) and is a struct, so it keeps its null bit in field position.
type Vec struct{ X, Y float32 }

func (v *Vec) MarshalBits(w *bitstream.Writer) error {
	w.WriteFloat32(v.X)
	w.WriteFloat32(v.Y)
	return nil
}

func (v *Vec) UnmarshalBits(r *bitstream.Reader) error {
	v.X, v.Y = r.TryFloat32(), r.TryFloat32()
	return r.Err()
}

func TestMarshalers(t *testing.T) {
	type Login struct {
		Status   Status
		Statuses []Status
		Pos      Vec
		PosInl   Vec `bits:",inline"`
		PosPtr   *Vec
	}
	in := Login{Status: StatusBanned, Statuses: []Status{StatusOK}, Pos: Vec{1, 2}, PosInl: Vec{3, 4}}
	got, err := Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	var w bitstream.Writer
	w.WriteString("BANNED")
	w.WriteCount(1)
	w.WriteString("OK")
	w.WriteNull(false)
	w.WriteFloat32(1)
	w.WriteFloat32(2)
	w.WriteFloat32(3)
	w.WriteFloat32(4)
	w.WriteNull(true)
	if !bytes.Equal(got, w.Bytes()) {
		t.Fatalf("got %x, want %x", got, w.Bytes())
	}
	var back Login
	if err := Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, in) {
		t.Fatalf("back %+v, %v", back, err)
	}
	// Errors of a custom type carry the field path and offset.
	_, err = Marshal(&Login{Status: 7})
	var e *EncodeError
	if !errors.As(err, &e) || e.Path != "Status" || e.BitOffset != 0 || !strings.Contains(err.Error(), "unknown status 7") {
		t.Fatalf("err = %v", err)
	}
	// Top-level Marshaler and Unmarshaler.
	b, err := Marshal(&Vec{5, 6})
	if err != nil || hex.EncodeToString(b) != "40a0000040c00000" {
		t.Fatalf("Marshal(&Vec) = %x, %v", b, err)
	}
	var v Vec
	if err := Unmarshal(b[:6], &v); !errors.Is(err, bitstream.ErrTruncated) {
		t.Fatalf("truncated Vec: %v", err)
	}
}

// RuleProperty is recursive, like the reference's type of that name.
type RuleProperty struct {
	Name          string
	Properties    map[string]string
	ChildrenGroup map[string][]RuleProperty
}

func deepRule(depth int) RuleProperty {
	r := RuleProperty{Name: "leaf"}
	for range depth {
		r = RuleProperty{Name: "node", ChildrenGroup: map[string][]RuleProperty{"c": {r}}}
	}
	return r
}

func TestRecursiveTypeAndDepthLimit(t *testing.T) {
	in := RuleProperty{
		Name:       "root",
		Properties: map[string]string{"color": "red", "size": "9"},
		ChildrenGroup: map[string][]RuleProperty{
			"kids": {{Name: "a"}, {Name: "b", Properties: map[string]string{}}},
		},
	}
	b, err := Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	var back RuleProperty
	if err := Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, in) {
		t.Fatalf("back %+v, %v", back, err)
	}

	// Each tree level is a map, a slice and an object: three levels of nesting.
	b, err = Marshal(ptr(deepRule(30)))
	if err != nil {
		t.Fatal(err)
	}
	if err := Unmarshal(b, &back); err != nil {
		t.Fatalf("depth 30 (90 levels) within the default limit: %v", err)
	}
	err = dm(DecodeOptions{MaxDepth: 60}).Unmarshal(b, &back)
	var e *DecodeError
	if !errors.Is(err, ErrTooDeep) || !errors.As(err, &e) || !strings.HasPrefix(e.Path, `ChildrenGroup["c"][0].ChildrenGroup["c"][0]`) {
		t.Fatalf("MaxDepth 60: %v", err)
	}
	if err := dm(DecodeOptions{MaxDepth: 91}).Unmarshal(b, &back); err != nil {
		t.Fatalf("MaxDepth 91: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestDecodeErrors(t *testing.T) {
	type Item struct {
		ID   int32
		Name string
	}
	type Inv struct {
		Owner string
		Items []Item
	}
	full, err := Marshal(&Inv{Owner: "me", Items: []Item{{1, "a"}, {2, "bb"}}})
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside the second item's name.
	var v Inv
	err = Unmarshal(full[:len(full)-1], &v)
	var e *DecodeError
	if !errors.As(err, &e) || e.Path != "Items[1].Name" || !errors.Is(err, bitstream.ErrTooLong) {
		t.Fatalf("truncated: %v", err)
	}
	if !strings.Contains(err.Error(), "Items[1].Name at bit ") {
		t.Errorf("message %q", err)
	}

	tests := []struct {
		name string
		data func() []byte
		want error
		path string
	}{
		{"count beyond remaining bits", func() []byte {
			var w bitstream.Writer
			w.WriteString("")
			w.WriteCount(1000) // 1000 objects need at least 1000 bits
			w.WriteBits(0, 64)
			return w.Bytes()
		}, bitstream.ErrTooLong, "Items"},
		{"negative count", func() []byte {
			var w bitstream.Writer
			w.WriteString("")
			w.WriteInt32(-2)
			return w.Bytes()
		}, bitstream.ErrNegativeLength, "Items"},
		{"negative string length", func() []byte {
			var w bitstream.Writer
			w.WriteInt32(-7)
			return w.Bytes()
		}, bitstream.ErrNegativeLength, "Owner"},
		{"huge string length", func() []byte {
			var w bitstream.Writer
			w.WriteInt32(math.MaxInt32)
			return w.Bytes()
		}, bitstream.ErrTooLong, "Owner"},
		{"empty input", func() []byte { return nil }, bitstream.ErrTruncated, "Owner"},
	}
	for _, tc := range tests {
		var v Inv
		err := Unmarshal(tc.data(), &v)
		var e *DecodeError
		if !errors.Is(err, tc.want) || !errors.As(err, &e) || e.Path != tc.path || e.BitOffset != 0 && tc.path == "Owner" {
			t.Errorf("%s: %v (path %q)", tc.name, err, pathOf(err))
		}
	}

	// Allocation limits: 100 000 null objects fit in the input (12.5 KB), but make 2.4 MB of
	// items, more than MaxAllocFactor allows by default, or 1 KiB.
	var w bitstream.Writer
	w.WriteString("")
	w.WriteCount(100_000)
	for range 100_000 {
		w.WriteNull(true)
	}
	data := w.Bytes()
	if err := Unmarshal(data, &v); !errors.Is(err, ErrAllocLimit) {
		t.Fatalf("100 000 null items, default options: %v, want ErrAllocLimit", err)
	}
	if err := dm(DecodeOptions{MaxAllocBytes: NoLimit}).Unmarshal(data, &v); err != nil || len(v.Items) != 100_000 {
		t.Fatalf("100 000 null items, MaxAllocBytes NoLimit: %v", err)
	}
	if err := dm(DecodeOptions{MaxAllocBytes: 4 << 20}).Unmarshal(data, &v); err != nil || len(v.Items) != 100_000 {
		t.Fatalf("100 000 null items, MaxAllocBytes 4 MiB: %v", err)
	}
	if err := dm(DecodeOptions{MaxAllocBytes: 1024}).Unmarshal(data, &Inv{}); !errors.Is(err, ErrAllocLimit) {
		t.Fatalf("MaxAllocBytes 1024: %v", err)
	}
}

func pathOf(err error) string {
	var de *DecodeError
	var ee *EncodeError
	switch {
	case errors.As(err, &de):
		return de.Path
	case errors.As(err, &ee):
		return ee.Path
	}
	return "(not a *DecodeError or *EncodeError)"
}

func TestRangeChecks(t *testing.T) {
	type Narrow struct {
		N int   `bits:"int16"`
		B int32 `bits:"byte"`
	}
	if _, err := Marshal(&Narrow{N: 40000}); !errors.Is(err, ErrRange) || pathOf(err) != "N" {
		t.Errorf("int 40000 as int16: %v", err)
	}
	if _, err := Marshal(&Narrow{B: 256}); !errors.Is(err, ErrRange) || pathOf(err) != "B" {
		t.Errorf("256 as byte: %v", err)
	}
	b, err := Marshal(&Narrow{N: -5, B: 200})
	if err != nil {
		t.Fatal(err)
	}
	var back Narrow
	if err := Unmarshal(b, &back); err != nil || back != (Narrow{-5, 200}) {
		t.Fatalf("back %+v, %v", back, err)
	}

	type Wide struct{ V int32 }
	type Small struct {
		V int8 `bits:"int32"`
	}
	wide, _ := Marshal(&Wide{V: 300})
	var s Small
	if err := Unmarshal(wide, &s); !errors.Is(err, ErrRange) || pathOf(err) != "V" {
		t.Errorf("300 into int8: %v", err)
	}
	type Unsigned struct {
		V uint64 `bits:"int32"`
	}
	neg, _ := Marshal(&Wide{V: -1})
	var u Unsigned
	if err := Unmarshal(neg, &u); !errors.Is(err, ErrRange) {
		t.Errorf("-1 into uint64: %v", err)
	}
	// Same width: bit for bit.
	type U32 struct{ V uint32 }
	b, _ = Marshal(&U32{V: math.MaxUint32})
	if hex.EncodeToString(b) != "bc" {
		t.Errorf("uint32 max = %x, want bc (-1)", b)
	}
	// Unsigned chars keep U+8000..U+FFFF.
	type UChar struct {
		C uint16 `bits:"char"`
	}
	b, _ = Marshal(&UChar{C: 0xE000})
	var uc UChar
	if err := Unmarshal(b, &uc); err != nil || uc.C != 0xE000 || hex.EncodeToString(b) != "700000" {
		t.Errorf("uint16 char: %x %#x %v", b, uc.C, err)
	}
}

func TestUnsupportedTypes(t *testing.T) {
	tests := []struct {
		v    any
		path string
	}{
		{&struct{ N int }{}, "N"},
		{&struct{ C chan int }{}, "C"},
		{&struct{ F func() }{}, "F"},
		{&struct{ A [3]int32 }{}, "A"},
		{&struct{ M map[int]string }{}, "M"},
		{&struct{ P **int32 }{}, "P"},
		{&struct{ *OID }{OID: &OID{}}, "OID"},
		{&struct {
			S string `bits:"int32"`
		}{}, "S"},
		{&struct {
			X int32 `bits:"int33"`
		}{}, "X"},
		{&struct{ I any }{}, "I"},
	}
	for _, tc := range tests {
		_, err := Marshal(tc.v)
		var te *TypeError
		if !errors.Is(err, ErrUnsupportedType) || !errors.As(err, &te) || te.Path != tc.path {
			t.Errorf("%T: %v", tc.v, err)
		}
		if err := Unmarshal([]byte{0}, tc.v); !errors.Is(err, ErrUnsupportedType) {
			t.Errorf("Unmarshal %T: %v", tc.v, err)
		}
	}
	if _, err := Marshal(nil); !errors.Is(err, ErrNil) {
		t.Errorf("Marshal(nil): %v", err)
	}
	if _, err := Marshal((*OID)(nil)); !errors.Is(err, ErrNil) {
		t.Errorf("Marshal(nil pointer): %v", err)
	}
	if err := Unmarshal([]byte{0}, OID{}); !errors.Is(err, ErrNil) {
		t.Errorf("Unmarshal(non-pointer): %v", err)
	}
}

func TestObjects(t *testing.T) {
	var w bitstream.Writer
	if err := WriteObject(&w, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteObject(&w, (*GetClientVersionInfo)(nil)); err != nil {
		t.Fatal(err)
	}
	if err := WriteObject(&w, &GetClientVersionInfo{ClientName: "A"}); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(w.Bytes()); got != "d08041" {
		t.Fatalf("objects = %s", got)
	}
	r := bitstream.NewReader(w.Bytes())
	var v GetClientVersionInfo
	n1, err1 := ReadObject(r, &v)
	n2, err2 := ReadObject(r, &v)
	n3, err3 := ReadObject(r, &v)
	if !n1 || !n2 || n3 || errors.Join(err1, err2, err3) != nil || v.ClientName != "A" {
		t.Fatalf("ReadObject: %v %v %v %+v", n1, n2, n3, v)
	}
}

func TestEncodeAllocs(t *testing.T) {
	type Row struct {
		ID    int64
		Name  string
		X, Y  int32
		Alive bool
		Speed float32
	}
	type Msg struct {
		Rows []Row
		Ptrs []*Row
		When time.Time
		Obj  OID
	}
	m := &Msg{Rows: make([]Row, 100), Ptrs: []*Row{nil, {Name: "x"}}, When: time.Now()}
	buf := make([]byte, 0, 4096)
	if _, err := Append(buf, m); err != nil { // compile the codec
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		out, err := Append(buf[:0], m)
		if err != nil || len(out) == 0 {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Append allocates %v times per message", allocs)
	}
	var w bitstream.Writer
	allocs = testing.AllocsPerRun(100, func() {
		w.Reset(buf[:0])
		if err := WriteObject(&w, m); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("WriteObject allocates %v times per message", allocs)
	}
}

func TestConcurrentCompile(t *testing.T) {
	type Fresh struct {
		A RuleProperty
		B []Tier
	}
	done := make(chan error, 8)
	for range 8 {
		go func() {
			b, err := Marshal(&Fresh{A: RuleProperty{Name: "x"}})
			if err == nil {
				var f Fresh
				err = Unmarshal(b, &f)
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
