package multiplayer

import (
	"strings"
	"testing"

	"github.com/gamewire/gamewire/explain"
)

// TestExplainSingular: an explanation says "1 byte", never "1 bytes".
func TestExplainSingular(t *testing.T) {
	for _, tc := range []struct {
		pkt  []byte
		want string
	}{
		{AppendRaw(nil, []byte{0xff}), "\n1 byte (peer_packet)"},
		// REMOTE_CALL with a 1-byte node id and a 1-byte method id, no arguments.
		{[]byte{byte(CmdRemoteCall), 0x01, 0x00, 0x00}, "node id in 1 byte, method id in 1 byte"},
		// A SPAWN of one byte.
		{[]byte{byte(CmdSpawn)}, "1 byte, need 18"},
	} {
		fr, _ := Explain(tc.pkt, nil)
		var b strings.Builder
		fr.Walk(func(f *explain.Field, _ int) bool { b.WriteString(f.Text + "\n"); return true })
		if fr.Err != nil {
			b.WriteString(fr.Err.Msg)
		}
		if got := b.String(); !strings.Contains(got, tc.want) || strings.Contains(got, "1 bytes") {
			t.Errorf("% x: got\n%s\nwant %q and no \"1 bytes\"", tc.pkt, got, tc.want)
		}
	}
}
