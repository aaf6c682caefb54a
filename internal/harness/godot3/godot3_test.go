package godot3_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/internal/harness/godot3"
)

func TestRunFilesAndOutput(t *testing.T) {
	godot3.Require(t)
	script := `extends SceneTree
func _init():
	var f = File.new()
	if f.open("res://in/data.bin", File.READ) != OK:
		printerr("cannot open input")
		quit()
		return
	var b = f.get_buffer(f.get_len())
	f.close()
	print(b.hex_encode())
	print(OS.get_locale())
	printerr("to stderr")
	var o = File.new()
	o.open("res://out.bin", File.WRITE)
	b.invert()
	o.store_buffer(b)
	o.close()
	quit()
`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := godot3.Run(ctx, script, map[string][]byte{"in/data.bin": {1, 2, 0xfe}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Output()), "0102fe\nen_US\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	if !strings.Contains(string(res.Stderr), "to stderr") {
		t.Errorf("stderr %q lacks the printerr line", res.Stderr)
	}
	if got := strings.TrimSpace(string(res.Stderr)); got != "to stderr" {
		t.Errorf("stderr holds more than the script's line (locale or user:// complaints?):\n%s", got)
	}
	if got := res.Files["out.bin"]; string(got) != "\xfe\x02\x01" {
		t.Errorf("out.bin = %x, want fe0201 (files: %v)", got, keys(res.Files))
	}
	if len(res.Files) != 1 {
		t.Errorf("Files = %v, want only out.bin", keys(res.Files))
	}
	if res.ExitCode != 0 || res.TimedOut || res.Signal != "" {
		t.Errorf("exit %d, timed out %v, signal %q", res.ExitCode, res.TimedOut, res.Signal)
	}
}

// A script error in _init() skips quit(): the engine hangs and Run must kill it at the deadline.
func TestRunTimeoutKillsHungEngine(t *testing.T) {
	godot3.Require(t)
	script := `extends SceneTree
func _init():
	print("before")
	var a = null
	a.no_such_method()
	quit()
`
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := godot3.Run(ctx, script, nil)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Run took %v after a 1.5 s deadline", took)
	}
	var ee *godot3.ExitError
	if !errors.As(err, &ee) || res == nil || !res.TimedOut {
		t.Fatalf("err = %v, result %+v; want an ExitError for a timeout", err, res)
	}
	if len(res.ScriptErrors()) == 0 || !strings.Contains(err.Error(), "SCRIPT ERROR") {
		t.Errorf("error %q does not quote the script error; stderr:\n%s", err, res.Stderr)
	}
	if !strings.Contains(string(res.Output()), "before") {
		t.Errorf("output before the hang was lost: %q", res.Stdout)
	}
}

func TestRunExitCode(t *testing.T) {
	godot3.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := godot3.Run(ctx, "extends SceneTree\nfunc _init():\n\tquit(3)\n", nil)
	var ee *godot3.ExitError
	if !errors.As(err, &ee) || res.ExitCode != 3 {
		t.Fatalf("err = %v, exit code %v; want status 3", err, res)
	}
}

func TestRunRejectsEscapingFileNames(t *testing.T) {
	for _, name := range []string{"../x", "/etc/x", "", "main.gd", "project.godot"} {
		if _, err := godot3.Run(context.Background(), "", map[string][]byte{name: nil}); err == nil {
			t.Errorf("Run accepted the file name %q", name)
		}
	}
}

func keys(m map[string][]byte) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}
