// Package bitwin reads a BitProtocol bit stream through 64-bit windows: the input bits from a
// bit offset on, left-aligned in a uint64. It holds what the fast decoders of packages
// bitstream, bitproto and gsf share: loading a window, and telling the form of a compressed
// integer from the window's top bits. Everything here is small enough to be inlined.
package bitwin

import (
	"encoding/binary"
	"math/bits"
)

// Window returns the input bits from bit offset pos on, left-aligned in x, how many there are
// (at least 57), and the offset of the bit after them. It fails within the last 8 bytes of the
// input, which Tail handles.
func Window(buf []byte, pos uint) (x uint64, avail, end uint, ok bool) {
	bi := pos >> 3
	if bi+8 > uint(len(buf)) {
		return 0, 0, pos, false
	}
	// buf[bi : bi+8], not buf[bi:]: a slice of constant length needs neither a check of its
	// length by Uint64 nor a guard against pointing past the end of buf.
	return binary.BigEndian.Uint64(buf[bi:bi+8]) << (pos & 7), 64 - pos&7, bi*8 + 64, true
}

// Tail is Window for the last 8 bytes of the input: the bits left, followed by zero bits. It
// fails at the end of the input.
func Tail(buf []byte, pos uint) (x uint64, avail, end uint, ok bool) {
	bi := pos >> 3
	if bi >= uint(len(buf)) {
		return 0, 0, pos, false
	}
	for i, c := range buf[bi:] {
		x |= uint64(c) << (56 - 8*i)
	}
	end = uint(len(buf)) * 8
	return x << (pos & 7), end - pos, end, true
}

// Refill is Window, or Tail within the last 8 bytes of the input.
func Refill(buf []byte, pos uint) (x uint64, avail, end uint, ok bool) {
	if x, avail, end, ok = Window(buf, pos); !ok {
		return Tail(buf, pos)
	}
	return x, avail, end, ok
}

// FormOf returns the prefix length and the number of value bits of the compressed integer of
// width bytes whose first bits are the top bits of x, as the reader of package bitstream reads
// it: a 0 flag and the full width; or a 1 flag, a run of k ones ended by a 0, and a signed
// nibble (k = 0) or k bytes; a run that reaches the width has no terminating 0.
func FormOf(x uint64, width uint) (hdr, vb uint) {
	if int64(x) >= 0 {
		return 1, 8 * width // flag 0: full width
	}
	k := uint(bits.LeadingZeros64(^(x << 1)))
	if k == 0 {
		return 2, 4
	}
	if k < width {
		return k + 2, 8 * k
	}
	return 1 + width, 8 * width // the count run reached the width: no terminator
}

// Int32Form returns the compressed int32 whose first bits are the top bits of x, in any form the
// reader of package bitstream accepts, sign-extended, and its number of bits. Unlike FormOf, each
// form has its own branch that gives constants: when the forms of a stream's integers repeat from
// one message to the next, as they often do, the processor predicts the branches and goes on to
// the next field without waiting for this one's length.
func Int32Form(x uint64) (int32, uint) {
	switch {
	case int64(x) >= 0: // full width: 0, then 32 bits
		return int32(x >> 31), 33
	case x>>62 == 0b10: // the nibble
		return int32(int64(x<<2) >> 60), 6
	case x>>61 == 0b110:
		return int32(int64(x<<3) >> 56), 11
	case x>>60 == 0b1110:
		return int32(int64(x<<4) >> 48), 20
	case x>>59 == 0b11110:
		return int32(int64(x<<5) >> 40), 29
	}
	return int32(x >> 27), 37 // the count run reached the width: no terminator
}

// Int32FormShortFirst is Int32Form with the forms tested from the shortest on and the full
// width last but one, for fields whose values are usually small (a request header's service
// class, message type and request id). Each form's branch returns its length as a constant, so
// that the caller's shifts by it are shifts by a constant once the branch is predicted.
func Int32FormShortFirst(x uint64) (int32, uint) {
	switch {
	case x>>62 == 0b10: // the nibble
		return int32(int64(x<<2) >> 60), 6
	case x>>61 == 0b110:
		return int32(int64(x<<3) >> 56), 11
	case x>>60 == 0b1110:
		return int32(int64(x<<4) >> 48), 20
	case x>>59 == 0b11110:
		return int32(int64(x<<5) >> 40), 29
	case int64(x) >= 0: // full width: 0, then 32 bits
		return int32(x >> 31), 33
	}
	return int32(x >> 27), 37 // the count run reached the width: no terminator
}
