package demo

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestRoundTripStep(t *testing.T) {
	before := runtime.NumGoroutine()
	var out bytes.Buffer
	start := time.Now()
	if err := roundTripStep(&out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the round trip took %v", d)
	}
	for _, want := range []string{
		"15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00",
		"15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00",
		"byte for byte the one the live reference server gave",
		"appCode        115 (DUPLICATE_NICKNAME)",
		"shut down gracefully",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the step's output lacks %q:\n%s", want, out.String())
		}
	}
	// The server and the client are gone.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before the step, %d after", before, n)
	}
}
