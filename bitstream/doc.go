// Package bitstream reads and writes the BitProtocol bit stream: the bit-level encoding that the
// GSF messages of the game client are made of.
//
// Bits are packed most significant bit first: bit i of a stream is byte i>>3, mask 0x80>>(i&7).
// Nothing is byte-aligned except the data of non-empty strings and byte arrays. The primitives
// are:
//
//	bool          1 bit, 1 = true
//	byte          8 raw bits at the current position (not aligned)
//	int16/32/64   compressed: see below
//	char          a rune written as a compressed int16; read back as rune(int16)
//	float32/64    the raw IEEE-754 bits, big-endian (32 or 64 bits, not compressed)
//	string, bytes compressed int32 length; if the length is > 0: zero bits up to the next byte
//	              boundary, then the bytes. An empty string is the 6-bit length alone.
//	date          null bit (1 = the zero time.Time), then 64 raw bits:
//	              unix seconds + 62 162 121 600 (the epoch is 0000-02-29T00:00:00Z)
//	null          an object's null bit: 1 = null, 0 = present
//	count         the compressed int32 count of a slice or map, -1 for nil
//
// # Compressed integers
//
// A compressed integer of width w bytes (2, 4 or 8) is a flag bit, then:
//
//	flag 1, then k one-bits and a 0-bit, then the value: a signed 4-bit nibble when k = 0,
//	        otherwise the low 8k bits, big-endian;       used for the smallest k < w that fits
//	flag 0, then all 8w bits;                            used when no k < w fits
//
// The writer chooses exactly the widths the reference implementation chooses: int16 values
// 128..32767 take the 17-bit full form, and int64 never uses the 7-byte form (values needing
// 7 bytes are written full-width, which costs the same 65 bits).
//
// The reader accepts what the reference reader accepts: any width, including non-minimal ones,
// and a count run that reaches w one-bits without a terminating 0. It also reproduces the
// reference reader's sign extension of the 7-byte int64 form, which is off by 8 bits: a
// negative 7-byte value gets bits 47..54 forced to 1 (for example -1<<55 reads as -1<<47). No
// writer produces that form; reading it like the reference keeps both decoders in agreement.
// See [Reader.ReadInt64].
//
// # Writing
//
// A [Writer] appends bits to a caller-owned byte slice and does not allocate beyond growing
// that slice. Padding bits (the tail of the last byte and alignment gaps) are always 0.
//
//	var w bitstream.Writer
//	w.Reset(buf[:0])
//	w.WriteBool(false)
//	w.WriteInt32(566)
//	w.WriteString("AmazingWorld")
//	buf = w.Bytes()
//
// # Reading
//
// A [Reader] reads from a byte slice. Every ReadX method returns an error instead of panicking
// when the input is too short or malformed; the error is a *[Error] that carries the bit offset
// and wraps one of the sentinel errors ([ErrTruncated], [ErrNegativeLength], [ErrTooLong], ...).
// For hand-written decoders the TryX methods return only the value and keep the first error,
// which [Reader.Err] reports at the end:
//
//	r := bitstream.NewReader(data)
//	flags := r.TryInt32()
//	name := r.TryString()
//	if err := r.Err(); err != nil { ... }
//
// Lengths and counts are checked against the remaining input before anything is allocated, so a
// hostile stream cannot make the reader allocate more than the input could hold.
package bitstream
