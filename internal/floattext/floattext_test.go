package floattext

import (
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, b := range []uint64{QuietNaN64, 0x7ff8000000000001, 0xfff8000000000000, 0x7ff0000000000001, 0xffffffffffffffff} {
		s := NaN64Text(math.Float64frombits(b))
		got, err := Parse(s, 64)
		if err != nil || got != b {
			t.Errorf("%#x → %s → %#x, %v", b, s, got, err)
		}
	}
	for _, b := range []uint32{QuietNaN32, 0xff923eaf, 0x7f800001, 0xffc00000} {
		s := NaN32Text(math.Float32frombits(b))
		got, err := Parse(s, 32)
		if err != nil || uint32(got) != b {
			t.Errorf("%#x → %s → %#x, %v", b, s, got, err)
		}
	}
	if NaN64Text(NaN64()) != "NaN" || NaN32Text(NaN32()) != "NaN" || NaN32Text(0) == "" {
		t.Error("canonical NaN text")
	}
	for _, tc := range []struct {
		s    string
		bits int
		want uint64
	}{{"nan", 64, QuietNaN64}, {"NaN", 32, uint64(QuietNaN32)}, {"nan(0x7ff8000000000001)", 64, 0x7ff8000000000001},
		{"-Inf", 64, 0xfff0000000000000}, {"+Infinity", 32, 0x7f800000}, {"inf", 32, 0x7f800000}} {
		if got, err := Parse(tc.s, tc.bits); err != nil || got != tc.want {
			t.Errorf("%s/%d = %#x, %v", tc.s, tc.bits, got, err)
		}
	}
	for _, s := range []string{"NaN:0x7f800000", "NaN:0x3ff0000000000000", "NaN:0x7ff8000000000000" /* 64 bits for a float32 */, "NaN:zz", "zero"} {
		if _, err := Parse(s, 32); err == nil {
			t.Errorf("%s accepted as a float32", s)
		}
	}
}

// FuzzParse: Parse never panics, and what it accepts as a NaN prints back to a form it reads as
// the same bits.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"NaN", "nan", "NaN:0x7ff8000000000001", "nan(0x7fc00001)", "-inf", "Infinity", "NaN:0x", "NaN:0xzz", "1.5"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, wide bool) {
		bits := 32
		if wide {
			bits = 64
		}
		u, err := Parse(s, bits)
		if err != nil {
			return
		}
		var text string
		if bits == 32 {
			f := math.Float32frombits(uint32(u))
			if f == f {
				return // an infinity
			}
			text = NaN32Text(f)
		} else {
			f := math.Float64frombits(u)
			if f == f {
				return
			}
			text = NaN64Text(f)
		}
		if back, err := Parse(text, bits); err != nil || back != u {
			t.Fatalf("%q → %#x → %q → %#x, %v", s, u, text, back, err)
		}
	})
}
