package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gamewire runs the built command and returns stdout, stderr and the exit status.
func gamewire(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return gw(t, stdin, args...)
}

const dict3 = "12000000 02000000 04000000 02000000 68700000 02000000 64000000 04000000 03000000 706f7300 05000000 0000803f 00000040"

func TestGodotDecodeEncodeRoundTrip(t *testing.T) {
	for _, tc := range []struct{ dialect, hex string }{
		{"3", dict3},
		{"3", "17000000 02000000 01000000 00000000 03000000 61620000"},
		{"3", "0f000000 02000080 01000000 01000000 01000000 61000000 01000000 62000000 01000000 63000000"},
		{"3", "03000100 000000000000f87f"}, // NaN keeps its 8 bytes and payload
		{"4", "1c000100 02000000 03000000 02000000 01000000 02000000 02000000 02000000 03000000"},
		{"4", "1b000500 04000000 02000000 00000000"},
	} {
		js, stderr, code := gamewire(t, tc.hex, "godot", "decode", "--godot", tc.dialect)
		if code != 0 {
			t.Fatalf("decode %s: exit %d: %s", tc.hex, code, stderr)
		}
		out, stderr, code := gamewire(t, js, "godot", "encode", "--godot", tc.dialect)
		if code != 0 {
			t.Fatalf("encode: exit %d: %s\n%s", code, stderr, js)
		}
		want := strings.ReplaceAll(tc.hex, " ", "")
		if strings.TrimSpace(out) != want {
			t.Errorf("hex → JSON → hex:\n got %s\nwant %s\n%s", strings.TrimSpace(out), want, js)
		}
	}
}

func TestGodotDecodeFormats(t *testing.T) {
	raw, _ := hex.DecodeString(strings.ReplaceAll(dict3, " ", ""))
	dir := t.TempDir()
	file := filepath.Join(dir, "v.bin")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	a, _, c1 := gamewire(t, "", "godot", "decode", "--godot", "3", "--format", "raw", file)
	b, _, c2 := gamewire(t, dict3, "godot", "decode", "--godot", "3")
	if c1 != 0 || c2 != 0 || a != b || !strings.Contains(a, `"Vector2"`) {
		t.Errorf("raw file and hex stdin differ (%d, %d):\n%s\n%s", c1, c2, a, b)
	}
}

func TestGodotDecodeAll(t *testing.T) {
	out, stderr, code := gamewire(t, "02000000 01000000 02000000 02000000", "godot", "decode", "--compact", "--all")
	if code != 0 || out != "{\"type\":\"int\",\"value\":1}\n{\"type\":\"int\",\"value\":2}\n" {
		t.Errorf("exit %d, out %q, err %q", code, out, stderr)
	}
	out, stderr, code = gamewire(t, "02000000 01000000 02000000 02000000", "godot", "decode", "--compact")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(stderr, "8 trailing bytes") {
		t.Errorf("exit %d, out %q, err %q", code, out, stderr)
	}
}

func TestGodotExplain(t *testing.T) {
	out, stderr, code := gamewire(t, dict3, "godot", "explain", "--godot", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"godot3 frame 0 at byte 0, 52 bytes", "header: type 18 Dictionary", `entry: "pos"`, "value: Vector2(1, 2)", "x: 1", "y: 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
}

func TestGodotErrors(t *testing.T) {
	for _, args := range [][]string{
		{"godot", "decode", "--godot", "3"},                   // truncated input
		{"godot", "decode", "--godot", "5"},                   // bad dialect
		{"godot", "explain", "--godot", "3", "--format", "x"}, // bad format
		{"godot", "encode"},                                   // not JSON
	} {
		_, stderr, code := gamewire(t, "04000000 05000000 6162", args...)
		if code == 0 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	// explain prints the fields read before the error, then fails.
	out, stderr, code := gamewire(t, "13000000 02000000 02000000 01000000 04000000 ff000000", "godot", "explain", "--godot", "3")
	if code != 1 || !strings.Contains(out, "element count: 2") || !strings.Contains(stderr, "at byte 20") {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	// -h is a request, not a mistake: the usage, and status 0 (as the flag package's ExitOnError).
	if _, stderr, code := gamewire(t, "", "godot", "decode", "-h"); code != 0 || !strings.Contains(stderr, "-godot") {
		t.Errorf("-h: exit %d, want 0; %s", code, stderr)
	}
	if _, _, code := gamewire(t, "", "godot", "decode", "--no-such-flag"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if _, _, code := gamewire(t, "", "nope"); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
}
