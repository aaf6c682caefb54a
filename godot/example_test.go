package godot_test

import (
	"encoding/hex"
	"fmt"
	"github.com/gamewire/gamewire/explain"
	"os"

	"github.com/gamewire/gamewire/godot"
)

// Decoding what Godot 3's var2bytes wrote: a Dictionary {"hp": 100, "pos": Vector2(1, 2)}.
func ExampleDecodeMode_Decode() {
	data, _ := hex.DecodeString("12000000020000000400000002000000687000000200000064000000" +
		"0400000003000000706f730005000000" + "0000803f00000040")
	dec, err := godot.DecodeOptions{Dialect: godot.Godot3}.DecodeMode()
	if err != nil {
		fmt.Println(err)
		return
	}
	v, n, err := dec.Decode(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := v.(*godot.Dictionary)
	for _, e := range d.Entries {
		fmt.Printf("%v: %v\n", e.Key, e.Value)
	}
	fmt.Println(n, "bytes")
	// Output:
	// hp: 100
	// pos: {1 2}
	// 52 bytes
}

// Encoding for Godot 4, into a reused buffer. Ints take 4 bytes unless they need 8; floats
// take 4 bytes when float32 holds them exactly.
func ExampleEncodeMode_Append() {
	enc, err := godot.EncodeOptions{Dialect: godot.Godot4}.EncodeMode()
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf []byte
	for _, v := range []any{int64(7), int64(1) << 40, 0.5, 0.1, godot.Vector2i{X: 3, Y: -1}} {
		var err error
		buf, err = enc.Append(buf[:0], v)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-14s % x\n", fmt.Sprint(v), buf)
	}
	// Output:
	// 7              02 00 00 00 07 00 00 00
	// 1099511627776  02 00 01 00 00 00 00 00 00 01 00 00
	// 0.5            03 00 00 00 00 00 00 3f
	// 0.1            03 00 01 00 9a 99 99 99 99 99 b9 3f
	// {3 -1}         06 00 00 00 03 00 00 00 ff ff ff ff
}

// Errors say what failed and where.
func ExampleDecodeError() {
	data, _ := hex.DecodeString("1300000002000000020000000100000004000000ff000000")
	dec, _ := godot.DecodeOptions{Dialect: godot.Godot3}.DecodeMode()
	_, _, err := dec.Decode(data)
	fmt.Println(err)
	// Output:
	// godot: decoding String at byte 20 (at [1]): truncated input: string of 255 bytes and 1 padding needs 256 bytes, have 0
}

// Explain explains every field, like the offset tables of Godot's documentation.
func ExampleDecodeMode_Explain() {
	data, _ := hex.DecodeString("0f00000001000080000000000100000004000000726f6f74")
	dec, _ := godot.DecodeOptions{Dialect: godot.Godot3}.DecodeMode()
	fr, err := dec.Explain(data, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	explain.WriteText(os.Stdout, data, fr)
	// Output:
	// godot3 frame 0 at byte 0, 24 bytes: NodePath ^"/root"
	//  offset   len  type                   name: meaning
	//       0    24  NodePath               value: ^"/root"
	//       0     4    u32                  header: type 15 NodePath
	//       4     4    u32                  name count: 1 | 0x80000000 (new format)
	//       8     4    u32                  subname count: 0
	//      12     4    u32                  flags: 0x1 (absolute true)
	//      16     4    u32                  name length: 4
	//      20     4    utf8                 name: "root"
}
