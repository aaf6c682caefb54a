package messages

import (
	"strings"
	"testing"

	"github.com/gamewire/gamewire/bitstream"
)

// A dump of one bit that starts one bit into its byte says "1 bit" both times.
func TestRawDumpSingular(t *testing.T) {
	r := bitstream.NewReader([]byte{0x40})
	if err := r.Seek(1); err != nil {
		t.Fatal(err)
	}
	d := RawDump(r, 2, 0)
	lines := strings.Join(d.Lines(), "\n")
	if want := "bytes  40  (the body starts 1 bit into the first byte)"; !strings.Contains(lines, want) {
		t.Errorf("lines\n%s\nwant %q", lines, want)
	}
	if st := d.steps(); len(st) == 0 || !strings.HasPrefix(st[0].Text, "body: 1 bit, not in the catalog") {
		t.Errorf("steps %+v", st)
	}
}
