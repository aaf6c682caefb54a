package godottest_test

import (
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot/godottest"
)

// TestHexDiffSingular: HexDiff counts one byte as "1 byte", never "1 bytes" (issue 20 §4).
func TestHexDiffSingular(t *testing.T) {
	got := godottest.HexDiff([]byte{1}, []byte{2, 3}, nil)
	if !strings.HasPrefix(got, "want 1 byte, got 2 bytes") {
		t.Errorf("HexDiff: %q, want it to start \"want 1 byte, got 2 bytes\"", got)
	}
}
