//go:build !(js && wasm)

// godot/multiplayer has a WebSocket client that does not build for js/wasm, so the
// static site of the inspector (gamewire inspect --export) goes without this format.

package inspect

import (
	"errors"
	"strings"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
)

func init() {
	Register(Format{Name: "godot-mp", Title: "Godot 4 multiplayer packet (SceneMultiplayer)", Order: 25,
		Explain: explainMultiplayer})
}

// explainMultiplayer explains one SceneMultiplayer packet (a WebSocket or ENet message) with
// multiplayer.Explain, the function behind "gamewire godot mp explain": a node per field, in
// order; the fields of an argument's Variant sit under the field that announces it.
func explainMultiplayer(data []byte, _ map[string]string) (*Explanation, error) {
	fields, err := multiplayer.Explain(data)
	ex := &Explanation{}
	b := &builder{}
	end := 0
	for _, f := range fields {
		// A field that claims bytes beyond the packet (optional padding) is cut at its end.
		n := min(f.Len, len(data)-f.Offset)
		if n <= 0 || f.Offset < end {
			continue
		}
		name, value := mpFieldName(f)
		node := b.node(nil, byteNode(name, f.Kind, value, f.Offset, n))
		if node == nil {
			ex.Notes = append(ex.Notes, limitNote(f.Offset))
			return ex, nil
		}
		ex.Nodes = append(ex.Nodes, node)
		end = f.Offset + n
	}
	if err != nil {
		off := end
		var pe *multiplayer.PacketError
		if errors.As(err, &pe) {
			off = pe.Offset
		}
		ex.addError(8*off, err)
	} else if end < len(data) {
		if node := b.node(nil, byteNode("bytes", "bytes", "after the packet's fields", end, len(data)-end)); node != nil {
			ex.Nodes = append(ex.Nodes, node)
		}
	}
	return ex, nil
}

// mpFieldName splits a field's text into a name and a value: "method id 4 (…)" stays a name
// with its kind's value, "argument 0: int compressed …" is named "argument 0".
func mpFieldName(f godot.Field) (string, string) {
	if name, value, ok := strings.Cut(f.Text, ": "); ok && len(name) <= 40 {
		return name, value
	}
	return f.Kind, f.Text
}
