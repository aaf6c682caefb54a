package multiplayer

import (
	"encoding/binary"
	"slices"
	"testing"
)

// TestNestedSpawner: a spawner inside a spawned scene. Each entity gets its own copy at its
// path; the nested entity goes to the peers that have its parent, after it (a late joiner
// too); despawning the parent sends the nested entities' DESPAWNs first, the last spawned
// first, as the engine frees children before their parent, and the nested spawner goes with it.
func TestNestedSpawner(t *testing.T) {
	item := &Scene{Path: "res://item.tscn", Synchronizers: []*SyncConfig{{Path: "ItemSync",
		Properties: []Property{{Path: ".:kind", Spawn: true, Default: int64(0)}}}}}
	player := &Scene{Path: "res://player.tscn", Spawners: []*Spawner{{Path: "ItemSpawner", SpawnPath: "Items", Scenes: []*Scene{item}}}}
	sp := &Spawner{Path: "World/PlayerSpawner", SpawnPath: "World/Players", Scenes: []*Scene{player}}
	srv := &Server{Replication: Replication{TickInterval: NoLimit}, Spawners: []*Spawner{sp}}
	url := testServer(t, srv)
	log1 := newPacketLog()
	c1 := dial(t, url, &ClientOptions{Trace: log1.trace})

	p, err := srv.Spawn(sp, "res://player.tscn", "P", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.SpawnerAt("Nope") != nil {
		t.Error("SpawnerAt of a path without a spawner")
	}
	isp := p.SpawnerAt("ItemSpawner")
	if isp == nil || isp.Path != "World/Players/P/ItemSpawner" || isp.SpawnPath != "World/Players/P/Items" {
		t.Fatalf("nested spawner %+v", isp)
	}
	var items []*Entity
	for _, name := range []string{"A", "B"} {
		e, err := srv.Spawn(isp, "res://item.tscn", name, &SpawnOptions{State: map[string]any{"kind": int64(len(items) + 7)}})
		if err != nil {
			t.Fatal(err)
		}
		if e.Parent() != p || e.Path() != "World/Players/P/Items/"+name {
			t.Errorf("item %s: parent %v path %s", name, e.Parent(), e.Path())
		}
		items = append(items, e)
	}
	want := func(log *packetLog) {
		t.Helper()
		for _, w := range []struct{ path, name string }{{"World/PlayerSpawner", "P"}, {"World/Players/P/ItemSpawner", "A"}, {"World/Players/P/ItemSpawner", "B"}} {
			if w.name != "B" {
				simp, err := ParseSimplifyPath(log.next(t, byte(CmdSimplifyPath)))
				if err != nil || simp.Path != w.path {
					t.Fatalf("SIMPLIFY_PATH %+v %v, want %s", simp, err, w.path)
				}
			}
			info, err := Decode(log.next(t, byte(CmdSpawn)))
			if err != nil || info.Name != w.name {
				t.Fatalf("SPAWN %+v %v, want %s", info, err, w.name)
			}
		}
	}
	want(log1)
	// A late joiner gets the player before its items.
	log2 := newPacketLog()
	dial(t, url, &ClientOptions{Trace: log2.trace})
	want(log2)
	_ = c1

	p.Despawn()
	for _, log := range []*packetLog{log1, log2} {
		var got []uint32
		for range 3 {
			got = append(got, binary.LittleEndian.Uint32(log.next(t, byte(CmdDespawn))[1:]))
		}
		if w := []uint32{items[1].NetID(), items[0].NetID(), p.NetID()}; !slices.Equal(got, w) {
			t.Errorf("DESPAWN net ids %v, want %v (B, A, then the player)", got, w)
		}
	}
	if _, err := srv.Spawn(isp, "res://item.tscn", "C", nil); err == nil {
		t.Error("a despawned entity's spawner spawned")
	}
	// The same name again: its nodes and nested spawner are free.
	p2, err := srv.Spawn(sp, "res://player.tscn", "P", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Spawn(p2.SpawnerAt("ItemSpawner"), "res://item.tscn", "A", nil); err != nil {
		t.Fatal(err)
	}
}

// TestNestedSpawnerRefused: a nested spawner outside its scene, or with a bad synchronizer
// further down, is refused when the top spawner is added.
func TestNestedSpawnerRefused(t *testing.T) {
	bad := &Scene{Path: "res://bad.tscn", Synchronizers: []*SyncConfig{{Path: "S", Properties: []Property{{Path: "nocolon"}}}}}
	for _, sc := range []*Scene{
		{Path: "res://a.tscn", Spawners: []*Spawner{{Path: "../X", SpawnPath: "Y"}}},
		{Path: "res://a.tscn", Spawners: []*Spawner{{Path: "X"}}},
		{Path: "res://a.tscn", Spawners: []*Spawner{{Path: "X", SpawnPath: "Y", Scenes: []*Scene{bad}}}},
	} {
		srv := &Server{Replication: Replication{TickInterval: NoLimit}}
		testServer(t, srv)
		if err := srv.AddSpawner(&Spawner{Path: "W/S", SpawnPath: "W", Scenes: []*Scene{sc}}); err == nil {
			t.Errorf("%+v accepted", sc.Spawners[0])
		}
	}
	// A scene that spawns itself further down is fine.
	self := &Scene{Path: "res://tree.tscn"}
	self.Spawners = []*Spawner{{Path: "Sp", SpawnPath: "Kids", Scenes: []*Scene{self}}}
	srv := &Server{Replication: Replication{TickInterval: NoLimit}}
	testServer(t, srv)
	sp := &Spawner{Path: "W/S", SpawnPath: "W", Scenes: []*Scene{self}}
	if err := srv.AddSpawner(sp); err != nil {
		t.Fatal(err)
	}
	e, err := srv.Spawn(sp, "res://tree.tscn", "T", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Spawn(e.SpawnerAt("Sp"), "res://tree.tscn", "T", nil); err != nil {
		t.Fatal(err)
	}
}
