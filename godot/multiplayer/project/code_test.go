package project

import (
	"errors"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot/multiplayer"
)

// TestGame3: a spawner nested in the player scene, a spawn function that instantiates a
// scene through a constant, an owner-only visibility filter in a lambda with
// visibility_update_mode, an authority written int(str(name)), and a synchronizer in the main
// scene: all read; the beacon's filter, which depends on a variable, is the one gap.
func TestGame3(t *testing.T) {
	p := load(t, "testdata/game3")
	d, err := p.Instance(p.MainScene, "")
	if err != nil {
		t.Fatal(err)
	}
	// The beacon's filter depends on a variable: the one gap, for Go to fill.
	if len(d.Gaps) != 1 || !strings.HasSuffix(d.Gaps[0].Where, "beacon.gd:9") || d.Gaps[0].Scene != "res://beacon.tscn" ||
		d.Gaps[0].Sync == nil || d.Gaps[0].Sync.Path != "BeaconSync" || !strings.Contains(d.Gaps[0].What, "return peer == shown_to") {
		t.Fatalf("gaps: %v", d.Gaps)
	}
	byPath := map[string]*multiplayer.Spawner{}
	for _, sp := range d.Spawners {
		byPath[sp.Path] = sp
	}
	players := byPath["Game/PlayerSpawner"]
	if players == nil || len(players.Scenes) != 1 {
		t.Fatalf("spawners %v", d.Spawners)
	}
	player := players.Scenes[0]
	if len(player.Spawners) != 1 || player.Spawners[0].Path != "ItemSpawner" || player.Spawners[0].SpawnPath != "Items" ||
		len(player.Spawners[0].Scenes) != 1 || player.Spawners[0].Scenes[0].Path != "res://item.tscn" || player.Spawners[0].SpawnLimit != 4 {
		t.Errorf("the player's nested spawners %+v", player.Spawners)
	}
	auth := map[string]multiplayer.Authority{}
	for _, c := range player.Synchronizers {
		auth[c.Path] = c.Authority
	}
	if auth["ServerSync"] != multiplayer.AuthorityServer || auth["Input/InputSync"] != multiplayer.AuthorityOwner || auth["Aim/AimSync"] != multiplayer.AuthorityOwner {
		t.Errorf("authorities %v", auth)
	}
	// The aim's authority is the player property the spawn state carries: the owner.
	if pr := player.Synchronizers[0].Properties; len(pr) != 2 || pr[1].Name() != "player" || !pr[1].OwnerID || pr[0].OwnerID || pr[1].Default != int64(1) {
		t.Errorf("ServerSync properties %+v", pr)
	}
	drops := byPath["Game/DropSpawner"]
	if drops == nil || drops.Custom == nil || drops.Custom.Path != "res://drop.tscn" || len(drops.Custom.Synchronizers) != 1 {
		t.Errorf("the drop spawner's custom scene %+v", drops)
	}
	badge := byPath["Game/BadgeSpawner"].Scenes[0].Synchronizers[0]
	if badge.Visible == nil || badge.VisibilityUpdate != multiplayer.VisibilityManual {
		t.Fatalf("badge synchronizer %+v", badge)
	}
	if len(d.Synchronizers) != 1 || d.Synchronizers[0].Path != "Game/Clock/ClockSync" || d.Synchronizers[0].Authority != multiplayer.AuthorityServer {
		t.Errorf("synchronizers outside spawned scenes %+v", d.Synchronizers)
	}
}

// TestCodePatterns: what the loader reads from scripts, and the gaps, with their file and line,
// for what it does not.
func TestCodePatterns(t *testing.T) {
	const scene = `[gd_scene format=3]
[ext_resource type="Script" path="res://s.gd" id="1"]
[sub_resource type="SceneReplicationConfig" id="c"]
properties/0/path = NodePath(".:v")
properties/0/spawn = true
properties/0/replication_mode = 1
[node name="E" type="Node"]
script = ExtResource("1")
[node name="A" type="Node" parent="."]
unique_name_in_owner = true
[node name="Sync" type="MultiplayerSynchronizer" parent="A"]
replication_config = SubResource("c")
[node name="Sync2" type="MultiplayerSynchronizer" parent="."]
replication_config = SubResource("c")
unique_name_in_owner = true
[node name="Sp" type="MultiplayerSpawner" parent="."]
spawn_path = NodePath("..")
`
	const main = `[gd_scene format=3]
[node name="M" type="Node"]
[node name="S" type="MultiplayerSpawner" parent="."]
_spawnable_scenes = PackedStringArray("res://e.tscn")
spawn_path = NodePath("..")
`
	// vis says whether the owner (5) and another peer (6) see the synchronizer: "yn", or
	// "all" without a filter.
	vis := func(c *multiplayer.SyncConfig) string {
		if c.Visible == nil {
			return "all"
		}
		e := ownedEntity(t, 5)
		return map[bool]string{true: "y", false: "n"}[c.Visible(5, e)] + map[bool]string{true: "y", false: "n"}[c.Visible(6, e)]
	}
	for _, c := range []struct {
		name, script string
		check        func(t *testing.T, d *Declarations, sc *multiplayer.Scene)
	}{
		{"owner non-recursive", "extends Node\nfunc _enter_tree():\n\tset_multiplayer_authority(name.to_int(), false)\n\t$A.set_multiplayer_authority(str(name).to_int(), true)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				if sc.Synchronizers[0].Authority != multiplayer.AuthorityOwner || sc.Synchronizers[1].Authority != multiplayer.AuthorityServer {
					t.Errorf("authorities %d %d", sc.Synchronizers[0].Authority, sc.Synchronizers[1].Authority)
				}
			}},
		{"owner through an onready variable, a fixed peer", "extends Node\n@onready var sync := $A/Sync\nfunc _ready():\n\tsync.set_multiplayer_authority(String(name).to_int())\n\t$Sync2.set_multiplayer_authority(7)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				if sc.Synchronizers[0].Authority != multiplayer.AuthorityOwner || sc.Synchronizers[1].Authority != 7 {
					t.Errorf("authorities %d %d", sc.Synchronizers[0].Authority, sc.Synchronizers[1].Authority)
				}
			}},
		{"scene-unique names", "extends Node\n@onready var s2 := %Sync2\nfunc _enter_tree():\n\t%A.set_multiplayer_authority(str(name).to_int())\n\ts2.set_multiplayer_authority(9)\n\t$%Nope.set_multiplayer_authority(9)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				if sc.Synchronizers[0].Authority != multiplayer.AuthorityOwner || sc.Synchronizers[1].Authority != 9 {
					t.Errorf("authorities %d %d", sc.Synchronizers[0].Authority, sc.Synchronizers[1].Authority)
				}
				wantGap(t, d, "s.gd:6", "no node of the scene has the unique name Nope", nil)
			}},
		{"authority from a variable", "extends Node\nvar who := 1\nfunc _enter_tree():\n\t$A/Sync.set_multiplayer_authority(who)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				wantGap(t, d, "s.gd:4", "set_multiplayer_authority(who)", sc.Synchronizers[0])
			}},
		{"a node in a variable the loader cannot follow", "extends Node\nfunc _enter_tree():\n\tvar n = get_child(0)\n\tn.set_multiplayer_authority(2)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				wantGap(t, d, "s.gd:4", "cannot tell which node n is", nil)
			}},
		{"authority from a property the spawn state sets", "extends Node\nvar v := 1:\n\tset(id):\n\t\tv = id\n\t\t$Sync2.set_multiplayer_authority(id)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				// A/Sync sends A's v, not E's: nothing before Sync2 sends E's v.
				wantGap(t, d, "s.gd:5", "set_multiplayer_authority from v, which no synchronizer of the server before Sync2", sc.Synchronizers[1])
			}},
		{"authority from a property, in a setter function", "extends Node\nvar v := 1: set = _set_v\nfunc _set_v(id):\n\tv = id\n\t$Sync2.set_multiplayer_authority(id)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				wantGap(t, d, "s.gd:5", "set_multiplayer_authority from v", sc.Synchronizers[1])
			}},
		{"not public, visible for the owner", "extends Node\nfunc _ready():\n\t$A/Sync.public_visibility = false\n\t$A/Sync.set_visibility_for(str(name).to_int(), true)\n\t$Sync2.set_visibility_public(false)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				if v := vis(sc.Synchronizers[0]) + " " + vis(sc.Synchronizers[1]); v != "yn nn" {
					t.Errorf("visibility %s, want yn nn", v)
				}
			}},
		{"a filter method", "extends Node\nfunc _ready():\n\t$A/Sync.add_visibility_filter(_mine)\n\t$Sync2.add_visibility_filter(Callable(self, \"_all\"))\n\t$Sync2.visibility_update_mode = MultiplayerSynchronizer.VISIBILITY_PROCESS_NONE\n" +
			"func _mine(p: int) -> bool:\n\treturn str(name).to_int() == p\nfunc _all(p):\n\treturn true\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				if v := vis(sc.Synchronizers[0]) + " " + vis(sc.Synchronizers[1]); v != "yn all" || sc.Synchronizers[1].VisibilityUpdate != multiplayer.VisibilityManual {
					t.Errorf("visibility %s (update mode %d), want yn all", v, sc.Synchronizers[1].VisibilityUpdate)
				}
			}},
		{"a filter the loader cannot read", "extends Node\nfunc _ready():\n\t$A/Sync.add_visibility_filter(func(p): return p in allowed)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				wantGap(t, d, "s.gd:3", "add_visibility_filter(func(p): return p in allowed)", sc.Synchronizers[0])
			}},
		{"a filter lambda over several lines", "extends Node\nfunc _ready():\n\t$A/Sync.add_visibility_filter(func(p):\n\t\treturn p == str(name).to_int()\n\t)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				if v := vis(sc.Synchronizers[0]); v != "yn" || len(d.Gaps) != 0 {
					t.Errorf("visibility %s, gaps %v; want yn and none", v, d.Gaps)
				}
			}},
		{"a call that does not close", "extends Node\nfunc _ready():\n\t$A/Sync.add_visibility_filter(func(p):\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				wantGap(t, d, "s.gd:3", "add_visibility_filter(…)", sc.Synchronizers[0])
			}},
		{"a longer lambda", "extends Node\nfunc _ready():\n\t$A/Sync.add_visibility_filter(func(p):\n\t\tvar me = str(name).to_int()\n\t\treturn p == me)\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				wantGap(t, d, "s.gd:3", "add_visibility_filter(func(p): var me = str(name).to_int() return p == me)", sc.Synchronizers[0])
			}},
		{"a spawn function of plain nodes", "extends Node\nfunc _ready():\n\t$Sp.spawn_function = _make\nfunc _make(data):\n\tvar n := Node2D.new()\n\tn.position = data\n\treturn n\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				if c := sc.Spawners[0].Custom; c == nil || c.Path != "" || len(c.Synchronizers) != 0 {
					t.Errorf("custom scene %+v", c)
				}
			}},
		{"a spawn function of one of two scenes", "extends Node\nfunc _ready():\n\t$Sp.spawn_function = _make\nfunc _make(data):\n\tif data:\n\t\treturn load(\"res://e.tscn\").instantiate()\n\treturn preload(\"res://f.tscn\").instantiate()\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				wantGap(t, d, "s.gd:4", "returns one of res://e.tscn, res://f.tscn by its argument; pass the one each Spawn's argument picks as SpawnOptions.Custom", nil)
				if g := d.Gaps[0]; g.Spawner != sc.Spawners[0] || len(g.Scenes) != 2 || g.Scenes[0] != sc || g.Scenes[1].Path != "res://f.tscn" || len(g.Scenes[1].Synchronizers) != 1 {
					t.Errorf("the gap's spawner %v and scenes %+v", g.Spawner, g.Scenes)
				}
			}},
		{"a lambda spawn function", "extends Node\nfunc _ready():\n\t$Sp.spawn_function = func(d):\n\t\treturn Node.new()\n",
			func(t *testing.T, d *Declarations, sc *multiplayer.Scene) {
				wantGap(t, d, "s.gd:3", "not a lambda", nil)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir+"/project.godot", "[application]\nrun/main_scene=\"res://m.tscn\"\n")
			writeFile(t, dir+"/m.tscn", main)
			writeFile(t, dir+"/e.tscn", scene)
			writeFile(t, dir+"/f.tscn", "[gd_scene format=3]\n[sub_resource type=\"SceneReplicationConfig\" id=\"c\"]\nproperties/0/path = NodePath(\".:w\")\n"+
				"[node name=\"F\" type=\"Node\"]\n[node name=\"FSync\" type=\"MultiplayerSynchronizer\" parent=\".\"]\nreplication_config = SubResource(\"c\")\n")
			writeFile(t, dir+"/s.gd", c.script)
			p := load(t, dir)
			d, err := p.Instance(p.MainScene, "")
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, d, d.Spawners[0].Scenes[0])
			err = d.Apply(&multiplayer.Server{})
			if (len(d.Gaps) > 0) != errors.Is(err, ErrNotRead) {
				t.Errorf("Apply with %d gaps: %v", len(d.Gaps), err)
			}
			var ge *GapError
			if errors.As(err, &ge) && !strings.Contains(err.Error(), d.Gaps[0].Where) {
				t.Errorf("Apply's error %q does not name %s", err, d.Gaps[0].Where)
			}
		})
	}
}

func wantGap(t *testing.T, d *Declarations, where, what string, sync *multiplayer.SyncConfig) {
	t.Helper()
	if len(d.Gaps) != 1 || !strings.HasSuffix(d.Gaps[0].Where, where) || !strings.Contains(d.Gaps[0].What, what) || (sync != nil && d.Gaps[0].Sync != sync) {
		t.Errorf("gaps %v, want one at %s about %q", d.Gaps, where, what)
	}
}

// ownedEntity spawns an entity owned by peer owner on a server of its own, for filters to look at.
func ownedEntity(t *testing.T, owner int32) *multiplayer.Entity {
	t.Helper()
	sp := &multiplayer.Spawner{Path: "W/S", SpawnPath: "W", Scenes: []*multiplayer.Scene{{Path: "res://x.tscn"}}}
	srv := &multiplayer.Server{Spawners: []*multiplayer.Spawner{sp}, Replication: multiplayer.Replication{TickInterval: multiplayer.NoLimit}}
	e, err := srv.Spawn(sp, "res://x.tscn", "X", &multiplayer.SpawnOptions{Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
