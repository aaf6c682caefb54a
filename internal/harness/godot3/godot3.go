// Package godot3 runs GDScript on the real Godot 3.2.3 engine (Debian's godot3-server, a headless
// build) so that tests can compare the codec with the engine byte for byte.
//
// Every [Run] starts one engine process on a fresh temporary project, so that res:// is defined
// and the script can read input files from it and write results into it. Starting the engine takes
// about 0.2 s: tests should batch thousands of values into one run rather than start it per
// value.
//
// Scripts follow the pattern that works on 3.2.3: the script extends SceneTree, does its work in
// _init() and calls quit(). A script error in _init() skips the quit() and leaves the engine
// running forever, so every run is bounded by a timeout, after which the whole process group is
// killed.
package godot3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binary is the name of the engine's command, looked up on PATH.
const Binary = "godot3-server"

// ScriptName is the file name [Run] gives the script in the project directory
// (res://main.gd).
const ScriptName = "main.gd"

// projectName names the temporary projects; user:// is HOME/data/godot/app_userdata/projectName.
const projectName = "gamewire-godot3-run"

// DefaultTimeout bounds a [Run] whose context has no deadline.
const DefaultTimeout = 2 * time.Minute

// Locale is the LANG given to the engine. Godot 3 reads LANG itself, not through the C library,
// and complains on stderr about anything that is not a language code ("Invalid locale 'C'" for
// C.UTF-8); en_US.UTF-8 is accepted even where the C library has no such locale installed, so no
// fallback is needed. LC_ALL is set to C.UTF-8, which every Debian system has, so that the C
// library formats numbers the same everywhere.
const Locale = "en_US.UTF-8"

// Path returns the absolute path of the engine binary and true, or "" and false if it is not
// installed (not on PATH).
func Path() (string, bool) {
	p, err := exec.LookPath(Binary)
	if err != nil {
		return "", false
	}
	return p, true
}

// Result is what an engine run produced.
type Result struct {
	// Stdout holds the engine's standard output: its banner ("Godot Engine v3.2.3.stable…" and
	// a blank line), then whatever the script prints with print().
	Stdout []byte
	// Stderr holds engine errors ("ERROR: decode_variant: …"), script errors ("SCRIPT ERROR:
	// …") and what the script prints with printerr().
	Stderr []byte
	// ExitCode is the process's exit status, or -1 if it was killed by a signal.
	ExitCode int
	// Signal names the signal that killed the process ("segmentation fault" for the crashes
	// of facts 14, 19 and 30), or is empty.
	Signal string
	// TimedOut reports that the run hit its deadline and the engine was killed.
	TimedOut bool
	// Files holds every file that is in the project directory after the run other than the
	// ones Run wrote, keyed by its slash-separated path relative to res://: what the script
	// wrote with File.open("res://…", File.WRITE).
	Files map[string][]byte
	// Duration is the wall time of the engine process.
	Duration time.Duration
}

// Output returns the script's standard output without the engine's banner (the first two
// lines, the version line and an empty line).
func (r *Result) Output() []byte {
	out := r.Stdout
	if bytes.HasPrefix(out, []byte("Godot Engine v")) {
		for range 2 {
			i := bytes.IndexByte(out, '\n')
			if i < 0 {
				return nil
			}
			out = out[i+1:]
		}
	}
	return out
}

// ScriptErrors returns the lines of stderr that report GDScript errors ("SCRIPT ERROR: …"
// followed by its "At: …" line).
func (r *Result) ScriptErrors() []string {
	var errs []string
	lines := strings.Split(string(r.Stderr), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "SCRIPT ERROR:") {
			e := l
			if i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "At:") {
				e += " " + strings.TrimSpace(lines[i+1])
			}
			errs = append(errs, e)
		}
	}
	return errs
}

// ExitError is returned by [Run] when the engine ran but did not end normally: it exited with a
// non-zero status, was killed by a signal, or timed out.
type ExitError struct {
	Result *Result
}

func (e *ExitError) Error() string {
	r := e.Result
	var what string
	switch {
	case r.TimedOut:
		what = fmt.Sprintf("timed out after %v and was killed (a script error in _init() skips quit() and hangs the engine)", r.Duration.Round(time.Millisecond))
	case r.Signal != "":
		what = "was killed by signal: " + r.Signal
	default:
		what = fmt.Sprintf("exited with status %d", r.ExitCode)
	}
	msg := Binary + " " + what
	if se := r.ScriptErrors(); len(se) > 0 {
		msg += "; first script error: " + se[0]
	} else if tail := lastLines(r.Stderr, 5); tail != "" {
		msg += "; stderr ends with:\n" + tail
	}
	return msg
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ErrNotInstalled is returned by [Run] when the engine binary is not on PATH.
var ErrNotInstalled = errors.New(Binary + " is not installed (Debian: apt-get install -y godot3-server)")

// Run runs script (GDScript source that extends SceneTree, see the package comment) on the engine
// as res://main.gd in a new temporary project directory, with files written there first (keys are
// slash-separated paths relative to res://; they must not leave the directory). It runs
//
//	godot3-server --no-window --path DIR -s main.gd
//
// with LANG=en_US.UTF-8 and HOME and the XDG directories inside DIR, so the engine writes nothing
// outside it, and removes DIR afterwards.
//
// The run is bounded by ctx; without a deadline, by DefaultTimeout. When the time is up, or ctx is
// cancelled, the engine's whole process group is killed.
//
// Run returns a nil error only if the engine exited with status 0. If it ran but exited
// otherwise (a crash, a non-zero status, a timeout), Run returns the Result together with an
// *[ExitError]. Other errors (engine not installed, I/O errors) come with a nil Result.
func Run(ctx context.Context, script string, files map[string][]byte) (*Result, error) {
	bin, ok := Path()
	if !ok {
		return nil, ErrNotInstalled
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	dir, err := os.MkdirTemp("", "godot3-run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	written := map[string]bool{"project.godot": true, ScriptName: true}
	// A project.godot makes DIR the project, so res:// is DIR. The name keeps user:// apart from
	// other projects (it lives under HOME, which is inside DIR anyway).
	if err := os.WriteFile(filepath.Join(dir, "project.godot"), []byte("config_version=4\n\n[application]\n\nconfig/name=\""+projectName+"\"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ScriptName), []byte(script), 0o644); err != nil {
		return nil, err
	}
	for name, data := range files {
		clean := path.Clean(name)
		if !fs.ValidPath(clean) || clean == "." || strings.HasPrefix(clean, ".home") {
			return nil, fmt.Errorf("godot3: invalid file name %q", name)
		}
		if written[clean] {
			return nil, fmt.Errorf("godot3: file %q would replace a file Run writes", name)
		}
		p := filepath.Join(dir, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		written[clean] = true
	}
	home := filepath.Join(dir, ".home")
	// The engine sets up its log file in user:// before it creates user://, and complains on
	// stderr ("make_dir_recursive: Method failed") unless the directory exists already.
	if err := os.MkdirAll(filepath.Join(home, "data", "godot", "app_userdata", projectName), 0o755); err != nil {
		return nil, err
	}

	cmd := exec.CommandContext(ctx, bin, "--no-window", "--path", dir, "-s", ScriptName)
	cmd.Dir = dir
	cmd.Env = engineEnv(home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The engine gets its own process group, and the whole group is killed on timeout.
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 5 * time.Second

	start := time.Now()
	runErr := cmd.Run()
	res := &Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(start)}
	if cmd.ProcessState == nil {
		return nil, fmt.Errorf("godot3: starting %s: %w", bin, runErr)
	}
	// Kill anything the engine left behind in its group (it starts no helpers, but be sure).
	_ = killGroup(cmd)
	res.ExitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = ws.Signal().String()
	}
	res.TimedOut = ctx.Err() != nil
	if res.TimedOut {
		res.Signal = ""
	}

	res.Files = map[string][]byte{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			// .home is the engine's HOME (its user:// and log files are under it).
			if rel == ".home" {
				return filepath.SkipDir
			}
			return nil
		}
		if written[rel] || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		res.Files[rel] = b
		return nil
	})
	if err != nil {
		return res, err
	}
	if res.TimedOut || res.ExitCode != 0 {
		return res, &ExitError{Result: res}
	}
	return res, nil
}

// engineEnv returns the engine's environment: PATH from ours, the locale, and a HOME and XDG
// directories of its own.
func engineEnv(home string) []string {
	env := []string{
		"LANG=" + Locale,
		"LC_ALL=C.UTF-8",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
	}
	if p, ok := os.LookupEnv("PATH"); ok {
		env = append(env, "PATH="+p)
	}
	return env
}

var version struct {
	once sync.Once
	v    string
	err  error
}

// Version returns the engine's version string, e.g. "3.2.3.stable.custom_build", from
// godot3-server --version. It runs the engine once per process and remembers the answer.
func Version() (string, error) {
	version.once.Do(func() {
		bin, ok := Path()
		if !ok {
			version.err = ErrNotInstalled
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		home, err := os.MkdirTemp("", "godot3-version-")
		if err != nil {
			version.err = err
			return
		}
		defer os.RemoveAll(home)
		cmd := exec.CommandContext(ctx, bin, "--version")
		cmd.Env = engineEnv(home)
		cmd.Dir = home
		// 3.2.3 prints its version and exits with status 255, so the status is ignored.
		out, err := cmd.Output()
		version.v = strings.TrimSpace(string(out))
		if version.v == "" {
			version.err = fmt.Errorf("godot3: %s --version printed nothing: %v", bin, err)
		}
	})
	return version.v, version.err
}

// Require returns the engine binary's path for a test that needs the engine. If the engine is not
// installed it skips the test with a message that says how to install it, unless the environment
// variable CI is "true", in which case the test fails: a CI machine must run the differential
// tests. It logs the engine's version, and fails the test if it is not a 3.x engine.
func Require(t testing.TB) string {
	t.Helper()
	p, ok := Path()
	if !ok {
		msg := "the real Godot 3 engine (" + Binary + ") is not on PATH; install it with `apt-get install -y godot3-server` to run the differential tests"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: required)")
		}
		t.Skip(msg)
	}
	v, err := Version()
	if err != nil {
		t.Fatalf("godot3: %v", err)
	}
	if !strings.HasPrefix(v, "3.") {
		t.Fatalf("godot3: %s reports version %q, want a Godot 3 engine", p, v)
	}
	t.Logf("engine: %s %s", p, v)
	return p
}
