package godot

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// decodeErr decodes data, requires a *DecodeError wrapping want at offset, and returns it.
func decodeErr(t *testing.T, o DecodeOptions, data []byte, want error, offset int) *DecodeError {
	t.Helper()
	v, n, err := dm(o).Decode(data)
	if err == nil {
		t.Fatalf("decode %x: got %#v (%d bytes), want error %v", data, v, n, want)
	}
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("decode %x: error %T %v is not a *DecodeError", data, err, err)
	}
	if !errors.Is(err, want) {
		t.Fatalf("decode %x: error %v, want %v", data, err, want)
	}
	if offset >= 0 && de.Offset != int64(offset) {
		t.Errorf("decode %x: error at offset %d, want %d (%v)", data, de.Offset, offset, err)
	}
	if !strings.HasPrefix(err.Error(), "godot: ") {
		t.Errorf("error text %q lacks the package prefix", err)
	}
	return de
}

func TestHostileErrors(t *testing.T) {
	g3 := DecodeOptions{Dialect: Godot3}
	g4 := DecodeOptions{Dialect: Godot4}
	tests := []struct {
		name   string
		o      DecodeOptions
		hex    string
		want   error
		offset int
	}{
		{"empty", g3, "", ErrTruncated, 0},
		{"short header", g3, "020000", ErrTruncated, 0},
		{"unknown type 27 in Godot 3", g3, "1b000000", ErrUnknownType, 0},
		{"unknown type 39 in Godot 4", g4, "27000000", ErrUnknownType, 0},
		{"type 0xff", g4, "ff000000", ErrUnknownType, 0},
		{"int truncated", g3, "02000000 0100", ErrTruncated, 4},
		{"int64 truncated", g3, "02000100 01000000", ErrTruncated, 4},
		{"float64 truncated", g3, "03000100 00000000", ErrTruncated, 4},
		{"Vector3 truncated", g3, "07000000 0000803f 0000803f", ErrTruncated, 4},
		{"Color truncated", g4, "14000000 00000000", ErrTruncated, 4},
		{"string length past the end", g3, "04000000 64000000 61626364", ErrTruncated, 4},
		{"string without its padding", g3, "04000000 01000000 61", ErrTruncated, 4},
		{"string length negative", g3, "04000000 ffffffff", ErrNegativeLength, 4},
		{"string invalid UTF-8 (3)", g3, "04000000 01000000 ff000000", ErrInvalidUTF8, 8},
		{"string lone continuation (3)", g3, "04000000 01000000 80000000", ErrInvalidUTF8, 8},
		{"string 2-byte overlong (3)", g3, "04000000 02000000 c0af0000", ErrInvalidUTF8, 8},
		{"string truncated sequence (3)", g3, "04000000 02000000 e0a00000", ErrInvalidUTF8, 8},
		{"string surrogate (4)", g4, "04000000 03000000 eda08000", ErrInvalidUTF8, 8},
		{"string overlong (4)", g4, "04000000 03000000 e080af00", ErrInvalidUTF8, 8},
		{"string above U+10FFFF (4)", g4, "04000000 04000000 f4908080", ErrInvalidUTF8, 8},
		{"Array count 2^31-1 in 12 bytes: fails at the missing second element", g3, "13000000 ffffff7f 00000000", ErrTruncated, 12},
		{"Array count 2^31 (bit 31 ignored) then nothing", g3, "13000000 01000080", ErrTruncated, 8},
		{"Dictionary count past the end: fails at the missing value", g3, "12000000 05000000 00000000", ErrTruncated, 12},
		{"Dictionary value missing", g3, "12000000 01000000 00000000", ErrTruncated, 12},
		{"PoolByteArray count past the end", g3, "14000000 10000000 0102", ErrTruncated, 4},
		{"PoolByteArray count negative", g3, "14000000 feffffff", ErrNegativeLength, 4},
		{"PoolIntArray count negative", g3, "15000000 ffffffff", ErrNegativeLength, 4},
		{"PoolIntArray count 2^30 overflows int32 bytes", g3, "15000000 00000040 00000000", ErrTruncated, 4},
		{"PoolVector3Array count past the end", g3, "19000000 02000000 00000000 00000000 00000000", ErrTruncated, 4},
		{"PoolStringArray element truncated", g3, "17000000 02000000 01000000 00000000", ErrTruncated, 16},
		{"PoolStringArray claims 2^31-1 strings", g3, "17000000 ffffff7f", ErrTruncated, 8},
		{"NodePath old format", g3, "0f000000 01000000 61000000", ErrOldNodePath, 4},
		{"NodePath short", g3, "0f000000 00000080 00000000", ErrTruncated, 4},
		{"NodePath name missing", g3, "0f000000 01000080 00000000 00000000", ErrTruncated, 16},
		{"NodePath huge name count", g3, "0f000000 ffffffff 00000000 00000000", ErrTruncated, 16},
		{"full object not allowed", g3, "11000000 00000000", ErrObjectsNotAllowed, 4},
		{"object id truncated", g3, "11000100 01000000", ErrTruncated, 4},
		{"typed Array builtin type out of range", g4, "1c000100 27000000 00000000", ErrContainerType, 4},
		{"typed Array class name truncated", g4, "1c000200 10000000 4e6f6465", ErrTruncated, 4},
		{"typed Dictionary value type out of range", g4, "1b000500 02000000 ff000000 00000000", ErrContainerType, 8},
		{"Signal id truncated", g4, "1a000000 01000000 73000000 0500", ErrTruncated, 12},
		{"RID truncated (4)", g4, "17000000 0d000000", ErrTruncated, 4},
		{"element error inside an Array", g3, "13000000 02000000 02000000 01000000 04000000 05000000", ErrTruncated, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decodeErr(t, tt.o, unhex(t, tt.hex), tt.want, tt.offset)
		})
	}
}

func TestErrorPath(t *testing.T) {
	// [ {"tags": ["ok", <truncated string>]} ]
	data := unhex(t, "13000000 01000000 12000000 01000000 04000000 04000000 74616773 13000000 02000000 04000000 02000000 6f6b0000 04000000 09000000")
	de := decodeErr(t, DecodeOptions{Dialect: Godot3}, data, ErrTruncated, 52)
	if de.Path != `[0]["tags"][1]` {
		t.Errorf("path %q", de.Path)
	}
	if !de.HasType || de.Type != TypeString {
		t.Errorf("type %v", de.Type)
	}
	if got := de.Error(); !strings.Contains(got, "at byte 52") || !strings.Contains(got, `[0]["tags"][1]`) {
		t.Errorf("message %q", got)
	}
}

// The engine's own leniencies (godot3-engine.md, facts 20–29) are kept.
func TestLenient(t *testing.T) {
	g3 := DecodeOptions{Dialect: Godot3}
	tests := []struct {
		name string
		o    DecodeOptions
		in   string
		want string // the re-encoding
		n    int    // bytes consumed
	}{
		{"trailing bytes ignored", g3, "00000000 deadbeef", "00000000", 4},
		{"bool 2 is true", g3, "01000000 02000000", "01000000 01000000", 8},
		{"int64 holding 1", g3, "02000100 01000000 00000000", "02000000 01000000", 12},
		{"double holding 1.0", g3, "03000100 00000000 0000f03f", "03000000 0000803f", 12},
		{"flag bits on Vector2 ignored in 3", g3, "05000100 0000803f 00000040", "05000000 0000803f 00000040", 12},
		{"high header bits ignored", g3, "000000ff", "00000000", 4},
		{"byte 1 ignored", g3, "00010000", "00000000", 4},
		{"PoolByteArray without padding", g3, "14000000 01000000 ff", "14000000 01000000 ff000000", 9},
		{"PoolStringArray count -1", g3, "17000000 ffffffff", "17000000 00000000", 8},
		{"PoolStringArray element without NUL", g3, "17000000 01000000 02000000 61620000", "17000000 01000000 03000000 61620000", 16},
		{"Array count bit 31", g3, "13000000 01000080 00000000", "13000000 01000000 00000000", 12},
		{"duplicate keys: last wins in place", g3,
			"12000000 03000000 04000000 01000000 61000000 02000000 01000000 04000000 01000000 62000000 02000000 02000000 04000000 01000000 61000000 02000000 03000000",
			"12000000 02000000 04000000 01000000 61000000 02000000 03000000 04000000 01000000 62000000 02000000 02000000", 68},
		{"int 1 and float 1.0 are different keys", g3,
			"12000000 02000000 02000000 01000000 00000000 03000000 0000803f 00000000",
			"12000000 02000000 02000000 01000000 00000000 03000000 0000803f 00000000", 32},
		{"3-byte overlong accepted by Godot 3", g3, "04000000 03000000 e080af00", "04000000 01000000 2f000000", 12},
		{"CESU surrogate accepted by Godot 3", g3, "04000000 03000000 eda08000", "04000000 03000000 eda08000", 12},
		{"BOM dropped", g3, "04000000 04000000 efbbbf61", "04000000 01000000 61000000", 12},
		{"NUL truncates", g3, "04000000 03000000 61006200", "04000000 01000000 61000000", 12},
		{"NodePath property flag adds a subname", g3,
			"0f000000 01000080 00000000 02000000 01000000 61000000 01000000 62000000",
			"0f000000 01000080 01000000 00000000 01000000 61000000 01000000 62000000", 32},
		{"absolute empty NodePath loses the flag", g3, "0f000000 00000080 00000000 01000000", "0f000000 00000080 00000000 00000000", 16},
		{"null object as id decodes as nil", g3, "11000100 00000000 00000000", "00000000", 12},
		{"RID ignores a 4.x id (trailing)", g3, "10000000 0d000000 00000000", "10000000", 4},
		{"signalling float32 NaN is quieted", g3, "03000000 0100807f", "03000100 00000020 0000f87f", 8},
		{"Object property count negative", DecodeOptions{Dialect: Godot3, AllowObjects: true},
			"11000000 04000000 4e6f6465 ffffffff", "11000000 04000000 4e6f6465 00000000", 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, n, err := dm(tt.o).Decode(unhex(t, tt.in))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if n != tt.n {
				t.Errorf("consumed %d bytes, want %d", n, tt.n)
			}
			got, err := em(EncodeOptions{Dialect: tt.o.Dialect}).Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if want := unhex(t, tt.want); !bytes.Equal(got, want) {
				t.Errorf("re-encoded\n got %x\nwant %x", got, want)
			}
		})
	}
}

func TestLegacyNodePath(t *testing.T) {
	data := unhex(t, "0f000000 07000000 2f612f623a630000")
	decodeErr(t, DecodeOptions{Dialect: Godot3}, data, ErrOldNodePath, 4)
	v, _, err := dm(DecodeOptions{Dialect: Godot3, LegacyNodePath: true}).Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	want := NodePath{Names: []string{"a", "b"}, SubNames: []string{"c"}, Absolute: true}
	if !valuesEqual(v, want) {
		t.Errorf("got %#v, want %#v", v, want)
	}
}

// nested returns k Arrays nested in each other, the innermost empty.
func nested(k int, id byte) []byte {
	b := make([]byte, 0, 8*k)
	for i := 0; i < k; i++ {
		if i == k-1 {
			b = append(b, id, 0, 0, 0, 0, 0, 0, 0)
		} else {
			b = append(b, id, 0, 0, 0, 1, 0, 0, 0)
		}
	}
	return b
}

func TestDepth(t *testing.T) {
	g3 := DecodeOptions{Dialect: Godot3}
	// Godot's rule: depth > 1024 fails, the top level being depth 0, so 1025 nested Arrays pass.
	if _, _, err := dm(g3).Decode(nested(1025, 0x13)); err != nil {
		t.Fatalf("1025 levels: %v", err)
	}
	decodeErr(t, g3, nested(1026, 0x13), ErrTooDeep, 1025*8)
	decodeErr(t, g3, nested(10000, 0x13), ErrTooDeep, 1025*8)
	decodeErr(t, DecodeOptions{Dialect: Godot4}, nested(10000, 0x1c), ErrTooDeep, 1025*8)
	decodeErr(t, DecodeOptions{Dialect: Godot3, MaxDepth: 3}, nested(5, 0x13), ErrTooDeep, 4*8)
	if _, _, err := dm(DecodeOptions{Dialect: Godot3, MaxDepth: 20000}).Decode(nested(10000, 0x13)); err != nil {
		t.Errorf("10000 levels with MaxDepth 20000: %v", err)
	}

	// The encoder has the same limit: a cycle fails instead of recursing forever.
	a := []any{nil}
	a[0] = a
	if _, err := em(EncodeOptions{Dialect: Godot3}).Marshal(a); !errors.Is(err, ErrTooDeep) {
		t.Errorf("cyclic Array: %v", err)
	}
}

func TestMaxElements(t *testing.T) {
	arr := unhex(t, "13000000 03000000 00000000 00000000 00000000")
	decodeErr(t, DecodeOptions{Dialect: Godot3, MaxElements: 2}, arr, ErrTooManyElements, 8)
	if _, _, err := dm(DecodeOptions{Dialect: Godot3, MaxElements: 3}).Decode(arr); err != nil {
		t.Error(err)
	}
	// The budget is for the whole value, not per container.
	two := unhex(t, "13000000 02000000 13000000 01000000 00000000 00000000")
	decodeErr(t, DecodeOptions{Dialect: Godot3, MaxElements: 2}, two, ErrTooManyElements, 16)
}

// allocated returns the bytes allocated by f.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Inputs that claim huge sizes must not make the decoder allocate for them.
func TestAllocationBoundedByInput(t *testing.T) {
	inputs := []string{
		"13000000 ffffff7f 00000000",          // Array of 2^31-1 elements
		"12000000 ffffff7f 00000000",          // Dictionary of 2^31-1 entries
		"17000000 ffffff7f 00000000",          // PoolStringArray of 2^31-1 strings
		"14000000 ffffff7f 00000000",          // PoolByteArray of 2 GiB
		"19000000 ffffff0f 00000000",          // PoolVector3Array
		"0f000000 ffffffff ffffffff 00000000", // NodePath with 2^32 names
		"04000000 ffffff7f 00000000",          // String of 2 GiB
	}
	for _, h := range inputs {
		data := unhex(t, h)
		n := allocated(func() {
			for range 10 {
				dm(DecodeOptions{Dialect: Godot3, AllowObjects: true}).Decode(data)
			}
		})
		if n > 10*4096 {
			t.Errorf("%s: %d bytes allocated for 10 decodes of %d bytes", h, n, len(data))
		}
	}
	obj := unhex(t, "11000000 04000000 4e6f6465 ffffff7f 00000000")
	if n := allocated(func() { dm(DecodeOptions{Dialect: Godot3, AllowObjects: true}).Decode(obj) }); n > 4096 {
		t.Errorf("object with 2^31-1 properties: %d bytes allocated", n)
	}
}

// A valid value cut short anywhere gives an error, never a panic or a wrong length.
func TestEveryPrefix(t *testing.T) {
	for _, v := range vectors {
		full := unhex(t, v.hex)
		o := dm(DecodeOptions{Dialect: v.d, AllowObjects: true})
		for i := 0; i < len(full); i++ {
			_, n, err := o.Decode(full[:i])
			if err == nil {
				if n > i {
					t.Errorf("%s: prefix %d decoded %d bytes", v.name, i, n)
				}
				continue
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > int64(i) {
				t.Errorf("%s: prefix %d: %v", v.name, i, err)
			}
		}
	}
}
