// Package bomber is an example game server for real Godot 4 clients: the server side of a small
// bomber-style game whose client project (scenes and scripts, unmodified Godot 4.6) is in the
// directory client/. The Go server is the authority: it spawns a player per connected peer,
// named by the peer id, under World/Players; it moves the players from the input their owners'
// clients replicate to it; it spawns a bomb (in a deep part of the tree) when a player bombs;
// it gives each player a hint that only that player sees; it spawns an effect with a custom
// spawn (the clients' spawn_function) for every bomb; and it keeps a scoreboard in the world
// scene (a synchronizer outside spawned scenes).
//
// The declarations below mirror the client project by hand; LoadProject in package
// godot/multiplayer/project reads the same from client/ (the tests check that both agree).
package bomber

import (
	"fmt"
	"sync"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
)

// Input is what a player's client replicates to the server (player_input.gd).
type Input struct {
	Motion  godot.Vector2 `godot:"motion"`
	Bombing bool          `godot:"bombing"`
}

// PlayerState is the state the server replicates for each player (player.gd).
type PlayerState struct {
	Position godot.Vector2 `godot:"position"`
	HP       int           `godot:"hp"`
	Label    string        `godot:"label"`
}

// Speed is how far one input SYNC with a unit motion moves a player.
const Speed = 10

// Game is the bomber server. Mount Server at the URL the clients connect to.
type Game struct {
	Server *multiplayer.Server
	World  *multiplayer.Node
	// OnInput, if set, sees every input a client sends, after the game applied it.
	OnInput func(peer int32, in Input)

	players, hints, bombs, fx *multiplayer.Spawner

	mu      sync.Mutex
	entered int // players so far, for their start positions
	bombed  map[int32]bool
	nbombs  int
	state   map[int32]*PlayerState
	ents    map[int32]*multiplayer.Entity
}

// New returns a game whose Server accepts web clients from any origin. Its other fields may be
// set before it serves.
func New() (*Game, error) {
	g := &Game{bombed: map[int32]bool{}, state: map[int32]*PlayerState{}, ents: map[int32]*multiplayer.Entity{}}
	world, err := multiplayer.NewNode("World",
		multiplayer.RPC{Name: "hello", Mode: multiplayer.ModeAnyPeer, Handler: func(p *multiplayer.Peer, name string) {}},
		multiplayer.RPC{Name: "announce"})
	if err != nil {
		return nil, err
	}
	g.World = world
	player, err := multiplayer.NewNode(".", multiplayer.RPC{Name: "exploded", CallLocal: true})
	if err != nil {
		return nil, err
	}
	g.players = &multiplayer.Spawner{Path: "World/PlayerSpawner", SpawnPath: "World/Players", DespawnOnDisconnect: true,
		Scenes: []*multiplayer.Scene{{Path: "res://player.tscn", Nodes: []*multiplayer.Node{player}, Synchronizers: []*multiplayer.SyncConfig{
			{Path: "ServerSync", Properties: []multiplayer.Property{
				{Path: ".:position", Spawn: true, Mode: multiplayer.ReplicateAlways},
				{Path: ".:hp", Spawn: true, Mode: multiplayer.ReplicateOnChange},
				{Path: ".:label", Spawn: true, Mode: multiplayer.ReplicateNever},
			}},
			{Path: "Input/InputSync", Authority: multiplayer.AuthorityOwner, OnSync: g.input, Properties: []multiplayer.Property{
				{Path: ".:motion", Mode: multiplayer.ReplicateAlways},
				{Path: ".:bombing", Mode: multiplayer.ReplicateOnChange},
			}},
		}}}}
	g.hints = &multiplayer.Spawner{Path: "World/HintSpawner", SpawnPath: "World/Hints", DespawnOnDisconnect: true,
		Scenes: []*multiplayer.Scene{{Path: "res://hint.tscn", Synchronizers: []*multiplayer.SyncConfig{
			{Path: "HintSync", Properties: []multiplayer.Property{{Path: ".:editor_description", Spawn: true}},
				// Only the hint's owner sees it.
				Visible: func(peer int32, e *multiplayer.Entity) bool { return peer == e.Owner() }},
		}}}}
	g.bombs = &multiplayer.Spawner{Path: "World/Level/Zone/Area/BombSpawner", SpawnPath: "World/Level/Zone/Area/Bombs",
		Scenes: []*multiplayer.Scene{{Path: "res://bomb.tscn", Synchronizers: []*multiplayer.SyncConfig{
			{Path: "BombSync", Properties: []multiplayer.Property{{Path: ".:position", Spawn: true}, {Path: ".:from_player", Spawn: true}}},
		}}}}
	g.fx = &multiplayer.Spawner{Path: "World/FxSpawner", SpawnPath: "World/Fx", Custom: &multiplayer.Scene{}}
	score := &multiplayer.SyncConfig{Path: "World/Scoreboard/ScoreSync", Properties: []multiplayer.Property{
		{Path: ".:bombs", Spawn: true, Mode: multiplayer.ReplicateAlways, Default: 0},
		{Path: ".:last_bomber", Spawn: true, Mode: multiplayer.ReplicateOnChange, Default: 0},
	}}
	g.Server = &multiplayer.Server{Nodes: []*multiplayer.Node{world}, Spawners: []*multiplayer.Spawner{g.players, g.hints, g.bombs, g.fx},
		Synchronizers: []*multiplayer.SyncConfig{score}, OriginPatterns: []string{"*"}, OnConnect: g.connect, OnDisconnect: g.disconnect}
	return g, nil
}

func (g *Game) connect(p *multiplayer.Peer) {
	g.mu.Lock()
	g.entered++
	st := &PlayerState{Position: godot.Vector2{X: float32(100 * g.entered), Y: 100}, HP: 100, Label: fmt.Sprintf("player %d", p.ID())}
	g.state[p.ID()] = st
	g.mu.Unlock()
	name := fmt.Sprint(p.ID())
	e, err := g.Server.Spawn(g.players, "res://player.tscn", name, &multiplayer.SpawnOptions{Owner: p.ID(), State: st})
	if err != nil {
		return
	}
	g.mu.Lock()
	g.ents[p.ID()] = e
	g.mu.Unlock()
	g.Server.Spawn(g.hints, "res://hint.tscn", "Hint"+name, &multiplayer.SpawnOptions{Owner: p.ID(),
		State: map[string]any{"editor_description": "only for " + name}})
}

func (g *Game) disconnect(p *multiplayer.Peer) {
	g.mu.Lock()
	delete(g.state, p.ID())
	delete(g.ents, p.ID())
	delete(g.bombed, p.ID())
	g.mu.Unlock()
}

// input applies a player's input: motion moves the player, and the start of bombing drops a
// bomb where the player stands and costs 10 hp.
func (g *Game) input(p *multiplayer.Peer, s *multiplayer.SyncState) {
	var in Input
	if err := s.Unmarshal(&in); err != nil {
		return
	}
	owner := s.Entity().Owner()
	if p.ID() != owner {
		return
	}
	g.mu.Lock()
	st, e := g.state[owner], g.ents[owner]
	if st == nil || e == nil {
		g.mu.Unlock()
		return
	}
	st.Position.X += in.Motion.X * Speed
	st.Position.Y += in.Motion.Y * Speed
	drop := in.Bombing && !g.bombed[owner]
	g.bombed[owner] = in.Bombing
	if drop {
		st.HP -= 10
		g.nbombs++
	}
	cur, n := *st, g.nbombs
	g.mu.Unlock()
	e.Sync("ServerSync").SetState(cur)
	if drop {
		g.Server.Spawn(g.bombs, "res://bomb.tscn", fmt.Sprintf("Bomb%d", n), &multiplayer.SpawnOptions{Owner: owner,
			State: map[string]any{"position": cur.Position, "from_player": int(owner)}})
		g.Server.Spawn(g.fx, "", fmt.Sprintf("Fx%d", n), &multiplayer.SpawnOptions{Arg: []any{"boom", cur.Position, n}})
		if sb := g.Server.Synchronizer("World/Scoreboard/ScoreSync"); sb != nil {
			sb.SetState(map[string]any{"bombs": n, "last_bomber": int(owner)})
		}
		g.Server.RPC(g.World, "announce", fmt.Sprintf("%d dropped bomb %d", owner, n))
		g.Server.RPC(e.Node("."), "exploded", int(owner)) // the player's own RPC
	}
	if g.OnInput != nil {
		g.OnInput(p.ID(), in)
	}
}
