package multiplayer3

import (
	"strings"
	"testing"
)

// TestErrorTextSingular: a packet error counting one byte says "1 byte", never "1 bytes"
// (issue 20 §4).
func TestErrorTextSingular(t *testing.T) {
	_, _, err := ParseSys([]byte{1})
	if err == nil || !strings.Contains(err.Error(), "SYS message of 1 byte,") {
		t.Errorf("ParseSys of 1 byte: %v, want \"SYS message of 1 byte,\"", err)
	}
	_, _, _, err = ParseHeader([]byte{1})
	if err == nil || !strings.Contains(err.Error(), "1 byte, the header needs 8") {
		t.Errorf("ParseHeader of 1 byte: %v, want \"1 byte, the header needs 8\"", err)
	}
}
