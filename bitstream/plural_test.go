package bitstream

import (
	"strings"
	"testing"
)

// TestErrorTextSingular checks that a read error counting one bit or element says "1 bit" and
// "1 element", not "1 bits" (issue 20 §4).
func TestErrorTextSingular(t *testing.T) {
	_, err := NewReader(nil).ReadBits(1)
	if err == nil || !strings.Contains(err.Error(), "need 1 bit,") {
		t.Errorf("ReadBits(1) on no input: %v, want \"need 1 bit,\"", err)
	}
	r := NewReader([]byte{0xff})
	r.pos = 7
	if err := checkCount(r, 7, "ReadSlice", 2, 1); err == nil || !strings.Contains(err.Error(), "at least 1 bit, 1 bit left") {
		t.Errorf("checkCount: %v, want \"at least 1 bit, 1 bit left\"", err)
	}
}
