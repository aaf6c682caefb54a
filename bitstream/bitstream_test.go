package bitstream

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// intVectors are compressed integers written alone (so the hex includes the zero padding of the
// last byte): the spec's table (§3.2), the reference's own tests, and every width boundary.
var intVectors = []struct {
	width int
	v     int64
	bits  int
	hex   string
}{
	{2, 0, 6, "80"}, {2, 4, 6, "90"}, {2, 7, 6, "9c"}, {2, -4, 6, "b0"}, {2, -8, 6, "a0"}, {2, -1, 6, "bc"},
	{2, 8, 11, "c100"}, {2, 64, 11, "c800"}, {2, 127, 11, "cfe0"}, {2, -9, 11, "dee0"}, {2, -64, 11, "d800"}, {2, -128, 11, "d000"},
	{2, 128, 17, "004000"}, {2, -129, 17, "7fbf80"}, {2, 32767, 17, "3fff80"}, {2, -32768, 17, "400000"},

	{4, 0, 6, "80"}, {4, 7, 6, "9c"}, {4, -8, 6, "a0"}, {4, 8, 11, "c100"}, {4, -9, 11, "dee0"},
	{4, 127, 11, "cfe0"}, {4, -128, 11, "d000"}, {4, 128, 20, "e00800"}, {4, -129, 20, "eff7f0"},
	{4, 32767, 20, "e7fff0"}, {4, -32768, 20, "e80000"}, {4, 32768, 29, "f0040000"}, {4, -32769, 29, "f7fbfff8"},
	{4, 1<<23 - 1, 29, "f3fffff8"}, {4, -1 << 23, 29, "f4000000"}, {4, 1 << 23, 33, "0040000000"}, {4, -1<<23 - 1, 33, "7fbfffff80"},
	{4, math.MaxInt32, 33, "3fffffff80"}, {4, math.MinInt32, 33, "4000000000"},

	{8, 0, 6, "80"}, {8, -1, 6, "bc"}, {8, 128, 20, "e00800"}, {8, -129, 20, "eff7f0"},
	{8, math.MaxInt32, 38, "f9fffffffc"}, {8, math.MinInt32, 38, "fa00000000"},
	{8, 1 << 31, 47, "fc0100000000"}, {8, -1<<31 - 1, 47, "fdfefffffffe"},
	{8, 1<<39 - 1, 47, "fcfffffffffe"}, {8, -1 << 39, 47, "fd0000000000"}, {8, 1 << 39, 56, "fe008000000000"},
	{8, 1<<47 - 1, 56, "fe7fffffffffff"}, {8, -1 << 47, 56, "fe800000000000"},
	// 7-byte values are written full-width (65 bits, the same as the 7-byte form would cost).
	{8, 1 << 47, 65, "000040000000000000"}, {8, -1<<47 - 1, 65, "7fffbfffffffffff80"}, {8, 1<<55 - 1, 65, "003fffffffffffff80"},
	{8, math.MaxInt64, 65, "3fffffffffffffff80"}, {8, math.MinInt64, 65, "400000000000000000"},
}

func TestCompressedIntVectors(t *testing.T) {
	for _, tc := range intVectors {
		var w Writer
		switch tc.width {
		case 2:
			w.WriteInt16(int16(tc.v))
		case 4:
			w.WriteInt32(int32(tc.v))
		case 8:
			w.WriteInt64(tc.v)
		}
		if got := hex.EncodeToString(w.Bytes()); got != tc.hex || w.Len() != tc.bits {
			t.Errorf("write int%d %d = %s (%d bits), want %s (%d bits)", tc.width*8, tc.v, got, w.Len(), tc.hex, tc.bits)
		}
		if got := CompressedLen(tc.v, tc.width); got != tc.bits {
			t.Errorf("CompressedLen(%d, %d) = %d, want %d", tc.v, tc.width, got, tc.bits)
		}

		r := NewReader(unhex(t, tc.hex))
		var got int64
		var err error
		switch tc.width {
		case 2:
			var v int16
			v, err = r.ReadInt16()
			got = int64(v)
		case 4:
			var v int32
			v, err = r.ReadInt32()
			got = int64(v)
		case 8:
			got, err = r.ReadInt64()
		}
		if err != nil || got != tc.v || r.Offset() != tc.bits {
			t.Errorf("read int%d %s = %d at bit %d, %v; want %d at bit %d", tc.width*8, tc.hex, got, r.Offset(), err, tc.v, tc.bits)
		}

		r = NewReader(unhex(t, tc.hex))
		v, form, err := r.ReadCompressed(tc.width)
		if err != nil || v != tc.v || form.Len() != tc.bits || !form.Canonical(v) {
			t.Errorf("ReadCompressed(%d) %s = %d %+v %v", tc.width, tc.hex, v, form, err)
		}
	}
}

// TestCompressedIntUnaligned writes each vector after 0..7 leading bits and after a long prefix,
// so that every fast and slow reader path sees every bit phase.
func TestCompressedIntUnaligned(t *testing.T) {
	for lead := range 12 {
		var w Writer
		for i := range lead {
			w.WriteBool(i%2 == 0)
		}
		for _, tc := range intVectors {
			w.WriteCompressed(tc.v, tc.width)
			w.WriteBool(true)
		}
		r := NewReader(w.Bytes())
		for i := range lead {
			if b, _ := r.ReadBool(); b != (i%2 == 0) {
				t.Fatalf("lead %d: bit %d wrong", lead, i)
			}
		}
		for _, tc := range intVectors {
			start := r.Offset()
			var got int64
			var err error
			switch tc.width {
			case 2:
				var v int16
				v, err = r.ReadInt16()
				got = int64(v)
			case 4:
				var v int32
				v, err = r.ReadInt32()
				got = int64(v)
			case 8:
				got, err = r.ReadInt64()
			}
			if err != nil || got != tc.v || r.Offset()-start != tc.bits {
				t.Fatalf("lead %d: int%d %d read as %d (%d bits), %v", lead, tc.width*8, tc.v, got, r.Offset()-start, err)
			}
			if b, err := r.ReadBool(); !b || err != nil {
				t.Fatalf("lead %d: marker after %d lost", lead, tc.v)
			}
		}
		if r.Remaining() >= 8 {
			t.Fatalf("lead %d: %d bits left", lead, r.Remaining())
		}
	}
}

// TestReaderQuirks pins the forms the reference reader accepts but no writer produces.
func TestReaderQuirks(t *testing.T) {
	tests := []struct {
		name  string
		width int
		hex   string
		want  int64
		bits  int
	}{
		{"5 as 1-byte form", 4, "c0a0", 5, 11},
		{"5 as 2-byte form", 4, "e00050", 5, 20},
		{"5 as full int32", 4, "0000000280", 5, 33},
		{"5 as full int16", 2, "000280", 5, 17},
		{"int16 unterminated count run 1 11 + 2 bytes", 2, "e000a0", 5, 19},
		{"int32 unterminated count run 1 1111 + 4 bytes", 4, "f800000028", 5, 37},
		{"-1 as 1-byte form", 4, "dfe0", -1, 11},
		{"positive 7-byte int64 reads correctly", 8, "ff3fffffffffffff80", 1<<55 - 1, 65},
		{"7-byte 5", 8, "ff0000000000000280", 5, 65},
		// The reference ORs in -1<<47 instead of -1<<55 for the 7-byte form.
		{"7-byte -2^55 reads as -2^47", 8, "ff4000000000000000", -1 << 47, 65},
		{"7-byte -2^47-1 reads as -1", 8, "ff7fbfffffffffff80", -1, 65},
		{"int64 unterminated count run of 8", 8, "ff800000000000000280", 5, 73},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(unhex(t, tc.hex))
			v, form, err := r.ReadCompressed(tc.width)
			if err != nil || v != tc.want || form.Len() != tc.bits {
				t.Fatalf("got %d %+v %v, want %d in %d bits", v, form, err, tc.want, tc.bits)
			}
			if form.Canonical(v) {
				t.Errorf("form %+v reported canonical", form)
			}
			// The fast path must agree with the form reader.
			r = NewReader(unhex(t, tc.hex))
			got, err := r.readCompressed(uint(tc.width), "test")
			if tc.width == 2 {
				got = int64(int16(got))
			}
			if err != nil || got != tc.want || r.Offset() != tc.bits {
				t.Fatalf("fast path: %d at %d, %v", got, r.Offset(), err)
			}
		})
	}
}

func TestCharVectors(t *testing.T) {
	tests := []struct {
		in   rune
		hex  string
		back rune
	}{
		{'A', "c820", 'A'}, {'B', "c840", 'B'}, {'А', "020800", 'А'}, {'Б', "020880", 'Б'}, {'В', "020900", 'В'},
		{0, "80", 0}, {0x7fff, "3fff80", 0x7fff},
		// From U+8000 on, chars are written full-width and read back negative.
		{0xE000, "700000", -8192}, {0xFFFF, "7fff80", -1},
		// Above U+FFFF only the low 16 bits are written; the form is chosen from the full value.
		{0x1F600, "7b0000", -2560}, {0x1FFFF, "7fff80", -1},
	}
	for _, tc := range tests {
		var w Writer
		w.WriteChar(tc.in)
		if got := hex.EncodeToString(w.Bytes()); got != tc.hex {
			t.Errorf("WriteChar(%U) = %s, want %s", tc.in, got, tc.hex)
		}
		got, err := NewReader(unhex(t, tc.hex)).ReadChar()
		if err != nil || got != tc.back {
			t.Errorf("ReadChar(%s) = %d, %v; want %d", tc.hex, got, err, tc.back)
		}
	}
}

func TestFloatVectors(t *testing.T) {
	f32 := []struct {
		v   float32
		hex string
	}{{0, "00000000"}, {1, "3f800000"}, {1.2, "3f99999a"}, {1.2345, "3f9e0419"}, {12345.12345, "4640e47e"}, {-12345.12345, "c640e47e"}}
	for _, tc := range f32 {
		var w Writer
		w.WriteFloat32(tc.v)
		if got := hex.EncodeToString(w.Bytes()); got != tc.hex {
			t.Errorf("WriteFloat32(%v) = %s, want %s", tc.v, got, tc.hex)
		}
		if got, err := NewReader(unhex(t, tc.hex)).ReadFloat32(); err != nil || got != tc.v {
			t.Errorf("ReadFloat32(%s) = %v, %v", tc.hex, got, err)
		}
	}
	f64 := []struct {
		v   float64
		hex string
	}{{0, "0000000000000000"}, {1, "3ff0000000000000"}, {1.2, "3ff3333333333333"}, {12345.12345, "40c81c8fcd35a858"}, {-12345.12345, "c0c81c8fcd35a858"}}
	for _, tc := range f64 {
		var w Writer
		w.WriteFloat64(tc.v)
		if got := hex.EncodeToString(w.Bytes()); got != tc.hex {
			t.Errorf("WriteFloat64(%v) = %s, want %s", tc.v, got, tc.hex)
		}
		if got, err := NewReader(unhex(t, tc.hex)).ReadFloat64(); err != nil || got != tc.v {
			t.Errorf("ReadFloat64(%s) = %v, %v", tc.hex, got, err)
		}
	}
	// Unaligned, and NaN payloads pass through unchanged.
	var w Writer
	w.WriteBool(true)
	w.WriteFloat32(1)
	if got := hex.EncodeToString(w.Bytes()); got != "9fc0000000" {
		t.Errorf("bool,1.0f = %s, want 9fc0000000", got)
	}
	nan := math.Float64frombits(0x7ff8_0000_dead_beef)
	w.WriteFloat64(nan)
	b := w.Bytes()
	r := NewReader(b)
	r.TryBool()
	if f := r.TryFloat32(); f != 1 {
		t.Errorf("float32 = %v", f)
	}
	if f := r.TryFloat64(); math.Float64bits(f) != 0x7ff8_0000_dead_beef || r.Err() != nil {
		t.Errorf("NaN payload = %#x, %v", math.Float64bits(f), r.Err())
	}
}

func TestMixedVectors(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *Writer)
		hex   string
		bits  int
	}{
		{"true", func(w *Writer) { w.WriteBool(true) }, "80", 1},
		{"false", func(w *Writer) { w.WriteBool(false) }, "00", 1},
		{"nothing", func(w *Writer) {}, "", 0},
		{"bool,byte ab", func(w *Writer) { w.WriteBool(true); w.WriteByte(0xab) }, "d580", 9},
		{"AmazingWorld", func(w *Writer) { w.WriteString("AmazingWorld") }, "c180416d617a696e67576f726c64", 112},
		{"AmazingWorld bytes", func(w *Writer) { w.WriteBytes([]byte("AmazingWorld")) }, "c180416d617a696e67576f726c64", 112},
		{"true,\"\",true: empty strings do not align", func(w *Writer) { w.WriteBool(true); w.WriteString(""); w.WriteBool(true) }, "c1", 8},
		{"true,\"A\",true", func(w *Writer) { w.WriteBool(true); w.WriteString("A"); w.WriteBool(true) }, "c24180", 17},
		{"nil bytes", func(w *Writer) { w.WriteBytes(nil) }, "80", 6},
		{"null object", func(w *Writer) { w.WriteNull(true) }, "80", 1},
		{"Null[int64](5)", func(w *Writer) { w.WriteNull(false); w.WriteInt64(5) }, "4a", 7},
		{"nil slice", func(w *Writer) { w.WriteCount(-1) }, "bc", 6},
		{"empty slice", func(w *Writer) { w.WriteCount(0) }, "80", 6},
		{"align", func(w *Writer) { w.WriteBool(true); w.Align(); w.WriteBool(true) }, "8080", 9},
		{"aligned block", func(w *Writer) { w.WriteBool(true); w.WriteAligned([]byte{1, 2}) }, "800102", 24},
		{"raw unaligned", func(w *Writer) { w.WriteBool(true); w.WriteRaw([]byte{0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff}) }, "ff807f807f807f807f80", 73},
		{"64 bits", func(w *Writer) { w.WriteBits(0x0123456789abcdef, 64) }, "0123456789abcdef", 64},
		{"bits across the accumulator", func(w *Writer) {
			w.WriteBits(0x7f, 7)
			w.WriteBits(0x0123456789abcdef, 64)
			w.WriteBits(1, 1)
		}, "fe02468acf13579bdf", 72},
	}
	for _, tc := range tests {
		var w Writer
		tc.write(&w)
		if got := hex.EncodeToString(w.Bytes()); got != tc.hex || w.Len() != tc.bits || w.Err() != nil {
			t.Errorf("%s: got %s (%d bits, %v), want %s (%d bits)", tc.name, got, w.Len(), w.Err(), tc.hex, tc.bits)
		}
	}
}

func TestStringRead(t *testing.T) {
	r := NewReader(unhex(t, "c24180"))
	if b, _ := r.ReadBool(); !b {
		t.Fatal("bool")
	}
	s, err := r.ReadString()
	if err != nil || s != "A" || r.Offset() != 16 {
		t.Fatalf("ReadString = %q at %d, %v", s, r.Offset(), err)
	}
	// Empty: the length alone, no alignment.
	r = NewReader(unhex(t, "c1"))
	r.TryBool()
	if s := r.TryString(); s != "" || r.Offset() != 7 || !r.TryBool() || r.Err() != nil {
		t.Fatalf("empty string: %q at %d, %v", s, r.Offset(), r.Err())
	}
	// ReadBytes: length 0 gives nil, as in the reference; -1 too.
	for _, h := range []string{"80", "bc"} {
		b, err := NewReader(unhex(t, h)).ReadBytes()
		if b != nil || err != nil {
			t.Errorf("ReadBytes(%s) = %#v, %v; want nil", h, b, err)
		}
	}
	// -1 is read as the empty string (a nil string) and does not align.
	r = NewReader(unhex(t, "bc"))
	if s, err := r.ReadString(); s != "" || err != nil || r.Offset() != 6 {
		t.Errorf("ReadString(-1) = %q at %d, %v", s, r.Offset(), err)
	}
	// ReadBytes copies; ReadBytesView aliases.
	in := unhex(t, "c180416d617a696e67576f726c64")
	b, _ := NewReader(in).ReadBytes()
	v, _ := NewReader(in).ReadBytesView()
	in[2] = 'a'
	if string(b) != "AmazingWorld" || string(v) != "amazingWorld" {
		t.Errorf("copy %q, view %q", b, v)
	}
}

func TestDates(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
		hex  string
	}{
		{"zero time is null", time.Time{}, "80"},
		{"1970", time.Unix(0, 0), "000000073c9359c000"},
		{"2021-07-24 (reference test)", time.Date(2021, 7, 24, 0, 0, 0, 0, time.UTC), "000000076d1105c000"},
		{"2025-01-01 (reference test)", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), "00000007704d9c8000"},
		{"0001-03-01, wire 31 622 400", time.Date(1, 3, 1, 0, 0, 0, 0, time.UTC), "0000000000f1428000"},
	}
	for _, tc := range tests {
		var w Writer
		w.WriteDate(tc.t)
		if got := hex.EncodeToString(w.Bytes()); got != tc.hex {
			t.Errorf("%s: WriteDate = %s, want %s", tc.name, got, tc.hex)
		}
		got, err := NewReader(unhex(t, tc.hex)).ReadDate()
		if err != nil || !got.Equal(tc.t) || (!got.IsZero() && got.Location() != time.UTC) {
			t.Errorf("%s: ReadDate(%s) = %v, %v", tc.name, tc.hex, got, err)
		}
	}
	if got := DateToWire(time.Unix(0, 0)); got != 62_162_121_600 {
		t.Errorf("DateToWire(1970) = %d", got)
	}

	// Sub-second precision is floored; the zone does not matter.
	cases := []struct {
		in   time.Time
		wire int64
	}{
		{time.Unix(0, 999_999_999), 62_162_121_600},
		{time.Unix(-1, 500_000_000), 62_162_121_599}, // 1969-12-31T23:59:59.5Z floors to -1
		{time.Date(1970, 1, 1, 2, 0, 0, 0, time.FixedZone("+02", 7200)), 62_162_121_600},
	}
	for _, c := range cases {
		var w Writer
		w.WriteDate(c.in)
		r := NewReader(w.Bytes())
		r.TryBool()
		if got := int64(r.TryBits(64)); got != c.wire {
			t.Errorf("WriteDate(%v) wire %d, want %d", c.in, got, c.wire)
		}
	}

	// Clamping on read: everything below 31 622 400 reads as 0001-03-01.
	clamp := time.Date(1, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, wire := range []int64{0, 1, 31_622_399, -5, math.MinInt64 + 31_622_400} {
		if got := DateFromWire(wire); !got.Equal(clamp) {
			t.Errorf("DateFromWire(%d) = %v, want %v", wire, got, clamp)
		}
	}
	if got := DateFromWire(31_622_401); !got.Equal(clamp.Add(time.Second)) {
		t.Errorf("DateFromWire(31622401) = %v", got)
	}
	// 0001-01-01T00:00:01Z is not the zero time, so it is written, and it reads back clamped.
	var w Writer
	w.WriteDate(time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC))
	if got, _ := NewReader(w.Bytes()).ReadDate(); !got.Equal(clamp) {
		t.Errorf("0001-01-01T00:00:01 read back as %v", got)
	}
	// The reference's int64 arithmetic wraps for wire values near MinInt64.
	if got := DateFromWire(math.MinInt64); got.Unix() != math.MaxInt64-62_162_121_599 {
		t.Errorf("DateFromWire(MinInt64) = %d", got.Unix())
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		read func(r *Reader) error
		want error
		off  int
	}{
		{"bool on empty", "", func(r *Reader) error { _, err := r.ReadBool(); return err }, ErrTruncated, 0},
		{"int32 count run cut", "ff", func(r *Reader) error { _, err := r.ReadInt32(); return err }, ErrTruncated, 0},
		{"int32 value cut", "e0", func(r *Reader) error { _, err := r.ReadInt32(); return err }, ErrTruncated, 0},
		{"full int64 cut", "0000000000000000", func(r *Reader) error { _, err := r.ReadInt64(); return err }, ErrTruncated, 0},
		{"float32 cut", "000000", func(r *Reader) error { _, err := r.ReadFloat32(); return err }, ErrTruncated, 0},
		{"string data cut", "c18041", func(r *Reader) error { _, err := r.ReadString(); return err }, ErrTooLong, 0},
		{"string length -2", "b8", func(r *Reader) error { _, err := r.ReadString(); return err }, ErrNegativeLength, 0},
		{"huge string length", "3fffffff80", func(r *Reader) error { _, err := r.ReadBytes(); return err }, ErrTooLong, 0},
		{"count -5", "ac", func(r *Reader) error { _, err := r.ReadCount(); return err }, ErrNegativeLength, 0},
		{"count beyond bits", "e00800", func(r *Reader) error { _, err := r.ReadCount(); return err }, ErrTooLong, 0},
		{"date cut", "00", func(r *Reader) error { _, err := r.ReadDate(); return err }, ErrTruncated, 0},
		{"bits 65", "00", func(r *Reader) error { _, err := r.ReadBits(65); return err }, ErrInvalidWidth, 0},
		{"width 3", "00", func(r *Reader) error { _, _, err := r.ReadCompressed(3); return err }, ErrInvalidWidth, 0},
		{"raw cut", "00", func(r *Reader) error { return r.ReadRaw(make([]byte, 2)) }, ErrTruncated, 0},
		{"seek past end", "00", func(r *Reader) error { return r.Seek(9) }, ErrOffset, 0},
		{"skip past end", "00", func(r *Reader) error { return r.Skip(9) }, ErrTruncated, 0},
		{"offset after prefix", "8000", func(r *Reader) error {
			r.TryBool()
			_, err := r.ReadInt32()
			return err
		}, ErrTruncated, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := hex.DecodeString(tc.hex)
			r := NewReader(in)
			err := tc.read(r)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var e *DecodeError
			if !errors.As(err, &e) || e.BitOffset != int64(tc.off) || e.Offset != int64(tc.off/8) {
				t.Fatalf("err = %#v, want *DecodeError at bit %d", err, tc.off)
			}
			if r.Offset() != tc.off {
				t.Errorf("a failed read moved the reader to %d", r.Offset())
			}
		})
	}
}

func TestTrySticky(t *testing.T) {
	r := NewReader(unhex(t, "9c"))
	if v := r.TryInt32(); v != 7 {
		t.Fatalf("TryInt32 = %d", v)
	}
	if v := r.TryInt32(); v != 0 || r.Err() == nil {
		t.Fatalf("second TryInt32 = %d, %v", v, r.Err())
	}
	first := r.Err()
	if r.TryBool() || r.TryString() != "" || r.TryCount() != -1 || !r.TryNull() || r.Err() != first {
		t.Fatal("Try methods after an error must return zero values and keep the first error")
	}
	// ReadX ignores the sticky error.
	r.Reset(unhex(t, "80"))
	if r.Err() != nil {
		t.Fatal("Reset keeps the error")
	}
}

func TestWriterErrors(t *testing.T) {
	var w Writer
	w.WriteBool(true)
	w.WriteCount(-2)
	w.WriteCount(0)
	if !errors.Is(w.Err(), ErrNegativeLength) || hex.EncodeToString(w.Bytes()) != "c0" {
		t.Errorf("WriteCount(-2): %v, %x", w.Err(), w.Bytes())
	}
	var e *EncodeError
	if !errors.As(w.Err(), &e) || e.BitOffset != 1 {
		t.Errorf("error %v", w.Err())
	}
	w.Reset(nil)
	w.WriteBits(0, 65)
	if !errors.Is(w.Err(), ErrInvalidWidth) || w.Len() != 0 {
		t.Errorf("WriteBits(65): %v", w.Err())
	}
	w.Reset(nil)
	w.WriteCompressed(1, 3)
	if !errors.Is(w.Err(), ErrInvalidWidth) {
		t.Errorf("WriteCompressed(width 3): %v", w.Err())
	}
	w.Reset(nil)
	w.WriteBitsFrom([]byte{1}, 4, 5)
	if !errors.Is(w.Err(), ErrOffset) {
		t.Errorf("WriteBitsFrom out of range: %v", w.Err())
	}
}

func TestWriterAppendsToCallerBuffer(t *testing.T) {
	buf := make([]byte, 2, 64)
	buf[0], buf[1] = 0xaa, 0xbb
	var w Writer
	w.Reset(buf)
	w.WriteBool(true)
	if w.Len() != 1 {
		t.Fatalf("Len = %d", w.Len())
	}
	out := w.Bytes()
	if hex.EncodeToString(out) != "aabb80" || &out[0] != &buf[0] {
		t.Fatalf("Bytes = %x", out)
	}
	// Bytes can be called in the middle: later writes continue the same stream.
	w.WriteBits(0x7f, 7)
	w.WriteInt32(566)
	if got := hex.EncodeToString(w.Bytes()); got != "aabbffe02360" {
		t.Fatalf("continued = %s", got)
	}
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset(buf[:0])
		w.WriteInt32(566)
		w.WriteString("AmazingWorld")
		w.WriteDate(time.Unix(1, 0))
		_ = w.Bytes()
	})
	if allocs != 0 {
		t.Errorf("writing into a large enough buffer allocates %v times", allocs)
	}
}

func TestWriteBitsFrom(t *testing.T) {
	src := unhex(t, "c180416d617a696e67576f726c64")
	for lead := range 9 {
		for off := 0; off < 16; off++ {
			n := len(src)*8 - off
			var w Writer
			w.WriteBits(0, lead)
			w.WriteBitsFrom(src, off, n)
			r := NewReader(w.Bytes())
			r.Skip(lead)
			for i := range n {
				got, _ := r.ReadBool()
				want := src[(off+i)>>3]&(0x80>>((off+i)&7)) != 0
				if got != want {
					t.Fatalf("lead %d off %d: bit %d differs", lead, off, i)
				}
			}
		}
	}
}

// TestRoundTripRandom writes random values of every primitive in random order and reads them
// back.
func TestRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randInt := func() int64 {
		// Spread over every width: a random number of significant bits, random sign.
		v := int64(rng.Uint64() >> rng.IntN(64))
		if rng.IntN(2) == 0 {
			v = ^v
		}
		return v
	}
	type item struct {
		kind int
		i    int64
		f    float64
		s    string
	}
	for round := range 200 {
		var items []item
		var w Writer
		for range rng.IntN(60) {
			it := item{kind: rng.IntN(10), i: randInt(), f: rng.NormFloat64()}
			switch it.kind {
			case 0:
				w.WriteBool(it.i&1 == 1)
			case 1:
				w.WriteByte(byte(it.i))
			case 2:
				w.WriteInt16(int16(it.i))
			case 3:
				w.WriteInt32(int32(it.i))
			case 4:
				w.WriteInt64(it.i)
			case 5:
				w.WriteFloat32(float32(it.f))
			case 6:
				w.WriteFloat64(it.f)
			case 7:
				it.s = strings.Repeat("x", rng.IntN(20))
				w.WriteString(it.s)
			case 8:
				it.i &= 0x7fff_ffff_ffff // within time's comfortable range
				w.WriteDate(time.Unix(it.i, 0))
			case 9:
				w.WriteBits(uint64(it.i), int(uint64(it.i)%65))
			}
			items = append(items, it)
		}
		r := NewReader(w.Bytes())
		for i, it := range items {
			ok := true
			switch it.kind {
			case 0:
				ok = r.TryBool() == (it.i&1 == 1)
			case 1:
				ok = r.TryByte() == byte(it.i)
			case 2:
				ok = r.TryInt16() == int16(it.i)
			case 3:
				ok = r.TryInt32() == int32(it.i)
			case 4:
				ok = r.TryInt64() == it.i
			case 5:
				ok = r.TryFloat32() == float32(it.f)
			case 6:
				ok = r.TryFloat64() == it.f
			case 7:
				ok = r.TryString() == it.s
			case 8:
				ok = r.TryDate().Unix() == max(it.i, -62_130_499_200)
			case 9:
				n := int(uint64(it.i) % 65)
				mask := ^uint64(0) >> (64 - n)
				if n == 0 {
					mask = 0
				}
				ok = r.TryBits(n) == uint64(it.i)&mask
			}
			if !ok || r.Err() != nil {
				t.Fatalf("round %d item %d (kind %d, %d): mismatch, %v", round, i, it.kind, it.i, r.Err())
			}
		}
		if r.Remaining() >= 8 {
			t.Fatalf("round %d: %d bits left", round, r.Remaining())
		}
	}
}

func TestSlicesAndMaps(t *testing.T) {
	writeStr := func(w *Writer, s string) { w.WriteString(s) }
	readStr := func(r *Reader) (string, error) { return r.ReadString() }
	var w Writer
	WriteSlice(&w, []string(nil), writeStr)
	WriteSlice(&w, []string{}, writeStr)
	WriteSlice(&w, []string{"a", ""}, writeStr)
	WriteMap(&w, map[string]string{"b": "2", "a": "1"}, writeStr)
	WriteMap(&w, map[string]string(nil), writeStr)
	r := NewReader(w.Bytes())
	s1, err1 := ReadSlice(r, 6, readStr)
	s2, err2 := ReadSlice(r, 6, readStr)
	s3, err3 := ReadSlice(r, 6, readStr)
	m1, err4 := ReadMap(r, 6, readStr)
	m2, err5 := ReadMap(r, 6, readStr)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		t.Fatal(err)
	}
	if s1 != nil || s2 == nil || len(s2) != 0 || len(s3) != 2 || s3[0] != "a" || m1["a"] != "1" || m1["b"] != "2" || m2 != nil {
		t.Fatalf("got %#v %#v %#v %#v %#v", s1, s2, s3, m1, m2)
	}
	// Sorted keys: "a" is written before "b".
	w.Reset(nil)
	WriteMap(&w, map[string]string{"b": "", "a": ""}, writeStr)
	if got := hex.EncodeToString(w.Bytes()); got != "8a106182106280" {
		t.Errorf("map bytes %s", got)
	}
	// A count of 10 six-bit strings does not fit in the 13 bits left.
	r = NewReader(unhex(t, "c140 00 00"))
	if _, err := ReadSlice(r, 6, readStr); !errors.Is(err, ErrTooLong) || r.Offset() != 0 {
		t.Errorf("oversized count: %v", err)
	}
	// A count of 2 one-bit elements fits in the 2 bits left, but 2-bit elements do not.
	r = NewReader(unhex(t, "88"))
	if _, err := ReadSlice(r, 1, func(r *Reader) (uint64, error) { return r.ReadBits(2) }); !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated elements: %v", err)
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := NewReader(unhex(t, "c18041")).ReadString()
	want := "bitstream: at bit 0: reading a string: length exceeds the remaining input: 12 bytes, 1 left"
	if err == nil || err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestReadAlignedAndRaw(t *testing.T) {
	r := NewReader([]byte{0x80, 1, 2, 3})
	r.TryBool()
	b, err := r.ReadAligned(2)
	if err != nil || !bytes.Equal(b, []byte{1, 2}) || r.Offset() != 24 {
		t.Fatalf("ReadAligned = %x at %d, %v", b, r.Offset(), err)
	}
	if _, err := r.ReadAligned(2); !errors.Is(err, ErrTooLong) {
		t.Fatalf("ReadAligned past end: %v", err)
	}
	r = NewReader([]byte{0xff, 0x80, 0x7f})
	r.TryBool()
	p := make([]byte, 2)
	if err := r.ReadRaw(p); err != nil || !bytes.Equal(p, []byte{0xff, 0x00}) {
		t.Fatalf("ReadRaw = %x, %v", p, err)
	}
	if pad := r.Align(); pad != 7 || r.Offset() != 24 {
		t.Fatalf("Align = %d at %d", pad, r.Offset())
	}
}
