package gsf_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// The text form counts in words: a one-bit field is "1 bit", not "1 bits".
func TestExplainTextSingular(t *testing.T) {
	data, _ := hex.DecodeString("1520c25c046d0c0c18416d617a696e67576f726c6400")
	body, err := bitproto.ParseFields("x:null")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := gsf.Explain(data, gsf.ExplainOptions{Body: body})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := ex.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"frame 1 at byte 0: 22 bytes (length 21), request\n", "\n    x            null     null  (bit 60, 1 bit)\n", "\n    107 bits left after the fields, not all zero\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("got\n%s\nwant a line %q", b.String(), want)
		}
	}
	if strings.Contains(b.String(), " 1 bits") {
		t.Errorf("\"1 bits\" in\n%s", b.String())
	}
}
