package bitproto

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/bitstream"
)

func TestParseFields(t *testing.T) {
	f, err := ParseFields(" bool, n:int , long,x:char*3,align ")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range f {
		got = append(got, x.String())
	}
	if strings.Join(got, ",") != "bool,n:int32,int64,x:char,x:char,x:char,align" {
		t.Fatalf("got %v", got)
	}
	for _, bad := range []string{"", "int33", "int32*0", "int32*x", "a:b:c", "int32*5000"} {
		if _, err := ParseFields(bad); err == nil {
			t.Errorf("ParseFields(%q) accepted", bad)
		}
	}
}

func TestDecodeFieldSteps(t *testing.T) {
	// svcClass = 18 after two null bits and the flags nibble: the seed's bits 16-26.
	payload := unhex(t, "20c25c046d0c0c18416d617a696e67576f726c64")
	r := bitstream.NewReader(payload)
	_ = r.Seek(8)
	v, err := DecodeField(r, Field{Name: "svcClass", Type: Int32})
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{Name: "svcClass form", Bit: 8, Len: 3, Bits: "[1][1][0]", Text: "svcClass compressed, 1 byte follows"},
		{Name: "svcClass", Bit: 11, Len: 8, Bits: "[00010010]", Text: "svcClass = 18"},
	}
	if len(v.Steps) != 2 || v.Steps[0] != want[0] || v.Steps[1] != want[1] || v.Len != 11 || v.Value != int32(18) {
		t.Fatalf("got %+v", v)
	}
	// The body string: length, one alignment bit, then the bytes.
	_ = r.Seek(52)
	v, err = DecodeField(r, Field{Name: "clientName", Type: String})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Steps) != 4 || v.Steps[2].Bit != 63 || v.Steps[2].Bits != "[0]" || v.Steps[3].Bit != 64 || v.Steps[3].Len != 96 ||
		v.Steps[3].Text != `clientName = "AmazingWorld" (12 bytes, 96 bits)` || v.Steps[3].Bits != "" {
		t.Fatalf("got %+v", v.Steps)
	}
	// Empty string: no alignment step.
	_ = r.Seek(45)
	v, _ = DecodeField(r, Field{Name: "logCorrelator", Type: String})
	if len(v.Steps) != 2 || v.Steps[1].Bit != 47 || v.Steps[1].Text != `length = 0 (empty string, no alignment)` {
		t.Fatalf("got %+v", v.Steps)
	}
	// A failed field does not move the reader.
	r = bitstream.NewReader([]byte{0xff})
	if _, err := DecodeField(r, Field{Type: Int64}); !errors.Is(err, bitstream.ErrTruncated) || r.Offset() != 0 {
		t.Fatalf("err %v at %d", err, r.Offset())
	}
}

func TestNonCanonicalAndQuirkFields(t *testing.T) {
	// 5 written in the 1-byte form: accepted and flagged.
	v, err := DecodeField(bitstream.NewReader(unhex(t, "c0a0")), Field{Type: Int32})
	if err != nil || v.Value != int32(5) || !v.NonCanonical || !strings.Contains(v.Steps[0].Text, "not the form the writer uses") {
		t.Fatalf("got %+v, %v", v, err)
	}
	b, _ := json.Marshal(v)
	if !strings.Contains(string(b), `"canonical":false`) {
		t.Errorf("JSON %s", b)
	}
	// A clamped date says so.
	v, err = DecodeField(bitstream.NewReader(unhex(t, "0000000000000000 00")), Field{Type: Date})
	if err != nil || !strings.Contains(v.Steps[1].Text, "clamped") || !v.Value.(time.Time).Equal(time.Date(1, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("got %+v, %v", v, err)
	}
}

func TestEncodeFields(t *testing.T) {
	fields, _ := ParseFields("bool,byte,int16,int32,int64,char,float32,float64,string,bytes,date,null,align,date")
	vals := []any{true, 255, -129, json.Number("566"), "9223372036854775807", "А", 1.5, -2, "AmazingWorld", "0102", "2025-01-01T00:00:00Z", false, nil}
	var w bitstream.Writer
	if err := EncodeFields(&w, fields, vals); err != nil {
		t.Fatal(err)
	}
	var want bitstream.Writer
	want.WriteBool(true)
	want.WriteByte(255)
	want.WriteInt16(-129)
	want.WriteInt32(566)
	want.WriteInt64(1<<63 - 1)
	want.WriteChar('А')
	want.WriteFloat32(1.5)
	want.WriteFloat64(-2)
	want.WriteString("AmazingWorld")
	want.WriteBytes([]byte{1, 2})
	want.WriteDate(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	want.WriteNull(false)
	want.Align()
	want.WriteDate(time.Time{})
	if hex.EncodeToString(w.Bytes()) != hex.EncodeToString(want.Bytes()) {
		t.Fatalf("got %x, want %x", w.Bytes(), want.Bytes())
	}
	// And back.
	back, err := DecodeFields(bitstream.NewReader(w.Bytes()), fields)
	if err != nil || len(back) != len(fields) || back[4].Value != int64(1<<63-1) || back[5].Value != 'А' || back[9].Text() != "[0102]" {
		t.Fatalf("back %+v, %v", back, err)
	}

	bad := []struct {
		spec string
		vals []any
	}{
		{"int16", []any{40000}},
		{"byte", []any{256}},
		{"int32", []any{1.5}},
		{"bool", []any{1}},
		{"char", []any{"ab"}},
		{"bytes", []any{"zz"}},
		{"date", []any{"yesterday"}},
		{"int32,int32", []any{1}},
	}
	for _, tc := range bad {
		f, _ := ParseFields(tc.spec)
		var w bitstream.Writer
		if err := EncodeFields(&w, f, tc.vals); err == nil {
			t.Errorf("EncodeFields(%s, %v) accepted", tc.spec, tc.vals)
		}
	}
}
