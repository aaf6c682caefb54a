package bitstream

import (
	"errors"
	"fmt"
	"strconv"
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

// Error implements error.
func (e *Error) Error() string {
	return "bitstream: " + e.Op + " at bit " + strconv.Itoa(e.BitOffset) + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func underflow(op string, off, need, have uint) error {
	return &Error{BitOffset: int(off), Op: op, Err: fmt.Errorf("%w: need %d bits, %d left", ErrUnderflow, need, have)}
}
