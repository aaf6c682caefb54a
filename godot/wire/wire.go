// Package wire is the low-level, allocation-free layer of the Godot Variant codec: the header word,
// little-endian scalars, the padded String primitive, the NUL-counting PackedStringArray element,
// and bulk copies of packed numeric arrays. It knows nothing about type ids or dialects; package
// godot builds Variants out of it.
//
// Append functions append to a caller-owned slice and return it, like strconv.AppendInt. Consume
// functions read from the front of a slice and return the value, the number of bytes consumed and
// an error (one of the sentinel errors below, without an offset: the caller knows where b started).
// Nothing here allocates, and nothing panics on short or malformed input.
package wire

import (
	"encoding/binary"
	"errors"
	"math"
)

// Header flag bits (the high 16 bits of the header word). The low 8 bits are the type id; bits
// 8–15 are unused and ignored by the engine's decoders.
const (
	TypeMask = 0xFF // the type id

	// Flag64 marks a 64-bit INT or FLOAT, and in Godot 4 double-precision real_t math types and
	// packed vector arrays.
	Flag64 = 1 << 16
	// FlagObjectAsID marks an OBJECT encoded as its 64-bit instance id (same bit as Flag64).
	FlagObjectAsID = 1 << 16

	// ContainerKeyShift is the position of a typed Array's element kind, or a typed Dictionary's
	// key kind (2 bits, Godot 4.3+/4.4+).
	ContainerKeyShift = 16
	// ContainerValueShift is the position of a typed Dictionary's value kind (2 bits, Godot 4.4+).
	ContainerValueShift = 18
	// ContainerKindMask masks one container kind after shifting.
	ContainerKindMask = 0b11

	// NodePathNewFormat is bit 31 of a NodePath's first word: set for the name-list format that
	// every engine since 2.1 writes, clear for the obsolete single-string format.
	NodePathNewFormat = 1 << 31
	// NodePathAbsolute is bit 0 of a NodePath's flags word.
	NodePathAbsolute = 1
	// NodePathProperty is bit 1 of a NodePath's flags word: the obsolete separate "property"
	// form, which adds one subname.
	NodePathProperty = 2

	// CountMask masks the element count of an Array or Dictionary; bit 31 is the legacy "shared"
	// flag, never written by the engine and ignored on decode.
	CountMask = 0x7FFFFFFF
)

// The errors of the Consume functions.
var (
	// ErrTruncated means that the input ends before the value does (Godot's ERR_INVALID_DATA for
	// fixed-size fields, ERR_FILE_EOF for strings).
	ErrTruncated = errors.New("truncated input")
	// ErrNegativeLength means that a length or count is negative when read as the engine's int32.
	ErrNegativeLength = errors.New("negative length")
)

// Pad returns the number of zero bytes that follow n bytes of data to reach a multiple of 4.
func Pad(n int) int { return (4 - n&3) & 3 }

// AppendUint32 appends v little-endian.
func AppendUint32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

// AppendUint64 appends v little-endian.
func AppendUint64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// AppendFloat32 appends the IEEE 754 bits of v little-endian.
func AppendFloat32(b []byte, v float32) []byte { return AppendUint32(b, math.Float32bits(v)) }

// AppendFloat64 appends the IEEE 754 bits of v little-endian.
func AppendFloat64(b []byte, v float64) []byte { return AppendUint64(b, math.Float64bits(v)) }

// ConsumeUint32 reads a little-endian uint32.
func ConsumeUint32(b []byte) (uint32, int, error) {
	if len(b) < 4 {
		return 0, 0, ErrTruncated
	}
	return binary.LittleEndian.Uint32(b), 4, nil
}

// ConsumeUint64 reads a little-endian uint64.
func ConsumeUint64(b []byte) (uint64, int, error) {
	if len(b) < 8 {
		return 0, 0, ErrTruncated
	}
	return binary.LittleEndian.Uint64(b), 8, nil
}

// AppendPad appends the zero padding that follows n bytes of data.
func AppendPad(b []byte, n int) []byte {
	switch Pad(n) {
	case 1:
		return append(b, 0)
	case 2:
		return append(b, 0, 0)
	case 3:
		return append(b, 0, 0, 0)
	}
	return b
}

// AppendString appends the String primitive: a u32 byte length (without a NUL), the bytes, and
// zero padding to a multiple of 4.
func AppendString(b []byte, s string) []byte {
	b = AppendUint32(b, uint32(len(s)))
	b = append(b, s...)
	return AppendPad(b, len(s))
}

// SizeString returns the encoded size of the String primitive holding n bytes.
func SizeString(n int) int { return 4 + n + Pad(n) }

// ConsumeString reads the String primitive and returns its bytes (a sub-slice of b, not
// validated). Like the engine, it requires the padding to be present but ignores its contents.
func ConsumeString(b []byte) ([]byte, int, error) {
	if len(b) < 4 {
		return nil, 0, ErrTruncated
	}
	n := int32(binary.LittleEndian.Uint32(b))
	if n < 0 {
		return nil, 0, ErrNegativeLength
	}
	// In 64-bit arithmetic, so that a length near 2^31 cannot overflow a 32-bit int.
	if int64(n)+int64(Pad(int(n))) > int64(len(b)-4) {
		return nil, 0, ErrTruncated
	}
	end := 4 + int(n)
	return b[4:end], end + Pad(int(n)), nil
}

// AppendPackedString appends one element of a PackedStringArray (PoolStringArray): a u32 length
// that counts a trailing NUL, the bytes, the NUL, and zero padding.
func AppendPackedString(b []byte, s string) []byte {
	b = AppendUint32(b, uint32(len(s)+1))
	b = append(b, s...)
	b = append(b, 0)
	return AppendPad(b, len(s)+1)
}

// SizePackedString returns the encoded size of a PackedStringArray element holding n bytes.
func SizePackedString(n int) int { return 4 + n + 1 + Pad(n+1) }

// AppendBytes appends a PackedByteArray payload: a u32 count, the bytes and zero padding.
func AppendBytes(b []byte, p []byte) []byte {
	b = AppendUint32(b, uint32(len(p)))
	b = append(b, p...)
	return AppendPad(b, len(p))
}

// ConsumeBytes reads a PackedByteArray payload and returns its bytes (a sub-slice of b). Like the
// engine, it does not require the padding to be present; the returned n counts the padding bytes
// that are present.
func ConsumeBytes(b []byte) ([]byte, int, error) {
	if len(b) < 4 {
		return nil, 0, ErrTruncated
	}
	n := int32(binary.LittleEndian.Uint32(b))
	if n < 0 {
		return nil, 0, ErrNegativeLength
	}
	if int64(n) > int64(len(b)-4) { // (a length near 2^31 overflows a 32-bit int)
		return nil, 0, ErrTruncated
	}
	end := 4 + int(n)
	return b[4:end], min(end+Pad(int(n)), len(b)), nil
}

// ConsumeCount reads the u32 count of a packed array of elements of size elem bytes, and checks
// that count elements fit in the rest of b (as the engine does, with its int32 overflow check).
// It returns the count and the 4 bytes consumed.
func ConsumeCount(b []byte, elem int) (int, int, error) {
	if len(b) < 4 {
		return 0, 0, ErrTruncated
	}
	n := int32(binary.LittleEndian.Uint32(b))
	if n < 0 {
		return 0, 0, ErrNegativeLength
	}
	if int64(n)*int64(elem) > int64(len(b)-4) {
		return int(n), 0, ErrTruncated
	}
	return int(n), 4, nil
}

// AppendUint32s appends the 4-byte little-endian words of v (int32, float32, and the components of
// float32 vectors and colors, viewed as uint32).
func AppendUint32s(b []byte, v []uint32) []byte {
	if hostLittle {
		return append(b, bytesOf(v)...)
	}
	for _, x := range v {
		b = AppendUint32(b, x)
	}
	return b
}

// AppendUint64s appends the 8-byte little-endian words of v.
func AppendUint64s(b []byte, v []uint64) []byte {
	if hostLittle {
		return append(b, bytesOf(v)...)
	}
	for _, x := range v {
		b = AppendUint64(b, x)
	}
	return b
}

// CopyUint32s fills dst with the little-endian words at the start of b, which must hold at least
// 4*len(dst) bytes.
func CopyUint32s(dst []uint32, b []byte) {
	if hostLittle {
		copy(bytesOf(dst), b)
		return
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
}

// CopyUint64s fills dst with the little-endian words at the start of b, which must hold at least
// 8*len(dst) bytes.
func CopyUint64s(dst []uint64, b []byte) {
	if hostLittle {
		copy(bytesOf(dst), b)
		return
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
}
