package gsf

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorTextSingular: an error counting one bit says "1 bit", never "1 bits" (issue 20 §4).
func TestErrorTextSingular(t *testing.T) {
	cause := errors.New("x")
	for _, tc := range []struct {
		left int
		want string
	}{
		{1, "1 bit before the end"},
		{-1, "1 bit after the payload"},
		{2, "2 bits before the end"},
	} {
		if got := NewBodyError(8, tc.left, cause).Error(); !strings.Contains(got, tc.want) {
			t.Errorf("Left %d: %q, want %q", tc.left, got, tc.want)
		}
	}
}
