package inspect

import (
	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/godot/multiplayer3"
)

// Godot 3 multiplayer packets (NetworkedMultiplayerENet) join the inspector with one
// registration: multiplayer3 explains itself in the model; the ENet channel says whether the
// packet is a SYS message.
func init() {
	Register(Format{Name: "godot3-mp", Title: "Godot 3 multiplayer packet (NetworkedMultiplayerENet)", Order: 27,
		Options: []Option{{Name: "channel", Label: "ENet channel", Default: "1", Choices: []Choice{
			{"0", "0: SYS (ADD_PEER, REMOVE_PEER)"}, {"1", "1: reliable"}, {"2", "2: unreliable"}}}},
		Frames: func(data []byte, opts map[string]string, _ *explain.Budget) ([]*explain.Frame, error) {
			ch := multiplayer3.ChannelReliable
			switch opts["channel"] {
			case "0":
				ch = multiplayer3.ChannelSys
			case "2":
				ch = multiplayer3.ChannelUnreliable
			}
			return []*explain.Frame{multiplayer3.Explain(ch, data)}, nil // errors are in the frame
		}})
}
