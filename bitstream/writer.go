package bitstream

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"time"
)

// DateOffset is the difference between a date's wire value and its Unix time in seconds:
// wire = unix + DateOffset. It makes the effective epoch 0000-02-29T00:00:00Z (proleptic
// Gregorian), 366 days before the 0001-03-01 that the protocol documentation names.
const DateOffset = 62_162_121_600

// dateClampWire is the smallest wire value the reader does not clamp: wire values below it
// (dates before 0001-03-01) read as 0001-03-01T00:00:00Z.
const dateClampWire = 31_622_400

// MaxLength is the largest string, byte-array, slice or map length the format can carry: the
// length is a compressed int32.
const MaxLength = math.MaxInt32

// A Writer appends a bit stream to a byte slice. The zero value writes to a nil slice; call
// [Writer.Reset] to write after the existing content of a caller-owned buffer. A Writer does not
// allocate except to grow that buffer.
//
// Writes cannot fail except for lengths that do not fit the format (see [Writer.Err]); those
// are recorded and the write is skipped.
type Writer struct {
	buf  []byte // complete bytes
	acc  uint64 // pending bits, left-aligned: the oldest bit is bit 63
	nacc uint   // number of pending bits, 0..63
	base int    // len(buf) at Reset; bit offsets count from here
	err  error
}

// NewWriter returns a Writer that appends to buf.
func NewWriter(buf []byte) *Writer {
	w := new(Writer)
	w.Reset(buf)
	return w
}

// Reset discards any state and makes w append to buf, after its current content. Bit offsets
// ([Writer.Len], errors) count from the end of that content.
func (w *Writer) Reset(buf []byte) {
	*w = Writer{buf: buf, base: len(buf)}
}

// Bytes returns the buffer passed to Reset with everything written so far appended; the last
// byte is padded with zero bits. The result aliases the writer's storage: it stays valid until
// the next write or Reset, and later writes may change its last byte.
func (w *Writer) Bytes() []byte {
	nb := int(w.nacc+7) >> 3
	if nb == 0 {
		return w.buf
	}
	n := len(w.buf)
	b := binary.BigEndian.AppendUint64(w.buf, w.acc)
	w.buf = b[:n]
	return b[:n+nb]
}

// Len returns the number of bits written since Reset.
func (w *Writer) Len() int {
	return (len(w.buf)-w.base)*8 + int(w.nacc)
}

// Err returns the first error met while writing, or nil. Only lengths that do not fit the
// format and invalid bit counts are errors; the offending write was skipped.
func (w *Writer) Err() error { return w.err }

func (w *Writer) fail(op string, err error) {
	if w.err == nil {
		bit := int64(w.Len())
		w.err = &EncodeError{Offset: bit / 8, BitOffset: bit, Op: op, Err: err}
	}
}

// WriteBits writes the low n bits of v, most significant first. n must be in 0..64.
func (w *Writer) WriteBits(v uint64, n int) {
	if uint(n) > 64 {
		w.fail("WriteBits", fmt.Errorf("%w: %d bits", ErrInvalidWidth, n))
		return
	}
	w.writeBits(v, uint(n))
}

// writeBits is WriteBits for a valid n. It is small enough to be inlined into the callers that
// matter.
func (w *Writer) writeBits(v uint64, n uint) {
	w.put(v&(^uint64(0)>>(64-n)), n) // n == 0 gives a zero mask: shifts by 64 yield 0 in Go
}

// put writes the low n bits of v, which must have no bits set above them.
func (w *Writer) put(v uint64, n uint) {
	free := 64 - w.nacc
	if n < free {
		w.acc |= v << (free - n)
		w.nacc += n
		return
	}
	w.spill(v, n, free)
}

// spill fills the accumulator with the top free bits of v, flushes it, and keeps the rest.
func (w *Writer) spill(v uint64, n, free uint) {
	over := n - free
	w.acc |= v >> over
	w.buf = binary.BigEndian.AppendUint64(w.buf, w.acc)
	w.acc = v << (64 - over) // over == 0 gives 0
	w.nacc = over
}

// WriteBool writes one bit: 1 for true.
func (w *Writer) WriteBool(b bool) {
	var v uint64
	if b {
		v = 1
	}
	w.writeBits(v, 1)
}

// WriteNull writes an object's null bit: 1 when null is true (the object is absent), 0 when the
// object's fields follow.
func (w *Writer) WriteNull(null bool) { w.WriteBool(null) }

// WriteByte writes 8 raw bits at the current position, without aligning. It always returns
// nil; the error result makes Writer an io.ByteWriter.
func (w *Writer) WriteByte(c byte) error {
	w.writeBits(uint64(c), 8)
	return nil
}

// WriteInt16 writes a compressed int16: the 6-bit nibble form for -8..7, the 11-bit 1-byte form
// for -128..127, and the 17-bit full form otherwise.
func (w *Writer) WriteInt16(v int16) { w.put(compressedCode(int64(v), 2)) }

// WriteInt32 writes a compressed int32 (6, 11, 20, 29 or 33 bits).
func (w *Writer) WriteInt32(v int32) { w.put(compressedCode(int64(v), 4)) }

// WriteInt64 writes a compressed int64 (6 to 56 bits, or the 65-bit full form for values that
// need 7 or 8 bytes).
func (w *Writer) WriteInt64(v int64) {
	c, n := compressedCode(v, 8)
	if n > 64 {
		// 0, then all 64 bits: one bit more than the accumulator takes at once.
		w.put(0, 1)
		w.put(uint64(v), 64)
		return
	}
	w.put(c, n)
}

// WriteCompressed writes v as a compressed integer of width bytes (2, 4 or 8), choosing the form
// exactly as the reference does. A v outside the width's range is written full-width, which keeps
// only its low 8·width bits; this is how a char beyond U+FFFF is written (see
// [Writer.WriteChar]).
func (w *Writer) WriteCompressed(v int64, width int) {
	if width != 2 && width != 4 && width != 8 {
		w.fail("WriteCompressed", fmt.Errorf("%w: integer width %d", ErrInvalidWidth, width))
		return
	}
	w.writeCompressed(v, uint(width))
}

// CompressedBytes returns the number of value bytes the writer uses for v at the given width
// (2, 4 or 8): 0 for the 4-bit nibble form, width for the full form.
func CompressedBytes(v int64, width int) int {
	if v >= -8 && v <= 7 {
		return 0
	}
	// The number of bits of v as a signed integer, sign bit included.
	k := (bits.Len64(uint64(v^(v>>63))) + 8) >> 3
	if k >= width || k == 7 {
		return width
	}
	return k
}

// CompressedLen returns the number of bits the writer uses for v at the given width.
func CompressedLen(v int64, width int) int {
	switch k := CompressedBytes(v, width); k {
	case 0:
		return 6
	case width:
		return 1 + 8*width
	default:
		return k + 2 + 8*k
	}
}

func (w *Writer) writeCompressed(v int64, width uint) {
	if width == 8 {
		w.WriteInt64(v)
		return
	}
	w.put(compressedCode(v, width))
}

// compressedCode returns the bits of the compressed form of v at width (2, 4 or 8) and their
// number. The full form of width 8 (65 bits) does not fit; WriteInt64 handles it.
//
// The form is looked up by the bit length of v as a signed integer, without a branch: a writer
// of integers whose widths come in random order would mispredict a branch on the form about
// every other integer.
func compressedCode(v int64, width uint) (uint64, uint) {
	l := uint(bits.Len64(uint64(v^(v>>63)))) & 63 // the sign bit is not counted: l ≤ 63
	var f uint32
	switch width { // a constant where this is inlined
	case 2:
		f = codeForms2[l]
	case 4:
		f = codeForms4[l]
	default:
		f = codeForms8[l]
	}
	keep := uint(f>>8) & 63 // 64 - value bits, 0 for the 64 bits of width 8's full form
	return uint64(f>>24)<<(uint(f>>16)&63) | uint64(v)<<keep>>keep, uint(f & 0xff)
}

// The forms of the compressed integers of width 2, 4 and 8, by the bit length of the value
// without its sign bit (see codeForms).
var codeForms2, codeForms4, codeForms8 = codeForms(2), codeForms(4), codeForms(8)

// codeForms returns the form the writer chooses at width for each bit length l of a value
// (without its sign bit), packed as the number of bits, 64 minus the value bits, the value bits
// modulo 64, and the prefix bits, one byte each from the lowest.
func codeForms(width uint) (t [64]uint32) {
	for l := range uint(64) {
		var n, vb, prefix uint
		switch k := (l + 8) >> 3; { // bytes of the value as a signed integer
		case l <= 3: // -8..7: 1, 0, then the nibble
			n, vb, prefix = 6, 4, 0b10
		case k >= width || k == 7: // 0, then every bit of the width
			n, vb, prefix = 1+8*width, 8*width, 0
		default: // k+1 one-bits (the flag and the count), a 0, then 8k value bits
			n, vb, prefix = k+2+8*k, 8*k, 1<<(k+2)-2
		}
		t[l] = uint32(n | (64-vb)<<8 | (vb&63)<<16 | prefix<<24)
	}
	return t
}

// WriteChar writes a rune as a compressed int16, as the reference does: the form is chosen from
// the rune's value, so U+0080..U+7FFF and U+8000..U+FFFF take the 17-bit full form, and a rune
// above U+FFFF is written full-width with only its low 16 bits (U+1F600 is written as 0xF600).
// [Reader.ReadChar] returns rune(int16(bits)), so runes from U+8000 on do not round-trip.
func (w *Writer) WriteChar(r rune) { w.put(compressedCode(int64(r), 2)) }

// WriteFloat32 writes the 32 IEEE-754 bits of f, big-endian, not compressed.
func (w *Writer) WriteFloat32(f float32) { w.put(uint64(math.Float32bits(f)), 32) }

// WriteFloat64 writes the 64 IEEE-754 bits of f, big-endian, not compressed.
func (w *Writer) WriteFloat64(f float64) { w.put(math.Float64bits(f), 64) }

// WriteString writes len(s) as a compressed int32 and, if s is not empty, aligns to the next byte
// boundary and writes the bytes of s. A string longer than [MaxLength] is not written and makes
// [Writer.Err] report [ErrTooLong].
func (w *Writer) WriteString(s string) {
	if len(s) > MaxLength {
		w.fail("WriteString", fmt.Errorf("%w: %d bytes", ErrTooLong, len(s)))
		return
	}
	w.writeCompressed(int64(len(s)), 4)
	if len(s) > 0 {
		w.alignFlush()
		w.buf = append(w.buf, s...)
	}
}

// WriteBytes writes a byte array exactly like a string: compressed int32 length, then, if b is
// not empty, alignment and the bytes. A nil and an empty slice are written alike (length 0).
func (w *Writer) WriteBytes(b []byte) {
	if len(b) > MaxLength {
		w.fail("WriteBytes", fmt.Errorf("%w: %d bytes", ErrTooLong, len(b)))
		return
	}
	w.writeCompressed(int64(len(b)), 4)
	if len(b) > 0 {
		w.alignFlush()
		w.buf = append(w.buf, b...)
	}
}

// WriteDate writes a date: a null bit that is 1 exactly when t.IsZero(), else 0 followed by the
// 64-bit big-endian value t.Unix() + [DateOffset]. Sub-second precision is dropped (the Unix time
// is floored) and the time zone does not matter. Like the reference, the sum wraps around for
// times beyond the int64 range of seconds.
func (w *Writer) WriteDate(t time.Time) {
	if t.IsZero() {
		w.writeBits(1, 1)
		return
	}
	w.writeBits(0, 1)
	w.writeBits(uint64(t.Unix()+DateOffset), 64)
}

// WriteCount writes the length of a slice or map as a compressed int32: n, or -1 for a nil
// slice or map. A count below -1 or above [MaxLength] is not written and makes [Writer.Err]
// report an error.
func (w *Writer) WriteCount(n int) {
	switch {
	case n < -1:
		w.fail("WriteCount", fmt.Errorf("%w: %d", ErrNegativeLength, n))
	case n > MaxLength:
		w.fail("WriteCount", fmt.Errorf("%w: %d elements", ErrTooLong, n))
	default:
		w.writeCompressed(int64(n), 4)
	}
}

// Align writes zero bits up to the next byte boundary and returns how many it wrote.
func (w *Writer) Align() int {
	pad := -w.nacc & 7
	if pad > 0 {
		w.writeBits(0, pad)
	}
	return int(pad)
}

// alignFlush aligns and moves the pending whole bytes to buf, so that aligned data can be
// appended to buf directly.
func (w *Writer) alignFlush() {
	n := (w.nacc + 7) >> 3
	if n == 0 {
		return
	}
	m := len(w.buf)
	b := binary.BigEndian.AppendUint64(w.buf, w.acc)
	w.buf = b[:m+int(n)]
	w.acc, w.nacc = 0, 0
}

// WriteAligned writes zero bits up to the next byte boundary, then the bytes of p.
func (w *Writer) WriteAligned(p []byte) {
	w.alignFlush()
	w.buf = append(w.buf, p...)
}

// WriteRaw writes the 8·len(p) bits of p at the current position, without aligning.
func (w *Writer) WriteRaw(p []byte) {
	if w.nacc&7 == 0 {
		w.alignFlush()
		w.buf = append(w.buf, p...)
		return
	}
	for len(p) >= 8 {
		w.writeBits(binary.BigEndian.Uint64(p), 64)
		p = p[8:]
	}
	for _, c := range p {
		w.writeBits(uint64(c), 8)
	}
}

// WriteBitsFrom copies n bits of src, starting at bit offset off, to the writer. It is how a
// body decoded by one message is forwarded into another without knowing its schema. The source
// range must lie within src; otherwise nothing is written and [Writer.Err] reports
// [ErrOffset].
func (w *Writer) WriteBitsFrom(src []byte, off, n int) {
	if off < 0 || n < 0 || off > len(src)*8 || n > len(src)*8-off {
		w.fail("WriteBitsFrom", fmt.Errorf("%w: bits %d..%d of %d", ErrOffset, off, off+n, len(src)*8))
		return
	}
	r := Reader{buf: src, pos: uint(off), end: uint(off + n)}
	if off&7 == 0 && w.nacc&7 == 0 {
		whole := n >> 3
		w.alignFlush()
		w.buf = append(w.buf, src[off>>3:off>>3+whole]...)
		r.pos += uint(whole) * 8
	}
	for r.end-r.pos >= 64 {
		w.writeBits(r.peek(64), 64)
		r.pos += 64
	}
	if rest := r.end - r.pos; rest > 0 {
		w.writeBits(r.peek(rest), rest)
	}
}
