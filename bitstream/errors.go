package bitstream

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors wrapped by *[Error]. Test for them with errors.Is.
var (
	// ErrTruncated reports a read past the end of the input.
	ErrTruncated = errors.New("truncated input")
	// ErrNegativeLength reports a string, byte-array, slice or map length below -1. (-1 is the
	// nil marker; the reference writer never writes any other negative length.)
	ErrNegativeLength = errors.New("negative length")
	// ErrTooLong reports a length or count that claims more data than the rest of the input can
	// hold, or, when writing, a length that does not fit the int32 length field.
	ErrTooLong = errors.New("length exceeds the remaining input")
	// ErrInvalidWidth reports a bit count outside 0..64 or an integer width other than 2, 4 or 8.
	ErrInvalidWidth = errors.New("invalid width")
	// ErrOffset reports a seek outside the input.
	ErrOffset = errors.New("bit offset out of range")
)

// DecodeError is the error of a [Reader]: what failed, and where.
type DecodeError struct {
	// Offset is BitOffset/8: the byte that holds the first bit of the item that failed.
	Offset int64
	// BitOffset is the offset of the first bit of the item that failed, counted from the start
	// of the reader's input.
	BitOffset int64
	// Op names the operation, for example "ReadString".
	Op string
	// Err is the cause; it wraps one of the sentinel errors.
	Err error
}

// EncodeError is the error of a [Writer]: what failed, and where.
type EncodeError struct {
	// Offset is BitOffset/8.
	Offset int64
	// BitOffset is the offset of the bit where the writer was, counted from the start of its
	// output.
	BitOffset int64
	// Op names the operation, for example "WriteString".
	Op string
	// Err is the cause; it wraps one of the sentinel errors.
	Err error
}

// readErr returns the *DecodeError of op failing with err at bit.
func readErr(op string, bit uint, err error) error {
	return &DecodeError{Offset: int64(bit / 8), BitOffset: int64(bit), Op: op, Err: err}
}

// Error implements error: "bitstream: at bit 52: reading a string: …".
func (e *DecodeError) Error() string {
	return "bitstream: at bit " + strconv.FormatInt(e.BitOffset, 10) + ": " + e.Doing() + ": " + e.Err.Error()
}

// Error implements error: "bitstream: at bit 52: writing a string: …".
func (e *EncodeError) Error() string {
	return "bitstream: at bit " + strconv.FormatInt(e.BitOffset, 10) + ": " + doing(e.Op) + ": " + e.Err.Error()
}

// opText says in words what the operations do.
var opText = map[string]string{
	"ReadBits": "reading bits", "PeekBits": "reading bits", "ReadByte": "reading a byte",
	"ReadBool": "reading a bool", "ReadCompressed": "reading a compressed integer",
	"ReadInt16": "reading an int16", "ReadInt32": "reading an int32", "ReadInt64": "reading an int64",
	"ReadFloat32": "reading a float32", "ReadFloat64": "reading a float64", "ReadChar": "reading a char",
	"ReadString": "reading a string", "ReadBytes": "reading a byte array", "ReadBytesView": "reading a string or byte array",
	"ReadDate": "reading a date", "ReadCount": "reading an element count", "ReadSlice": "reading a slice",
	"ReadMap": "reading a map", "ReadNull": "reading a null bit", "ReadRaw": "reading raw bytes",
	"ReadAligned": "reading aligned bytes", "Seek": "seeking", "Skip": "skipping bits",
	"WriteBits": "writing bits", "WriteBitsFrom": "writing bits", "WriteBytes": "writing a byte array",
	"WriteCompressed": "writing a compressed integer", "WriteCount": "writing an element count",
	"WriteString": "writing a string",
}

// Doing says in words what the failing operation was doing, e.g. "reading a string".
func (e *DecodeError) Doing() string { return doing(e.Op) }

// Doing says in words what the failing operation was doing, e.g. "writing a string".
func (e *EncodeError) Doing() string { return doing(e.Op) }

func doing(op string) string {
	if s, ok := opText[op]; ok {
		return s
	}
	return strings.ToLower(op)
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// Unwrap returns the cause.
func (e *EncodeError) Unwrap() error { return e.Err }

func underflow(op string, off, need, have uint) error {
	return readErr(op, off, fmt.Errorf("%w: need %s, %d left", ErrTruncated, plural(int(need), "bit"), have))
}

// plural says n what, with an s unless n is 1: "1 bit", "2 bits".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
