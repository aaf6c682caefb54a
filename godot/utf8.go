package godot

import (
	"bytes"
	"unicode/utf8"
)

// stringBytes returns the text of a String primitive's bytes b the way the dialect's engine parses
// them: one leading byte-order mark is dropped, the string ends at the first NUL byte, and the
// UTF-8 check is the engine's. Godot 4 accepts exactly valid UTF-8. Godot 3 is laxer: it accepts
// encoded surrogates, code points above U+10FFFF, 5- and 6-byte sequences and most 3-byte overlong
// forms, and re-encodes what it decoded in canonical form; stringBytes returns that canonical
// form, so that re-encoding gives the bytes the engine would write. The result is a sub-slice of
// b, or new bytes when Godot 3's rules canonicalise the string.
func stringBytes(d Dialect, b []byte) ([]byte, error) {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		b = b[3:]
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if utf8.Valid(b) {
		return b, nil
	}
	if d == Godot3 {
		return godot3UTF8(b)
	}
	return nil, ErrInvalidUTF8
}

// godot3SeqLen returns the length of the sequence that Godot 3's UTF-8 parser reads for the
// lead byte c, 1 to 6 (the old 5- and 6-byte forms included), or 0 for a byte that cannot start
// one.
func godot3SeqLen(c byte) int {
	switch {
	case c&0x80 == 0:
		return 1
	case c&0xE0 == 0xC0:
		return 2
	case c&0xF0 == 0xE0:
		return 3
	case c&0xF8 == 0xF0:
		return 4
	case c&0xFC == 0xF8:
		return 5
	case c&0xFE == 0xFC:
		return 6
	}
	return 0
}

// godot3UTF8 parses b (no NUL inside) with Godot 3's rules and returns the code points encoded as
// Godot 3's String::utf8 writes them (which, for code points above U+10FFFF, means the old 5- and
// 6-byte forms).
func godot3UTF8(b []byte) ([]byte, error) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		n := godot3SeqLen(c)
		if n == 0 { // a continuation byte, 0xFE or 0xFF where a sequence should start
			return nil, ErrInvalidUTF8
		}
		if i+n > len(b) {
			return nil, ErrInvalidUTF8 // truncated sequence
		}
		if n == 2 && c&0x1E == 0 {
			return nil, ErrInvalidUTF8 // C0, C1: 2-byte overlong
		}
		r := uint32(c)
		if n > 1 {
			r = uint32(c) & (0xFF >> (n + 1))
			for k := 1; k < n; k++ {
				cc := b[i+k]
				if cc&0xC0 != 0x80 {
					return nil, ErrInvalidUTF8
				}
				// The engine's only overlong check beyond 2 bytes: with no payload bits in
				// the first two bytes, the third must carry some in its top bits.
				if r == 0 && k == 2 && (cc&0x7F)>>(7-n) == 0 {
					return nil, ErrInvalidUTF8
				}
				r = r<<6 | uint32(cc&0x3F)
			}
		}
		out = appendGodot3Rune(out, r)
		i += n
	}
	return out, nil
}

// appendGodot3Rune encodes a code point the way Godot 3's String::utf8 does: surrogates are
// written as 3-byte sequences, and values above 0x1FFFFF use the 5- and 6-byte forms.
func appendGodot3Rune(b []byte, c uint32) []byte {
	switch {
	case c <= 0x7F:
		return append(b, byte(c))
	case c <= 0x7FF:
		return append(b, 0xC0|byte(c>>6), 0x80|byte(c&0x3F))
	case c <= 0xFFFF:
		return append(b, 0xE0|byte(c>>12), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
	case c <= 0x1FFFFF:
		return append(b, 0xF0|byte(c>>18), 0x80|byte(c>>12&0x3F), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
	case c <= 0x3FFFFFF:
		return append(b, 0xF8|byte(c>>24), 0x80|byte(c>>18&0x3F), 0x80|byte(c>>12&0x3F), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
	default:
		return append(b, 0xFC|byte(c>>30&1), 0x80|byte(c>>24&0x3F), 0x80|byte(c>>18&0x3F), 0x80|byte(c>>12&0x3F), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
	}
}
