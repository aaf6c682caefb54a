package byteinput

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Dump kinds.
const (
	dumpXXD       = "xxd"
	dumpHexdump   = "hexdump -C"
	dumpOD        = "od -Ax -tx1"
	dumpWireshark = "Wireshark"
)

// MaxDumpRepeat bounds the bytes that the "*" lines of a hexdump -C dump may stand for: a dump
// of a few lines could otherwise claim gigabytes.
const MaxDumpRepeat = 64 << 20

// dumpKind recognises a dump by its first non-empty line: xxd, hexdump -C, od -Ax -tx1 or
// Wireshark's "Copy as Hex Dump". The last two look like plain hex too; [readDump] takes them
// as dumps only when their offsets check out.
func dumpKind(data []byte) (string, bool) {
	var first string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimRight(line, "\r"); strings.TrimSpace(line) != "" {
			first = line
			break
		}
	}
	// xxd: "00000000: 1520 c25c 046d  . .\.m"
	if i := strings.Index(first, ": "); i > 0 && allHex(first[:i]) && len(first) >= i+4 && allHex(first[i+2:i+4]) {
		return dumpXXD, true
	}
	// hexdump -C: "00000000  15 20 c2 5c 04 6d  |. .\.m|"
	if len(first) >= 13 && allHex(first[:8]) && first[8:10] == "  " && allHex(first[10:12]) && first[12] == ' ' {
		return dumpHexdump, true
	}
	// od -Ax -tx1: "000000 15 20 c2 5c 04 6d"
	if off, rest, ok := strings.Cut(first, " "); ok && len(off) >= 6 && allHex(off) && len(rest) >= 2 && allHex(rest[:2]) && (len(rest) == 2 || rest[2] == ' ') {
		return dumpOD, true
	}
	// Wireshark: "0000   15 20 c2 5c 04 6d   . .\.m" (or two spaces after the offset)
	if len(first) >= 8 && allHex(first[:4]) && first[4:6] == "  " {
		if rest := strings.TrimPrefix(first[6:], " "); len(rest) >= 2 && allHex(rest[:2]) && (len(rest) == 2 || rest[2] == ' ') {
			return dumpWireshark, true
		}
	}
	return "", false
}

// ReadDump reads data as a hex dump (xxd, hexdump -C, od -Ax -tx1 or Wireshark) if it is one,
// with repeat marks ("*") standing for at most maxRepeat bytes, and returns its bytes and the
// kind of dump. ok is false when data is no dump; err is set when it looks like an xxd or
// hexdump -C dump but is not a good one. od and Wireshark dumps are plain
// hex too, so they count as dumps only when they read cleanly and are not a single line of hex
// digits (a Wireshark line with its text column is not hex).
func ReadDump(data []byte, maxRepeat int) (b []byte, kind string, ok bool, err error) {
	kind, ok = dumpKind(data)
	if !ok {
		return nil, "", false, nil
	}
	b, err = decodeDump(data, kind, maxRepeat)
	if kind == dumpOD || kind == dumpWireshark {
		_, bad, _ := hexDigits(data)
		lines := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) != "" {
				lines++
			}
		}
		if err != nil || bad == 0 && lines < 2 {
			return nil, "", false, nil
		}
	}
	return b, kind, true, err
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return s != ""
}

// decodeDump reads the bytes a dump of that kind shows. The offsets must follow on from each
// other, so a dump with lines left out or edited into inconsistency is an error. A repeat mark
// may stand for at most maxRepeat bytes.
func decodeDump(data []byte, kind string, maxRepeat int) ([]byte, error) {
	var out, prev []byte
	repeat := false
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		bad := func(why string) error {
			return inputErr(ErrFormat, "this looks like %s %s dump, but line %d %s: %q", article(kind), kind, n+1, why, line)
		}
		if kind != dumpXXD && kind != dumpWireshark && line == "*" {
			repeat = true
			continue
		}
		var offText, body string
		if kind == dumpXXD {
			i := strings.Index(line, ": ")
			if i < 0 {
				return nil, bad("has no offset")
			}
			offText, body = line[:i], line[i+2:]
			if j := strings.Index(body, "  "); j >= 0 {
				body = body[:j] // the text column follows two spaces
			}
		} else if kind == dumpHexdump {
			offText, body, _ = strings.Cut(line, "  ")
			if j := strings.IndexByte(body, '|'); j >= 0 {
				body = body[:j]
			}
		} else if kind == dumpOD {
			offText, body, _ = strings.Cut(line, " ")
		} else { // Wireshark: the text column follows three spaces
			offText, body, _ = strings.Cut(line, "  ")
			body = strings.TrimPrefix(body, " ")
			if j := strings.Index(body, "   "); j >= 0 {
				body = body[:j]
			}
		}
		off, err := strconv.ParseUint(offText, 16, 63)
		if err != nil || !allHex(offText) {
			return nil, bad("has no hex offset")
		}
		if repeat {
			if len(prev) == 0 {
				return nil, bad("repeats a line that is not there")
			}
			if off < uint64(len(out)) || off-uint64(len(out)) > uint64(maxRepeat) {
				return nil, bad(fmt.Sprintf("makes the repeat mark before it stand for %d bytes (the limit is %d)", int64(off)-int64(len(out)), maxRepeat))
			}
			for uint64(len(out)) < off {
				out = append(out, prev...)
			}
			repeat = false
		}
		if off != uint64(len(out)) {
			return nil, bad(fmt.Sprintf("starts at offset %d, not at %d where the line before ended", off, len(out)))
		}
		var lineBytes []byte
		for _, tok := range strings.Fields(body) {
			b, err := hex.DecodeString(tok)
			if err != nil || len(tok)%2 != 0 || len(tok) != 2 && (kind == dumpOD || kind == dumpWireshark) {
				return nil, bad(fmt.Sprintf("holds %q, which is not a group of hex bytes", tok))
			}
			lineBytes = append(lineBytes, b...)
		}
		out = append(out, lineBytes...)
		if len(lineBytes) > 0 {
			prev = bytes.Clone(lineBytes)
		}
	}
	if repeat {
		return nil, inputErr(ErrFormat, "this looks like %s %s dump, but it ends in a repeat mark without the final offset", article(kind), kind)
	}
	if len(out) == 0 {
		return nil, inputErr(ErrEmpty, "the %s dump holds no bytes", kind)
	}
	return out, nil
}
