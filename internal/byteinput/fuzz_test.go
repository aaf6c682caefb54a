package byteinput

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

// FuzzDecodeSource: detection never panics, fails only with ErrFormat or ErrEmpty, and bytes it
// reads as hex or as a dump are what their hex says.
func FuzzDecodeSource(f *testing.F) {
	for _, s := range []string{"15 20 c2", "0x15,0x20", "1520c", "hello there", "AgAAAAEAAAA=", " \n",
		"00000000: 1520 c25c 046d  . .\\.m\n", "00000000  15 20 c2 5c 04 6d                                 |. .\\.m|\n00000006\n",
		"00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n00000030\n",
		"00000000: zz\n", "00000000  15 20\n*\n", "\x00\x01",
		"000000 15 20 c2\n000003\n", "000000 00 00\n*\n000010 01\n000011\n", "000000 15 20",
		"0000   15 20 c2 5c   . .\\\n0004   04 6d   .m\n", "0000  15 20"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, src, err := DecodeSource(data, Auto)
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrEmpty) {
				t.Fatalf("%q: untyped error %v", data, err)
			}
			return
		}
		if len(b) > len(data) && src.Dump == "" {
			t.Fatalf("%q: %d bytes from %d bytes of input", data, len(b), len(data))
		}
		if src.Format == Hex && src.Dump == "" {
			again, err := Decode([]byte(hex.EncodeToString(b)), Auto)
			if err != nil || !bytes.Equal(again, b) {
				t.Fatalf("%q: %x does not read back: %x %v", data, b, again, err)
			}
		}
	})
}
