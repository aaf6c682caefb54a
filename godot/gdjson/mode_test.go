package gdjson

import (
	"errors"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot"
)

// dm returns the godot mode of o, which the test knows to be valid.
func dm(o godot.DecodeOptions) godot.DecodeMode {
	m, err := o.DecodeMode()
	if err != nil {
		panic(err)
	}
	return m
}

// em returns the godot mode of o, which the test knows to be valid.
func em(o godot.EncodeOptions) godot.EncodeMode {
	m, err := o.EncodeMode()
	if err != nil {
		panic(err)
	}
	return m
}

// dmj returns the mode of o, which the test knows to be valid.
func dmj(o DecodeOptions) DecodeMode {
	m, err := o.DecodeMode()
	if err != nil {
		panic(err)
	}
	return m
}

// TestModes: invalid options fail when the mode is made; NoLimit lifts the reading depth limit,
// and MaxDepth bounds writing.
func TestModes(t *testing.T) {
	for _, o := range []DecodeOptions{{MaxDepth: -2}} {
		if _, err := o.DecodeMode(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	for _, o := range []EncodeOptions{{MaxDepth: NoLimit}, {Dialect: 9}} {
		if _, err := o.EncodeMode(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	deep := strings.Repeat(`{"type":"Array","value":[`, 1100) + `{"type":"Nil"}` + strings.Repeat(`]}`, 1100)
	if _, err := Unmarshal([]byte(deep)); !errors.Is(err, godot.ErrTooDeep) {
		t.Errorf("default depth: %v, want ErrTooDeep", err)
	}
	v, err := dmj(DecodeOptions{MaxDepth: NoLimit}).Unmarshal([]byte(deep))
	if err != nil {
		t.Fatalf("NoLimit: %v", err)
	}
	enc, err := EncodeOptions{MaxDepth: 2000}.EncodeMode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Marshal(v); err != nil {
		t.Errorf("MaxDepth 2000: %v", err)
	}
	if _, err := Marshal(v, godot.Godot4, ""); !errors.Is(err, godot.ErrTooDeep) {
		t.Errorf("default depth, writing: %v, want ErrTooDeep", err)
	}
}
