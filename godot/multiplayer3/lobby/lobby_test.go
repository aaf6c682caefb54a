package lobby_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer3"
	"github.com/gamewire/gamewire/godot/multiplayer3/lobby"
)

// Two Go clients join the lobby and chat; the second hears of the first in welcome, the first
// of the second in joined, both hear both lines in said, and the first hears the second leave.
func TestLobbyGoClients(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	l, srv := lobby.New(quiet)
	h, err := enet.Listen("udp4", "127.0.0.1:0", &enet.HostOptions{Channels: multiplayer3.Channels})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(h) }()
	defer func() {
		srv.Shutdown(ctx)
		if err := <-served; !errors.Is(err, multiplayer3.ErrServerClosed) {
			t.Errorf("Serve = %v", err)
		}
	}()
	lines := make(chan string, 32)
	player := func(name string) *multiplayer3.Client {
		n := multiplayer3.MustNode("Lobby",
			multiplayer3.RPC{Name: "join", Mode: multiplayer3.ModeRemote},
			multiplayer3.RPC{Name: "say", Mode: multiplayer3.ModeRemote},
			multiplayer3.RPC{Name: "welcome", Mode: multiplayer3.ModePuppet, Handler: func(p *multiplayer3.Peer, id int32, players *godot.Dictionary) {
				lines <- fmt.Sprintf("%s: welcome %d players %d", name, id, len(players.Entries))
			}},
			multiplayer3.RPC{Name: "joined", Mode: multiplayer3.ModePuppet, Handler: func(p *multiplayer3.Peer, id int32, who string) {
				lines <- fmt.Sprintf("%s: joined %s", name, who)
			}},
			multiplayer3.RPC{Name: "left", Mode: multiplayer3.ModePuppet, Handler: func(p *multiplayer3.Peer, id int32) {
				lines <- fmt.Sprintf("%s: left", name)
			}},
			multiplayer3.RPC{Name: "said", Mode: multiplayer3.ModePuppet, Handler: func(p *multiplayer3.Peer, id int32, who, text string) {
				lines <- fmt.Sprintf("%s: %s says %s", name, who, text)
			}},
		)
		c, err := multiplayer3.Dial(ctx, h.LocalAddr().String(), &multiplayer3.ClientOptions{Nodes: []*multiplayer3.Node{n}, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.RPCID(1, n, "join", name); err != nil {
			t.Fatal(err)
		}
		if err := c.RPCID(1, n, "say", "hi from "+name); err != nil {
			t.Fatal(err)
		}
		return c
	}
	expect := func(want ...string) {
		t.Helper()
		seen := map[string]bool{}
		for _, w := range want {
			seen[w] = false
		}
		for n := 0; n < len(want); {
			select {
			case l := <-lines:
				if done, ok := seen[l]; ok && !done {
					seen[l] = true
					n++
				}
			case <-ctx.Done():
				t.Fatalf("missing some of %v: %v", want, seen)
			}
		}
	}
	ann := player("ann")
	expect("ann: welcome "+fmt.Sprint(ann.ID())+" players 1", "ann: ann says hi from ann")
	bob := player("bob")
	expect("bob: welcome "+fmt.Sprint(bob.ID())+" players 2", "ann: joined bob", "ann: bob says hi from bob", "bob: bob says hi from bob")
	if got := len(l.Names()); got != 2 {
		t.Errorf("Names has %d players", got)
	}
	bob.Close()
	expect("ann: left")
	ann.Close()
}
