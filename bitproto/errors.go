package bitproto

import (
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/bitstream"
)

// Sentinel errors. Errors from the bit stream itself wrap the sentinels of package bitstream
// (bitstream.ErrTruncated, bitstream.ErrTooLong, bitstream.ErrNegativeLength).
var (
	// ErrUnsupportedType reports a Go type that has no wire form (see *[TypeError]).
	ErrUnsupportedType = errors.New("unsupported type")
	// ErrTooDeep reports input nested deeper than [DecodeOptions.MaxDepth].
	ErrTooDeep = errors.New("maximum nesting depth exceeded")
	// ErrAllocLimit reports input whose decoding would allocate more than
	// [DecodeOptions.MaxAllocBytes] bytes.
	ErrAllocLimit = errors.New("allocation limit exceeded")
	// ErrRange reports a value that does not fit its wire type, or a decoded value that does not
	// fit its Go type.
	ErrRange = errors.New("value out of range")
	// ErrNil reports a nil value where a value is needed: Marshal(nil), Unmarshal into a nil
	// pointer or a non-pointer.
	ErrNil = errors.New("nil or non-pointer value")
)

// DecodeError is a decoding error: the Go field path, the position and the cause.
type DecodeError struct {
	// Path is the Go path of the field that failed, from the top-level value: for example
	// "Items[3].Name" or "Props[\"color\"]". It is empty when the top-level value itself failed.
	Path string
	// Offset is BitOffset/8, the byte that holds the item's first bit.
	Offset int64
	// BitOffset is the offset of the bit where the failing item starts, counted from the start
	// of the reader's input.
	BitOffset int64
	// Err is the cause.
	Err error
}

// EncodeError is an encoding error: the Go field path, the position and the cause.
type EncodeError struct {
	// Path is the Go path of the field that failed, as in DecodeError.
	Path string
	// Offset is BitOffset/8.
	Offset int64
	// BitOffset is where the writer was, in bits from the start of its output.
	BitOffset int64
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *DecodeError) Error() string { return errorText(e.Path, e.BitOffset, e.Err) }

// Error implements error.
func (e *EncodeError) Error() string { return errorText(e.Path, e.BitOffset, e.Err) }

func errorText(path string, bit int64, err error) string {
	var b strings.Builder
	b.WriteString("bitproto: ")
	if path != "" {
		b.WriteString(path)
		b.WriteByte(' ')
	}
	b.WriteString("at bit ")
	b.WriteString(strconv.FormatInt(bit, 10))
	b.WriteString(": ")
	msg := err.Error()
	// The bitstream error repeats the offset; keep what it was doing and the cause.
	var de *bitstream.DecodeError
	var ee *bitstream.EncodeError
	switch {
	case errors.As(err, &de):
		msg = de.Doing() + ": " + de.Err.Error()
	case errors.As(err, &ee):
		msg = ee.Doing() + ": " + ee.Err.Error()
	}
	b.WriteString(strings.TrimPrefix(msg, "bitproto: "))
	return b.String()
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// Unwrap returns the cause.
func (e *EncodeError) Unwrap() error { return e.Err }

// decodeErr returns the *DecodeError of cause at bit off.
func decodeErr(off int, cause error) *DecodeError {
	return &DecodeError{Offset: int64(off / 8), BitOffset: int64(off), Err: cause}
}

// encodeErr returns the *EncodeError of cause at bit off.
func encodeErr(off int, cause error) *EncodeError {
	return &EncodeError{Offset: int64(off / 8), BitOffset: int64(off), Err: cause}
}

// TypeError reports a Go type that cannot be mapped to the wire format. It wraps
// [ErrUnsupportedType].
type TypeError struct {
	Type   reflect.Type // the type that was being encoded or decoded
	Path   string       // the field path within Type, empty for Type itself
	Reason string
}

// Error implements error.
func (e *TypeError) Error() string {
	s := "bitproto: " + e.Type.String()
	if e.Path != "" {
		s += "." + e.Path
	}
	return s + ": " + e.Reason
}

// Unwrap returns ErrUnsupportedType.
func (e *TypeError) Unwrap() error { return ErrUnsupportedType }

// newError returns an *EncodeError for a cause that a Writer reported, else a *DecodeError, at
// off. A bitstream error keeps its own offset, which is where the failing primitive starts.
func newError(off int, cause error) error {
	var de *bitstream.DecodeError
	if errors.As(cause, &de) {
		return &DecodeError{Offset: de.Offset, BitOffset: de.BitOffset, Err: cause}
	}
	var ee *bitstream.EncodeError
	if errors.As(cause, &ee) {
		return &EncodeError{Offset: ee.Offset, BitOffset: ee.BitOffset, Err: cause}
	}
	return decodeErr(off, cause)
}

// errPath returns the path field of err if it is a *DecodeError or *EncodeError.
func errPath(err error) *string {
	switch e := err.(type) {
	case *DecodeError:
		return &e.Path
	case *EncodeError:
		return &e.Path
	}
	return nil
}

// withField prefixes the path of err (a *DecodeError or *EncodeError) with a field name.
func withField(err error, name string) error {
	if p := errPath(err); p != nil {
		switch {
		case *p == "":
			*p = name
		case (*p)[0] == '[':
			*p = name + *p
		default:
			*p = name + "." + *p
		}
	}
	return err
}

// withIndex prefixes the path of err with an element index.
func withIndex(err error, i int) error {
	if p := errPath(err); p != nil {
		seg := "[" + strconv.Itoa(i) + "]"
		if *p == "" || (*p)[0] == '[' {
			*p = seg + *p
		} else {
			*p = seg + "." + *p
		}
	}
	return err
}

// withKey prefixes the path of err with a map key.
func withKey(err error, k string) error {
	if p := errPath(err); p != nil {
		seg := "[" + strconv.Quote(k) + "]"
		if *p == "" || (*p)[0] == '[' {
			*p = seg + *p
		} else {
			*p = seg + "." + *p
		}
	}
	return err
}
