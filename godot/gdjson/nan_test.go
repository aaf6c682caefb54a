package gdjson

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot"
)

// TestNaNNames: "NaN" is the quiet NaN 0x7ff8000000000000 (0x7fc00000 in a float32 component),
// not Go's math.NaN().
func TestNaNNames(t *testing.T) {
	v, err := Unmarshal([]byte(`{"type":"float","value":"NaN"}`))
	if f, ok := v.(float64); err != nil || !ok || math.Float64bits(f) != 0x7ff8000000000000 {
		t.Errorf("float NaN = %#x, %v", math.Float64bits(v.(float64)), err)
	}
	v, err = Unmarshal([]byte(`{"type":"Vector2","value":{"x":"nan","y":"NaN:0xff923eaf"}}`))
	if p, ok := v.(godot.Vector2); err != nil || !ok || math.Float32bits(p.X) != 0x7fc00000 || math.Float32bits(p.Y) != 0xff923eaf {
		t.Errorf("Vector2 = %#v, %v", v, err)
	}
	if _, err := Unmarshal([]byte(`{"type":"float","value":"NaN:0x3ff0000000000000"}`)); err == nil || !strings.Contains(err.Error(), "not a 64-bit NaN") {
		t.Errorf("a NaN form with a number's bits: %v", err)
	}
}

// TestNaNPayloadsLossless: every NaN bit pattern, in a float, a float32 component and packed
// float arrays, goes bytes → JSON → bytes unchanged, and only the quiet NaN prints as "NaN".
func TestNaNPayloadsLossless(t *testing.T) {
	for _, tc := range []struct {
		d        godot.Dialect
		hex      string
		contains string
	}{
		{godot.Godot4, "03000100 000000000000f87f", `"NaN"`},
		{godot.Godot4, "03000100 010000000000f87f", `"NaN:0x7ff8000000000001"`},
		{godot.Godot4, "03000100 000000000000f8ff", `"NaN:0xfff8000000000000"`},
		{godot.Godot4, "03000100 010000000000f07f", `"NaN:0x7ff0000000000001"`}, // signalling
		{godot.Godot4, "05000000 0000c07f af3e92ff", `"x": "NaN", "y": "NaN:0xff923eaf"`},
		{godot.Godot3, "16000000 02000000 af3e92ff 0100807f", `"NaN:0xff923eaf", "NaN:0x7f800001"`},
		{godot.Godot4, "21000000 01000000 efbeadde0000f0ff", `"NaN:0xfff00000deadbeef"`},
	} {
		data, _ := hex.DecodeString(strings.ReplaceAll(tc.hex, " ", ""))
		v, _, err := dm(godot.DecodeOptions{Dialect: tc.d}).Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", tc.hex, err)
		}
		js, err := Marshal(v, tc.d, "")
		if err != nil || !strings.Contains(string(js), strings.ReplaceAll(tc.contains, " ", "")) {
			t.Errorf("%s: %s, %v; want %s", tc.hex, js, err, tc.contains)
		}
		back, err := Unmarshal(js)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		out, err := em(godot.EncodeOptions{Dialect: tc.d}).Append(nil, back)
		if err != nil || !bytes.Equal(out, data) {
			t.Errorf("%s → %s → %x, %v", tc.hex, js, out, err)
		}
	}
}

// TestDeepErrorPath: an error deep inside the JSON names its path in a line.
func TestDeepErrorPath(t *testing.T) {
	var b strings.Builder
	for range 900 {
		b.WriteString(`{"type":"Array","value":[`)
	}
	b.WriteString(`{"type":"int","value":"x"}`)
	for range 900 {
		b.WriteString(`]}`)
	}
	_, err := Unmarshal([]byte(b.String()))
	var se *SyntaxError
	if !errors.As(err, &se) || len(se.Path) < 5000 || len(err.Error()) > 300 || !strings.Contains(err.Error(), "more)…") {
		t.Errorf("%d bytes: %.400v", len(err.Error()), err)
	}
	// Too deep for the limit: the error wraps godot.ErrTooDeep.
	_, err = dmj(DecodeOptions{MaxDepth: 100}).Unmarshal([]byte(b.String()))
	if !errors.Is(err, godot.ErrTooDeep) {
		t.Errorf("limit: %v", err)
	}
}

// TestFloatsLossless: every float bit pattern, as a float and as float32 components, goes
// bytes → JSON → bytes unchanged (random patterns, a quarter of them NaNs or infinities).
func TestFloatsLossless(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 20000 {
		u := rng.Uint64()
		if i%4 == 0 {
			u |= 0x7ff0000000000000 | 0x7f800000<<32 | 0x7f800000
		}
		data := binary.LittleEndian.AppendUint64([]byte{3, 0, 1, 0}, u) // float, 64-bit
		data = append(data, 5, 0, 0, 0)                                 // Vector2
		data = binary.LittleEndian.AppendUint64(data, u)
		for _, d := range [][]byte{data[:12], data[12:]} {
			v, _, err := dm(godot.DecodeOptions{Dialect: godot.Godot4}).Decode(d)
			if err != nil {
				t.Fatal(err)
			}
			js, err := Marshal(v, godot.Godot4, "")
			if err != nil {
				t.Fatal(err)
			}
			back, err := Unmarshal(js)
			if err != nil {
				t.Fatalf("%s: %v", js, err)
			}
			out, err := em(godot.EncodeOptions{Dialect: godot.Godot4}).Append(nil, back)
			if err != nil || !bytes.Equal(out, d) {
				t.Fatalf("%x → %s → %x, %v", d, js, out, err)
			}
		}
	}
}
