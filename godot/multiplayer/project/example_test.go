package project_test

import (
	"fmt"

	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/project"
)

// Load the bomber example's client project and mirror its main scene on a Go server, with a
// handler for the one RPC the clients call.
func ExampleLoad() {
	p, err := project.Load("../bomber/client")
	if err != nil {
		panic(err)
	}
	d, err := p.Instance(p.MainScene, "")
	if err != nil {
		panic(err)
	}
	for _, sp := range d.Spawners {
		fmt.Println("spawner", sp.Path, "→", sp.SpawnPath)
		for _, sc := range sp.Scenes {
			for _, c := range sc.Synchronizers {
				fmt.Printf("  %s %s authority %d: %v\n", sc.Path, c.Path, c.Authority, c.Properties)
			}
		}
	}
	for _, c := range d.Synchronizers {
		fmt.Println("synchronizer", c.Path, c.Properties)
	}
	if err := d.Handle("World", "hello", func(p *multiplayer.Peer, name string) {}); err != nil {
		panic(err)
	}
	srv := &multiplayer.Server{}
	if err := d.Apply(srv); err != nil {
		panic(err)
	}
	for _, n := range srv.Nodes {
		fmt.Println("node", n.Path(), n.Methods(), n.Checksum())
	}
	// Output:
	// spawner World/PlayerSpawner → World/Players
	//   res://player.tscn ServerSync authority 0: [{.:position true always {0 0}} {.:hp true on_change 0} {.:label true never }]
	//   res://player.tscn Input/InputSync authority -1: [{.:motion false always {0 0}} {.:bombing false on_change false}]
	// spawner World/HintSpawner → World/Hints
	//   res://hint.tscn HintSync authority 0: [{.:editor_description true never }]
	// spawner World/Level/Zone/Area/BombSpawner → World/Level/Zone/Area/Bombs
	//   res://bomb.tscn BombSync authority 0: [{.:position true never {0 0}} {.:from_player true never 0}]
	// spawner World/FxSpawner → World/Fx
	// synchronizer World/Scoreboard/ScoreSync [{.:bombs true always 0} {.:last_bomber true on_change 0}]
	// node World [announce hello] d2dd737c8db86b42931daa57902aa95d
}
