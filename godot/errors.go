package godot

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gamewire/gamewire/godot/wire"
)

// Sentinel errors. A decoding or encoding error wraps one of them, so callers test with errors.Is;
// the error itself is a *[DecodeError] or *[EncodeError] that says where it happened.
var (
	// ErrTruncated: the input ends before the value does. Godot reports ERR_INVALID_DATA, or
	// ERR_FILE_EOF for strings.
	ErrTruncated = wire.ErrTruncated
	// ErrNegativeLength: a string length or packed-array count is negative as the engine's int32.
	ErrNegativeLength = wire.ErrNegativeLength
	// ErrUnknownType: the header's type id is not a type of the dialect (ERR_INVALID_DATA).
	ErrUnknownType = errors.New("unknown type id")
	// ErrInvalidUTF8: a string is not UTF-8 as the dialect's engine parses it (ERR_INVALID_DATA).
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrTooDeep: containers nest deeper than the limit (the engine's ERR_OUT_OF_MEMORY,
	// "Variant is too deep").
	ErrTooDeep = errors.New("nesting too deep")
	// ErrTooManyElements: the value holds more container elements than the decoder allows.
	ErrTooManyElements = errors.New("too many elements")
	// ErrAllocLimit: decoding the value would allocate more than the decoder allows
	// (DecodeOptions.MaxAllocBytes).
	ErrAllocLimit = errors.New("allocation limit exceeded")
	// ErrObjectsNotAllowed: a full Object in input decoded without AllowObjects (the engine's
	// ERR_UNAUTHORIZED).
	ErrObjectsNotAllowed = errors.New("full objects are not allowed")
	// ErrOldNodePath: a NodePath in the obsolete single-string format, which the engine rejects
	// (ERR_INVALID_DATA) unless DecodeOptions.LegacyNodePath is set.
	ErrOldNodePath = errors.New("NodePath in the obsolete string format")
	// ErrContainerType: a typed Array or Dictionary descriptor that the engine rejects
	// (ERR_INVALID_DATA): a builtin element type out of range, or (with AllowObjects) a script
	// path not under res://.
	ErrContainerType = errors.New("invalid typed-container descriptor")
	// ErrScriptProperty: a full object's "script" property that Godot 4 rejects
	// (ERR_INVALID_DATA): it must be Nil or a String holding a res:// path.
	ErrScriptProperty = errors.New(`invalid "script" property`)
	// ErrUnsupported: the value cannot be encoded in the dialect, or the Go type has no Variant
	// form.
	ErrUnsupported = errors.New("unsupported value")
)

// DecodeError describes where decoding failed. Offset is the byte offset, from the start of the
// input, of the field that could not be decoded (for a truncated field, where it starts).
type DecodeError struct {
	Offset  int64
	Dialect Dialect
	// Type is the Variant type being decoded when the error occurred, and HasType says whether
	// the header had been read at all.
	Type    Type
	HasType bool
	// Path locates the failing value inside the top-level one, e.g. `[3]["tags"][1]` (an Array
	// index, then the value under a Dictionary key, then an index); empty at the top level.
	Path string
	Err  error
	// segs holds the segments of the path collected while the error propagates out of nested
	// containers, innermost first; finishPath joins them into Path. (Prepending each to Path
	// would copy the path once per level, which is quadratic in the depth.)
	segs []string
}

// path returns the full path: the collected segments, outermost first, then Path.
func (e *DecodeError) path() string {
	if len(e.segs) == 0 {
		return e.Path
	}
	var sb strings.Builder
	for i := len(e.segs) - 1; i >= 0; i-- {
		sb.WriteString(e.segs[i])
	}
	sb.WriteString(e.Path)
	return sb.String()
}

// finishPath completes the Path of a *DecodeError before it is returned to the caller.
func finishPath(err error) error {
	if e, ok := err.(*DecodeError); ok && len(e.segs) > 0 {
		e.Path, e.segs = e.path(), nil
	}
	return err
}

func (e *DecodeError) Error() string {
	var sb strings.Builder
	sb.WriteString("godot: decoding ")
	if e.HasType {
		sb.WriteString(e.Dialect.TypeName(e.Type))
	} else {
		sb.WriteString("Variant header")
	}
	fmt.Fprintf(&sb, " at byte %d", e.Offset)
	if path := e.path(); path != "" {
		sb.WriteString(" (at ")
		sb.WriteString(AbbreviatePath(path))
		sb.WriteString(")")
	}
	sb.WriteString(": ")
	sb.WriteString(e.Err.Error())
	return sb.String()
}

// maxPathText is the longest path an error message shows whole.
const maxPathText = 120

// AbbreviatePath shortens the path of a deeply nested value, as DecodeError and EncodeError
// print it: a path longer than 120 bytes keeps its first and last segments (each "[…]" or
// ".name" is one) and says how many segments it leaves out, as in `[0][0]…(1020 more)…[0][3]`.
// The error's Path field keeps the whole path.
func AbbreviatePath(p string) string {
	if len(p) <= maxPathText {
		return p
	}
	// Segment starts: every '[' or '.' outside a quoted key.
	var starts []int
	inQuote := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' && (i == 0 || p[i-1] != '\\'):
			inQuote = !inQuote
		case !inQuote && (c == '[' || c == '.'):
			starts = append(starts, i)
		}
	}
	head, tail := 0, len(starts)
	for head < len(starts) && starts[head] < maxPathText/2 {
		head++
	}
	for tail > head && len(p)-starts[tail-1] < maxPathText/2 {
		tail--
	}
	if head == 0 || tail >= len(starts) || tail-head < 2 {
		return cutUTF8(p, maxPathText/2) + "…" + cutUTF8Suffix(p, maxPathText/2)
	}
	return fmt.Sprintf("%s…(%d more)…%s", p[:starts[head]], tail-head, p[starts[tail]:])
}

// Unwrap returns the sentinel error.
func (e *DecodeError) Unwrap() error { return e.Err }

// EncodeError describes a value that could not be encoded.
type EncodeError struct {
	// Path locates the value inside the top-level one, e.g. `[2].Name`.
	Path string
	// GoType is the Go type of the value.
	GoType string
	Err    error
}

func (e *EncodeError) Error() string {
	var sb strings.Builder
	sb.WriteString("godot: encoding ")
	if e.GoType != "" {
		sb.WriteString(e.GoType)
	} else {
		sb.WriteString("value")
	}
	if e.Path != "" {
		sb.WriteString(" at ")
		sb.WriteString(AbbreviatePath(e.Path))
	}
	sb.WriteString(": ")
	sb.WriteString(e.Err.Error())
	return sb.String()
}

// Unwrap returns the underlying error.
func (e *EncodeError) Unwrap() error { return e.Err }

// detailError adds a human-readable detail to a sentinel without hiding it from errors.Is.
type detailError struct {
	err    error
	detail string
}

func (e *detailError) Error() string { return e.err.Error() + ": " + e.detail }
func (e *detailError) Unwrap() error { return e.err }

func detail(err error, format string, args ...any) error {
	return &detailError{err, fmt.Sprintf(format, args...)}
}

// prependPath is used while an error propagates out of nested containers.
func prependPath(err error, seg string) error {
	switch e := err.(type) {
	case *DecodeError:
		e.segs = append(e.segs, seg)
	case *EncodeError:
		e.Path = seg + e.Path
	}
	return err
}
