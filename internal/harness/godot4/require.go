package godot4

import (
	"os"
	"testing"
)

// Require skips the test when the engine cannot run here (no Chromium, no engine files and no npm
// to fetch them), saying what is missing. When the environment variable CI is "true" it fails the
// test instead, so that CI never passes by skipping.
func Require(t testing.TB) {
	t.Helper()
	err := Available()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("the real Godot 4 engine is required when CI=true: %v", err)
	}
	t.Skipf("skipping: the real Godot 4 engine is not available: %v", err)
}
