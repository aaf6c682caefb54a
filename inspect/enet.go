package inspect

import (
	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/explain"
)

func init() {
	Register(Format{Name: "enet", Title: "ENet datagram (C ENet 1.3; Godot's desktop multiplayer)", Order: 40, BitLevel: true,
		Options: []Option{{Name: "checksum", Label: "CRC32 checksum after the header",
			Choices: []Choice{{Value: "no", Label: "no (Godot's default)"}, {Value: "yes", Label: "yes"}}, Default: "no"}},
		Explain: explainENet})
}

// explainENet explains one ENet datagram (a UDP payload) with enet.Explain, the function behind
// "gamewire enet explain": the header's bits and every command's fields. A compressed datagram's
// commands are shown as compressed bytes.
func explainENet(data []byte, opts map[string]string) (*Explanation, error) {
	f := enet.ExplainOptions{Checksum: opts["checksum"] == "yes"}.Explain(data)
	ex := &Explanation{}
	b := &builder{}
	var add func(parent *Node, fs []*explain.Field) bool
	add = func(parent *Node, fs []*explain.Field) bool {
		for _, x := range fs {
			v := x.Text
			if x.Note != "" {
				v += " (" + x.Note + ")"
			}
			n := b.node(parent, bitNode(x.Name, x.Type, v, int(x.Bit), int(x.Bits)))
			if n == nil {
				ex.Notes = append(ex.Notes, limitNote(int(x.Offset())))
				return false
			}
			if parent == nil {
				ex.Nodes = append(ex.Nodes, n)
			}
			if !add(n, x.Children) {
				return false
			}
		}
		return true
	}
	add(nil, f.Fields)
	if f.Err != nil {
		var err error = f.Err
		if f.Err.Err != nil {
			err = f.Err.Err
		}
		ex.addError(int(f.Err.Bit), err)
	}
	return ex, nil
}
