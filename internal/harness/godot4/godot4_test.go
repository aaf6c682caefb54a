package godot4_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/internal/harness/godot4"
)

// One engine start checks the runner: printing, input files, the engine's version and precision,
// and an await in main().
func TestRun(t *testing.T) {
	godot4.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	script := `extends Node

func main():
	print("hello")
	printerr("to stderr")
	var f := FileAccess.open("res://in/data.bin", FileAccess.READ)
	print("data ", f.get_buffer(f.get_length()).hex_encode())
	await get_tree().process_frame
	print("version ", Engine.get_version_info().string)
	print("double ", OS.has_feature("double"))
	print("after await")
`
	res, err := godot4.Run(ctx, script, map[string][]byte{"in/data.bin": {0, 1, 0xfe}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run took %v", res.Elapsed)
	// The official web build is single precision: real_t is float.
	for _, want := range []string{"hello", "data 0001fe", "version 4.6-stable (official)", "double false", "after await"} {
		if !slices.Contains(res.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, strings.Join(res.Stdout, "\n"))
		}
	}
	if !slices.ContainsFunc(res.Stdout, func(l string) bool { return strings.HasPrefix(l, "Godot Engine v"+godot4.Version+" ") }) {
		t.Errorf("stdout lacks the version %s:\n%s", godot4.Version, strings.Join(res.Stdout, "\n"))
	}
	if !slices.Contains(res.Stderr, "to stderr") {
		t.Errorf("stderr lacks %q:\n%s", "to stderr", strings.Join(res.Stderr, "\n"))
	}
}

// A script that does not parse must fail the run with the parser's message.
func TestRunParseError(t *testing.T) {
	godot4.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	res, err := godot4.Run(ctx, "func main():\n\tprint(\"unterminated)\n", nil)
	if err == nil {
		t.Fatalf("no error for a script that does not parse; stdout:\n%s", strings.Join(res.Stdout, "\n"))
	}
	if !strings.Contains(err.Error(), "main.gd") {
		t.Errorf("error does not name main.gd: %v", err)
	}
	t.Logf("error, as expected: %v", err)
}

// A script whose dependency does not compile still runs in the release build; Run must fail.
func TestRunBrokenDependency(t *testing.T) {
	godot4.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	script := "const Dep = preload(\"res://dep.gd\")\n\nfunc main():\n\tprint(\"ran anyway\")\n"
	dep := []byte("extends RefCounted\n\nfunc f():\n\treturn undefined_name\n")
	res, err := godot4.Run(ctx, script, map[string][]byte{"dep.gd": dep})
	if err == nil {
		t.Fatalf("no error for a script whose dependency does not compile; stdout:\n%s", strings.Join(res.Stdout, "\n"))
	}
	if !strings.Contains(err.Error(), "dep.gd") {
		t.Errorf("error does not name dep.gd: %v", err)
	}
	t.Logf("error, as expected: %v", err)
}

func TestRunBadPath(t *testing.T) {
	for _, p := range []string{"", "/abs", "../up", "a/../b", "main.gd", "project.godot", ".godot/x", `a\b`} {
		if _, err := godot4.Run(t.Context(), "func main():\n\tpass\n", map[string][]byte{p: nil}); err == nil {
			t.Errorf("path %q accepted", p)
		}
	}
}
