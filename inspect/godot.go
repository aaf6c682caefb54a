package inspect

import (
	"fmt"

	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/godot"
)

func init() {
	framing := Option{Name: "framing", Label: "framing", Default: "none", Choices: []Choice{
		{"none", "none (var_to_bytes, one packet)"},
		{"streampeer", "StreamPeer put_var (u32 LE length)"},
		{"streampeer-be", "StreamPeer put_var, big_endian"},
		{"packetpeerstream", "PacketPeerStream (u32 LE length)"},
		{"file", "file store_var (u32 LE length)"},
	}}
	for _, d := range []struct {
		name  string
		title string
		d     godot.Dialect
		order int
	}{{"godot4", "Godot 4 Variant", godot.Godot4, 20}, {"godot3", "Godot 3 Variant", godot.Godot3, 30}} {
		dialect := d.d
		Register(Format{Name: d.name, Title: d.title, Order: d.order, Detect: true, Options: []Option{framing},
			Frames: func(data []byte, opts map[string]string, budget *explain.Budget) ([]*explain.Frame, error) {
				return explainGodot(data, dialect, opts["framing"], budget)
			}})
	}
}

// explainGodot explains every Variant of data, one after the other, each with its length prefix
// when framing has one (godot.DecOptions.ExplainMessages).
func explainGodot(data []byte, d godot.Dialect, framing string, budget *explain.Budget) ([]*explain.Frame, error) {
	var f godot.Framing
	switch framing {
	case "none", "":
		f = godot.FramingPacket
	case "streampeer", "file":
		f = godot.FramingStreamPeer
	case "streampeer-be":
		f = godot.FramingStreamPeerBigEndian
	case "packetpeerstream":
		f = godot.FramingPacketPeerStream
	default:
		return nil, fmt.Errorf("inspect: unknown Godot framing %q (want none, streampeer, streampeer-be, packetpeerstream or file)", framing)
	}
	mode, err := godot.DecodeOptions{Dialect: d, AllowObjects: true}.DecodeMode()
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	frames, _ := mode.ExplainMessages(data, f, budget)
	return frames, nil // decoding errors are in the frames
}
