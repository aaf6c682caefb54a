package godot

import (
	"errors"
	"math"
	"testing"
)

// dm returns the mode of o, which the test knows to be valid.
func dm(o DecodeOptions) DecodeMode {
	m, err := o.DecodeMode()
	if err != nil {
		panic(err)
	}
	return m
}

// em returns the mode of o, which the test knows to be valid.
func em(o EncodeOptions) EncodeMode {
	m, err := o.EncodeMode()
	if err != nil {
		panic(err)
	}
	return m
}

// TestDecodeModeChecks: invalid options fail once, when the mode is made; NoLimit lifts a limit
// that 0 leaves at its default; Options gives back what was asked for.
func TestDecodeModeChecks(t *testing.T) {
	for _, o := range []DecodeOptions{
		{MaxDepth: -2}, {MaxElements: -5}, {MaxAllocBytes: math.MinInt}, {Dialect: 2}, {Real: RealDouble + 1},
	} {
		if _, err := o.DecodeMode(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	o := DecodeOptions{Dialect: Godot3, MaxDepth: NoLimit, MaxElements: 5000, MaxAllocBytes: NoLimit}
	m, err := o.DecodeMode()
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Options(); got != o {
		t.Errorf("Options() = %+v, want %+v", got, o)
	}
	// 1100 nested Arrays: over DefaultMaxDepth (1024), within NoLimit.
	var nest []byte
	for range 1100 {
		nest = append(nest, 19, 0, 0, 0, 1, 0, 0, 0) // Godot 3 Array of one element
	}
	nest = append(nest, 0, 0, 0, 0)
	if _, _, err := dm(DecodeOptions{Dialect: Godot3}).Decode(nest); !errors.Is(err, ErrTooDeep) {
		t.Errorf("default MaxDepth: %v, want ErrTooDeep", err)
	}
	if _, n, err := m.Decode(nest); err != nil || n != len(nest) {
		t.Errorf("NoLimit: n=%d err=%v, want %d and no error", n, err, len(nest))
	}
	// The zero mode is the default options' mode.
	if (DecodeMode{}).Options() != (DecodeOptions{}) {
		t.Error("DecodeMode{} has options of its own")
	}
}

// TestEncodeModeChecks: EncodeMode refuses what it cannot honour.
func TestEncodeModeChecks(t *testing.T) {
	for _, o := range []EncodeOptions{
		{MaxDepth: NoLimit}, {MaxDepth: -3}, {Dialect: 7}, {Dialect: Godot3, DoublePrecision: true},
	} {
		if _, err := o.EncodeMode(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	o := EncodeOptions{DoublePrecision: true, MaxDepth: 3}
	m, err := o.EncodeMode()
	if err != nil || m.Options() != o {
		t.Fatalf("%+v: %v, %+v", o, err, m.Options())
	}
	if _, err := m.Marshal([]any{[]any{[]any{[]any{[]any{}}}}}); !errors.Is(err, ErrTooDeep) {
		t.Errorf("MaxDepth 3: %v, want ErrTooDeep", err)
	}
}

// TestStreamOptionsChecked: a Decoder or Encoder of invalid options fails at every call.
func TestStreamOptionsChecked(t *testing.T) {
	for _, o := range []StreamOptions{{MaxMessageBytes: -2}, {Framing: 9}, {MaxDepth: -4}, {Dialect: 3}} {
		if err := o.NewDecoder(nil).Decode(new(any)); err == nil || errors.Is(err, ErrTooLarge) {
			t.Errorf("%+v: Decode: %v", o, err)
		}
		if err := o.NewEncoder(nil).Encode(1); err == nil {
			t.Errorf("%+v: Encode: no error", o)
		}
	}
}
