// Package floattext writes and reads the text forms of floats that JSON has no numbers for, so
// that gamewire's JSON forms keep every bit pattern: "NaN" is the canonical quiet NaN
// 0x7ff8000000000000 (0x7fc00000 as a float32; C's NAN macro, which Godot's NAN is), and
// "NaN:0x7ff8000000000001" any other NaN with its bits; "inf"/"-inf" (any case, "Infinity" too)
// are the infinities. Both gdjson and the BitProtocol field values use it.
package floattext

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The canonical quiet NaNs.
const (
	QuietNaN64 uint64 = 0x7ff8000000000000
	QuietNaN32 uint32 = 0x7fc00000
)

// NaN64 and NaN32 return the canonical quiet NaN. (math.NaN() is 0x7ff8000000000001.)
func NaN64() float64 { return math.Float64frombits(QuietNaN64) }

// NaN32 returns the canonical quiet float32 NaN.
func NaN32() float32 { return math.Float32frombits(QuietNaN32) }

// NaN64Text returns the text of a float64 NaN: "NaN" or "NaN:0x…" with its 16 hex digits.
func NaN64Text(f float64) string {
	if b := math.Float64bits(f); b != QuietNaN64 {
		return fmt.Sprintf("NaN:0x%016x", b)
	}
	return "NaN"
}

// NaN32Text returns the text of a float32 NaN: "NaN" or "NaN:0x…" with its 8 hex digits.
func NaN32Text(f float32) string {
	if b := math.Float32bits(f); b != QuietNaN32 {
		return fmt.Sprintf("NaN:0x%08x", b)
	}
	return "NaN"
}

// ErrNotFloat reports a string that is none of the forms.
var ErrNotFloat = errors.New(`want a number, "inf", "-inf", "NaN" or "NaN:0x…" with the float's bits`)

// Parse reads a special float of the given width (32 or 64) and returns its bits: "NaN" and
// "nan", "NaN:0x…" (and the older "nan(0x…)"), "inf", "+inf", "-inf", "Infinity", in any case.
// The bits of "NaN:0x…" must be a NaN of that width.
func Parse(s string, bits int) (uint64, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	var inf64, ninf64 uint64 = 0x7ff0000000000000, 0xfff0000000000000
	var inf32, ninf32 uint64 = 0x7f800000, 0xff800000
	switch l {
	case "nan":
		if bits == 32 {
			return uint64(QuietNaN32), nil
		}
		return QuietNaN64, nil
	case "inf", "+inf", "infinity", "+infinity":
		if bits == 32 {
			return inf32, nil
		}
		return inf64, nil
	case "-inf", "-infinity":
		if bits == 32 {
			return ninf32, nil
		}
		return ninf64, nil
	}
	var hexDigits string
	switch {
	case strings.HasPrefix(l, "nan:0x"):
		hexDigits = l[6:]
	case strings.HasPrefix(l, "nan(0x") && strings.HasSuffix(l, ")"):
		hexDigits = l[6 : len(l)-1]
	default:
		return 0, fmt.Errorf("%q: %w", s, ErrNotFloat)
	}
	u, err := strconv.ParseUint(hexDigits, 16, bits)
	if err != nil {
		return 0, fmt.Errorf("%q: the bits of a %d-bit NaN: %w", s, bits, ErrNotFloat)
	}
	if bits == 32 && !math.IsNaN(float64(math.Float32frombits(uint32(u)))) || bits == 64 && !math.IsNaN(math.Float64frombits(u)) {
		return 0, fmt.Errorf("%q: %#x is not a %d-bit NaN: %w", s, u, bits, ErrNotFloat)
	}
	return u, nil
}
