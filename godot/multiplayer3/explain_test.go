package multiplayer3

import (
	"errors"
	"strings"
	"testing"
)

// A malformed call is explained up to its error: target, name, count, the arguments that
// decoded; the error is at the argument that did not, and wraps the *PacketError.
func TestExplainMalformedCall(t *testing.T) {
	pkt := unhex(t, "00 01000000 6600 02 02000000 07000000 02000000")
	f := ExplainPacket(pkt)
	var names []string
	for _, fl := range f.Fields {
		names = append(names, fl.Name)
	}
	if want := "command target method argc args[0]"; strings.Join(names, " ") != want {
		t.Errorf("fields %q, want %q", strings.Join(names, " "), want)
	}
	var pe *PacketError
	if f.Err == nil || f.Err.Offset() != 16 || !errors.As(f.Err, &pe) || !errors.Is(f.Err, ErrTruncated) {
		t.Errorf("error %+v", f.Err)
	}
	checkLeaves(t, f)
	// With the transport header, offsets move by 8.
	full := append(AppendHeader(nil, 5, 1), pkt...)
	if g := Explain(ChannelReliable, full); g.Err == nil || g.Err.Offset() != 24 {
		t.Errorf("Explain with the header: error %+v", g.Err)
	}
}

// A RAW packet of one byte is "1 byte", in its summary and its data field.
func TestExplainRawSingular(t *testing.T) {
	f := Explain(ChannelReliable, unhex(t, "01000000 00000000 04 ff"))
	if f.Err != nil || !strings.HasSuffix(f.Summary, "RAW 1 byte") {
		t.Fatalf("summary %q, error %v", f.Summary, f.Err)
	}
	if d := f.Fields[len(f.Fields)-1]; d.Name != "data" || d.Text != "1 byte" {
		t.Errorf("data field %+v", d)
	}
}

// A call with one argument is "(1 arg)" in the summary.
func TestExplainCallSingular(t *testing.T) {
	f := Explain(ChannelReliable, unhex(t, "01000000 00000000 00 01000000 6600 01 02000000 2a000000"))
	if f.Err != nil || !strings.HasSuffix(f.Summary, "(1 arg)") {
		t.Errorf("summary %q, error %v", f.Summary, f.Err)
	}
}
