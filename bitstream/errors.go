package bitstream

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors wrapped by *[Error]. Test for them with errors.Is.
var (
	// ErrUnderflow reports a read past the end of the input.
	ErrUnderflow = errors.New("unexpected end of input")
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

// Error is the error type of this package: what failed, and where.
type Error struct {
	// BitOffset is the offset of the first bit of the item that failed, counted from the start
	// of the reader's input (or of the writer's output).
	BitOffset int
	// Op names the operation, for example "ReadString".
	Op string
	// Err is the cause; it wraps one of the sentinel errors.
	Err error
}

// Error implements error: "bitstream: at bit 52: reading a string: …".
func (e *Error) Error() string {
	return "bitstream: at bit " + strconv.Itoa(e.BitOffset) + ": " + e.Doing() + ": " + e.Err.Error()
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
func (e *Error) Doing() string {
	if s, ok := opText[e.Op]; ok {
		return s
	}
	return strings.ToLower(e.Op)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func underflow(op string, off, need, have uint) error {
	return &Error{BitOffset: int(off), Op: op, Err: fmt.Errorf("%w: need %d bits, %d left", ErrUnderflow, need, have)}
}
