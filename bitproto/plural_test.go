package bitproto

import (
	"strings"
	"testing"

	"github.com/gamewire/gamewire/bitstream"
)

// TestErrorTextSingular: an error counting one value or field says "1 value", "1 field", never
// "1 fields" (issue 20 §4).
func TestErrorTextSingular(t *testing.T) {
	err := EncodeFields(bitstream.NewWriter(nil), []Field{{Name: "a", Type: Int32}}, nil)
	if err == nil || !strings.Contains(err.Error(), "0 values for 1 field") || strings.Contains(err.Error(), "1 fields") {
		t.Errorf("EncodeFields: %v, want \"0 values for 1 field\"", err)
	}
	err = EncodeFields(bitstream.NewWriter(nil), []Field{{Name: "a", Type: Int32}, {Name: "b", Type: Int32}}, []any{int32(1)})
	if err == nil || !strings.Contains(err.Error(), "1 value for 2 fields") {
		t.Errorf("EncodeFields: %v, want \"1 value for 2 fields\"", err)
	}
}
