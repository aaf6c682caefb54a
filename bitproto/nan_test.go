package bitproto

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/bitstream"
)

// TestFieldNaNs: a field list's JSON values keep every NaN bit pattern, and "NaN" writes the
// quiet NaN, not Go's math.NaN().
func TestFieldNaNs(t *testing.T) {
	for _, tc := range []struct{ field, hex, text string }{
		{"float64", "7ff8000000000000", `"NaN"`},
		{"float64", "7ff8000000000001", `"NaN:0x7ff8000000000001"`},
		{"float64", "fff0000000000001", `"NaN:0xfff0000000000001"`},
		{"float32", "7fc00000", `"NaN"`},
		{"float32", "ff923eaf", `"NaN:0xff923eaf"`},
		{"float32", "7f800001", `"NaN:0x7f800001"`},
		{"float32", "ff800000", `"-Inf"`},
	} {
		fields, err := ParseFields(tc.field)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := hex.DecodeString(tc.hex)
		vals, err := DecodeFields(bitstream.NewReader(data), fields)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(vals[0])
		if !strings.Contains(string(js), `"value":`+tc.text) {
			t.Errorf("%s %s: %s", tc.field, tc.hex, js)
		}
		var text string
		json.Unmarshal([]byte(tc.text), &text)
		if vals[0].Text() != text {
			t.Errorf("Text() = %s, want %s", vals[0].Text(), text)
		}
		var w bitstream.Writer
		if err := EncodeFields(&w, fields, []any{text}); err != nil || hex.EncodeToString(w.Bytes()) != tc.hex {
			t.Errorf("%s %q → %x, %v; want %s", tc.field, text, w.Bytes(), err, tc.hex)
		}
	}
	var w bitstream.Writer
	fields, _ := ParseFields("float32")
	if err := EncodeFields(&w, fields, []any{"NaN:0x3f800000"}); err == nil {
		t.Error("a NaN form holding 1.0 accepted")
	}
}

// TestFieldFloatsLossless: every float bit pattern goes decode → JSON → encode unchanged
// (random patterns, a quarter of them NaNs, and the specials).
func TestFieldFloatsLossless(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, spec := range []string{"float32", "float64"} {
		fields, _ := ParseFields(spec)
		for i := range 20000 {
			var data []byte
			u := rng.Uint64()
			if i%4 == 0 {
				u |= 0x7ff0000000000000 // a NaN or an infinity
				if spec == "float32" {
					u |= 0x7f800000 << 32
				}
			}
			if spec == "float32" {
				data = binary.BigEndian.AppendUint32(nil, uint32(u>>32))
			} else {
				data = binary.BigEndian.AppendUint64(nil, u)
			}
			vals, err := DecodeFields(bitstream.NewReader(data), fields)
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.Marshal(vals[0])
			dec := json.NewDecoder(bytes.NewReader(js))
			dec.UseNumber()
			var back struct{ Value any }
			if err := dec.Decode(&back); err != nil {
				t.Fatal(err)
			}
			var w bitstream.Writer
			if err := EncodeFields(&w, fields, []any{back.Value}); err != nil || !bytes.Equal(w.Bytes(), data) {
				t.Fatalf("%s %x → %s → %x, %v", spec, data, js, w.Bytes(), err)
			}
		}
	}
}
