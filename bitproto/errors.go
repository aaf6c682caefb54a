package bitproto

import (
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/bitstream"
)

// Sentinel errors. Errors from the bit stream itself wrap the sentinels of package bitstream
// (bitstream.ErrUnderflow, bitstream.ErrTooLong, bitstream.ErrNegativeLength).
var (
	// ErrUnsupportedType reports a Go type that has no wire form (see *[TypeError]).
	ErrUnsupportedType = errors.New("unsupported type")
	// ErrDepth reports input nested deeper than [DecodeOptions.MaxDepth].
	ErrDepth = errors.New("maximum nesting depth exceeded")
	// ErrAllocLimit reports input whose decoding would allocate more than
	// [DecodeOptions.MaxAlloc] bytes.
	ErrAllocLimit = errors.New("allocation limit exceeded")
	// ErrRange reports a value that does not fit its wire type, or a decoded value that does not
	// fit its Go type.
	ErrRange = errors.New("value out of range")
	// ErrNil reports a nil value where a value is needed: Marshal(nil), Unmarshal into a nil
	// pointer or a non-pointer.
	ErrNil = errors.New("nil or non-pointer value")
)

// Error is an encoding or decoding error: the Go field path, the bit offset and the cause.
type Error struct {
	// Path is the Go path of the field that failed, from the top-level value: for example
	// "Items[3].Name" or "Props[\"color\"]". It is empty when the top-level value itself failed.
	Path string
	// BitOffset is the offset of the bit where the failing item starts (decoding) or where the
	// writer was (encoding), counted from the start of the reader's input or the writer's output.
	BitOffset int
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("bitproto: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteByte(' ')
	}
	b.WriteString("at bit ")
	b.WriteString(strconv.Itoa(e.BitOffset))
	b.WriteString(": ")
	msg := e.Err.Error()
	// The bitstream error repeats the offset; keep what it was doing and the cause.
	var be *bitstream.Error
	if errors.As(e.Err, &be) {
		msg = be.Doing() + ": " + be.Err.Error()
	}
	b.WriteString(strings.TrimPrefix(msg, "bitproto: "))
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

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

// newError returns an *Error for cause at off. A bitstream error keeps its own offset, which is
// where the failing primitive starts.
func newError(off int, cause error) *Error {
	var be *bitstream.Error
	if errors.As(cause, &be) {
		off = be.BitOffset
	}
	return &Error{BitOffset: off, Err: cause}
}

// withField prefixes the path of err (an *Error) with a field name.
func withField(err error, name string) error {
	if e, ok := err.(*Error); ok {
		switch {
		case e.Path == "":
			e.Path = name
		case e.Path[0] == '[':
			e.Path = name + e.Path
		default:
			e.Path = name + "." + e.Path
		}
	}
	return err
}

// withIndex prefixes the path of err with an element index.
func withIndex(err error, i int) error {
	if e, ok := err.(*Error); ok {
		seg := "[" + strconv.Itoa(i) + "]"
		if e.Path == "" || e.Path[0] == '[' {
			e.Path = seg + e.Path
		} else {
			e.Path = seg + "." + e.Path
		}
	}
	return err
}

// withKey prefixes the path of err with a map key.
func withKey(err error, k string) error {
	if e, ok := err.(*Error); ok {
		seg := "[" + strconv.Quote(k) + "]"
		if e.Path == "" || e.Path[0] == '[' {
			e.Path = seg + e.Path
		} else {
			e.Path = seg + "." + e.Path
		}
	}
	return err
}
