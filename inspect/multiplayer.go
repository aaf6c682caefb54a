//go:build !(js && wasm)

// godot/multiplayer has a WebSocket client that does not build for js/wasm, so the
// static site of the inspector (gamewire inspect --export) goes without this format.

package inspect

import (
	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/godot/multiplayer"
)

func init() {
	Register(Format{Name: "godot-mp", Title: "Godot 4 multiplayer packet (SceneMultiplayer)", Order: 25,
		Frames: func(data []byte, _ map[string]string, budget *explain.Budget) ([]*explain.Frame, error) {
			fr, _ := multiplayer.Explain(data, budget) // decoding errors are in the frame
			return []*explain.Frame{fr}, nil
		}})
}
