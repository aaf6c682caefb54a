package godot4

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

//go:embed assets/page.html assets/runner.js
var assets embed.FS

// chromiumFlags are the flags that work on these machines (see the machine notes): headless, no
// sandbox (tests run as root), and no background traffic, which the closed network refuses.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--mute-audio",
}

// Result is what the engine printed before the end marker, line by line, without newlines.
type Result struct {
	Stdout []string // print(), and the engine's own start-up banner
	Stderr []string // printerr(), push_error(), and engine errors and warnings
	// Elapsed is the wall-clock time of the whole run, Chromium's start-up included.
	Elapsed time.Duration
}

// Chromium returns the Chromium binary Run starts: $GAMEWIRE_CHROMIUM, or chromium on PATH, or
// /usr/bin/chromium.
func Chromium() (string, error) {
	if p := os.Getenv(EnvChromium); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("$%s: %w", EnvChromium, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	return "", errors.New("chromium not found (apt-get install -y chromium, or set $" + EnvChromium + ")")
}

// Available reports what is missing to run the engine: Chromium, or the engine files (which it
// fetches with npm the first time, see the package documentation). It returns nil when Run can
// start the engine.
func Available() error {
	var errs []error
	if _, err := Chromium(); err != nil {
		errs = append(errs, err)
	}
	if _, err := EngineDir(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// reserved are the res:// paths Run writes itself.
var reserved = map[string]bool{
	"project.godot": true, "main.gd": true, "gamewire_runner.gd": true, "gamewire_runner.tscn": true,
}

// Run runs script, saved as res://main.gd, in a fresh headless Godot 4.6 engine and returns the
// lines it printed. The script must define main() (see the package documentation). files are
// written into the engine's file system first, keyed by their path under res://, such as
// "in/values.bin" for res://in/values.bin.
//
// Run returns an error if the engine cannot be started; if main.gd does not load, or the engine
// reports a GDScript parse or compile error in any script (this release build still runs scripts
// whose dependencies failed to compile, so such errors would otherwise only show as missing
// output); if the page or the engine fails before the script ends; or if ctx ends first. The
// Result then holds what was printed so far. A run takes about five seconds; give ctx a
// deadline. Runs are independent and may proceed in parallel.
func Run(ctx context.Context, script string, files map[string][]byte) (*Result, error) {
	start := time.Now()
	for name := range files {
		if err := checkPath(name); err != nil {
			return nil, err
		}
	}
	chromium, err := Chromium()
	if err != nil {
		return nil, err
	}
	dir, err := EngineDir()
	if err != nil {
		return nil, err
	}

	r := &run{events: make(chan event), stopped: make(chan struct{}), pending: map[int]message{}}
	defer close(r.stopped)
	r.token = randomHex(16)
	r.marker = "__gamewire_end_" + randomHex(8) + "__"
	r.fs = map[string][]byte{
		"project.godot":        []byte(projectGodot),
		"gamewire_runner.tscn": []byte(runnerScene),
		"gamewire_runner.gd":   []byte(strings.ReplaceAll(runnerScript, "MARKER", r.marker)),
		"main.gd":              []byte(script),
		// An empty class cache silences a warning at start-up.
		".godot/global_script_class_cache.cfg": nil,
	}
	for name, data := range files {
		r.fs[name] = data
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: r.handler(dir), ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	profile, err := os.MkdirTemp("", "gamewire-godot4-chromium-")
	if err != nil {
		return nil, err
	}
	defer removeAll(profile)

	url := fmt.Sprintf("http://%s/%s/", ln.Addr(), r.token)
	args := append(append([]string{}, chromiumFlags...), "--user-data-dir="+profile, url)
	cmd := exec.Command(chromium, args...)
	var logs tailBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", chromium, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer stopProcessGroup(cmd, exited)

	res, err := r.wait(ctx, exited, &logs)
	res.Elapsed = time.Since(start)
	return res, err
}

// wait collects the page's messages until the end marker, an error, or ctx's end.
func (r *run) wait(ctx context.Context, exited <-chan error, logs *tailBuffer) (*Result, error) {
	var fatal []string
	var grace <-chan time.Time
	started := false
	for {
		select {
		case <-ctx.Done():
			res := r.result()
			what := "before the engine started"
			if started {
				what = "before the script's end marker"
			}
			return res, fmt.Errorf("godot4: %w %s (%d stdout and %d stderr lines so far%s)",
				context.Cause(ctx), what, len(res.Stdout), len(res.Stderr), lastLines(res))
		case err := <-exited:
			res := r.result()
			return res, fmt.Errorf("godot4: chromium exited (%v) before the script's end marker%s; chromium's output:\n%s",
				err, lastLines(res), logs.String())
		case <-grace:
			res := r.result()
			return res, fmt.Errorf("godot4: the page failed: %s%s", strings.Join(fatal, "; "), lastLines(res))
		case ev := <-r.events:
			switch {
			case ev.started:
				started = true
			case ev.fatal != "":
				// A wasm trap ends the engine; give the marker a moment in case it was not fatal.
				fatal = append(fatal, ev.fatal)
				if grace == nil {
					grace = time.After(3 * time.Second)
				}
			case ev.exit != nil:
				res := r.result()
				return res, fmt.Errorf("godot4: the engine exited with code %d before the script's end marker%s", *ev.exit, lastLines(res))
			case ev.done:
				res := r.result()
				for _, f := range fatal {
					res.Stderr = append(res.Stderr, "page error: "+f)
				}
				switch ev.status {
				case "ok":
					// Scripts with parse or compile errors still load in this release build, and
					// whatever did compile runs: a broken dependency would only show as missing
					// output. Treat any such error as a failed run.
					if errs := scriptErrors(res.Stderr); len(errs) > 0 {
						return res, fmt.Errorf("godot4: GDScript errors:\n%s", strings.Join(errs, "\n"))
					}
					return res, nil
				case "noload":
					return res, fmt.Errorf("godot4: res://main.gd did not load:\n%s", strings.Join(res.Stderr, "\n"))
				case "nomain":
					return res, errors.New("godot4: res://main.gd has no main() method")
				default:
					return res, fmt.Errorf("godot4: unexpected end status %q", ev.status)
				}
			}
		}
	}
}

// scriptErrors returns the lines of stderr that report a GDScript parse or compile error, with
// the location line that follows each.
func scriptErrors(stderr []string) []string {
	var out []string
	for i, l := range stderr {
		if strings.HasPrefix(l, "SCRIPT ERROR: Parse Error") || strings.HasPrefix(l, "SCRIPT ERROR: Compile Error") ||
			strings.HasPrefix(l, "ERROR: Failed to load script") {
			out = append(out, l)
			if i+1 < len(stderr) && strings.HasPrefix(stderr[i+1], "   at: ") {
				out = append(out, stderr[i+1])
			}
		}
	}
	return out
}

func lastLines(res *Result) string {
	var b strings.Builder
	tail := func(name string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "\nlast %s lines:", name)
		for _, l := range lines[max(0, len(lines)-5):] {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			b.WriteString("\n  " + l)
		}
	}
	tail("stdout", res.Stdout)
	tail("stderr", res.Stderr)
	return b.String()
}

// checkPath accepts a clean relative slash-separated path that Run does not write itself.
func checkPath(name string) error {
	if name == "" || path.Clean(name) != name || path.IsAbs(name) || name == ".." ||
		strings.HasPrefix(name, "../") || strings.Contains(name, "\\") || strings.HasPrefix(name, ".godot/") {
		return fmt.Errorf("godot4: bad file path %q (want a clean relative path like \"in/x.bin\")", name)
	}
	if reserved[name] {
		return fmt.Errorf("godot4: file path %q is reserved", name)
	}
	return nil
}

// run is the state of one Run: the files the page fetches and the messages it sent.
type run struct {
	token, marker string
	fs            map[string][]byte

	mu      sync.Mutex
	next    int             // the next message sequence number to apply
	pending map[int]message // messages that arrived early
	stdout  []string
	stderr  []string
	events  chan event    // to wait, which reads them until it returns
	stopped chan struct{} // closed when Run returns
}

type message struct {
	Seq     int     `json:"seq"`
	Lines   []line  `json:"lines"`
	Started bool    `json:"started"`
	Done    *string `json:"done"`
	Exit    *int    `json:"exit"`
	Fatal   string  `json:"fatal"`
}

// line is one printed line: Stream 0 is stdout, 1 is stderr.
type line struct {
	Stream int    `json:"s"`
	Text   string `json:"t"`
}

type event struct {
	started bool
	done    bool
	status  string
	exit    *int
	fatal   string
}

func (r *run) result() *Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &Result{Stdout: append([]string(nil), r.stdout...), Stderr: append([]string(nil), r.stderr...)}
}

func (r *run) handler(engineDir string) http.Handler {
	prefix := "/" + r.token + "/"
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prefix+"{$}", func(w http.ResponseWriter, req *http.Request) {
		serveAsset(w, "assets/page.html", "text/html; charset=utf-8")
	})
	mux.HandleFunc("GET "+prefix+"runner.js", func(w http.ResponseWriter, req *http.Request) {
		serveAsset(w, "assets/runner.js", "text/javascript; charset=utf-8")
	})
	for _, f := range engineFiles {
		name := f.name
		mux.HandleFunc("GET "+prefix+name, func(w http.ResponseWriter, req *http.Request) {
			if strings.HasSuffix(name, ".wasm") {
				w.Header().Set("Content-Type", "application/wasm")
			} else {
				w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			}
			http.ServeFile(w, req, filepath.Join(engineDir, name))
		})
	}
	mux.HandleFunc("GET "+prefix+"config.json", func(w http.ResponseWriter, req *http.Request) {
		names := make([]string, 0, len(r.fs))
		for name := range r.fs {
			names = append(names, name)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"marker": r.marker, "files": names})
	})
	mux.HandleFunc("GET "+prefix+"fs/{path...}", func(w http.ResponseWriter, req *http.Request) {
		data, ok := r.fs[req.PathValue("path")]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(data)
	})
	mux.HandleFunc("POST "+prefix+"out", func(w http.ResponseWriter, req *http.Request) {
		var m message
		if err := json.NewDecoder(req.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.receive(m)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		http.NotFound(w, req) // favicon and anything else
	})
	return mux
}

func serveAsset(w http.ResponseWriter, name, ctype string) {
	data, err := assets.ReadFile(name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(data)
}

// receive applies messages in sequence order and passes their events on.
func (r *run) receive(m message) {
	r.mu.Lock()
	r.pending[m.Seq] = m
	var evs []event
	for {
		m, ok := r.pending[r.next]
		if !ok {
			break
		}
		delete(r.pending, r.next)
		r.next++
		for _, l := range m.Lines {
			if l.Stream == 1 {
				r.stderr = append(r.stderr, l.Text)
			} else {
				r.stdout = append(r.stdout, l.Text)
			}
		}
		if m.Started {
			evs = append(evs, event{started: true})
		}
		if m.Fatal != "" {
			evs = append(evs, event{fatal: m.Fatal})
		}
		if m.Exit != nil {
			evs = append(evs, event{exit: m.Exit})
		}
		if m.Done != nil {
			evs = append(evs, event{done: true, status: *m.Done})
		}
	}
	r.mu.Unlock()
	for _, ev := range evs {
		select {
		case r.events <- ev:
		case <-r.stopped:
			return
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// removeAll removes a Chromium profile, retrying while processes that were just killed let go.
func removeAll(dir string) {
	for range 20 {
		if os.RemoveAll(dir) == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tailBuffer keeps the last 64 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - 64<<10; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

const projectGodot = `config_version=5

[application]

config/name="gamewire"
run/main_scene="res://gamewire_runner.tscn"
`

const runnerScene = `[gd_scene load_steps=2 format=3]

[ext_resource type="Script" path="res://gamewire_runner.gd" id="1"]

[node name="GamewireRunner" type="Node"]
script = ExtResource("1")
`

// runnerScript loads main.gd, awaits its main() and prints the end marker with a status word:
// ok, noload (main.gd did not load or instantiate) or nomain.
const runnerScript = `extends Node

func _ready() -> void:
	var status := "ok"
	var script = load("res://main.gd")
	var obj = null
	if script is GDScript and script.can_instantiate():
		obj = script.new()
	if obj == null:
		status = "noload"
	elif not obj.has_method("main"):
		status = "nomain"
	else:
		if obj is Node:
			add_child(obj)
		await obj.main()
	print("MARKER " + status)
	get_tree().quit()
`
