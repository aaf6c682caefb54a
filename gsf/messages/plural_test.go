package messages

import (
	"strings"
	"testing"

	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/gsf"
)

// TestErrorTextSingular: a count of one element that does not fit says "1 element", never
// "1 elements" (issue 20 §4).
func TestErrorTextSingular(t *testing.T) {
	h := gsf.Header{Flags: gsf.FlagResponse, SvcClass: gsf.SvcUserServer, MsgType: gsf.MsgGetRandomNames, RequestID: 1}
	m := mustMessage(t, frameWith(t, h, func(w *bitstream.Writer) { w.WriteInt32(1) }))
	_, err := Describe(&m, Options{})
	if err == nil || !strings.Contains(err.Error(), "1 element of at least") {
		t.Errorf("Describe: %v, want \"1 element of at least\"", err)
	}
}
