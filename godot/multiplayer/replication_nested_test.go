package multiplayer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
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

// TestVisibilityUpdateEveryTick: a synchronizer's filter runs again every tick, after the
// tick's SYNCs (VisibilityIdle, the engine's default visibility_update_mode), but not with
// VisibilityManual until UpdateVisibility; a path-based synchronizer's too.
func TestVisibilityUpdateEveryTick(t *testing.T) {
	var visible atomic.Bool
	visible.Store(true)
	// Not visible to peer 0, so that the filter is asked about each peer.
	filter := func(peer int32, e *Entity) bool { return peer == 2 || peer == 3 && visible.Load() }
	props := []Property{{Path: ".:v", Spawn: true, Mode: ReplicateAlways, Default: 1}}
	idle := &Scene{Path: "res://idle.tscn", Synchronizers: []*SyncConfig{{Path: "S", Properties: props, Visible: filter}}}
	manual := &Scene{Path: "res://manual.tscn", Synchronizers: []*SyncConfig{{Path: "S", Properties: props, Visible: filter, VisibilityUpdate: VisibilityManual}}}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{idle, manual}}
	s, trs := tickScene(t, []*Spawner{sp}, 3)
	st, err := s.AddSynchronizer(&SyncConfig{Path: "W/Board/Sync", Properties: props, Visible: filter, VisibilityUpdate: VisibilityManual})
	if err != nil {
		t.Fatal(err)
	}
	ei, err := s.Spawn(sp, "res://idle.tscn", "I", nil)
	if err != nil {
		t.Fatal(err)
	}
	em, err := s.Spawn(sp, "res://manual.tscn", "M", nil)
	if err != nil {
		t.Fatal(err)
	}
	trs[3].take()
	visible.Store(false)
	s.Tick()
	var despawned []uint32
	for _, p := range trs[3].take() {
		if p[0] == byte(CmdDespawn) {
			despawned = append(despawned, binary.LittleEndian.Uint32(p[1:]))
		}
	}
	if !slices.Equal(despawned, []uint32{ei.NetID()}) {
		t.Errorf("after a tick, DESPAWN of net ids %v, want only the idle entity's %d", despawned, ei.NetID())
	}
	em.UpdateVisibility()
	if p := trs[3].take(); len(p) != 1 || p[0][0] != byte(CmdDespawn) {
		t.Errorf("UpdateVisibility of the manual entity sent %x, want one DESPAWN", p)
	}
	// The path-based synchronizer, not yet confirmed by the peer, is not sent either way; once
	// its visibility is updated, it is no longer the peer's.
	st.UpdateVisibility()
	s.sc.mu.Lock()
	has := slices.Contains(s.sc.repl.peers[3].syncs, st)
	s.sc.mu.Unlock()
	if has {
		t.Error("the path-based synchronizer is still visible to peer 3")
	}
	if err := (&Server{Synchronizers: []*SyncConfig{{Path: "A/B", VisibilityUpdate: 3}}}).init(); err == nil {
		t.Error("visibility update mode 3 accepted")
	}
}

// TestOwnerIDProperty: a property marked OwnerID starts as the entity's owner (1 without
// one), and the spawn state's State still overrides it.
func TestOwnerIDProperty(t *testing.T) {
	sc := &Scene{Path: "res://p.tscn", Synchronizers: []*SyncConfig{{Path: "S", Properties: []Property{
		{Path: ".:player", Spawn: true, Default: int64(1), OwnerID: true}}}}}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{sc}}
	s, _ := tickScene(t, []*Spawner{sp}, 2)
	for _, c := range []struct {
		owner int32
		state any
		want  int64
	}{{7, nil, 7}, {0, nil, 1}, {7, map[string]any{"player": 9}, 9}} {
		e, err := s.Spawn(sp, "res://p.tscn", fmt.Sprint("P", c.owner, c.want), &SpawnOptions{Owner: c.owner, State: c.state})
		if err != nil {
			t.Fatal(err)
		}
		if v, err := e.Sync("S").Get("player"); err != nil || v != c.want {
			t.Errorf("owner %d, state %v: player %v (%v), want %d", c.owner, c.state, v, err, c.want)
		}
	}
}

// TestVisibilityAsksPeerZero: as the engine, a filter is first asked about peer 0 (every peer)
// at a spawn and every tick: one that turns only peer 3 away lets peer 0 see the entity, so
// peer 3 gets it too; Entity.UpdateVisibility asks about each peer and takes it away.
func TestVisibilityAsksPeerZero(t *testing.T) {
	sc := &Scene{Path: "res://x.tscn", Synchronizers: []*SyncConfig{{Path: "S",
		Properties: []Property{{Path: ".:v", Spawn: true, Default: 1}},
		Visible:    func(peer int32, e *Entity) bool { return peer != 3 }}}}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{sc}}
	s, trs := tickScene(t, []*Spawner{sp}, 2, 3)
	e, err := s.Spawn(sp, "res://x.tscn", "X", nil)
	if err != nil {
		t.Fatal(err)
	}
	spawns := func(id int32) (n int) {
		for _, p := range trs[id].take() {
			if p[0] == byte(CmdSpawn) {
				n++
			} else if p[0] == byte(CmdDespawn) {
				n--
			}
		}
		return n
	}
	if spawns(2) != 1 || spawns(3) != 1 {
		t.Fatal("not spawned to both peers")
	}
	e.UpdateVisibility()
	if n := spawns(3); n != -1 {
		t.Errorf("UpdateVisibility: peer 3's spawns %d, want a DESPAWN", n)
	}
	s.Tick() // the filter asked about peer 0 again: every peer gets it
	if n := spawns(3); n != 1 {
		t.Errorf("after a tick, peer 3's spawns %d, want a SPAWN", n)
	}
}

// TestSpawnLimit: a spawner with SpawnLimit refuses more live entities than that, as the
// clients would refuse their SPAWN; a despawn frees a place; a nested copy has its own count.
func TestSpawnLimit(t *testing.T) {
	item := &Scene{Path: "res://item.tscn"}
	player := &Scene{Path: "res://p.tscn", Spawners: []*Spawner{{Path: "Sp", SpawnPath: "Items", Scenes: []*Scene{item}, SpawnLimit: 1}}}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{player}, SpawnLimit: 2}
	s, _ := tickScene(t, []*Spawner{sp}, 2)
	a, err := s.Spawn(sp, "res://p.tscn", "A", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Spawn(sp, "res://p.tscn", "B", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Spawn(sp, "res://p.tscn", "C", nil); !errors.Is(err, ErrSpawnLimit) {
		t.Errorf("a third spawn: %v, want ErrSpawnLimit", err)
	}
	for _, e := range []*Entity{a, b} {
		if _, err := s.Spawn(e.SpawnerAt("Sp"), "res://item.tscn", "I", nil); err != nil {
			t.Errorf("%s's first item: %v", e.Name(), err)
		}
		if _, err := s.Spawn(e.SpawnerAt("Sp"), "res://item.tscn", "J", nil); !errors.Is(err, ErrSpawnLimit) {
			t.Errorf("%s's second item: %v, want ErrSpawnLimit", e.Name(), err)
		}
	}
	a.Despawn()
	if _, err := s.Spawn(sp, "res://p.tscn", "C", nil); err != nil {
		t.Errorf("after a despawn: %v", err)
	}
	if err := s.AddSpawner(&Spawner{Path: "W/Bad", SpawnPath: "W", SpawnLimit: -1}); err == nil {
		t.Error("a negative spawn limit accepted")
	}
}

// TestCustomSceneBySpawn: a custom spawn whose scene depends on the argument says it with
// SpawnOptions.Custom: the SPAWN carries that scene's synchronizers and spawn state.
func TestCustomSceneBySpawn(t *testing.T) {
	tree := &Scene{Path: "res://tree.tscn", Synchronizers: []*SyncConfig{{Path: "S", Properties: []Property{{Path: ".:height", Spawn: true, Default: int64(3)}}}}}
	rock := &Scene{Path: "res://rock.tscn"}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E"}
	s, trs := tickScene(t, []*Spawner{sp}, 2)
	if _, err := s.Spawn(sp, "", "X", &SpawnOptions{Arg: "tree"}); err == nil {
		t.Error("a custom spawn without a scene accepted")
	}
	if _, err := s.Spawn(sp, "", "T", &SpawnOptions{Arg: "tree", Custom: tree}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Spawn(sp, "", "R", &SpawnOptions{Arg: "rock", Custom: rock}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range trs[2].take() {
		if p[0] == byte(CmdSpawn) {
			info, err := Decode(p)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%s %d %d", info.Name, *info.SceneID, len(info.SyncIDs)))
		}
	}
	if want := []string{"T 255 1", "R 255 0"}; !slices.Equal(got, want) {
		t.Errorf("SPAWNs %v, want %v", got, want)
	}
	if _, err := s.Spawn(sp, "", "B", &SpawnOptions{Custom: &Scene{Synchronizers: []*SyncConfig{{Path: "S", Properties: []Property{{Path: "bad"}}}}}}); err == nil {
		t.Error("a bad custom scene accepted")
	}
}

// TestSynchronizerWithRPCs: a path-based synchronizer whose node is declared with RPCs (a
// script on the synchronizer) is the same node; a second synchronizer there is refused.
func TestSynchronizerWithRPCs(t *testing.T) {
	n := MustNode("W/Sync", RPC{Name: "ping", Mode: ModeAnyPeer})
	s := &Server{Replication: Replication{TickInterval: NoLimit}, Nodes: []*Node{n},
		Synchronizers: []*SyncConfig{{Path: "W/Sync", Properties: []Property{{Path: ".:v", Mode: ReplicateAlways, Default: 1}}}}}
	if err := s.init(); err != nil {
		t.Fatal(err)
	}
	st := s.Synchronizer("W/Sync")
	if st == nil {
		t.Fatal("no synchronizer at W/Sync")
	}
	if st.node != n {
		t.Errorf("the synchronizer's node %p, want the declared node %p", st.node, n)
	}
	if _, err := s.AddSynchronizer(&SyncConfig{Path: "W/Sync"}); err == nil {
		t.Error("a second synchronizer on the node accepted")
	}
}
