package lobby_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/lobby"
)

// TestLobbyENet (issue 23 §3): the same lobby over ENet: two Go clients that connect as a Godot
// 4 ENetMultiplayerPeer does are welcomed, see each other join, chat and leave.
func TestLobbyENet(t *testing.T) {
	_, srv := lobby.New(nil)
	h, err := enet.Listen("udp", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeENet(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	next := func(ch <-chan string) string {
		select {
		case s := <-ch:
			return s
		case <-ctx.Done():
			t.Fatal("timed out")
			return ""
		}
	}
	aSaid, bSaid := make(chan string, 16), make(chan string, 16)
	aNode, bNode := clientNode(aSaid), clientNode(bSaid)
	a, err := multiplayer.DialENet(ctx, h.LocalAddr().String(), &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{aNode}})
	if err != nil {
		t.Fatal(err)
	}
	<-a.Connected()
	a.RPCID(1, aNode, "join", "alice")
	if s := next(aSaid); s != fmt.Sprintf("welcome %d players 1", a.ID()) {
		t.Fatal(s)
	}
	b, err := multiplayer.DialENet(ctx, h.LocalAddr().String(), &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{bNode}})
	if err != nil {
		t.Fatal(err)
	}
	<-b.Connected()
	b.RPCID(1, bNode, "join", "bob")
	if s := next(aSaid); s != "joined bob" {
		t.Fatal(s)
	}
	b.RPCID(1, bNode, "say", "hi alice")
	if s := next(aSaid); s != "bob: hi alice" {
		t.Fatal(s)
	}
	b.Close(ctx)
	if s := next(aSaid); s != "left" {
		t.Fatal(s)
	}
	a.Close(ctx)
}
