package project_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gamewire/gamewire/godot"
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
				fmt.Printf("  %s %s authority %d: %s\n", sc.Path, c.Path, c.Authority, props(c.Properties))
			}
		}
	}
	for _, c := range d.Synchronizers {
		fmt.Println("synchronizer", c.Path, props(c.Properties))
	}
	for _, sp := range d.Spawners {
		if sp.Custom != nil {
			fmt.Printf("spawner %s spawns with its spawn function %q\n", sp.Path, sp.Custom.Path) // "": plain nodes
		}
	}
	fmt.Println("gaps:", d.Gaps)
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
	//   res://player.tscn ServerSync authority 0: .:position (spawn, always, Vector2(0, 0)) .:hp (spawn, on_change, 0) .:label (spawn, never, "")
	//   res://player.tscn Input/InputSync authority -1: .:motion (always, Vector2(0, 0)) .:bombing (on_change, false)
	// spawner World/HintSpawner → World/Hints
	//   res://hint.tscn HintSync authority 0: .:editor_description (spawn, never, "")
	// spawner World/Level/Zone/Area/BombSpawner → World/Level/Zone/Area/Bombs
	//   res://bomb.tscn BombSync authority 0: .:position (spawn, never, Vector2(0, 0)) .:from_player (spawn, never, 0)
	// spawner World/FxSpawner → World/Fx
	// synchronizer World/Scoreboard/ScoreSync .:bombs (spawn, always, 0) .:last_bomber (spawn, on_change, 0)
	// spawner World/FxSpawner spawns with its spawn function ""
	// gaps: []
	// node World [announce hello] d2dd737c8db86b42931daa57902aa95d
}

// props writes a replication config: each property's path, whether it is in the spawn state,
// its mode and its default.
func props(ps []multiplayer.Property) string {
	var parts []string
	for _, p := range ps {
		s := p.Path + " ("
		if p.Spawn {
			s += "spawn, "
		}
		parts = append(parts, fmt.Sprintf("%s%s, %s)", s, p.Mode, godot.VarToStr(p.Default)))
	}
	return strings.Join(parts, " ")
}

// What a project's scripts set in a way the loader cannot read comes back as gaps, with the
// file and line: here the beacon's visibility filter depends on a variable. The program
// supplies it from Go, drops the gap, and Apply accepts the declarations.
func ExampleDeclarations_gaps() {
	p, err := project.Load("testdata/game3")
	if err != nil {
		panic(err)
	}
	d, err := p.Instance(p.MainScene, "")
	if err != nil {
		panic(err)
	}
	srv := &multiplayer.Server{}
	fmt.Println(errors.Is(d.Apply(srv), project.ErrNotRead))
	for _, g := range d.Gaps {
		fmt.Println(g.Where, g.Scene, g.Sync.Path)
		g.Sync.Visible = func(peer int32, e *multiplayer.Entity) bool { return peer == e.Owner() }
	}
	d.Gaps = nil
	fmt.Println(d.Apply(srv))
	// Output:
	// true
	// testdata/game3/beacon.gd:9 res://beacon.tscn BeaconSync
	// <nil>
}
