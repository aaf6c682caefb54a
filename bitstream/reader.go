package bitstream

import (
	"encoding/binary"
	"fmt"
	"github.com/gamewire/gamewire/internal/bitwin"
	"math"
	"time"
)

// A Reader reads a bit stream from a byte slice. The zero value reads an empty input; use
// [NewReader] or [Reader.Reset]. A Reader never panics: every read past the end of the input,
// and every malformed length, returns a *[Error]. A failed read does not move the reader.
//
// Each ReadX method has a TryX twin for hand-written decoders: TryX returns only the value,
// returns the zero value without reading once any TryX call has failed, and keeps the first
// error for [Reader.Err]. ReadX methods neither look at nor set that sticky error.
//
// A Reader that reads a long run of compressed integers whose forms change at random decodes
// the integers that follow ahead, a few thousand at a time, into about 34 KB taken from a pool
// and given back at [Reader.Reset] or near the end of the input; it returns exactly what it
// would return otherwise. A copy of a Reader reads on from the same position without them, so
// copies can be used independently, also in several goroutines at once.
type Reader struct {
	buf []byte
	pos uint // bit position
	end uint // len(buf) * 8
	err error

	// Integers decoded ahead (see ahead.go): ReadIntN looks at them when pos ≥ probe, and
	// reads plainly with 8 bytes of input loaded at once when pos < lim.
	probe      uint
	lim        uint
	ahead      *intAhead
	self       *Reader // r while it holds ahead: a copy of r, at another address, does not use it
	watch      uint    // where the integers of a trial end
	key        uint64  // the key of the intAhead r may use (see intAhead), 0 for none
	watchWidth uint8   // their width, 0 when no trial is on
	aheadShift uint8   // the next trial after a divergence is aheadBackoff<<aheadShift bits on
	avgBits    uint16  // bits per integer in the last trial or batch
}

// NewReader returns a Reader over b. The Reader does not copy b; b must not change while the
// Reader is in use.
func NewReader(b []byte) *Reader {
	r := new(Reader)
	r.Reset(b)
	return r
}

// Reset makes r read b from its first bit and clears the sticky error.
func (r *Reader) Reset(b []byte) {
	r.release()
	*r = Reader{buf: b, end: uint(len(b)) * 8}
	r.setProbe(aheadFirst)
}

// Offset returns the position of the next bit to read, counted from the start of the input.
func (r *Reader) Offset() int { return int(r.pos) }

// Input returns the input r reads from, as given to [NewReader] or [Reader.Reset]. It lets a
// decoder that keeps its own bit position read the input directly, and hand the position back
// with [Reader.Seek].
func (r *Reader) Input() []byte { return r.buf }

// Len returns the size of the input in bits.
func (r *Reader) Len() int { return int(r.end) }

// Remaining returns the number of bits left to read.
func (r *Reader) Remaining() int { return int(r.end - r.pos) }

// Err returns the first error of a TryX method, or nil.
func (r *Reader) Err() error { return r.err }

// Seek moves the reader to bit offset off (0 ≤ off ≤ [Reader.Len]).
func (r *Reader) Seek(off int) error {
	if off < 0 || uint(off) > r.end {
		return readErr("Seek", r.pos, fmt.Errorf("%w: %d of %d", ErrOffset, off, r.end))
	}
	r.pos = uint(off)
	return nil
}

// Skip moves the reader n bits forward.
func (r *Reader) Skip(n int) error {
	if n < 0 || uint(n) > r.end-r.pos {
		if n < 0 {
			return readErr("Skip", r.pos, fmt.Errorf("%w: %d", ErrOffset, n))
		}
		return underflow("Skip", r.pos, uint(n), r.end-r.pos)
	}
	r.pos += uint(n)
	return nil
}

// Align moves the reader to the next byte boundary and returns the number of bits skipped. The
// skipped bits are not checked.
func (r *Reader) Align() int {
	pad := -r.pos & 7
	r.pos += pad // the end is a byte boundary, so this cannot pass it
	return int(pad)
}

// peek returns the n ≤ 64 bits at the current position. The caller has checked that they are
// within the input.
func (r *Reader) peek(n uint) uint64 {
	i := r.pos >> 3
	sh := r.pos & 7
	if i+8 <= uint(len(r.buf)) {
		x := binary.BigEndian.Uint64(r.buf[i:]) << sh
		if n+sh > 64 {
			// The last bits are in the ninth byte, which exists since pos+n ≤ end.
			x |= uint64(r.buf[i+8]) >> (8 - sh)
		}
		return x >> (64 - n)
	}
	// Fewer than 8 bytes are left: assemble them, zero-padded.
	var x uint64
	for j := range uint(8) {
		x <<= 8
		if i+j < uint(len(r.buf)) {
			x |= uint64(r.buf[i+j])
		}
	}
	return x << sh >> (64 - n)
}

// ReadBits reads n bits (0 ≤ n ≤ 64), most significant first, into the low bits of the result.
func (r *Reader) ReadBits(n int) (uint64, error) {
	if uint(n) > 64 {
		return 0, readErr("ReadBits", r.pos, fmt.Errorf("%w: %d bits", ErrInvalidWidth, n))
	}
	if uint(n) > r.end-r.pos {
		return 0, underflow("ReadBits", r.pos, uint(n), r.end-r.pos)
	}
	v := r.peek(uint(n))
	r.pos += uint(n)
	return v, nil
}

// PeekBits returns the next n bits (0 ≤ n ≤ 64) like ReadBits, without moving the reader.
func (r *Reader) PeekBits(n int) (uint64, error) {
	if uint(n) > 64 {
		return 0, readErr("PeekBits", r.pos, fmt.Errorf("%w: %d bits", ErrInvalidWidth, n))
	}
	if uint(n) > r.end-r.pos {
		return 0, underflow("PeekBits", r.pos, uint(n), r.end-r.pos)
	}
	return r.peek(uint(n)), nil
}

// eof returns the error of a one-bit read at the end of the input. It is kept out of the small
// readers so that they can be inlined.
func (r *Reader) eof(op string) error { return underflow(op, r.pos, 1, 0) }

// ReadBool reads one bit: 1 is true.
func (r *Reader) ReadBool() (bool, error) {
	if i := r.pos >> 3; i < uint(len(r.buf)) {
		b := r.buf[i]<<(r.pos&7) >= 0x80
		r.pos++
		return b, nil
	}
	return false, r.eof("ReadBool")
}

// ReadNull reads an object's null bit and reports whether the object is null (bit 1).
func (r *Reader) ReadNull() (bool, error) {
	if i := r.pos >> 3; i < uint(len(r.buf)) {
		b := r.buf[i]<<(r.pos&7) >= 0x80
		r.pos++
		return b, nil
	}
	return false, r.eof("ReadNull")
}

// ReadByte reads 8 raw bits at the current position, without aligning. It makes Reader an
// io.ByteReader; at the end of the input the error wraps [ErrTruncated], not io.EOF.
func (r *Reader) ReadByte() (byte, error) {
	if r.end-r.pos < 8 {
		return 0, underflow("ReadByte", r.pos, 8, r.end-r.pos)
	}
	v := r.peek(8)
	r.pos += 8
	return byte(v), nil
}

// ReadInt16 reads a compressed int16 in any form: nibble, 1 byte, full width, and also the
// non-minimal forms the reference reader accepts.
func (r *Reader) ReadInt16() (int16, error) {
	pos := r.pos
	if pos < r.lim {
		i := pos >> 3
		x := binary.BigEndian.Uint64(r.buf[i:i+8]) << (pos & 7)
		hdr, vb := bitwin.FormOf(x, 2)
		if n := hdr + vb; n <= r.end-pos {
			r.pos = pos + n
			return int16(int64(x<<hdr) >> (64 - vb)), nil
		}
	} else {
		if v, ok := r.aheadHit(pos, 2); ok {
			return int16(v), nil
		}
		if v, ok := r.readIntOther(2); ok {
			return int16(v), nil
		}
	}
	v, _, err := r.readCompressedForm(2, "ReadInt16")
	return int16(v), err
}

// ReadInt32 reads a compressed int32 in any form.
func (r *Reader) ReadInt32() (int32, error) {
	pos := r.pos
	if pos < r.lim {
		i := pos >> 3
		x := binary.BigEndian.Uint64(r.buf[i:i+8]) << (pos & 7)
		hdr, vb := bitwin.FormOf(x, 4)
		if n := hdr + vb; n <= r.end-pos {
			r.pos = pos + n
			return int32(int64(x<<hdr) >> (64 - vb)), nil
		}
	} else {
		if v, ok := r.aheadHit(pos, 4); ok {
			return int32(v), nil
		}
		if v, ok := r.readIntOther(4); ok {
			return int32(v), nil
		}
	}
	v, _, err := r.readCompressedForm(4, "ReadInt32")
	return int32(v), err
}

// ReadInt64 reads a compressed int64 in any form.
//
// Compatibility note: the 7-byte form, which no writer emits, is sign-extended the way the
// reference reader does it, with -1<<47 instead of -1<<55. A negative 7-byte value therefore
// reads with bits 47..54 set: 0x80000000000000 (7 bytes, -1<<55) reads as -1<<47, and the 7-byte
// form of -1<<47-1 reads as -1. Positive 7-byte values read correctly. Reading like the
// reference keeps this package in agreement with the server the client talks to.
func (r *Reader) ReadInt64() (int64, error) {
	pos := r.pos
	if pos < r.lim {
		i := pos >> 3
		x := binary.BigEndian.Uint64(r.buf[i:i+8]) << (pos & 7)
		hdr, vb := bitwin.FormOf(x, 8)
		if n := hdr + vb; n <= 57 && n <= r.end-pos {
			r.pos = pos + n
			return int64(x<<hdr) >> (64 - vb), nil
		}
	} else {
		if v, ok := r.aheadHit(pos, 8); ok {
			return v, nil
		}
		if v, ok := r.readIntOther(8); ok {
			return v, nil
		}
	}
	v, _, err := r.readCompressedForm(8, "ReadInt64")
	return v, err
}

// ReadChar reads a compressed int16 and returns it as a rune, sign-extended like the reference:
// a char written for U+8000..U+FFFF reads back negative (U+E000 reads as -8192).
func (r *Reader) ReadChar() (rune, error) {
	pos := r.pos
	if pos < r.lim {
		i := pos >> 3
		x := binary.BigEndian.Uint64(r.buf[i:i+8]) << (pos & 7)
		hdr, vb := bitwin.FormOf(x, 2)
		if n := hdr + vb; n <= r.end-pos {
			r.pos = pos + n
			return rune(int16(int64(x<<hdr) >> (64 - vb))), nil
		}
	} else {
		if v, ok := r.aheadHit(pos, 2); ok {
			return rune(int16(v)), nil
		}
		if v, ok := r.readIntOther(2); ok {
			return rune(int16(v)), nil
		}
	}
	v, _, err := r.readCompressedForm(2, "ReadChar")
	return rune(int16(v)), err
}

// aheadHit returns the integer of width bytes decoded ahead at pos, if there is one, and moves
// the reader past it.
func (r *Reader) aheadHit(pos, width uint) (int64, bool) {
	if c := r.ahead; c != nil && r.self == r {
		if i := c.i; i < c.n && c.ends[i&aheadMask] == pos && c.tag == r.key|uint64(width) {
			r.pos = c.ends[i&aheadMask+1]
			c.i = i + 1
			return c.vals[i&aheadMask], true
		}
	}
	return 0, false
}

// readIntOther reads a compressed integer of width bytes where ReadIntN's fast path and
// aheadHit did not: it may start decoding ahead (aheadMiss), else it reads the integer from a
// 64-bit window if 8 bytes of input are left and the integer fits in one. ok is false when the
// caller must read it with readCompressedForm.
func (r *Reader) readIntOther(width uint) (int64, bool) {
	if r.pos >= r.probe {
		if v, ok := r.aheadMiss(width); ok {
			return v, true
		}
	}
	if i := r.pos >> 3; i+8 <= uint(len(r.buf)) {
		x := binary.BigEndian.Uint64(r.buf[i:]) << (r.pos & 7)
		hdr, vb := bitwin.FormOf(x, width)
		if n := hdr + vb; n <= 57 && n <= r.end-r.pos {
			r.pos += n
			return int64(x<<hdr) >> (64 - vb), true
		}
	}
	return 0, false
}

// readCompressed reads a compressed integer: with one 64-bit load for every form of up to 57
// bits when 8 bytes of input are left, with readCompressedForm otherwise. ReadInt16, ReadInt32,
// ReadInt64 and ReadChar repeat this fast path with a constant width, which the compiler folds.
func (r *Reader) readCompressed(width uint, op string) (int64, error) {
	if i := r.pos >> 3; i+8 <= uint(len(r.buf)) {
		x := binary.BigEndian.Uint64(r.buf[i:]) << (r.pos & 7)
		hdr, vb := bitwin.FormOf(x, width)
		// The 8 loaded bytes hold at least 57 bits from the current position.
		if n := hdr + vb; n <= 57 && n <= r.end-r.pos {
			r.pos += n
			return int64(x<<hdr) >> (64 - vb), nil
		}
	}
	v, _, err := r.readCompressedForm(width, op)
	return v, err
}

// IntForm describes the encoding of one compressed integer, as read by [Reader.ReadCompressed].
type IntForm struct {
	Width      int // the integer's width in bytes: 2, 4 or 8
	Bytes      int // value bytes: 0 for the 4-bit nibble, Width for the full form
	PrefixBits int // bits before the value: the flag, the count run and its terminator
	ValueBits  int // bits of the value: 4 or 8·Bytes
}

// Len returns the number of bits of the integer.
func (f IntForm) Len() int { return f.PrefixBits + f.ValueBits }

// Canonical reports whether the form is the one the writer uses for v.
func (f IntForm) Canonical(v int64) bool {
	return f.Bytes == CompressedBytes(v, f.Width) && f.Len() == CompressedLen(v, f.Width)
}

// ReadCompressed reads a compressed integer of width bytes (2, 4 or 8), sign-extended to int64
// exactly as ReadInt16, ReadInt32 or ReadInt64 would, and also reports the form it was written
// in. It is meant for tools that explain a stream bit by bit.
func (r *Reader) ReadCompressed(width int) (int64, IntForm, error) {
	if width != 2 && width != 4 && width != 8 {
		return 0, IntForm{}, readErr("ReadCompressed", r.pos, fmt.Errorf("%w: integer width %d", ErrInvalidWidth, width))
	}
	return r.readCompressedForm(uint(width), "ReadCompressed")
}

func (r *Reader) readCompressedForm(width uint, op string) (int64, IntForm, error) {
	start := r.pos
	pos := start
	if pos >= r.end {
		return 0, IntForm{}, underflow(op, start, 1, 0)
	}
	var k uint
	if r.bitAt(pos) {
		pos++
		for k < width {
			if pos >= r.end {
				return 0, IntForm{}, underflow(op, start, pos-start+1, r.end-start)
			}
			one := r.bitAt(pos)
			pos++
			if !one {
				break
			}
			k++
		}
	} else {
		pos++
		k = width
	}
	vb := 8 * k
	if k == 0 {
		vb = 4
	}
	hdr := pos - start
	if vb > r.end-pos {
		return 0, IntForm{}, underflow(op, start, hdr+vb, r.end-start)
	}
	r.pos = pos
	raw := r.peek(vb)
	r.pos += vb
	v := int64(raw)
	if vb < 64 && raw>>(vb-1) != 0 {
		if width == 8 && k == 7 {
			v |= -1 << 47 // the reference's sign extension of the 7-byte form (see ReadInt64)
		} else {
			v |= -1 << vb
		}
	}
	return v, IntForm{Width: int(width), Bytes: int(k), PrefixBits: int(hdr), ValueBits: int(vb)}, nil
}

func (r *Reader) bitAt(pos uint) bool {
	return r.buf[pos>>3]&(0x80>>(pos&7)) != 0
}

// ReadFloat32 reads 32 raw IEEE-754 bits, big-endian.
func (r *Reader) ReadFloat32() (float32, error) {
	if i := r.pos >> 3; i+8 <= uint(len(r.buf)) {
		x := binary.BigEndian.Uint64(r.buf[i:]) << (r.pos & 7)
		r.pos += 32
		return math.Float32frombits(uint32(x >> 32)), nil
	}
	if r.end-r.pos < 32 {
		return 0, underflow("ReadFloat32", r.pos, 32, r.end-r.pos)
	}
	v := r.peek(32)
	r.pos += 32
	return math.Float32frombits(uint32(v)), nil
}

// ReadFloat64 reads 64 raw IEEE-754 bits, big-endian.
func (r *Reader) ReadFloat64() (float64, error) {
	if r.end-r.pos < 64 {
		return 0, underflow("ReadFloat64", r.pos, 64, r.end-r.pos)
	}
	v := r.peek(64)
	r.pos += 64
	return math.Float64frombits(v), nil
}

// readLength reads the compressed int32 length of a string, byte array, slice or map: -1 (nil)
// or a length ≥ 0. The reader is not moved on error.
func (r *Reader) readLength(op string) (int, error) {
	start := r.pos
	var v int64
	if i := r.pos >> 3; i+8 <= uint(len(r.buf)) {
		// The fast path of ReadInt32, repeated so that the width is a constant.
		x := binary.BigEndian.Uint64(r.buf[i:]) << (r.pos & 7)
		hdr, vb := bitwin.FormOf(x, 4)
		if n := hdr + vb; n <= r.end-r.pos {
			r.pos += n
			v = int64(x<<hdr) >> (64 - vb)
			goto check
		}
	}
	{
		var err error
		if v, _, err = r.readCompressedForm(4, op); err != nil {
			return 0, err
		}
	}
check:
	if v < -1 {
		r.pos = start
		return 0, readErr(op, start, fmt.Errorf("%w: %d", ErrNegativeLength, v))
	}
	return int(v), nil
}

// block returns the n aligned bytes after the current position. On error it moves the reader
// back to start.
func (r *Reader) block(n int, op string, start uint) ([]byte, error) {
	p := (r.pos + 7) &^ 7
	left := (r.end - p) >> 3
	if uint(n) > left {
		r.pos = start
		return nil, readErr(op, start, fmt.Errorf("%w: %s, %d left", ErrTooLong, plural(n, "byte"), left))
	}
	i := p >> 3
	r.pos = p + uint(n)*8
	return r.buf[i : i+uint(n) : i+uint(n)], nil
}

// ReadString reads a string: a compressed int32 length and, if it is > 0, zero bits up to the
// next byte boundary and the bytes. A length of 0 or -1 gives "" and no alignment. A length
// below -1 is an error wrapping [ErrNegativeLength] (the reference reader accepts it as ""; no
// writer produces it), and a length beyond the remaining input is an error wrapping [ErrTooLong],
// reported before anything is allocated. The bytes are not checked for valid UTF-8.
func (r *Reader) ReadString() (string, error) {
	start := r.pos
	n, err := r.readLength("ReadString")
	if err != nil || n <= 0 {
		return "", err
	}
	b, err := r.block(n, "ReadString", start)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// ReadBytes reads a byte array like [Reader.ReadString] and returns a copy of its bytes. A
// length of 0 or -1 gives nil, as in the reference.
func (r *Reader) ReadBytes() ([]byte, error) {
	b, err := r.readBytesView("ReadBytes")
	if err != nil || b == nil {
		return nil, err
	}
	return append([]byte(nil), b...), nil
}

// ReadBytesView is ReadBytes without the copy: the result aliases the reader's input.
func (r *Reader) ReadBytesView() ([]byte, error) {
	return r.readBytesView("ReadBytesView")
}

func (r *Reader) readBytesView(op string) ([]byte, error) {
	start := r.pos
	n, err := r.readLength(op)
	if err != nil || n <= 0 {
		return nil, err
	}
	return r.block(n, op, start)
}

// ReadDate reads a date: the zero time.Time when the null bit is 1, else the 64-bit wire value
// converted like the reference does it: unix = max(wire-31 622 400, 0) - 62 130 499 200, in
// UTC. Wire values below 31 622 400 (dates before 0001-03-01, negative values included) are
// therefore clamped to 0001-03-01T00:00:00Z. The subtraction wraps around like the reference's
// int64 arithmetic, so wire values within 31 622 400 of math.MinInt64 read as far-future dates.
func (r *Reader) ReadDate() (time.Time, error) {
	if r.pos >= r.end {
		return time.Time{}, underflow("ReadDate", r.pos, 1, 0)
	}
	if r.bitAt(r.pos) {
		r.pos++
		return time.Time{}, nil
	}
	if r.end-r.pos < 65 {
		return time.Time{}, underflow("ReadDate", r.pos, 65, r.end-r.pos)
	}
	r.pos++
	s := int64(r.peek(64))
	r.pos += 64
	return DateFromWire(s), nil
}

// DateFromWire converts the 64-bit value of a non-null date to the time the reference reader
// returns for it (see [Reader.ReadDate]).
func DateFromWire(wire int64) time.Time {
	return time.Unix(DateUnix(wire), 0).UTC()
}

// DateUnix returns the Unix time in seconds of the date whose wire value is wire (that of
// [DateFromWire]): wire − [DateOffset], with the wire values before 0001-03-01 clamped to it, as
// the reference reader clamps them. It is small enough to be inlined, and so is
// time.Unix(DateUnix(wire), 0).UTC(), where a call to DateFromWire is not.
func DateUnix(wire int64) int64 {
	s := wire - dateClampWire // wraps like the reference
	if s < 0 {
		s = 0
	}
	return s + dateClampWire - DateOffset
}

// DateToWire returns the 64-bit value the writer uses for a non-zero t: t.Unix() + [DateOffset],
// wrapping around like the reference.
func DateToWire(t time.Time) int64 { return t.Unix() + DateOffset }

// ReadCount reads the compressed int32 count of a slice or map. It returns -1 for nil. A count
// below -1 is an error wrapping [ErrNegativeLength], and a count larger than the number of bits
// left is an error wrapping [ErrTooLong], since every element takes at least one bit. Callers
// that know a larger minimum size per element should check the count against
// [Reader.Remaining] themselves before allocating.
func (r *Reader) ReadCount() (int, error) {
	start := r.pos
	n, err := r.readLength("ReadCount")
	if err != nil {
		return 0, err
	}
	if n > 0 && uint(n) > r.end-r.pos {
		left := r.end - r.pos
		r.pos = start
		return 0, readErr("ReadCount", start, fmt.Errorf("%w: %s, %s left", ErrTooLong, plural(n, "element"), plural(int(left), "bit")))
	}
	return n, nil
}

// ReadRaw fills p with the next 8·len(p) bits, without aligning.
func (r *Reader) ReadRaw(p []byte) error {
	if uint(len(p)) > (r.end-r.pos)/8 {
		return underflow("ReadRaw", r.pos, uint(len(p))*8, r.end-r.pos)
	}
	if r.pos&7 == 0 {
		i := r.pos >> 3
		copy(p, r.buf[i:])
		r.pos += uint(len(p)) * 8
		return nil
	}
	for i := range p {
		p[i] = byte(r.peek(8))
		r.pos += 8
	}
	return nil
}

// ReadAligned skips to the next byte boundary and returns the next n bytes. The result aliases
// the reader's input.
func (r *Reader) ReadAligned(n int) ([]byte, error) {
	if n < 0 {
		return nil, readErr("ReadAligned", r.pos, fmt.Errorf("%w: %d", ErrNegativeLength, n))
	}
	return r.block(n, "ReadAligned", r.pos)
}

// TryBits is ReadBits with a sticky error.
func (r *Reader) TryBits(n int) uint64 {
	if r.err != nil {
		return 0
	}
	v, err := r.ReadBits(n)
	r.err = err
	return v
}

// TryBool is ReadBool with a sticky error.
func (r *Reader) TryBool() bool {
	if r.err != nil {
		return false
	}
	v, err := r.ReadBool()
	r.err = err
	return v
}

// TryNull is ReadNull with a sticky error. After an error it reports true (null), so that a
// decoder skips the object.
func (r *Reader) TryNull() bool {
	if r.err != nil {
		return true
	}
	v, err := r.ReadNull()
	if err != nil {
		r.err = err
		return true
	}
	return v
}

// TryByte is ReadByte with a sticky error.
func (r *Reader) TryByte() byte {
	if r.err != nil {
		return 0
	}
	v, err := r.ReadByte()
	r.err = err
	return v
}

// TryInt16 is ReadInt16 with a sticky error.
func (r *Reader) TryInt16() int16 {
	if r.err != nil {
		return 0
	}
	v, err := r.ReadInt16()
	r.err = err
	return v
}

// TryInt32 is ReadInt32 with a sticky error.
func (r *Reader) TryInt32() int32 {
	if r.err != nil {
		return 0
	}
	v, err := r.ReadInt32()
	r.err = err
	return v
}

// TryInt64 is ReadInt64 with a sticky error.
func (r *Reader) TryInt64() int64 {
	if r.err != nil {
		return 0
	}
	v, err := r.ReadInt64()
	r.err = err
	return v
}

// TryChar is ReadChar with a sticky error.
func (r *Reader) TryChar() rune {
	if r.err != nil {
		return 0
	}
	v, err := r.ReadChar()
	r.err = err
	return v
}

// TryFloat32 is ReadFloat32 with a sticky error.
func (r *Reader) TryFloat32() float32 {
	if r.err != nil {
		return 0
	}
	v, err := r.ReadFloat32()
	r.err = err
	return v
}

// TryFloat64 is ReadFloat64 with a sticky error.
func (r *Reader) TryFloat64() float64 {
	if r.err != nil {
		return 0
	}
	v, err := r.ReadFloat64()
	r.err = err
	return v
}

// TryString is ReadString with a sticky error.
func (r *Reader) TryString() string {
	if r.err != nil {
		return ""
	}
	v, err := r.ReadString()
	r.err = err
	return v
}

// TryBytes is ReadBytes with a sticky error.
func (r *Reader) TryBytes() []byte {
	if r.err != nil {
		return nil
	}
	v, err := r.ReadBytes()
	r.err = err
	return v
}

// TryDate is ReadDate with a sticky error.
func (r *Reader) TryDate() time.Time {
	if r.err != nil {
		return time.Time{}
	}
	v, err := r.ReadDate()
	r.err = err
	return v
}

// TryCount is ReadCount with a sticky error. After an error it returns -1 (nil), so that a
// decoder's element loop does not run.
func (r *Reader) TryCount() int {
	if r.err != nil {
		return -1
	}
	v, err := r.ReadCount()
	if err != nil {
		r.err = err
		return -1
	}
	return v
}
