package project

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/internal/harness/godot4"
)

// TestEngineGame3: a Go server made from test game 3's project alone (no declarations by
// hand) serves two unmodified Godot 4.6 clients: a spawner nested in the player scene (each
// player's item, to a late joiner too, despawned with the player), a custom spawn through the
// clients' spawn function that instantiates a scene, a visibility filter written in a lambda
// (each client sees only its own badge), an authority written int(str(name)) (the owner's
// input SYNC is accepted) and a synchronizer in the main scene (the clock).
func TestEngineGame3(t *testing.T) {
	godot4.Require(t)
	p := load(t, "testdata/game3")
	d, err := p.Instance(p.MainScene, "")
	if err != nil {
		t.Fatal(err)
	}
	supplyBeaconFilter(t, d, func(int32, *multiplayer.Entity) bool { return true })
	sp := map[string]*multiplayer.Spawner{}
	for _, s := range d.Spawners {
		sp[s.Path] = s
	}
	players, badges, drops := sp["Game/PlayerSpawner"], sp["Game/BadgeSpawner"], sp["Game/DropSpawner"]
	var moved, aimed atomic.Bool // the owner's input (1, 0) and aim 0.5 arrived
	for _, c := range players.Scenes[0].Synchronizers {
		if c.Path == "Aim/AimSync" {
			c.OnSync = func(_ *multiplayer.Peer, s *multiplayer.SyncState) {
				if v, err := s.Get("angle"); err == nil && v == 0.5 {
					aimed.Store(true)
				}
			}
		}
		if c.Path == "Input/InputSync" {
			c.OnSync = func(_ *multiplayer.Peer, s *multiplayer.SyncState) {
				var in struct{ Dir godot.Vector2 }
				if err := s.Unmarshal(&in); err != nil {
					t.Error(err)
				}
				if in.Dir == (godot.Vector2{X: 1}) {
					moved.Store(true)
				}
			}
		}
	}
	var mu sync.Mutex
	entities := map[int32]*multiplayer.Entity{}
	errs := make(chan error, 16)
	srv := &multiplayer.Server{OriginPatterns: []string{"*"}, OnError: func(_ *multiplayer.Peer, err error) {
		select {
		case errs <- err:
		default:
		}
	}}
	if err := d.Handle("Game", "ready_to_play", func(peer *multiplayer.Peer, what string) {
		mu.Lock()
		e := entities[peer.ID()]
		mu.Unlock()
		if what == "despawn" && e != nil {
			e.Despawn()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := d.Apply(srv); err != nil {
		t.Fatal(err)
	}
	srv.OnConnect = func(peer *multiplayer.Peer) {
		name := fmt.Sprint(peer.ID())
		e, err := srv.Spawn(players, "res://player.tscn", name, &multiplayer.SpawnOptions{Owner: peer.ID(), State: map[string]any{"hp": 50}})
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		entities[peer.ID()] = e
		mu.Unlock()
		for _, f := range []func() error{
			func() error {
				_, err := srv.Spawn(e.SpawnerAt("ItemSpawner"), "res://item.tscn", "Sword", &multiplayer.SpawnOptions{State: map[string]any{"kind": 3}})
				return err
			},
			func() error {
				_, err := srv.Spawn(badges, "res://badge.tscn", name, &multiplayer.SpawnOptions{Owner: peer.ID(), State: map[string]any{"text": "badge of " + name}})
				return err
			},
			func() error {
				_, err := srv.Spawn(drops, "", "Drop"+name, &multiplayer.SpawnOptions{Arg: []any{"Drop" + name, godot.Vector2{X: 5, Y: 6}}, State: map[string]any{"amount": 7}})
				return err
			},
			func() error { return srv.Synchronizer("Game/Clock/ClockSync").Set("ticks", 42) },
		} {
			if err := f(); err != nil {
				t.Error(err)
			}
		}
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())

	files := map[string][]byte{}
	for res := range maps.Keys(p.Scenes) {
		files[strings.TrimPrefix(res, "res://")] = readFile(t, "testdata/game3/"+strings.TrimPrefix(res, "res://"))
	}
	for res := range maps.Keys(p.Scripts) {
		files[strings.TrimPrefix(res, "res://")] = readFile(t, "testdata/game3/"+strings.TrimPrefix(res, "res://"))
	}
	files["loop_peer.gd"] = readFile(t, "../bomber/testdata/loop_peer.gd")
	script := strings.ReplaceAll(string(readFile(t, "testdata/engine/game3_driver.gd")), "__URL__", "ws"+strings.TrimPrefix(hs.URL, "http"))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := godot4.Run(ctx, script, files)
	if res == nil {
		t.Fatalf("engine: %v", err)
	}
	if err != nil || !slices.Contains(res.Stdout, "G3 END") {
		t.Fatalf("engine: %v\nstdout:\n%s\nstderr:\n%s", err, strings.Join(res.Stdout, "\n"), strings.Join(res.Stderr, "\n"))
	}
	var ids [2]string
	for _, l := range res.Stdout {
		if rest, ok := strings.CutPrefix(l, "G3 ids "); ok {
			a, b, _ := strings.Cut(rest, " ")
			ids = [2]string{a, b}
		}
	}
	out := strings.Join(res.Stdout, "\n")
	out = strings.NewReplacer(ids[0], "ID1", ids[1], "ID2").Replace(out)
	for _, want := range []string{
		"G3 C1 player ID1 hp=50 player=ID1",
		"G3 C1 item ID1/Sword kind=3",
		"G3 C1 badge ID1 badge of ID1",
		"G3 C1 drop DropID1 amount=7 pos=(5.0, 6.0)",
		"G3 C1 clock 42",
		"G3 C2 player ID1 hp=50 player=ID1",
		"G3 C2 item ID1/Sword kind=3",
		"G3 C2 player ID2 hp=50 player=ID2",
		"G3 C2 item ID2/Sword kind=3",
		"G3 C2 drop DropID1 amount=7 pos=(5.0, 6.0)",
		"G3 C1 badges 1, C2 badges 1",
		"G3 C2 own badge true",
		"G3 C1 player ID1 despawned",
		"G3 C2 player ID1 despawned",
		"G3 after despawn C1 items 1, C2 items 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the clients did not print %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "G3 C1 badge ID2") || strings.Contains(out, "G3 C2 badge ID1") {
		t.Errorf("a client saw the other's badge:\n%s", out)
	}
	if !moved.Load() {
		t.Error("the server accepted no input SYNC of (1, 0) from the player's owner")
	}
	if !aimed.Load() {
		t.Error("the server accepted no aim SYNC of 0.5 from the player's owner (its authority from the player property)")
	}
	for len(errs) > 0 {
		t.Errorf("server error: %v", <-errs)
	}
	for _, l := range res.Stderr {
		if strings.Contains(l, "ERROR") {
			t.Errorf("engine: %s", l)
		}
	}
	if want := "G3 recorded: K players 1 items 1 badges 1 drops 2 beacons 0, K2 players 1 items 1 badges 1 drops 2 beacons 2"; !slices.Contains(res.Stdout, want) {
		t.Errorf("the recording's clients: want %q in\n%s", want, out)
	}
	rec := map[int32][][]byte{}
	for _, l := range res.Stdout {
		if rest, ok := strings.CutPrefix(l, "G3 REC "); ok {
			peer, h, _ := strings.Cut(rest, " ")
			id, err := strconv.Atoi(peer)
			if err != nil {
				t.Fatal(err)
			}
			b, err := hex.DecodeString(h)
			if err != nil {
				t.Fatal(err)
			}
			rec[int32(id)] = append(rec[int32(id)], b)
		}
	}
	t.Run("SameBytesAsGodotServer", func(t *testing.T) { game3SameBytes(t, rec) })
}

// game3SameBytes runs on a Go server made from test game 3 what the recording did on a Godot
// 4.6 server running the game's own scenes and scripts (peer 1001 connects and gets its player,
// the player's item from the nested spawner, its badge behind the filter, a drop through the
// spawn function; a few frames; peer 1002 joins late; a few frames; player 1001 goes with its
// item) and compares the packets each peer got: the same bytes, in the same order.
func game3SameBytes(t *testing.T, godotSent map[int32][][]byte) {
	if len(godotSent[1001]) < 10 || len(godotSent[1002]) < 10 {
		t.Fatalf("the Godot server's recording has %d and %d packets", len(godotSent[1001]), len(godotSent[1002]))
	}
	p := load(t, "testdata/game3")
	d, err := p.Instance(p.MainScene, "")
	if err != nil {
		t.Fatal(err)
	}
	d.Synchronizers = nil // the recording has no clock
	// Each beacon is shown to the peer it is named after, until the test moves 1001's to 1002.
	var moved1001 atomic.Bool
	supplyBeaconFilter(t, d, func(peer int32, e *multiplayer.Entity) bool {
		shown := e.Owner()
		if e.Name() == "Beacon1001" && moved1001.Load() {
			shown = 1002
		}
		return peer == shown
	})
	sp := map[string]*multiplayer.Spawner{}
	for _, s := range d.Spawners {
		sp[s.Path] = s
	}
	var next int32 = 1000
	srv := &multiplayer.Server{Replication: multiplayer.Replication{TickInterval: multiplayer.NoLimit},
		NewPeerID: func(*http.Request) int32 { next++; return next }}
	if err := d.Apply(srv); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sent := map[int32][][]byte{}
	spawns := make(chan struct{}, 64)
	srv.Trace = func(dir string, peer int32, pkt []byte) {
		if dir != "out" {
			return
		}
		mu.Lock()
		sent[peer] = append(sent[peer], bytes.Clone(pkt))
		mu.Unlock()
		if pkt[0] == byte(multiplayer.CmdSpawn) {
			spawns <- struct{}{}
		}
	}
	players := map[int32]*multiplayer.Entity{}
	srv.OnConnect = func(peer *multiplayer.Peer) {
		id := peer.ID()
		name := fmt.Sprint(id)
		e, err := srv.Spawn(sp["Game/PlayerSpawner"], "res://player.tscn", name, &multiplayer.SpawnOptions{Owner: id, State: map[string]any{"hp": 50}})
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		players[id] = e
		mu.Unlock()
		if _, err := srv.Spawn(e.SpawnerAt("ItemSpawner"), "res://item.tscn", "Sword", &multiplayer.SpawnOptions{State: map[string]any{"kind": 3}}); err != nil {
			t.Error(err)
		}
		if _, err := srv.Spawn(sp["Game/BadgeSpawner"], "res://badge.tscn", name, &multiplayer.SpawnOptions{Owner: id, State: map[string]any{"text": "badge of " + name}}); err != nil {
			t.Error(err)
		}
		if _, err := srv.Spawn(sp["Game/DropSpawner"], "", "Drop"+name, &multiplayer.SpawnOptions{Arg: []any{"Drop" + name, godot.Vector2{X: 5, Y: 6}}}); err != nil {
			t.Error(err)
		}
		if _, err := srv.Spawn(sp["Game/BeaconSpawner"], "res://beacon.tscn", "Beacon"+name, &multiplayer.SpawnOptions{Owner: id, State: map[string]any{"label": "beacon of " + name}}); err != nil {
			t.Error(err)
		}
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	waitSpawns := func(n int) {
		t.Helper()
		for range n {
			select {
			case <-spawns:
			case <-ctx.Done():
				t.Fatal("no SPAWN")
			}
		}
	}
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	c1, err := multiplayer.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close(ctx)
	waitSpawns(5) // player, item, badge, drop, beacon
	for range 3 {
		srv.Tick()
	}
	c2, err := multiplayer.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	waitSpawns(11) // 1001's player, item and drop to 1002; 1002's player, item, badge, drop and beacon
	for range 3 {
		srv.Tick()
	}
	// The beacon of 1001 is shown to 1002 instead: the filter, run again at the next tick,
	// despawns it on 1001 and spawns it on 1002.
	moved1001.Store(true)
	for range 3 {
		srv.Tick()
	}
	mu.Lock()
	e := players[1001]
	mu.Unlock()
	e.Despawn()
	srv.Tick()
	mu.Lock()
	defer mu.Unlock()
	for _, peer := range []int32{1001, 1002} {
		have, want := replication(t, "Go", sent[peer]), replication(t, "Godot", godotSent[peer])
		if len(have) != len(want) {
			t.Errorf("peer %d: %d packets, the Godot server sent %d:\n have %x\n want %x", peer, len(have), len(want), have, want)
		}
		for i := range min(len(have), len(want)) {
			if !bytes.Equal(have[i], want[i]) {
				t.Errorf("peer %d packet %d:\n have %x\n want %x (Godot)", peer, i, have[i], want[i])
			}
		}
	}
}

// supplyBeaconFilter gives the beacon's synchronizer, whose filter the loader cannot read, the
// filter visible, and removes that gap; it fails t on any other gap.
func supplyBeaconFilter(t *testing.T, d *Declarations, visible func(peer int32, e *multiplayer.Entity) bool) {
	t.Helper()
	for _, g := range d.Gaps {
		if g.Scene != "res://beacon.tscn" || g.Sync == nil || g.Sync.Path != "BeaconSync" {
			t.Fatalf("unexpected gap %v", g)
		}
		g.Sync.Visible = visible
	}
	if len(d.Gaps) != 1 {
		t.Fatalf("gaps %v, want the beacon's filter", d.Gaps)
	}
	d.Gaps = nil
}

// replication keeps the server's replication and system packets (not CONFIRM_PATH, which
// answers the clients, nor RELAY, which forwards their input), with each SYNC's sync_time
// masked and a SYNC identical to the one before dropped, so that the number of network frames
// does not matter; sync_time must count 1, 2, 3 ….
func replication(t *testing.T, who string, pkts [][]byte) [][]byte {
	t.Helper()
	var out [][]byte
	var want uint16 = 1
	for _, p := range pkts {
		switch {
		case p[0] == byte(multiplayer.CmdConfirmPath), p[0] == byte(multiplayer.CmdSys) && len(p) > 1 && p[1] == 3:
			continue
		case p[0] == byte(multiplayer.CmdSync) && len(p) >= 3:
			if got := binary.LittleEndian.Uint16(p[1:]); got != want {
				t.Errorf("%s: sync_time %d, want %d", who, got, want)
			}
			want++
			p = append([]byte{p[0], 0, 0}, p[3:]...)
			if len(out) > 0 && bytes.Equal(out[len(out)-1], p) {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
