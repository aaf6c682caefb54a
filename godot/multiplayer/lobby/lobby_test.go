package lobby_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/lobby"
	"github.com/gamewire/gamewire/internal/harness/godot4"
)

// clientNode declares the Lobby node as a Go client has it, printing what the server says.
func clientNode(said chan<- string) *multiplayer.Node {
	return multiplayer.MustNode("Lobby",
		multiplayer.RPC{Name: "join", Mode: multiplayer.ModeAnyPeer},
		multiplayer.RPC{Name: "say", Mode: multiplayer.ModeAnyPeer},
		multiplayer.RPC{Name: "welcome", Handler: func(p *multiplayer.Peer, id int32, players *godot.Dictionary) {
			said <- fmt.Sprintf("welcome %d players %d", id, players.Len())
		}},
		multiplayer.RPC{Name: "joined", Handler: func(p *multiplayer.Peer, id int32, name string) { said <- "joined " + name }},
		multiplayer.RPC{Name: "left", Handler: func(p *multiplayer.Peer, id int32) { said <- "left" }},
		multiplayer.RPC{Name: "said", Handler: func(p *multiplayer.Peer, id int32, name, text string) { said <- name + ": " + text }},
	)
}

// The README's scene (lobby.tscn, lobby.gd) runs unmodified in the real Godot 4.6 engine
// against the lobby server, beside a Go client.
func TestLobbyEngine(t *testing.T) {
	godot4.Require(t)
	_, srv := lobby.New(nil)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	url := "ws" + strings.TrimPrefix(hs.URL, "http")

	said := make(chan string, 16)
	node := clientNode(said)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := multiplayer.Dial(ctx, url, &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{node}})
	if err != nil {
		t.Fatal(err)
	}
	<-c.Connected()
	c.RPCID(1, node, "join", "gopher")
	if got := <-said; got != fmt.Sprintf("welcome %d players 1", c.ID()) {
		t.Fatal(got)
	}
	// When the engine says hello, answer it.
	go func() {
		for s := range said {
			if strings.HasPrefix(s, "engine: hello") {
				c.RPCID(1, node, "say", "hi engine")
				c.Close(context.Background()) // the engine sees DEL_PEER after the chat line
			}
		}
	}()

	tscn, _ := os.ReadFile("godot/lobby.tscn")
	gd, _ := os.ReadFile("godot/lobby.gd")
	script := `extends Node

func main() -> void:
	await get_tree().process_frame
	var lobby = load("res://lobby.tscn").instantiate()
	lobby.url = "` + url + `"
	lobby.player_name = "engine"
	get_tree().root.add_child(lobby)
	var state := {"left": false}
	lobby.multiplayer.peer_disconnected.connect(func(id): state["left"] = true)
	for i in 600:
		await get_tree().process_frame
		if state["left"]:
			break
	lobby.multiplayer.multiplayer_peer.close()
`
	// lobby.tscn and lobby.gd as the README shows them.
	res, err := godot4.Run(ctx, script, map[string][]byte{"lobby.tscn": tscn, "lobby.gd": gd})
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Join(res.Stdout, "\n")
	for _, want := range []string{"lobby: welcome ", "lobby: gopher (" + fmt.Sprint(c.ID()) + ") says hi engine"} {
		if !strings.Contains(out, want) {
			t.Errorf("the engine did not print %q:\n%s", want, out)
		}
	}
	if !slices.ContainsFunc(res.Stdout, func(l string) bool { return strings.Contains(l, "says hello from engine") }) {
		t.Errorf("no hello from the engine:\n%s", out)
	}
}

// A lobby with two Go clients: each is welcomed, sees the other join, chats and leaves.
func Example() {
	_, srv := lobby.New(nil)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	ctx := context.Background()

	said := make(chan string, 16)
	node := clientNode(said)
	alice, _ := multiplayer.Dial(ctx, url, &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{node}})
	<-alice.Connected()
	alice.RPCID(1, node, "join", "alice")
	<-said // welcome
	bobSaid := make(chan string, 16)
	bobNode := clientNode(bobSaid)
	bob, _ := multiplayer.Dial(ctx, url, &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{bobNode}})
	<-bob.Connected()
	bob.RPCID(1, bobNode, "join", "bob")
	fmt.Println(<-said)
	bob.RPCID(1, bobNode, "say", "hi alice")
	fmt.Println(<-said)
	bob.Close(ctx)
	fmt.Println(<-said)
	alice.Close(ctx)
	srv.Shutdown(ctx)
	// Output:
	// joined bob
	// bob: hi alice
	// left
}
