package multiplayer

import (
	"strings"
	"testing"
)

// TestErrorTextSingular: a packet error counting one byte says "1 byte", never "1 bytes"
// (issue 20 §4).
func TestErrorTextSingular(t *testing.T) {
	_, _, err := ParseConfirmPath([]byte{byte(CmdConfirmPath)})
	if err == nil || !strings.Contains(err.Error(), "1 byte, must be 6") {
		t.Errorf("ParseConfirmPath of 1 byte: %v, want \"1 byte, must be 6\"", err)
	}
	_, err = ParseSimplifyPath([]byte{byte(CmdSimplifyPath)})
	if err == nil || !strings.Contains(err.Error(), "1 byte, need") {
		t.Errorf("ParseSimplifyPath of 1 byte: %v, want \"1 byte, need\"", err)
	}
}
