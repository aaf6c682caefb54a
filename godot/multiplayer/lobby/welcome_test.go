package lobby

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
)

// TestWelcomeManyPlayers (issue 21 item 5): with 400 players whose names are long, the
// welcome's Dictionary would pass the client's 65 535-byte message limit; the newcomer still
// learns every player (the welcome carries what fits, joined calls the rest) and the others
// learn of it.
func TestWelcomeManyPlayers(t *testing.T) {
	l, srv := New(nil)
	const players = 400
	for i := range players {
		l.names[int32(1000+i)] = fmt.Sprintf("%03d%s", i, strings.Repeat("n", MaxText-3))
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	known := map[int32]string{}
	done := make(chan struct{})
	node := multiplayer.MustNode("Lobby",
		multiplayer.RPC{Name: "join", Mode: multiplayer.ModeAnyPeer},
		multiplayer.RPC{Name: "say", Mode: multiplayer.ModeAnyPeer},
		multiplayer.RPC{Name: "welcome", Handler: func(p *multiplayer.Peer, id int32, ps *godot.Dictionary) {
			for _, e := range ps.Entries {
				known[int32(e.Key.(int64))] = e.Value.(string)
			}
			if len(known) == players+1 {
				close(done)
			}
		}},
		multiplayer.RPC{Name: "joined", Handler: func(p *multiplayer.Peer, id int32, name string) {
			known[id] = name
			if len(known) == players+1 {
				close(done)
			}
		}},
		multiplayer.RPC{Name: "left"}, multiplayer.RPC{Name: "said"},
	)
	c, err := multiplayer.Dial(ctx, url, &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{node}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	<-c.Connected()
	if err := c.RPCID(1, node, "join", "newcomer"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("the newcomer knows %d of %d players", len(known), players+1)
	}
	for id, name := range l.Names() {
		if known[id] != name {
			t.Fatalf("player %d: %q, want %q", id, known[id], name)
		}
	}
}
