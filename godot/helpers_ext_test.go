package godot_test

import "github.com/gamewire/gamewire/godot"

// dm returns the mode of o, which the test knows to be valid.
func dm(o godot.DecodeOptions) godot.DecodeMode {
	m, err := o.DecodeMode()
	if err != nil {
		panic(err)
	}
	return m
}

// em returns the mode of o, which the test knows to be valid.
func em(o godot.EncodeOptions) godot.EncodeMode {
	m, err := o.EncodeMode()
	if err != nil {
		panic(err)
	}
	return m
}
