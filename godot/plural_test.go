package godot_test

import (
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot"
)

// TestErrorTextSingular checks that an error message counting one byte says "1 byte", not
// "1 bytes" (issue 20 §4).
func TestErrorTextSingular(t *testing.T) {
	var i int
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"header", func() error { _, _, err := godot.Decode([]byte{0}); return err }(), "have 1 byte"},
		{"trailing", godot.Unmarshal([]byte{2, 0, 0, 0, 1, 0, 0, 0, 9}, &i), "1 byte after the Variant's 8"},
		{"entries", func() error {
			m, err := godot.DecodeOptions{MaxElements: 1}.DecodeMode()
			if err != nil {
				return err
			}
			// A Godot 4 Array holding a Dictionary of one int: int entry: the Array takes the one element.
			_, _, err = m.Decode([]byte{28, 0, 0, 0, 1, 0, 0, 0, 27, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0})
			return err
		}(), "1 entry"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		msg := c.err.Error()
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "1 bytes") {
			t.Errorf("%s: %q, want it to contain %q", c.name, msg, c.want)
		}
	}
}
