package bomber

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/internal/engine/godot4"
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
	res, err := godot4.Run(ctx, script, clientFiles(t))
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
		"C1 despawned player 1002",
		"C1 players after C2 left 1001",
	} {
		if !slices.ContainsFunc(out, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("the engine did not print %q", want)
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
}
