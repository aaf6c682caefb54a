package inspect

import (
	"errors"
	"fmt"
	"strconv"
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
		b, ok := parseDump(text)
		if !ok {
			return nil, "", errors.New("inspect: not a hex dump (want lines of an offset and hex bytes whose offsets follow the bytes, as xxd, hexdump -C, od -Ax -tx1 or Wireshark print them)")
		}
		return b, "hex dump", nil
	case "auto", "":
	default:
		return nil, "", fmt.Errorf("inspect: unknown input encoding %q (want auto, hex, hexdump, base64 or raw)", encoding)
	}
	if strings.TrimSpace(text) == "" {
		return nil, "", errors.New("inspect: no input")
	}
	if b, ok := parseDump(text); ok {
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

// dumpLine is one line of a hex dump: its offset and the text after it.
type dumpLine struct {
	off    int
	rest   string
	repeat bool // hexdump's "*": the previous line repeats up to the next offset
}

// parseDump reads a hex dump: every non-empty line is an offset of 4 to 8 hex digits followed by
// a colon or by at least two spaces, then hex bytes (single or in groups), then optionally the
// characters column; "*" lines repeat the line before, as hexdump prints them. ok is false when
// the text is not a dump, or its offsets do not follow its bytes.
func parseDump(text string) (data []byte, ok bool) {
	var lines []dumpLine
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if strings.TrimSpace(l) == "*" {
			lines = append(lines, dumpLine{repeat: true})
			continue
		}
		t := strings.TrimLeft(l, " \t")
		i := 0
		for i < len(t) && i < 9 && isHexDigit(t[i]) {
			i++
		}
		if i < 4 || i > 8 {
			return nil, false
		}
		off, perr := strconv.ParseUint(t[:i], 16, 32)
		if perr != nil {
			return nil, false
		}
		rest := t[i:]
		switch {
		case strings.HasPrefix(rest, ":"):
			rest = rest[1:]
		case rest == "" || strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t"):
		default:
			return nil, false
		}
		lines = append(lines, dumpLine{off: int(off), rest: rest})
	}
	if len(lines) == 0 || lines[0].repeat {
		return nil, false
	}
	// A single line without a colon, a second column or a characters column is plain hex.
	if len(lines) == 1 && !strings.Contains(lines[0].rest, "  ") && !strings.Contains(lines[0].rest, "|") {
		return nil, false
	}
	base := lines[0].off
	width := 0
	var prev []byte
	for i, l := range lines {
		if l.repeat {
			continue
		}
		limit, exact := -1, false
		if j := nextOffset(lines, i); j >= 0 && (i+1 >= len(lines) || !lines[i+1].repeat) {
			limit, exact = lines[j].off-l.off, true
		} else if width > 0 {
			limit = width
		}
		b := dumpBytes(l.rest, limit)
		if exact && len(b) != limit {
			return nil, false
		}
		if l.off-base > MaxInputBytes {
			return nil, false // hexdump's "*" would make more than the inspector takes
		}
		if i > 0 && lines[i-1].repeat {
			// Fill the repeated lines up to this offset.
			for base+len(data) < l.off && len(prev) > 0 {
				data = append(data, prev...)
			}
		}
		if base+len(data) != l.off {
			if len(b) == 0 && i == len(lines)-1 && l.off >= base+len(data) {
				// hexdump's last line: the end offset alone.
				break
			}
			return nil, false
		}
		data = append(data, b...)
		prev = b
		width = max(width, len(b))
	}
	return data, len(data) > 0
}

func nextOffset(lines []dumpLine, i int) int {
	for j := i + 1; j < len(lines); j++ {
		if !lines[j].repeat {
			return j
		}
	}
	return -1
}

// dumpBytes reads the hex column of a dump line: tokens of hex digits (an even number, at most
// 8), up to limit bytes (-1: any), stopping at "|", at a gap of three or more spaces after the
// first byte, or at a token that is not hex.
func dumpBytes(s string, limit int) (out []byte) {
	if i := strings.IndexByte(s, '|'); i >= 0 {
		s = s[:i]
	}
	for {
		n := len(s)
		s = strings.TrimLeft(s, " \t")
		if len(out) > 0 && n-len(s) >= 3 {
			break
		}
		if s == "" || limit >= 0 && len(out) >= limit {
			break
		}
		j := 0
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		tok := s[:j]
		if len(tok)%2 != 0 || len(tok) > 8 || !allHex(tok) {
			break
		}
		for k := 0; k < len(tok); k += 2 {
			if limit >= 0 && len(out) >= limit {
				break
			}
			v, _ := strconv.ParseUint(tok[k:k+2], 16, 8)
			out = append(out, byte(v))
		}
		s = s[j:]
	}
	return out
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
