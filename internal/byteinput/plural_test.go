package byteinput

import (
	"strings"
	"testing"
)

// TestErrorTextSingular: white space of one byte is "1 byte", never "1 bytes" (issue 20 §4).
func TestErrorTextSingular(t *testing.T) {
	_, _, err := detect([]byte("\n"), 0)
	if err == nil || !strings.Contains(err.Error(), "(1 byte;") {
		t.Errorf("detect of a newline: %v, want \"(1 byte;\"", err)
	}
}
