package gdjson

import (
	"bytes"
	"testing"

	"github.com/gamewire/gamewire/godot"
)

// FuzzUnmarshal: the JSON reader never panics on any text, and a value it reads that encodes
// goes bytes → JSON → bytes unchanged.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"type":"int","value":5}`, `{"type":"float","value":"NaN:0x7ff8000000000001"}`,
		`{"type":"Vector2","value":{"x":"NaN:0xff923eaf","y":1}}`, `{"type":"Array","value":[{"type":"Nil"}]}`,
		`{"type":"Dictionary","value":[{"key":{"type":"String","value":"a"},"value":{"type":"bool","value":true}}]}`,
		`{"type":"PackedVector3Array","value":[[1,2,3]]}`, `{"type":"NodePath","value":{"path":"a/b:c"}}`,
		`{"type":"Array","element":{"builtin":"int"},"value":[{"type":"int","value":1}]}`, `[`, `{"type":"nope"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := dmj(DecodeOptions{MaxDepth: 64}).Unmarshal(data)
		if err != nil {
			return
		}
		for _, d := range []godot.Dialect{godot.Godot3, godot.Godot4} {
			b, err := em(godot.EncodeOptions{Dialect: d}).Append(nil, v)
			if err != nil {
				continue
			}
			dv, _, err := dm(godot.DecodeOptions{Dialect: d, AllowObjects: true}).Decode(b)
			if err != nil {
				t.Fatalf("%s: %x does not decode: %v", d, b, err)
			}
			js, err := Marshal(dv, d, "")
			if err != nil {
				t.Fatalf("%s: %v", d, err)
			}
			back, err := Unmarshal(js)
			if err != nil {
				t.Fatalf("%s: %s does not read back: %v", d, js, err)
			}
			b2, err := em(godot.EncodeOptions{Dialect: d}).Append(nil, back)
			if err != nil || !bytes.Equal(b, b2) {
				t.Fatalf("%s: %x → %s → %x, %v", d, b, js, b2, err)
			}
		}
	})
}
