package browser

import (
	"os"
	"testing"
)

// Require skips the test when Chromium is missing, saying so. When the environment variable CI
// is "true" it fails the test instead, so that CI never passes by skipping.
func Require(t testing.TB) {
	t.Helper()
	err := Available()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("Chromium is required when CI=true: %v", err)
	}
	t.Skipf("skipping: Chromium is not available: %v", err)
}
