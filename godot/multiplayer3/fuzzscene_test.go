package multiplayer3

import (
	"log/slog"
	"testing"

	"github.com/gamewire/gamewire/godot"
)

// memLink is a link that keeps nothing: what the scene sends is counted and dropped.
type memLink struct{ sent *int }

func (l memLink) send(ch uint8, data []byte, d delivery) error { *l.sent += len(data); return nil }

// FuzzReceive feeds arbitrary ENet packets from a client to a server's scene, and from the
// server to a client's, with typed handlers of many parameter types: no panic, and a handler
// that panics is reported, not propagated. The seeds are the recorded session's packets.
func FuzzReceive(f *testing.F) {
	for _, sp := range sessionPackets(f, loadSession(f, 0)) {
		f.Add(sp.dir == "s2c", sp.Channel, sp.Data)
	}
	f.Fuzz(func(t *testing.T, toClient bool, ch uint8, data []byte) {
		handlers := []RPC{
			{Name: "t_value", Mode: ModeRemote, Handler: func(p *Peer, v any) {}},
			{Name: "t_multi", Mode: ModeRemote, Handler: func(p *Peer, a int, b string, c godot.Vector2) {}},
			{Name: "m_remote", Mode: ModeRemote, Handler: func(p *Peer) { panic("boom") }},
			{Name: "m_puppet", Mode: ModePuppet, Handler: func(p *Peer, s []string, d map[string]any) {}},
			{Name: "v_remote", Mode: ModeRemote, Property: true, Handler: func(p *Peer, v []byte) error { return nil }},
			{Name: "start", Mode: ModeRemote, Handler: func(p *Peer, other int32) {}},
		}
		var sent int
		var self int32 = ServerID
		if toClient {
			self = 7
		}
		sc, err := newScene(self, true, []*Node{MustNode("Main", handlers...)}, hooks{log: slog.New(slog.DiscardHandler)}, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var from *Peer
		if toClient {
			from = sc.newPeer(ServerID, memLink{&sent})
			sc.server = from
			sc.addPeer(from)
		} else {
			from = sc.newPeer(7, memLink{&sent})
			sc.addPeer(from)
			sc.addPeer(sc.newPeer(8, memLink{&sent}))
		}
		// Twice: the second time the path cache holds what the first announced.
		sc.receive(from, ch, data, reliable)
		sc.receive(from, ch, data, reliable)
		if sent > 4*(len(data)+64)*4 {
			t.Fatalf("%d bytes in made the scene send %d", len(data), sent)
		}
	})
}
