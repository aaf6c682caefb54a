package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// modulePath is the module whose inspect/wasm command Export builds.
const modulePath = "github.com/gamewire/gamewire"

// ExportOptions configures [Export].
type ExportOptions struct {
	// Go is the go command that builds the WebAssembly decoder; "go" (from PATH) by default.
	// Its GOROOT supplies wasm_exec.js, which must come from the toolchain that built the
	// module.
	Go string
	// ModuleDir is the directory of the gamewire module's source. By default Export asks the go
	// command in the current directory (a checkout of gamewire, or a module that requires it),
	// and otherwise downloads the version the running binary was built from.
	ModuleDir string
}

// Export writes the inspector as a static site into dir: the page, the decoder compiled to
// WebAssembly (explain.wasm, built now with the local Go toolchain from the same source as the
// running program), and the Go distribution's wasm_exec.js. Any static file server can serve dir;
// browsers do not run WebAssembly from file:// pages.
func Export(ctx context.Context, dir string, o ExportOptions) error {
	goCmd := o.Go
	if goCmd == "" {
		goCmd = "go"
	}
	mod := o.ModuleDir
	if mod == "" {
		var err error
		if mod, err = findModule(ctx, goCmd); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The page.
	if err := fs.WalkDir(assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(assets(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), b, 0o644)
	}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.js"), []byte(configJS("wasm")), 0o644); err != nil {
		return err
	}
	// wasm_exec.js of the toolchain that builds explain.wasm.
	goroot, err := goOutput(ctx, goCmd, "", nil, "env", "GOROOT")
	if err != nil {
		return err
	}
	var glue []byte
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if glue, err = os.ReadFile(filepath.Join(goroot, filepath.FromSlash(p))); err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("inspect: wasm_exec.js is in neither lib/wasm nor misc/wasm of GOROOT %s: %w", goroot, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), glue, 0o644); err != nil {
		return err
	}
	out, err := filepath.Abs(filepath.Join(dir, "explain.wasm"))
	if err != nil {
		return err
	}
	env := []string{"GOOS=js", "GOARCH=wasm", "GOWORK=off", "CGO_ENABLED=0"}
	if _, err := goOutput(ctx, goCmd, mod, env, "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./inspect/wasm"); err != nil {
		return fmt.Errorf("inspect: building explain.wasm: %w", err)
	}
	return nil
}

// findModule locates the gamewire module's source: through the go command in the current
// directory, or else by downloading the version this binary was built from.
func findModule(ctx context.Context, goCmd string) (string, error) {
	if dir, err := goOutput(ctx, goCmd, "", []string{"GOWORK=off"}, "list", "-m", "-f", "{{.Dir}}", modulePath); err == nil && dir != "" {
		return dir, nil
	}
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Path != modulePath || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "", errors.New("inspect: cannot find the gamewire source to build explain.wasm: run the command inside a checkout of gamewire (or a module that requires it), or install a released version")
	}
	js, err := goOutput(ctx, goCmd, os.TempDir(), []string{"GOWORK=off", "GO111MODULE=on"}, "mod", "download", "-json", modulePath+"@"+info.Main.Version)
	if err != nil {
		return "", fmt.Errorf("inspect: downloading the gamewire source to build explain.wasm: %w", err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal([]byte(js), &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("inspect: go mod download printed no directory: %s", js)
	}
	return m.Dir, nil
}

// goOutput runs the go command in dir (the current directory when empty) with extra environment
// and returns its trimmed standard output.
func goOutput(ctx context.Context, goCmd, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return "", fmt.Errorf("%s %s: %w", goCmd, strings.Join(args, " "), err)
		}
		return "", fmt.Errorf("%s %s: %w: %s", goCmd, strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(stdout.String()), nil
}
