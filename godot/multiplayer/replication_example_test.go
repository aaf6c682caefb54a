package multiplayer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
)

// A server that spawns a player for every peer, as a Godot server with a MultiplayerSpawner
// under World and a player scene with a MultiplayerSynchronizer would: the clients'
// spawner instantiates res://player.tscn as World/Players/<peer id> with the spawn state, and
// the synchronizer's position follows what the server sets.
func ExampleServer_Spawn() {
	players := &multiplayer.Spawner{Path: "World/PlayerSpawner", SpawnPath: "World/Players", DespawnOnDisconnect: true,
		Scenes: []*multiplayer.Scene{{Path: "res://player.tscn", Synchronizers: []*multiplayer.SyncConfig{{
			Path: "ServerSync",
			Properties: []multiplayer.Property{
				{Path: ".:position", Spawn: true, Mode: multiplayer.ReplicateAlways},
				{Path: ".:name_tag", Spawn: true, Mode: multiplayer.ReplicateOnChange},
			},
		}}}}}
	srv := &multiplayer.Server{Spawners: []*multiplayer.Spawner{players},
		NewPeerID: func(*http.Request) int32 { return 1234 }} // random ids by default
	spawned := make(chan *multiplayer.Entity, 1)
	srv.OnConnect = func(p *multiplayer.Peer) {
		e, err := srv.Spawn(players, "res://player.tscn", fmt.Sprint(p.ID()), &multiplayer.SpawnOptions{Owner: p.ID(),
			State: map[string]any{"position": godot.Vector2{X: 10, Y: 20}, "name_tag": "gopher"}})
		if err != nil {
			panic(err)
		}
		spawned <- e
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())

	// A Go client stands in for the Godot client; it prints the SPAWN it gets.
	got := make(chan string, 1)
	c, err := multiplayer.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), &multiplayer.ClientOptions{
		Trace: func(dir string, _ int32, pkt []byte) {
			if info, err := multiplayer.Decode(pkt); err == nil && dir == "in" && info.Command == "SPAWN" {
				got <- fmt.Sprintf("SPAWN scene %d, net id %d, synchronizer ids %v, state %v", *info.SceneID, *info.NetID, info.SyncIDs, info.State)
			}
		}})
	if err != nil {
		panic(err)
	}
	defer c.Close(context.Background())
	fmt.Println(<-got)
	e := <-spawned
	fmt.Println(e.Path(), e.NetID())
	// Later: the server moves the player; every tick sends the position to the peers.
	e.Sync("ServerSync").Set("position", godot.Vector2{X: 11, Y: 20})
	// Output:
	// SPAWN scene 0, net id 1, synchronizer ids [2], state [{10 20} gopher]
	// World/Players/1234 1
}
