package inspect

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gamewire/gamewire/internal/cliio"
)

// MaxInputBytes bounds the bytes a hex dump's repeat marks ("*") may stand for.
const MaxInputBytes = 16 << 20

// ReadInput turns the text of a request into bytes. encoding is "auto" (or ""), "hex",
// "hexdump", "base64" or "raw" (text is the bytes). Auto tries, in order, a hex dump with
// offsets, plain hex, and base64. It returns the bytes and the encoding used.
func ReadInput(text, encoding string) ([]byte, string, error) {
	switch encoding {
	case "raw":
		return []byte(text), "raw", nil
	case "hex":
		b, err := cliio.Decode([]byte(text), cliio.Hex)
		return b, "hex", err
	case "base64":
		b, err := cliio.Decode([]byte(text), cliio.Base64)
		return b, "base64", err
	case "hexdump":
		b, _, ok, err := cliio.ReadDump([]byte(text), MaxInputBytes)
		if !ok {
			return nil, "", errors.New("inspect: not a hex dump (want lines of an offset and hex bytes whose offsets follow the bytes, as xxd, hexdump -C, od -Ax -tx1 or Wireshark print them)")
		}
		if err != nil {
			return nil, "", fmt.Errorf("inspect: %w", err)
		}
		return b, "hex dump", nil
	case "auto", "":
	default:
		return nil, "", fmt.Errorf("inspect: unknown input encoding %q (want auto, hex, hexdump, base64 or raw)", encoding)
	}
	if strings.TrimSpace(text) == "" {
		return nil, "", errors.New("inspect: no input")
	}
	if b, _, ok, err := cliio.ReadDump([]byte(text), MaxInputBytes); ok {
		if err != nil {
			return nil, "", fmt.Errorf("inspect: %w", err)
		}
		return b, "hex dump", nil
	}
	if b, err := cliio.Decode([]byte(text), cliio.Hex); err == nil {
		return b, "hex", nil
	} else if looksHex(text) {
		return nil, "", fmt.Errorf("inspect: this looks like hex but %w", err)
	}
	if b, err := cliio.Decode([]byte(text), cliio.Base64); err == nil {
		return b, "base64", nil
	}
	return nil, "", errors.New("inspect: the input is neither hex, a hex dump nor base64")
}

// looksHex reports text made of hex digits and separators only.
func looksHex(text string) bool {
	for _, r := range text {
		switch {
		case r >= '0' && r <= '9', r >= 'a' && r <= 'f', r >= 'A' && r <= 'F':
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ':' || r == ',' || r == 'x' || r == 'X':
		default:
			return false
		}
	}
	return true
}
