package godot

import (
	"errors"
	"reflect"
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
			_, _, err := dm(DecodeOptions{Dialect: d}).Decode(data)
			var v any
			uerr := dm(DecodeOptions{Dialect: d}).Unmarshal(data, &v)
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
	_, _, err := dm(DecodeOptions{Dialect: Godot3}).Decode(data)
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

// TestWrongDialectLooksLike checks what Decode's godoc says a wrong dialect looks like, with the
// README's Player: Godot 3 bytes read as Godot 4 are a Transform3D, and Unmarshal says
// ErrTypeMismatch.
func TestWrongDialectLooksLike(t *testing.T) {
	type Player struct {
		Name string  `godot:"name"`
		HP   int     `godot:"hp"`
		Pos  Vector3 `godot:"pos"`
	}
	b, err := em(EncodeOptions{Dialect: Godot3}).Marshal(Player{Name: "ada", HP: 100})
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := dm(DecodeOptions{Dialect: Godot4}).Decode(b)
	if reflect.TypeOf(v) != reflect.TypeOf(Transform3D{}) || err != nil {
		t.Errorf("Godot 3 Dictionary as Godot 4: %T %v, %v", v, v, err)
	}
	var p Player
	if err := dm(DecodeOptions{Dialect: Godot4}).Unmarshal(b, &p); !errors.Is(err, ErrTypeMismatch) {
		t.Errorf("Unmarshal with the wrong dialect: %v", err)
	}
	if err := dm(DecodeOptions{Dialect: Godot3}).Unmarshal(b, &p); err != nil || p.Name != "ada" || p.HP != 100 {
		t.Errorf("the right dialect: %+v %v", p, err)
	}
	// A Godot 3 Vector3 is a Rect2 four bytes short.
	var de *DecodeError
	if _, _, err := dm(DecodeOptions{Dialect: Godot4}).Decode(unhex(t, "07000000 0000803f 00000040 00004040")); !errors.As(err, &de) || de.Type != TypeRect2 || !errors.Is(err, ErrTruncated) {
		t.Errorf("a Godot 3 Vector3 as Godot 4: %v", err)
	}
	// Godot 4 types from 27 on are unknown to Godot 3.
	if _, _, err := dm(DecodeOptions{Dialect: Godot3}).Decode(unhex(t, "1c000000 00000000")); !errors.Is(err, ErrUnknownType) {
		t.Errorf("a Godot 4 Array as Godot 3: %v", err)
	}
}
