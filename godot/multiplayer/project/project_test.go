package project

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/bomber"
	"github.com/gamewire/gamewire/internal/harness/godot4"
)

// testGames are the repository's test games.
var testGames = []string{"../bomber/client", "testdata/game2", "testdata/game3"}

func load(t *testing.T, dir string) *Project {
	t.Helper()
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBomberMatchesHandDeclarations: the bomber client project, loaded, gives the spawners,
// scenes, synchronizers and RPC tables that the example server declares by hand.
func TestBomberMatchesHandDeclarations(t *testing.T) {
	p := load(t, "../bomber/client")
	if p.MainScene != "res://world.tscn" {
		t.Errorf("main scene %q", p.MainScene)
	}
	d, err := p.Instance(p.MainScene, "")
	if err != nil {
		t.Fatal(err)
	}
	g, err := bomber.New()
	if err != nil {
		t.Fatal(err)
	}
	hand := g.Server.Spawners
	if len(d.Spawners) != len(hand) {
		t.Fatalf("%d spawners, the example declares %d", len(d.Spawners), len(hand))
	}
	for i, sp := range d.Spawners {
		h := hand[i]
		if sp.Path != h.Path || sp.SpawnPath != h.SpawnPath || len(sp.Scenes) != len(h.Scenes) {
			t.Errorf("spawner %s → %s (%d scenes), the example's %s → %s (%d)", sp.Path, sp.SpawnPath, len(sp.Scenes), h.Path, h.SpawnPath, len(h.Scenes))
			continue
		}
		for j, sc := range sp.Scenes {
			hs := h.Scenes[j]
			if sc.Path != hs.Path || len(sc.Synchronizers) != len(hs.Synchronizers) {
				t.Errorf("scene %s: %d synchronizers, the example's %s %d", sc.Path, len(sc.Synchronizers), hs.Path, len(hs.Synchronizers))
				continue
			}
			for k, c := range sc.Synchronizers {
				hc := hs.Synchronizers[k]
				if c.Path != hc.Path || c.Authority != hc.Authority || !sameProps(c.Properties, hc.Properties) {
					t.Errorf("synchronizer %s: %+v authority %d, the example's %s: %+v authority %d", c.Path, c.Properties, c.Authority, hc.Path, hc.Properties, hc.Authority)
				}
			}
			var sums, hsums []string
			for _, n := range sc.Nodes {
				sums = append(sums, n.Path()+" "+n.Checksum())
			}
			for _, n := range hs.Nodes {
				hsums = append(hsums, n.Path()+" "+n.Checksum())
			}
			if !slices.Equal(sums, hsums) {
				t.Errorf("scene %s nodes %v, the example's %v", sc.Path, sums, hsums)
			}
		}
	}
	if len(d.Synchronizers) != len(g.Server.Synchronizers) {
		t.Errorf("%d synchronizers outside spawned scenes, the example declares %d", len(d.Synchronizers), len(g.Server.Synchronizers))
	}
	for i := range min(len(d.Synchronizers), len(g.Server.Synchronizers)) {
		c, h := d.Synchronizers[i], g.Server.Synchronizers[i]
		if c.Path != h.Path || !sameProps(c.Properties, h.Properties) || !sameDefaults(c.Properties, h.Properties) {
			t.Errorf("synchronizer %s %+v, the example's %s %+v", c.Path, c.Properties, h.Path, h.Properties)
		}
	}
	nodes, err := d.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 || nodes[0].Path() != "World" || nodes[0].Checksum() != g.World.Checksum() {
		t.Errorf("nodes %v", nodes)
	}
}

// TestGame2: inheritance, every form of @rpc, rpc_config(), instanced scenes with overrides,
// multi-line values and uid references.
func TestGame2(t *testing.T) {
	p := load(t, "testdata/game2")
	rpcs, err := p.RPCs("res://child.gd")
	if err != nil {
		t.Fatal(err)
	}
	n, err := multiplayer.NewNode("X", rpcs...)
	if err != nil {
		t.Fatal(err)
	}
	if want := multiplayer.Checksum([]string{"cfg_method", "Beta", "_under", "alpha", "inline_one", "st_rpc", "zeta"}); n.Checksum() != want {
		t.Errorf("child.gd checksum %s, want %s (%+v)", n.Checksum(), want, rpcs)
	}
	byName := map[string]multiplayer.RPC{}
	for _, r := range rpcs {
		byName[r.Name] = r
	}
	if r := byName["Beta"]; r.Mode != multiplayer.ModeAnyPeer || r.Transfer != multiplayer.TransferUnreliableOrdered || r.Channel != 2 {
		t.Errorf("Beta %+v", r)
	}
	if r := byName["_under"]; !r.CallLocal || r.Mode != multiplayer.ModeAuthority {
		t.Errorf("_under %+v", r)
	}
	if r := byName["cfg_method"]; !r.NodeConfig || r.Mode != multiplayer.ModeAnyPeer {
		t.Errorf("cfg_method %+v", r)
	}
	if _, ok := byName["inner_rpc"]; ok {
		t.Error("an inner class's @rpc counted")
	}
	d, err := p.Instance("res://level.tscn", "")
	if err != nil {
		t.Fatal(err)
	}
	paths := slices.Sorted(maps.Keys(d.RPCs))
	if want := []string{"Level", "Level/Sub", "Level/Sub/Deep/Deeper"}; !slices.Equal(paths, want) {
		t.Errorf("nodes with RPCs %v, want %v", paths, want)
	}
	if len(d.Synchronizers) != 1 || d.Synchronizers[0].Path != "Level/LevelSync" || d.Synchronizers[0].Interval != 250*time.Millisecond ||
		!reflect.DeepEqual(d.Synchronizers[0].Properties, []multiplayer.Property{{Path: ".:editor_description", Spawn: true, Mode: multiplayer.ReplicateOnChange, Default: ""}}) {
		t.Errorf("synchronizers %+v", d.Synchronizers)
	}
	if w := d.Where["Level/Sub/Deep/Note"]; !strings.HasSuffix(w, "level.tscn:16") {
		t.Errorf("Note is at %q", w)
	}
	if w := d.Where["Level/LevelSync"]; !strings.HasSuffix(w, "level.tscn:20") {
		t.Errorf("LevelSync is at %q (after a value of two lines)", w)
	}
}

// TestLoadErrors: what the loader does not understand is an error naming the file and line.
func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"bad.gd", "extends Node\n\n@rpc(\"any_peer\", \"sometimes\")\nfunc f():\n\tpass\n", `bad.gd:3: @rpc argument "sometimes"`},
		{"bad.gd", "extends Node\n@rpc(\"any_peer\", 2)\nfunc f():\n\tpass\n", "bad.gd:2: @rpc argument 2 should be a String"},
		{"bad.gd", "extends Node\n@rpc\nvar x := 1\n", "bad.gd:3: @rpc (line 2) is not followed by a func"},
		{"bad.gd", "extends Node\n@rpc(\"any_peer\"\n", "bad.gd:2: @rpc: unclosed argument list"},
		{"bad.tscn", "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\nfoo = [1, 2\n", "bad.tscn:4: property foo: the value does not end"},
		{"bad.tscn", "[gd_scene format=3]\n[ext_resource type=\"Script\" path=\"res://a.cs\" id=\"1\"]\n[node name=\"A\" type=\"Node\"]\nscript = ExtResource(\"1\")\n",
			"bad.tscn:3: node .: script res://a.cs: only GDScript (.gd) is read"},
		{"bad.tscn", "[gd_scene format=3]\n[node name=\"A\" type=\"Node\"\n", "bad.tscn:2: a section heading without its closing bracket"},
		{"bad.tscn", "[gd_scene format=3]\n[node name=\"A\" type=\"Node\"]\nnot a property\n", `bad.tscn:3: expected key = value`},
		{"bad.tscn", "[gd_scene format=3]\n[sub_resource type=\"SceneReplicationConfig\" id=\"c\"]\nproperties/0/path = NodePath(\"nocolon\")\n" +
			"[node name=\"A\" type=\"MultiplayerSynchronizer\"]\nreplication_config = SubResource(\"c\")\n", `bad.tscn:2: properties/0/path = NodePath("nocolon")`},
	} {
		dir := t.TempDir()
		writeFile(t, dir+"/"+c.name, c.src)
		_, err := Load(dir)
		if err == nil && strings.HasSuffix(c.name, ".tscn") {
			p, _ := Load(dir)
			_, err = p.Instance("res://"+c.name, "")
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.src, err, c.want)
		}
	}
}

// TestEngineChecksums: for every node with RPCs in every scene of the test games, the real
// Godot 4.6 engine's SIMPLIFY_PATH carries the checksum of the loaded declarations.
func TestEngineChecksums(t *testing.T) {
	godot4.Require(t)
	type probe struct {
		game, scene, node, method, sum string
	}
	var probes []probe
	files := map[string][]byte{}
	for gi, dir := range testGames {
		p := load(t, dir)
		for _, res := range slices.Sorted(maps.Keys(p.Scenes)) {
			nodes, err := p.flatten(res, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range nodes {
				if n.Script == "" {
					continue
				}
				rpcs, err := p.RPCs(n.Script)
				if err != nil {
					t.Fatal(err)
				}
				if len(rpcs) == 0 {
					continue
				}
				node, err := multiplayer.NewNode("X", rpcs...)
				if err != nil {
					t.Fatal(err)
				}
				probes = append(probes, probe{fmt.Sprintf("g%d", gi), res, n.Path, rpcs[0].Name, node.Checksum()})
			}
		}
		// Each game's files live under its own folder; their res:// paths are rewritten.
		for res := range p.Scenes {
			files[fmt.Sprintf("g%d/%s", gi, strings.TrimPrefix(res, "res://"))] = rewrite(t, dir, res, gi)
		}
		for res := range p.Scripts {
			files[fmt.Sprintf("g%d/%s", gi, strings.TrimPrefix(res, "res://"))] = rewrite(t, dir, res, gi)
		}
	}
	var mu sync.Mutex
	sums := map[string]string{}
	srv := &multiplayer.Server{OriginPatterns: []string{"*"}, Trace: func(dir string, _ int32, pkt []byte) {
		if dir == "in" && len(pkt) > 38 && pkt[0] == byte(multiplayer.CmdSimplifyPath) {
			sp, err := multiplayer.ParseSimplifyPath(pkt)
			if err == nil {
				mu.Lock()
				sums[sp.Path] = sp.Checksum
				mu.Unlock()
			}
		}
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	var calls strings.Builder
	for i, pr := range probes {
		fmt.Fprintf(&calls, "\tawait probe(%q, %q, %q, %q)\n", fmt.Sprintf("P%d", i), pr.game+"/"+strings.TrimPrefix(pr.scene, "res://"), pr.node, pr.method)
	}
	script := strings.ReplaceAll(strings.ReplaceAll(engineDriver, "__URL__", "ws"+strings.TrimPrefix(hs.URL, "http")), "__PROBES__", calls.String())
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := godot4.Run(ctx, script, files)
	if err != nil || !slices.Contains(res.Stdout, "PROBES DONE") {
		t.Fatalf("engine run: %v\nstdout:\n%s\nstderr:\n%s", err, strings.Join(res.Stdout, "\n"), strings.Join(res.Stderr, "\n"))
	}
	mu.Lock()
	defer mu.Unlock()
	for i, pr := range probes {
		path := join(fmt.Sprintf("P%d", i), pr.node) // relative to the SceneMultiplayer root, /root/T
		if got, ok := sums[path]; !ok {
			t.Errorf("%s %s: the engine sent no SIMPLIFY_PATH for %s", pr.scene, pr.node, path)
		} else if got != pr.sum {
			t.Errorf("%s %s: the engine's checksum %s, the loader's %s", pr.scene, pr.node, got, pr.sum)
		}
	}
	if len(probes) < 6 {
		t.Errorf("only %d probes", len(probes))
	}
}

// engineDriver instantiates each probed scene under /root/T (a SceneMultiplayer connected to
// the Go server) and calls one RPC of the probed node, which makes the engine send its
// SIMPLIFY_PATH with the node's checksum.
const engineDriver = `extends Node

func probe(name: String, scene: String, node: String, method: String) -> void:
	var inst = load("res://" + scene).instantiate()
	inst.name = name
	get_node("/root/T").add_child(inst)
	await get_tree().process_frame
	inst.get_node(node).rpc_id(1, method)

func main() -> void:
	await get_tree().process_frame
	var t := Node.new()
	t.name = "T"
	get_tree().root.add_child(t)
	var mp := SceneMultiplayer.new()
	get_tree().set_multiplayer(mp, t.get_path())
	var peer := WebSocketMultiplayerPeer.new()
	peer.create_client("__URL__")
	mp.multiplayer_peer = peer
	var deadline := Time.get_ticks_msec() + 5000
	while mp.get_peers().size() == 0 and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
__PROBES__
	for i in 10:
		await get_tree().process_frame
	print("PROBES DONE")
`

// rewrite returns the file res of the game in dir with its res:// paths moved under g<gi>/.
func rewrite(t *testing.T, dir, res string, gi int) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(res, "res://")))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "res://", fmt.Sprintf("res://g%d/", gi)))
}

func writeFile(t *testing.T, name, src string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sameProps compares replication configs without the defaults (the example declares none).
func sameProps(a, b []multiplayer.Property) bool {
	return slices.EqualFunc(a, b, func(x, y multiplayer.Property) bool {
		return x.Path == y.Path && x.Spawn == y.Spawn && x.Mode == y.Mode
	})
}

// TestDefaults: each replicated property starts with the value of its node in the scene, else
// its script's initial value, else the engine's default.
func TestDefaults(t *testing.T) {
	p := load(t, "../bomber/client")
	d, err := p.Instance(p.MainScene, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, sp := range d.Spawners {
		for _, sc := range sp.Scenes {
			for _, c := range sc.Synchronizers {
				for _, pr := range c.Properties {
					got[sc.Path+" "+c.Path+" "+pr.Path] = pr.Default
				}
			}
		}
	}
	want := map[string]any{
		"res://player.tscn ServerSync .:position":       godot.Vector2{},
		"res://player.tscn ServerSync .:hp":             int64(0),
		"res://player.tscn ServerSync .:label":          "",
		"res://player.tscn Input/InputSync .:motion":    godot.Vector2{},
		"res://player.tscn Input/InputSync .:bombing":   false,
		"res://hint.tscn HintSync .:editor_description": "",
		"res://bomb.tscn BombSync .:position":           godot.Vector2{},
		"res://bomb.tscn BombSync .:from_player":        int64(0),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults\n have %v\n want %v", got, want)
	}
	for _, c := range []struct {
		src  string
		want any
	}{
		{"Vector2(1.5, -2)", godot.Vector2{X: 1.5, Y: -2}}, {"Color(1, 0, 0)", godot.Color{R: 1, A: 1}}, {`&"x"`, godot.StringName("x")},
		{"3", int64(3)}, {"0.5", 0.5}, {`"a\"b"`, `a"b`}, {"Vector3i(1, 2, 3)", godot.Vector3i{X: 1, Y: 2, Z: 3}},
	} {
		if v, ok := parseValue(c.src); !ok || !reflect.DeepEqual(v, c.want) {
			t.Errorf("parseValue(%s) = %v, %t; want %v", c.src, v, ok, c.want)
		}
	}
}

// sameDefaults compares the defaults as they go on the wire (int and int64 alike).
func sameDefaults(a, b []multiplayer.Property) bool {
	return slices.EqualFunc(a, b, func(x, y multiplayer.Property) bool {
		bx, _ := multiplayer.AppendCompressed(nil, x.Default)
		by, _ := multiplayer.AppendCompressed(nil, y.Default)
		return bytes.Equal(bx, by)
	})
}
