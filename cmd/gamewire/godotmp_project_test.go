package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/project"
	"github.com/gamewire/gamewire/internal/harness/godot4"
)

// "godot mp serve --project" serves the bomber example's client project with no Go
// declarations: a real Godot 4.6 client gets its player spawned with the defaults the project
// gives, its RPC and input SYNC are accepted, and --explain names every packet.
func TestEngineGodotMPServeProject(t *testing.T) {
	godot4.Require(t)
	m := startMPServe(t, "godot", "mp", "serve", "--project", "../../godot/multiplayer/bomber/client",
		"--spawn-players", "World/PlayerSpawner", "--explain", "--addr", "127.0.0.1:0")
	files := map[string][]byte{}
	for _, f := range []string{"world.tscn", "world.gd", "player.tscn", "player.gd", "player_input.gd", "bomb.tscn", "bomb.gd", "hint.tscn", "scoreboard.gd"} {
		files[f] = readFile(t, "../../godot/multiplayer/bomber/client/"+f)
	}
	script := strings.ReplaceAll(projectDriver, "__URL__", "ws://"+m.addr)
	rctx, rcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer rcancel()
	res, err := godot4.Run(rctx, script, files)
	if err != nil || !slices.Contains(res.Stdout, "P END") {
		t.Fatalf("engine: %v\n%s\n%s", err, strings.Join(res.Stdout, "\n"), strings.Join(res.Stderr, "\n"))
	}
	m.stop(t)
	if !slices.Contains(res.Stdout, "P score synchronized bombs=0") {
		t.Errorf("the client's scoreboard synchronizer got no SYNC from the server:\n%s", strings.Join(res.Stdout, "\n"))
	}
	var id string
	for _, l := range res.Stdout {
		if rest, ok := strings.CutPrefix(l, "P spawned "); ok {
			id, _, _ = strings.Cut(rest, " ")
			if want := "P spawned " + id + " pos=(0.0, 0.0) hp=0 label="; l != want {
				t.Errorf("the client printed %q, want %q", l, want)
			}
		}
	}
	if id == "" {
		t.Fatalf("no player spawned:\n%s", strings.Join(res.Stdout, "\n"))
	}
	text := strings.ReplaceAll(m.out.String(), id, "2001") // the server's peer ids are random
	for _, want := range []string{
		"serving ../../godot/multiplayer/bomber/client (res://world.tscn: 1 nodes with RPCs, 4 spawners, 1 synchronizers)",
		// The scoreboard's synchronizer is in the world scene (path based): the server sends its
		// state, the project's defaults, once the client confirmed its path.
		"out 2001 SIMPLIFY_PATH World/Scoreboard/ScoreSync = cache id",
		"in  2001 CONFIRM_PATH World/Scoreboard/ScoreSync valid=true",
		"World/Scoreboard/ScoreSync bombs=0",
		"out 2001 delta SYNC World/Scoreboard/ScoreSync last_bomber=0",
		"out 2001 SIMPLIFY_PATH World/PlayerSpawner = cache id 1",
		`out 2001 SPAWN by World/PlayerSpawner: "2001" net id 1 scene res://player.tscn state position=Vector2(0, 0) hp=0 label=""`,
		"out 2001 SYNC t=1 World/Players/2001/ServerSync position=",
		"out 2001 delta SYNC World/Players/2001/ServerSync hp=0",
		`in  2001 REMOTE_CALL World.hello("gopher")`,
		"out 2001 CONFIRM_PATH World valid=true",
		"out 2001 CONFIRM_PATH World/Players/2001/Input/InputSync valid=true",
		`World/Players/2001/Input/InputSync motion=Vector2(1, 0)`,
		"World/Players/2001/Input/InputSync bombing=true",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the explanation lacks %q:\n%s", want, text)
		}
	}
}

// projectDriver is one client of the bomber project, as its players would run it.
const projectDriver = `extends Node

func main() -> void:
	await get_tree().process_frame
	var root := Node.new()
	root.name = "C"
	get_tree().root.add_child(root)
	var world = load("res://world.tscn").instantiate()
	root.add_child(world)
	var mp := SceneMultiplayer.new()
	get_tree().set_multiplayer(mp, root.get_path())
	world.get_node("PlayerSpawner").spawned.connect(func(n):
		print("P spawned %s pos=%s hp=%d label=%s" % [n.name, n.position, n.hp, n.label]))
	world.get_node("Scoreboard").bombs = -1 # so that the server's SYNC shows
	world.get_node("Scoreboard/ScoreSync").synchronized.connect(func():
		print("P score synchronized bombs=%d" % world.get_node("Scoreboard").bombs), CONNECT_ONE_SHOT)
	var peer := WebSocketMultiplayerPeer.new()
	peer.create_client("__URL__")
	mp.multiplayer_peer = peer
	var deadline := Time.get_ticks_msec() + 5000
	while world.get_node("Players").get_child_count() == 0 and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	if world.get_node("Players").get_child_count() == 0:
		print("P TIMEOUT")
		return
	world.hello.rpc_id(1, "gopher")
	var p = world.get_node("Players").get_child(0)
	p.get_node("Input").motion = Vector2(1, 0)
	p.get_node("Input").bombing = true
	for i in 20:
		await get_tree().process_frame
	print("P END")
`

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// "godot mp serve --project" refuses what it cannot serve before it listens.
func TestGodotMPServeProjectErrors(t *testing.T) {
	dir := "../../godot/multiplayer/bomber/client"
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--project"}, 2, "flag needs an argument"},
		{[]string{"--project", dir, "extra"}, 2, "too many arguments"},
		{[]string{"--project="}, 2, "--project: the project folder is empty"},
		{[]string{"--project", dir, "--spawn-players", "World/Nope"}, 1, `no spawner "World/Nope" in res://world.tscn (spawners: World/PlayerSpawner, World/HintSpawner, World/Level/Zone/Area/BombSpawner, World/FxSpawner)`},
		{[]string{"--project", dir, "--scene", "res://nope.tscn"}, 1, "scene res://nope.tscn is not in the project"},
		{[]string{"--project", t.TempDir()}, 1, "has no main scene: give --scene"},
		{[]string{"--project", dir, "--spawn-players", "World/FxSpawner"}, 1, `spawner "World/FxSpawner" spawns only through its spawn function`},
	} {
		var out, errb strings.Builder
		code := run(append([]string{"godot", "mp", "serve"}, c.args...), strings.NewReader(""), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}

// "godot mp serve --project" serves a game whose scripts set something the loader cannot read
// as the scenes say, and names each such place on stderr.
func TestGodotMPServeProjectGaps(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"project.godot": "[application]\nrun/main_scene=\"res://w.tscn\"\n",
		"w.tscn": "[gd_scene format=3]\n[ext_resource type=\"Script\" path=\"res://w.gd\" id=\"1\"]\n[node name=\"W\" type=\"Node\"]\nscript = ExtResource(\"1\")\n" +
			"[node name=\"Sp\" type=\"MultiplayerSpawner\" parent=\".\"]\nspawn_path = NodePath(\"..\")\n",
		"w.gd": "extends Node\n\nfunc _ready():\n\t$Sp.spawn_function = func(data): return Node.new()\n",
	} {
		if err := os.WriteFile(dir+"/"+name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := startMPServe(t, "godot", "mp", "serve", "--project", dir, "--addr", "127.0.0.1:0")
	m.stop(t)
	if want := "not served as the game does: " + dir + "/w.gd:4: spawn_function = func(data): return Node.new(): the loader reads a method of the script"; !strings.Contains(m.logs.String(), want) {
		t.Errorf("stderr %q lacks %q", m.logs.String(), want)
	}
}

// --explain names the SPAWNs of nested spawners and custom spawns with the project's names:
// test game 3's player, its item (by the player's own spawner) and a drop through the spawn
// function, with their spawn state.
func TestGodotMPServeProjectExplainsNestedAndCustom(t *testing.T) {
	p, err := project.Load("../../godot/multiplayer/project/testdata/game3")
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Instance(p.MainScene, "")
	if err != nil {
		t.Fatal(err)
	}
	d.Gaps = nil // the beacon's filter: no beacon here
	var out strings.Builder
	n := newNamer(d, &out)
	srv := &multiplayer.Server{Replication: multiplayer.Replication{TickInterval: multiplayer.NoLimit},
		NewPeerID: func(*http.Request) int32 { return 2001 }}
	if err := d.Apply(srv); err != nil {
		t.Fatal(err)
	}
	spawns := make(chan struct{}, 8)
	srv.Trace = func(dir string, peer int32, pkt []byte) {
		n.trace(dir, peer, pkt)
		if dir == "out" && pkt[0] == byte(multiplayer.CmdSpawn) {
			spawns <- struct{}{}
		}
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := multiplayer.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	sp := map[string]*multiplayer.Spawner{}
	for _, s := range d.Spawners {
		sp[s.Path] = s
	}
	e, err := srv.Spawn(sp["Game/PlayerSpawner"], "res://player.tscn", "2001", &multiplayer.SpawnOptions{Owner: 2001})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Spawn(e.SpawnerAt("ItemSpawner"), "res://item.tscn", "Sword", &multiplayer.SpawnOptions{State: map[string]any{"kind": 3}}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Spawn(sp["Game/DropSpawner"], "", "Drop1", &multiplayer.SpawnOptions{Arg: []any{"Drop1", godot.Vector2{X: 5, Y: 6}}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case <-spawns:
		case <-ctx.Done():
			t.Fatal("no SPAWN")
		}
	}
	n.mu.Lock()
	text := out.String()
	n.mu.Unlock()
	for _, want := range []string{
		`out 2001 SPAWN by Game/PlayerSpawner: "2001" net id 1 scene res://player.tscn state hp=10 player=2001`,
		`out 2001 SPAWN by Game/Players/2001/ItemSpawner: "Sword" net id 3 scene res://item.tscn state kind=3`,
		`out 2001 SPAWN by Game/DropSpawner: "Drop1" net id 5 custom (spawn_function) res://drop.tscn state amount=1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the explanation lacks %q:\n%s", want, text)
		}
	}
}
