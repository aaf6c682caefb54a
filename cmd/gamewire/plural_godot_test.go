package main

import (
	"strings"
	"testing"
)

// TestGodotDecodeSingular: a length prefix with one byte after it says "the 1 byte after it",
// never "1 bytes" (issue 20 §4).
func TestGodotDecodeSingular(t *testing.T) {
	_, stderr, code := gw(t, "ffffff7f 04", "godot", "decode", "--framing", "streampeer")
	if code != 1 || !strings.Contains(stderr, "announces more than the 1 byte after it") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}
