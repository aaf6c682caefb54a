package godot_test

import (
	"fmt"

	"github.com/gamewire/gamewire/godot"
)

// The README's "Godot Variants from Go" example: a Go struct to Godot 3 bytes and back, and the
// same bytes as generic values. The dialect of Decode must be the one the bytes were written in:
// with godot.Godot4 these bytes would decode, without an error, as a meaningless Transform3D.
func Example_player() {
	type Player struct {
		Name string        `godot:"name"`
		HP   int           `godot:"hp"`
		Pos  godot.Vector3 `godot:"pos"`
		Tags []string      `godot:"tags,omitempty"` // a PoolStringArray / PackedStringArray
	}

	// Options are checked once; the modes they make encode and decode (safe for concurrent use).
	enc, err := godot.EncodeOptions{Dialect: godot.Godot3}.EncodeMode()
	if err != nil {
		fmt.Println(err)
		return
	}
	dec, err := godot.DecodeOptions{Dialect: godot.Godot3}.DecodeMode()
	if err != nil {
		fmt.Println(err)
		return
	}

	b, err := enc.Marshal(Player{Name: "ada", HP: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	var p Player
	err = dec.Unmarshal(b, &p)
	fmt.Println(p.Name, p.HP, err)

	v, n, err := dec.Decode(b) // any: int64, string, *godot.Dictionary, []godot.Vector3, …
	fmt.Println(v, n, err)
	// Output:
	// ada 100 <nil>
	// {"name": "ada", "hp": 100, "pos": Vector3(0, 0, 0)} 80 <nil>
}
