package godot

import (
	"errors"
	"strings"
	"testing"
)

// TestPackedCountTruncated: a packed array cut inside its element count says that the count is
// what is missing, for every packed type of both dialects, from Decode and Unmarshal.
func TestPackedCountTruncated(t *testing.T) {
	for _, d := range []Dialect{Godot3, Godot4} {
		n := 0
		for id := range uint32(d.NumTypes()) {
			typ, _ := d.TypeOf(id)
			if name := d.TypeName(typ); !strings.HasSuffix(name, "Array") || name == "Array" {
				continue
			}
			n++
			data := []byte{byte(id), 0, 0, 0, 1}
			_, _, err := DecOptions{Dialect: d}.Decode(data)
			var v any
			uerr := DecOptions{Dialect: d}.Unmarshal(data, &v)
			for _, e := range []error{err, uerr} {
				var de *DecodeError
				if !errors.As(e, &de) || de.Offset != 4 || !errors.Is(e, ErrTruncated) ||
					!strings.HasSuffix(e.Error(), "element count needs 4 bytes, have 1") {
					t.Errorf("%s %s: %v", d, d.TypeName(typ), e)
				}
			}
		}
		if want := map[Dialect]int{Godot3: 7, Godot4: 10}[d]; n != want {
			t.Errorf("%s: %d packed array types, want %d", d, n, want)
		}
	}
}

// TestDeepPathAbbreviated: the error of a value nested a thousand levels deep names its path in a
// line, not in kilobytes; the Path field keeps it whole.
func TestDeepPathAbbreviated(t *testing.T) {
	var data []byte
	for range 1000 {
		data = append(data, 0x13, 0, 0, 0, 1, 0, 0, 0) // Godot 3 Array of one element
	}
	data = append(data, 0x63, 0, 0, 0) // an unknown type id at the bottom
	_, _, err := DecOptions{Dialect: Godot3}.Decode(data)
	var de *DecodeError
	if !errors.As(err, &de) || len(de.Path) != 3000 {
		t.Fatalf("%v", err)
	}
	msg := err.Error()
	if len(msg) > 250 || !strings.Contains(msg, "…(") || !strings.HasPrefix(AbbreviatePath(de.Path), "[0][0]") {
		t.Errorf("%d bytes: %s", len(msg), msg)
	}
	if got := AbbreviatePath(`[1]["a"]`); got != `[1]["a"]` {
		t.Errorf("short path changed: %s", got)
	}
}
