// Package demo is what "gamewire demo" shows: gamewire's codecs at work on real captured
// traffic, with nothing to set up.
package demo

import (
	"bytes"
	_ "embed"
	"encoding/hex"
	"fmt"
	"github.com/gamewire/gamewire/explain"
	"io"
	"strings"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/gdjson"
)

// godot3Sample is var2bytes of a Dictionary, written by the real Godot 3.2.3 engine
// (godot3-server) from this GDScript:
//
//	{"name": "Player", "hp": 100, "pos": Vector3(1.5, 0, -2),
//	 "inventory": PoolStringArray(["sword", "shield"]),
//	 "path": NodePath("/root/Main/Player:position"), "speed": 0.1,
//	 "flags": [true, null, 2147483648]}
//
//go:embed godot3-player.hex
var godot3Sample string

// A step of the demo.
type step struct {
	title string
	run   func(w io.Writer) error
}

var steps = []step{
	{"Godot 3: a Dictionary that the real Godot 3.2.3 engine wrote with var2bytes", godotStep},
}

// addStep lets the other areas (in other files) add their steps.
func addStep(title string, run func(w io.Writer) error) { steps = append(steps, step{title, run}) }

// Run prints the demo to w.
func Run(w io.Writer) error {
	for i, s := range steps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "== %s ==\n\n", s.title)
		if err := s.run(w); err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
	}
	return nil
}

func godotStep(w io.Writer) error {
	data, err := hex.DecodeString(strings.TrimSpace(godot3Sample))
	if err != nil {
		return err
	}
	opts, err := godot.DecodeOptions{Dialect: godot.Godot3}.DecodeMode()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "$ gamewire godot explain --godot 3   (%d bytes)\n", len(data))
	fr, err := opts.Explain(data, nil)
	if err != nil {
		return err
	}
	if err := explain.WriteText(w, data, fr); err != nil {
		return err
	}
	v, _, err := opts.Decode(data)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n$ gamewire godot decode --godot 3 --compact\n")
	if err := gdjson.Encode(w, v, godot.Godot3, ""); err != nil {
		return err
	}
	enc3, err := godot.EncodeOptions{Dialect: godot.Godot3}.EncodeMode()
	if err != nil {
		return err
	}
	again, err := enc3.Marshal(v)
	if err != nil {
		return err
	}
	if !bytes.Equal(again, data) {
		return fmt.Errorf("re-encoding differs from the engine's bytes:\n%x\n%x", again, data)
	}
	fmt.Fprintf(w, "\nRe-encoded by gamewire: %d bytes, identical to the engine's.\n", len(again))
	v4, err := godot.Marshal(v) // Godot 4, the default mode
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "The same value for Godot 4 (var_to_bytes): %d bytes, starting % x …\n", len(v4), v4[:16])
	return nil
}
