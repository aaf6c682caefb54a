package multiplayer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
)

// playerScene is the test games' player: a server-authority synchronizer and a client-owned
// input synchronizer.
func playerScene(onInput func(p *Peer, s *SyncState)) *Scene {
	return &Scene{Path: "res://player.tscn", Synchronizers: []*SyncConfig{
		{Path: "ServerSync", Properties: []Property{
			{Path: ".:position", Spawn: true, Mode: ReplicateAlways},
			{Path: ".:hp", Spawn: true, Mode: ReplicateOnChange},
			{Path: ".:label", Spawn: true, Mode: ReplicateNever},
		}},
		{Path: "Input/InputSync", Authority: AuthorityOwner, OnSync: onInput, Properties: []Property{
			{Path: ".:motion", Mode: ReplicateAlways},
			{Path: ".:jump", Mode: ReplicateOnChange},
		}},
	}}
}

// packetLog collects the packets a Go client receives.
type packetLog struct {
	mu   sync.Mutex
	pkts [][]byte
	ch   chan struct{}
}

func newPacketLog() *packetLog { return &packetLog{ch: make(chan struct{}, 1024)} }

func (l *packetLog) trace(dir string, _ int32, pkt []byte) {
	if dir != "in" {
		return
	}
	l.mu.Lock()
	l.pkts = append(l.pkts, bytes.Clone(pkt))
	l.mu.Unlock()
	l.ch <- struct{}{}
}

// next waits for the next packet whose command byte is cmd (skipping others).
func (l *packetLog) next(t *testing.T, first byte) []byte {
	t.Helper()
	for {
		l.mu.Lock()
		for i, p := range l.pkts {
			if p[0] == first {
				l.pkts = append(l.pkts[:i:i], l.pkts[i+1:]...)
				l.mu.Unlock()
				return p
			}
		}
		l.mu.Unlock()
		select {
		case <-l.ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("no packet %#02x; have %x", first, l.pkts)
		}
	}
}

func le32(v uint32) string { return hex.EncodeToString(binary.LittleEndian.AppendUint32(nil, v)) }

func compressed(t *testing.T, vs ...any) string {
	t.Helper()
	var b []byte
	for _, v := range vs {
		var err error
		if b, err = AppendCompressed(b, v); err != nil {
			t.Fatal(err)
		}
	}
	return hex.EncodeToString(b)
}

// TestSpawnAndSync: the SPAWN, SYNC and delta SYNC packets the server sends for an entity, with
// net ids as the engine allocates them, and client-authority SYNC received into Go values.
func TestSpawnAndSync(t *testing.T) {
	type input struct {
		Motion godot.Vector2
		Jump   bool
	}
	inputs := make(chan input, 8)
	errs := make(chan error, 16)
	srv := &Server{Replication: Replication{TickInterval: NoLimit}, NewPeerID: func(*http.Request) int32 { return 77 },
		OnError: func(_ *Peer, err error) { errs <- err }}
	sp := &Spawner{Path: "World/PlayerSpawner", SpawnPath: "World/Players", DespawnOnDisconnect: true,
		Scenes: []*Scene{{Path: "res://other.tscn"}, playerScene(func(p *Peer, s *SyncState) {
			var in input
			if err := s.Unmarshal(&in); err != nil {
				t.Error(err)
			}
			inputs <- in
		})}}
	if err := srv.AddSpawner(sp); err != nil {
		t.Fatal(err)
	}
	url := testServer(t, srv)
	log := newPacketLog()
	c := dial(t, url, &ClientOptions{Trace: log.trace})

	e, err := srv.Spawn(sp, "res://player.tscn", "77", &SpawnOptions{Owner: c.ID(),
		State: map[string]any{"position": godot.Vector2{X: 1, Y: 2}, "hp": 100, "label": "p77"}})
	if err != nil {
		t.Fatal(err)
	}
	simp := log.next(t, byte(CmdSimplifyPath))
	if want := hex.EncodeToString(AppendSimplifyPath(nil, Checksum(nil), 1, "World/PlayerSpawner")); hex.EncodeToString(simp) != want {
		t.Errorf("SIMPLIFY_PATH %x, want %s", simp, want)
	}
	// Scene 1, spawner cache id 1, net id 1, one synchronizer (net id 2), "77", then the spawn
	// state of the server's synchronizer.
	spawn := log.next(t, byte(CmdSpawn))
	want := "04" + "01" + le32(1) + le32(1) + le32(1) + le32(3) + le32(2) + hex.EncodeToString([]byte("77\x00")) +
		compressed(t, godot.Vector2{X: 1, Y: 2}, 100, "p77")
	if hex.EncodeToString(spawn) != want {
		t.Errorf("SPAWN\n have %x\n want %s", spawn, want)
	}
	if e.NetID() != 1 {
		t.Errorf("net id %d", e.NetID())
	}

	srv.Tick()
	st := compressed(t, godot.Vector2{X: 1, Y: 2})
	if have, want := hex.EncodeToString(log.next(t, byte(CmdSync))), "06"+"0100"+le32(2)+le32(uint32(len(st)/2))+st; have != want {
		t.Errorf("SYNC\n have %s\n want %s", have, want)
	}
	hp := compressed(t, 100)
	if have, want := hex.EncodeToString(log.next(t, 0x16)), "16"+le32(2)+"0100000000000000"+le32(uint32(len(hp)/2))+hp; have != want {
		t.Errorf("delta SYNC\n have %s\n want %s", have, want)
	}
	// hp changes: the next delta carries it again; position is in every SYNC, sync_time counts.
	e.Sync("ServerSync").Set("hp", 90)
	e.Sync("ServerSync").Set("position", godot.Vector2{X: 5, Y: 2})
	srv.Tick()
	st = compressed(t, godot.Vector2{X: 5, Y: 2})
	if have, want := hex.EncodeToString(log.next(t, byte(CmdSync))), "06"+"0200"+le32(2)+le32(uint32(len(st)/2))+st; have != want {
		t.Errorf("second SYNC\n have %s\n want %s", have, want)
	}
	hp = compressed(t, 90)
	if have, want := hex.EncodeToString(log.next(t, 0x16)), "16"+le32(2)+"0100000000000000"+le32(uint32(len(hp)/2))+hp; have != want {
		t.Errorf("second delta SYNC\n have %s\n want %s", have, want)
	}

	// The client's input synchronizer: SIMPLIFY_PATH (cache id 5), then SYNC by path id.
	send := func(pkt []byte) {
		c.sc.mu.Lock()
		c.sc.write(c.server.tr, 1, pkt)
		c.sc.mu.Unlock()
	}
	send(AppendSimplifyPath(nil, Checksum(nil), 5, "World/Players/77/Input/InputSync"))
	if have := log.next(t, byte(CmdConfirmPath)); !bytes.Equal(have, AppendConfirmPath(nil, true, 5)) {
		t.Errorf("CONFIRM_PATH %x", have)
	}
	mv, _ := AppendCompressed(nil, godot.Vector2{X: 0, Y: -1})
	sync := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint16([]byte{6}, 3), 5|pathFlag)
	sync = append(binary.LittleEndian.AppendUint32(sync, uint32(len(mv))), mv...)
	send(sync)
	if in := wait(t, inputs); in.Motion != (godot.Vector2{Y: -1}) || in.Jump {
		t.Errorf("input %+v", in)
	}
	// An older sync_time is dropped; a delta sets jump.
	send(sync[:1:1])
	old := bytes.Clone(sync)
	old[1] = 2
	send(old)
	jb, _ := AppendCompressed(nil, true)
	delta := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint32([]byte{0x16}, 5|pathFlag), 1)
	delta = append(binary.LittleEndian.AppendUint32(delta, uint32(len(jb))), jb...)
	send(delta)
	if in := wait(t, inputs); !in.Jump || in.Motion != (godot.Vector2{Y: -1}) {
		t.Errorf("input after delta %+v", in)
	}
	select {
	case in := <-inputs:
		t.Errorf("an old SYNC was applied: %+v", in)
	default:
	}
	// A SYNC for the server's synchronizer is refused: the client is not its authority. (By its
	// spawn net id it is unknown and skipped silently, as the engine does.)
	send(append(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint16([]byte{6}, 9), 2), 0, 0, 0, 0, 0, 0))
	send(AppendSimplifyPath(nil, Checksum(nil), 6, "World/Players/77/ServerSync"))
	send(append(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint16([]byte{6}, 9), 6|pathFlag), 0, 0, 0, 0, 0, 0))
	if err := wait(t, errs); !errors.Is(err, ErrTruncated) {
		t.Errorf("the 1-byte SYNC: %v", err)
	}
	if err := wait(t, errs); !errors.Is(err, ErrNotAuthority) {
		t.Errorf("the SYNC for the server's synchronizer: %v", err)
	}

	e.Despawn()
	if have := log.next(t, byte(CmdDespawn)); !bytes.Equal(have, []byte{5, 1, 0, 0, 0}) {
		t.Errorf("DESPAWN %x", have)
	}
	if srv.Node("World/Players/77/Input/InputSync") != nil {
		t.Error("the despawned entity's nodes are still declared")
	}
}

// TestLateJoinerAndVisibility: a peer that connects later gets the existing entities; a
// visibility filter hides one from a peer; the owner's disconnection despawns its entity.
func TestLateJoinerAndVisibility(t *testing.T) {
	var next int32 = 10
	srv := &Server{Replication: Replication{TickInterval: NoLimit}, NewPeerID: func(*http.Request) int32 { next++; return next }}
	secret := &Scene{Path: "res://secret.tscn", Synchronizers: []*SyncConfig{{Path: "Sync",
		Properties: []Property{{Path: ".:x", Spawn: true, Mode: ReplicateAlways}},
		Visible:    func(peer int32, e *Entity) bool { return peer == e.Owner() }}}}
	sp := &Spawner{Path: "World/PlayerSpawner", SpawnPath: "World/Players", DespawnOnDisconnect: true,
		Scenes: []*Scene{playerScene(nil), secret}}
	if err := srv.AddSpawner(sp); err != nil {
		t.Fatal(err)
	}
	url := testServer(t, srv)
	logA, logB := newPacketLog(), newPacketLog()
	a := dial(t, url, &ClientOptions{Trace: logA.trace})
	if _, err := srv.Spawn(sp, "res://player.tscn", fmt.Sprint(a.ID()), &SpawnOptions{Owner: a.ID()}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Spawn(sp, "res://secret.tscn", "Secret", &SpawnOptions{Owner: a.ID()}); err != nil {
		t.Fatal(err)
	}
	logA.next(t, byte(CmdSpawn))
	logA.next(t, byte(CmdSpawn))
	b := dial(t, url, &ClientOptions{Trace: logB.trace})
	bSpawn := logB.next(t, byte(CmdSpawn))
	if !bytes.HasPrefix(bSpawn[22:], []byte(fmt.Sprint(a.ID())+"\x00")) {
		t.Errorf("the late joiner got %x", bSpawn)
	}
	bEnt, err := srv.Spawn(sp, "res://player.tscn", fmt.Sprint(b.ID()), &SpawnOptions{Owner: b.ID()})
	if err != nil {
		t.Fatal(err)
	}
	logA.next(t, byte(CmdSpawn))
	logB.next(t, byte(CmdSpawn))
	srv.Tick()
	logB.next(t, byte(CmdSync))
	logB.mu.Lock()
	for _, p := range logB.pkts {
		if p[0] == byte(CmdSpawn) {
			t.Errorf("B got a second SPAWN %x (the secret?)", p)
		}
	}
	logB.mu.Unlock()
	if bEnt.NetID() != 5 { // A's player 1 (sync 2), Secret 3 (sync 4), B's player 5
		t.Errorf("B's player has net id %d", bEnt.NetID())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b.Close(ctx)
	if have := logA.next(t, byte(CmdDespawn)); !bytes.Equal(have, []byte{5, 5, 0, 0, 0}) {
		t.Errorf("A got %x, want the DESPAWN of B's player", have)
	}
}

// replScene is a server with the player scene spawned for peer 2, whose client has cached the
// path of its input synchronizer (cache id 5), without a network: packets go to sc.receive.
func replScene(tb testing.TB, onInput func(p *Peer, s *SyncState)) (*Server, *Peer, *Entity) {
	tb.Helper()
	sp := &Spawner{Path: "World/PlayerSpawner", SpawnPath: "World/Players", Scenes: []*Scene{playerScene(onInput)}}
	s := &Server{Replication: Replication{TickInterval: NoLimit}, Spawners: []*Spawner{sp}}
	if err := s.init(); err != nil {
		tb.Fatal(err)
	}
	p := s.sc.newPeer(2, &nullTransport{})
	s.sc.mu.Lock()
	s.sc.addPeer(p)
	s.sc.mu.Unlock()
	e, err := s.Spawn(sp, "res://player.tscn", "2", &SpawnOptions{Owner: 2})
	if err != nil {
		tb.Fatal(err)
	}
	s.sc.receive(p, AppendSimplifyPath(nil, Checksum(nil), 5, "World/Players/2/Input/InputSync"))
	return s, p, e
}

// FuzzReplicationReceive: SYNC, delta SYNC, SPAWN and DESPAWN packets from a client never
// panic the server; refusals are *PacketErrors with an offset inside the packet; whatever state
// is accepted decodes.
func FuzzReplicationReceive(f *testing.F) {
	for _, h := range []string{
		"06030005000080" + "0c000000" + "050000000000803f00000000",
		"160500008001000000000000000" + "40000000" + "81",
		"0602000500008004000000050000000000000000",
		"16050000800300000000000000" + "0d000000" + "050000000000803f0000000081",
		"040001000000", "0501000000", "06", "0600000000008000000080", "16ffffffffffffffffffffffffffffffff",
	} {
		if b, err := hex.DecodeString(h); err == nil {
			f.Add(b)
		}
	}
	s, p, e := replScene(f, nil)
	var errs []error
	s.sc.onError = func(_ *Peer, err error) { errs = append(errs, err) }
	f.Fuzz(func(t *testing.T, pkt []byte) {
		errs = errs[:0]
		s.sc.receive(p, pkt)
		for _, err := range errs {
			var pe *PacketError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > int64(len(pkt)) {
				t.Fatalf("error %v (%T) for % x", err, err, pkt)
			}
		}
		var state map[string]any
		if err := e.Sync("Input/InputSync").Unmarshal(&state); err != nil {
			t.Fatalf("the accepted state does not decode: %v", err)
		}
	})
}

// TestSyncCallbacksBounded: a SYNC that names the same synchronizer many times (a hostile
// client's) applies each entry as the engine does, but calls OnSync once.
func TestSyncCallbacksBounded(t *testing.T) {
	calls := 0
	s, p, e := replScene(t, func(*Peer, *SyncState) { calls++ })
	var errs []error
	s.sc.onError = func(_ *Peer, err error) { errs = append(errs, err) }
	mv, _ := AppendCompressed(nil, godot.Vector2{X: 3})
	pkt := binary.LittleEndian.AppendUint16([]byte{6}, 1)
	for range 1000 {
		pkt = binary.LittleEndian.AppendUint32(pkt, 5|pathFlag)
		pkt = append(binary.LittleEndian.AppendUint32(pkt, uint32(len(mv))), mv...)
	}
	s.sc.receive(p, pkt)
	if calls != 1 || len(errs) != 0 {
		t.Errorf("%d OnSync calls, errors %v", calls, errs)
	}
	if v, _ := e.Sync("Input/InputSync").Get("motion"); v != (godot.Vector2{X: 3}) {
		t.Errorf("motion %v", v)
	}
}

// TestRuntimeNodes: nodes declared and removed while the server runs, and a template that
// declares every player's node by its path pattern.
func TestRuntimeNodes(t *testing.T) {
	got := make(chan string, 8)
	errs := make(chan error, 8)
	srv := &Server{OnError: func(_ *Peer, err error) { errs <- err }}
	if err := srv.AddTemplate("World/Players/<id>", RPC{Name: "shout", Mode: ModeAnyPeer, Handler: func(p *Peer, s string) {
		got <- "player: " + s
	}}); err != nil {
		t.Fatal(err)
	}
	url := testServer(t, srv)
	player := MustNode("World/Players/42", RPC{Name: "shout", Mode: ModeAnyPeer})
	door := MustNode("World/Door", RPC{Name: "open", Mode: ModeAnyPeer})
	c := dial(t, url, &ClientOptions{Nodes: []*Node{player, door}})

	if err := c.RPCID(1, player, "shout", "hi"); err != nil {
		t.Fatal(err)
	}
	if s := wait(t, got); s != "player: hi" {
		t.Errorf("template call %q", s)
	}
	if n := srv.Node("World/Players/7"); n == nil || n.Checksum() != player.Checksum() {
		t.Errorf("the template does not give World/Players/7: %v", n)
	}
	if srv.Node("World/Players/7/Gun") != nil || srv.Node("World/Players") != nil {
		t.Error("the template matches paths of other lengths")
	}

	// A node added while serving.
	if err := srv.AddNode(MustNode("World/Door", RPC{Name: "open", Mode: ModeAnyPeer, Handler: func(p *Peer) { got <- "door" }})); err != nil {
		t.Fatal(err)
	}
	c.RPCID(1, door, "open")
	if s := wait(t, got); s != "door" {
		t.Errorf("added node %q", s)
	}
	// Removed: the client's cached id no longer resolves.
	if !srv.RemoveNode("World/Door") || srv.RemoveNode("World/Door") {
		t.Error("RemoveNode")
	}
	c.RPCID(1, door, "open")
	if err := wait(t, errs); !errors.Is(err, ErrUnknownCacheID) && !errors.Is(err, ErrUnknownNode) {
		t.Errorf("a call to the removed node: %v", err)
	}
}

// TestBadDeclarations: declarations the engine could not have are refused when the server
// starts, naming what is wrong.
func TestBadDeclarations(t *testing.T) {
	good := &Scene{Path: "res://a.tscn"}
	for _, c := range []struct {
		srv  *Server
		want string
	}{
		{&Server{Spawners: []*Spawner{{Path: "W/Sp", Scenes: []*Scene{good}}}}, "needs its Path and SpawnPath"},
		{&Server{Spawners: []*Spawner{{Path: "W/Sp", SpawnPath: "W/E"}, {Path: "W/Sp", SpawnPath: "W/F"}}}, "added twice"},
		{&Server{Spawners: []*Spawner{{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{{Path: "res://b.tscn",
			Synchronizers: []*SyncConfig{{Path: "S", Properties: []Property{{Path: "nocolon"}}}}}}}}}, `property "nocolon"`},
		{&Server{Synchronizers: []*SyncConfig{{Path: "W/S", Authority: AuthorityOwner}}}, "AuthorityOwner needs an entity"},
		{&Server{Synchronizers: []*SyncConfig{{Path: "W/S", Properties: []Property{{Path: ".:x", Mode: 7}}}}}, "bad replication mode"},
		{&Server{Synchronizers: []*SyncConfig{{Path: "W/S", Properties: []Property{{Path: ".:x", Default: make(chan int)}}}}}, "default"},
	} {
		err := c.srv.init()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	srv := &Server{Replication: Replication{TickInterval: NoLimit}}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{good}}
	if _, err := srv.Spawn(sp, "res://a.tscn", "X", nil); err == nil || !strings.Contains(err.Error(), "was not added") {
		t.Errorf("a spawn with an undeclared spawner: %v", err)
	}
	srv.AddSpawner(sp)
	for _, name := range []string{"", "a/b", "a:b", "@x", "a.b"} {
		if _, err := srv.Spawn(sp, "res://a.tscn", name, nil); err == nil {
			t.Errorf("the node name %q was accepted", name)
		}
	}
	if _, err := srv.Spawn(sp, "res://nope.tscn", "X", nil); err == nil {
		t.Error("an unknown scene was accepted")
	}
	if _, err := srv.Spawn(sp, "", "X", nil); err == nil {
		t.Error("a custom spawn without Custom was accepted")
	}
	if _, err := srv.Spawn(sp, "res://a.tscn", "X", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Spawn(sp, "res://a.tscn", "X", nil); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second X: %v", err)
	}
	e2, err := srv.Spawn(sp, "res://a.tscn", "X2", nil)
	if err != nil {
		t.Fatal(err)
	}
	e2.Despawn()
	e2.Despawn() // twice: nothing
}
