package inspect

import (
	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/explain"
)

// ENet datagrams join the inspector with one registration: enet explains itself in the model.
func init() {
	Register(Format{Name: "enet", Title: "ENet datagram", Order: 45,
		Options: []Option{{Name: "checksum", Label: "CRC32 checksum", Default: "no", Choices: []Choice{
			{"no", "no (Godot's default)"}, {"yes", "yes (enet_host_set_checksum)"}}}},
		Frames: func(data []byte, opts map[string]string, _ *explain.Budget) ([]*explain.Frame, error) {
			fr := enet.ExplainOptions{Checksum: opts["checksum"] == "yes"}.Explain(data) // errors are in the frame
			return []*explain.Frame{fr}, nil
		}})
}
