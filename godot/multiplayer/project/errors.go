package project

import (
	"errors"
	"fmt"
)

// The loader's sentinels, wrapped in a *SourceError.
var (
	// ErrSyntax: a file is not what the loader reads (a malformed scene, an @rpc it cannot
	// read, a property value it does not understand).
	ErrSyntax = errors.New("project: not understood")
	// ErrMissing: a scene or script a file refers to is not in the project.
	ErrMissing = errors.New("project: not in the project")
	// ErrUnsupported: the project uses what the loader does not read (a script in another
	// language than GDScript).
	ErrUnsupported = errors.New("project: not supported")
)

// SourceError is a loader error with the place in a project's files it is about: the file and
// its 1-based line (0 when the error concerns the whole file). Err holds one of the sentinels
// (ErrSyntax, ErrMissing, ErrUnsupported), possibly through other errors.
type SourceError struct {
	File string
	Line int
	Err  error
}

func (e *SourceError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return e.File + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *SourceError) Unwrap() error { return e.Err }

// kindError is a message that matches a sentinel.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// kindf formats a message that matches the sentinel kind.
func kindf(kind error, format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// errAt is a SourceError at file:line that matches ErrSyntax.
func errAt(file string, line int, format string, args ...any) error {
	return &SourceError{File: file, Line: line, Err: kindf(ErrSyntax, format, args...)}
}

// wrapAt is a SourceError at file:line around the error its format wraps with %w (whose
// sentinel it keeps).
func wrapAt(file string, line int, format string, args ...any) error {
	return &SourceError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}
