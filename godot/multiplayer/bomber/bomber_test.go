package bomber

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/internal/harness/godot4"
)

// clientFiles returns the client project's files for godot4.Run (its project.godot is Run's).
func clientFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	ents, err := os.ReadDir("client")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == "project.godot" {
			continue
		}
		b, err := os.ReadFile(filepath.Join("client", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// TestEngineBomber plays the example game with two real Godot 4.6 clients: the players the Go
// server spawns appear on both with their spawn state, move by the input the owners replicate
// (reaching the Go handler typed), a late joiner sees the existing player where it is, each
// sees only its own hint (a visibility filter), a bomb appears in a deep part of the tree, hp
// changes by delta SYNC, and the player of a client that leaves is despawned on the other.
func TestEngineBomber(t *testing.T) {
	godot4.Require(t)
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var next int32 = 1000
	g.Server.NewPeerID = func(*http.Request) int32 { next++; return next }
	var mu sync.Mutex
	var inputs []Input
	g.OnInput = func(peer int32, in Input) {
		mu.Lock()
		inputs = append(inputs, in)
		mu.Unlock()
	}
	hs := httptest.NewServer(g.Server)
	defer hs.Close()
	defer g.Server.Shutdown(context.Background())
	driver, err := os.ReadFile("testdata/driver.gd")
	if err != nil {
		t.Fatal(err)
	}
	script := strings.ReplaceAll(string(driver), "__URL__", "ws"+strings.TrimPrefix(hs.URL, "http"))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	files := clientFiles(t)
	if files["loop_peer.gd"], err = os.ReadFile("testdata/loop_peer.gd"); err != nil {
		t.Fatal(err)
	}
	res, err := godot4.Run(ctx, script, files)
	var out []string
	if res != nil {
		for _, l := range res.Stdout {
			if s, ok := strings.CutPrefix(l, "BOMBER "); ok {
				out = append(out, s)
			}
		}
	}
	if err != nil || !slices.Contains(out, "END") {
		t.Fatalf("engine run: %v\n%s\nstderr:\n%s", err, strings.Join(out, "\n"), strings.Join(res.Stderr, "\n"))
	}
	t.Logf("engine output:\n%s", strings.Join(out, "\n"))
	for _, want := range []string{
		"C1 spawned player 1001 pos=(100.0, 100.0) hp=100 label=player 1001",
		"C1 own player 1001",
		"C1 moved right",
		"C2 players 1001,1002",
		"C2 sees C1 at its place true",
		"C1 players 1001,1002",
		"C1 spawned hint Hint1001 only for 1001",
		"C2 spawned hint Hint1002 only for 1002",
		"C1 hints Hint1001",
		"C2 hints Hint1002",
		"C1 spawned bomb Bomb1 pos=(",
		"C2 said 1001 dropped bomb 1",
		"hp on both 90",
		"exploded on both by 1001",
		"scoreboard bombs=1 last_bomber=1001 on both",
		"C1 spawned fx Fx1 pos=(",
		"C2 spawned fx Fx1 pos=(",
		"C1 despawned player 1002",
		"C1 players after C2 left 1001",
	} {
		if !slices.ContainsFunc(out, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("the engine did not print %q", want)
		}
	}
	for _, l := range out {
		if strings.Contains(l, "spawned fx") && !strings.HasSuffix(l, "kind=boom") {
			t.Errorf("the custom spawn's argument: %s", l)
		}
	}
	if !slices.ContainsFunc(out, func(l string) bool { return strings.HasPrefix(l, "C2 spawned player 1002 pos=(200.0, 100.0) hp=100") }) {
		t.Errorf("C2's own player not spawned with its state")
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(inputs, func(in Input) bool { return in.Motion == (godot.Vector2{X: 1}) }) ||
		!slices.ContainsFunc(inputs, func(in Input) bool { return in.Bombing }) {
		t.Errorf("the Go handler saw inputs %v", inputs)
	}
	for _, l := range res.Stderr {
		if strings.Contains(l, "ERROR") {
			t.Errorf("engine error: %s", l)
		}
	}
	rec := map[int32][][]byte{}
	for _, l := range out {
		if rest, ok := strings.CutPrefix(l, "REC "); ok {
			peerS, h, _ := strings.Cut(rest, " ")
			peer, err := strconv.Atoi(peerS)
			if err != nil {
				t.Fatal(err)
			}
			b, err := hex.DecodeString(h)
			if err != nil {
				t.Fatal(err)
			}
			// CONFIRM_PATH answers the clients' input synchronizers; RELAY forwards them
			// between the clients: neither is the server's replication.
			if b[0] != 2 && !(b[0] == 7 && b[1] == 3) {
				rec[int32(peer)] = append(rec[int32(peer)], b)
			}
		}
	}
	if !slices.Contains(out, "client sees 1002, late joiner sees 1002 and hints Hint1002") {
		t.Errorf("the recording's clients: %v", out)
	}
	t.Run("SameBytesAsGodotServer", func(t *testing.T) { sameBytesAsGodot(t, rec) })
}

// sameBytesAsGodot runs on the Go server what the engine's recording did on a Godot 4.6 server
// (peer 1001 connects and gets its player and hint; a few network frames; hp and position
// change and an effect is spawned with an argument; a few frames; peer 1002 joins late and gets
// the existing player, not the other's hint, then its own; a few frames; player 1001 is freed)
// and compares the packets sent to each peer.
func sameBytesAsGodot(t *testing.T, godotSent map[int32][][]byte) {
	if !slices.ContainsFunc(godotSent[1001], func(p []byte) bool { return p[0] == 4 && p[1] == multiplayer.CustomScene }) {
		t.Errorf("the Godot server's recording has no custom SPAWN")
	}
	if len(godotSent[1001]) < 6 || len(godotSent[1002]) < 4 {
		t.Fatalf("the Godot server's recording has %d and %d packets", len(godotSent[1001]), len(godotSent[1002]))
	}
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	g.Server.Replication.TickInterval = multiplayer.NoLimit
	g.Server.Synchronizers = nil // the recording has no scoreboard
	var next int32 = 1000
	g.Server.NewPeerID = func(*http.Request) int32 { next++; return next }
	var mu sync.Mutex
	sent := map[int32][][]byte{}
	spawns := make(chan struct{}, 16)
	g.Server.Trace = func(dir string, peer int32, pkt []byte) {
		if dir != "out" {
			return
		}
		mu.Lock()
		sent[peer] = append(sent[peer], bytes.Clone(pkt))
		mu.Unlock()
		if pkt[0] == 4 {
			spawns <- struct{}{}
		}
	}
	hs := httptest.NewServer(g.Server)
	defer hs.Close()
	defer g.Server.Shutdown(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	c, err := multiplayer.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	waitSpawns := func(n int) {
		for range n {
			select {
			case <-spawns:
			case <-ctx.Done():
				t.Fatal("no SPAWN")
			}
		}
	}
	waitSpawns(2) // the player and the hint
	for range 3 {
		g.Server.Tick()
	}
	g.mu.Lock()
	e := g.ents[1001]
	g.mu.Unlock()
	if err := e.Sync("ServerSync").SetState(map[string]any{"hp": 90, "position": godot.Vector2{X: 110, Y: 100}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Server.Spawn(g.fx, "", "Fx1", &multiplayer.SpawnOptions{Arg: []any{"boom", godot.Vector2{X: 110, Y: 100}, 1}}); err != nil {
		t.Fatal(err)
	}
	waitSpawns(1) // the effect
	for range 3 {
		g.Server.Tick()
	}
	// A late joiner: it gets player 1001 with its state now, not its hint; then its own.
	c2, err := multiplayer.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	waitSpawns(4) // player 1001 and player 1002 and its hint to 1002, player 1002 to 1001
	for range 3 {
		g.Server.Tick()
	}
	e.Despawn()
	g.Server.Tick()
	mu.Lock()
	defer mu.Unlock()
	for _, peer := range []int32{1001, 1002} {
		have, want := normalize(t, "Go", sent[peer]), normalize(t, "Godot", godotSent[peer])
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

// normalize masks the sync_time of SYNC packets and drops repeated SYNCs of the same state, so
// that the number of network frames does not matter; it checks that sync_time counts 1, 2, 3 ….
func normalize(t *testing.T, who string, pkts [][]byte) [][]byte {
	var out [][]byte
	var next uint16 = 1
	for _, p := range pkts {
		if p[0] == 6 {
			if st := binary.LittleEndian.Uint16(p[1:]); st != next {
				t.Errorf("%s: sync_time %d, want %d", who, st, next)
			}
			next++
			p = append([]byte{6, 0, 0}, p[3:]...)
			if len(out) > 0 && bytes.Equal(out[len(out)-1], p) {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// TestEngineBomberTwoProcesses plays the game with two engine processes at once, one client
// each: B starts once A's player has moved, sees it where it is (a late joiner), and leaves
// after A's bomb; A sees B come and go.
func TestEngineBomberTwoProcesses(t *testing.T) {
	godot4.Require(t)
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var next int32 = 3000
	g.Server.NewPeerID = func(*http.Request) int32 { next++; return next }
	moved := make(chan struct{})
	var once sync.Once
	g.OnInput = func(peer int32, in Input) {
		if in.Motion.X > 0 {
			once.Do(func() { close(moved) })
		}
	}
	hs := httptest.NewServer(g.Server)
	defer hs.Close()
	defer g.Server.Shutdown(context.Background())
	src, err := os.ReadFile("testdata/process.gd")
	if err != nil {
		t.Fatal(err)
	}
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	type result struct {
		out []string
		err error
	}
	run := func(role string) result {
		script := strings.ReplaceAll(strings.ReplaceAll(string(src), "__URL__", url), "__ROLE__", role)
		res, err := godot4.Run(ctx, script, clientFiles(t))
		var r result
		if res != nil {
			for _, l := range res.Stdout {
				if s, ok := strings.CutPrefix(l, "BOMBER "+role+" "); ok {
					r.out = append(r.out, s)
				}
			}
			if err == nil && !slices.Contains(r.out, "END") {
				err = fmt.Errorf("no END:\n%s\nstderr:\n%s", strings.Join(r.out, "\n"), strings.Join(res.Stderr, "\n"))
			}
		}
		r.err = err
		return r
	}
	resA := make(chan result, 1)
	go func() { resA <- run("A") }()
	select {
	case <-moved:
	case r := <-resA:
		t.Fatalf("A ended before moving: %v %v", r.err, r.out)
	case <-ctx.Done():
		t.Fatal("A's player never moved")
	}
	b := run("B")
	a := <-resA
	if a.err != nil || b.err != nil {
		t.Fatalf("A: %v\n%s\nB: %v\n%s", a.err, strings.Join(a.out, "\n"), b.err, strings.Join(b.out, "\n"))
	}
	for _, c := range []struct {
		out  []string
		want string
	}{
		{a.out, "sees players 3001,3002"}, {a.out, "sees bombs Bomb1"}, {a.out, "after B left 3001"},
		{b.out, "sees players 3001,3002, the other moved true"}, {b.out, "sees hints Hint3002"}, {b.out, "sees bombs Bomb1"},
	} {
		if !slices.Contains(c.out, c.want) {
			t.Errorf("missing %q in\n%s", c.want, strings.Join(c.out, "\n"))
		}
	}
}
