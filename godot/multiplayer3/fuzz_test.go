package multiplayer3

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gamewire/gamewire/explain"
)

// FuzzParse feeds arbitrary packets to Parse and Explain: no panic, errors are *PacketErrors
// with offsets inside the packet, a packet that parses is explained without an error, and the
// explanation's leaves lie inside the packet, in order. The seeds in testdata/fuzz/FuzzParse are
// the packets of the recorded engine session (go test -run TestWriteFuzzSeeds -record).
func FuzzParse(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 'f', 0, 0})
	f.Fuzz(func(t *testing.T, pkt []byte) {
		p, err := Parse(pkt)
		fr := ExplainPacket(pkt)
		if err != nil {
			var pe *PacketError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > int64(len(pkt)) {
				t.Fatalf("Parse(%x): %v (want a *PacketError inside the packet)", pkt, err)
			}
			if fr.Err == nil {
				t.Fatalf("Parse(%x) failed (%v), Explain did not", pkt, err)
			}
			return
		}
		if fr.Err != nil {
			t.Fatalf("Explain(%x): %v, Parse did not fail", pkt, fr.Err)
		}
		checkLeaves(t, fr)
		if _, err := reencode(p); err != nil && p.Command != CmdRemoteCall && p.Command != CmdRemoteSet {
			t.Fatalf("writing %+v again: %v", p, err)
		}
	})
}

// FuzzExplain explains arbitrary ENet packets on each channel: no panic, leaves in order.
func FuzzExplain(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 0, 0, 2, 0, 0, 0})
	f.Add(uint8(1), []byte{2, 0, 0, 0, 1, 0, 0, 0, 4, 1})
	f.Fuzz(func(t *testing.T, ch uint8, data []byte) {
		fr := Explain(ch, data)
		if fr.Err != nil && (fr.Err.Bit < 0 || fr.Err.Bit > int64(len(data))*8) {
			t.Fatalf("error at bit %d of %d bytes", fr.Err.Bit, len(data))
		}
		checkLeaves(t, fr)
	})
}

func checkLeaves(t *testing.T, fr *explain.Frame) {
	t.Helper()
	var last int64
	var walk func(fs []*explain.Field)
	walk = func(fs []*explain.Field) {
		for _, f := range fs {
			if len(f.Children) > 0 {
				walk(f.Children)
				continue
			}
			if f.Bit < last || f.Bit+f.Bits > fr.Bits {
				t.Fatalf("field %s at bits %d+%d: previous leaf ended at %d, frame has %d bits", f.Name, f.Bit, f.Bits, last, fr.Bits)
			}
			last = f.Bit + f.Bits
		}
	}
	walk(fr.Fields)
}

// TestWriteFuzzSeeds writes the recorded session's packets as FuzzParse's seed corpus (with
// -record).
func TestWriteFuzzSeeds(t *testing.T) {
	if !*record {
		t.Skip("run with -record to write the seed corpus again")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, sp := range sessionPackets(t, loadSession(t, 0)) {
		if sp.Channel == ChannelSys || len(sp.Data) < HeaderBytes {
			continue
		}
		pkt := sp.Data[HeaderBytes:]
		if seen[string(pkt)] {
			continue
		}
		seen[string(pkt)] = true
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", pkt)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("session-%03d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
