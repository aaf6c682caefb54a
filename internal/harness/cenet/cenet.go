// Package cenet builds the small C programs that the tests run as C ENet peers: each is compiled
// once per test process against Debian's libenet-dev (C ENet 1.3.17, the real peer of gamewire's
// pure-Go ENet) with gcc. Where gcc or libenet-dev are missing the test is skipped with a message,
// or fails when the environment variable CI is "true", so that CI never passes by skipping.
package cenet

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Header is the C ENet header whose presence says libenet-dev is installed.
const Header = "/usr/include/enet/enet.h"

var (
	mu    sync.Mutex
	dir   string
	built = map[string]result{} // absolute source path → program or error
)

type result struct {
	path string
	err  error
}

// Available reports why C programs cannot be built against C ENet here, or nil.
func Available() error {
	if _, err := exec.LookPath("gcc"); err != nil {
		return fmt.Errorf("gcc not installed: %w", err)
	}
	if _, err := os.Stat(Header); err != nil {
		return fmt.Errorf("libenet-dev not installed (no %s)", Header)
	}
	return nil
}

// Build compiles the C file src (a path relative to the test's package, or absolute) against
// C ENet once per process and returns the program's path. It skips t, or fails it under CI=true,
// when the program cannot be built for want of gcc or libenet-dev; a compile error fails t.
func Build(t testing.TB, src string) string {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("C ENet is required when CI=true: %v", err)
		}
		t.Skipf("skipping: C ENet unavailable: %v (install gcc and libenet-dev)", err)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	r, ok := built[abs]
	if !ok {
		r = build(abs)
		built[abs] = r
	}
	if r.err != nil {
		t.Fatalf("building %s against C ENet: %v", src, r.err)
	}
	return r.path
}

func build(src string) result {
	if dir == "" {
		d, err := os.MkdirTemp("", "gamewire-cenet")
		if err != nil {
			return result{err: err}
		}
		dir = d
	}
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".c"))
	if b, err := exec.Command("gcc", "-O2", "-o", out, src, "-lenet").CombinedOutput(); err != nil {
		return result{err: fmt.Errorf("%w: %s", err, b)}
	}
	return result{path: out}
}

// RemoveAll removes the programs built so far; a package's TestMain calls it after m.Run.
func RemoveAll() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	dir = ""
	built = map[string]result{}
}
