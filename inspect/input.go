package inspect

import (
	"fmt"

	"github.com/gamewire/gamewire/internal/byteinput"
)

// MaxInputBytes bounds the bytes a hex dump's repeat marks ("*") may stand for.
const MaxInputBytes = 16 << 20

// ReadInput turns the text of a request into bytes, with the command line's input detector
// (internal/byteinput): encoding is "auto" (or ""), "hex", "hexdump", "base64" or "raw" (text is the
// bytes). Auto reads a hex dump with offsets, plain hex, padded base64, or bytes that are not
// text as they are. It returns the bytes and the encoding used: "hex", "hex dump", "base64" or
// "raw".
func ReadInput(text, encoding string) ([]byte, string, error) {
	f, err := byteinput.ParseFormat(encoding)
	if err != nil {
		return nil, "", fmt.Errorf("inspect: %w", err)
	}
	b, src, err := byteinput.DecodeSourceMax([]byte(text), f, MaxInputBytes)
	if err != nil {
		return nil, "", fmt.Errorf("inspect: %w", err)
	}
	how := string(src.Format)
	if src.Dump != "" {
		how = "hex dump"
	}
	return b, how, nil
}
