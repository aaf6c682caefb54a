package gsfnet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gamewire/gamewire/gsf"
)

// Sentinel errors. Errors returned by this package wrap them, so that errors.Is can tell them
// apart whatever the details.
var (
	// ErrServerClosed is returned by Serve and ListenAndServe after Shutdown or Close, and
	// wrapped by the errors of sessions that the server closed.
	ErrServerClosed = errors.New("gsfnet: server closed")
	// ErrClosed reports a connection that is closed, by this side (Client.Close, Session.Close)
	// or by the peer. Calls that were waiting for a response when the connection went away
	// fail with an error wrapping ErrClosed and, when there is one, the cause (io.EOF for a
	// connection the peer closed).
	ErrClosed = errors.New("gsfnet: connection closed")
	// ErrQueueFull reports a discardable message that was dropped because the session's
	// outgoing queue was full (see Server.MaxQueueBytes), or a client's message that was not
	// sent because the client's outgoing queue was full (see ClientOptions.MaxQueueBytes). The session or
	// client stays open.
	ErrQueueFull = errors.New("gsfnet: outgoing queue full, message not sent")
	// ErrSlowConsumer is the cause of a session that was closed because its peer did not read
	// fast enough: a message that may not be dropped found the outgoing queue full.
	ErrSlowConsumer = errors.New("gsfnet: peer too slow, outgoing queue full")
	// ErrUnknownMessage is returned by a Mux for a (service class, message type) pair without a
	// handler. The server answers it according to Server.UnknownPolicy.
	ErrUnknownMessage = errors.New("gsfnet: no handler for the message")
	// ErrBadBody is wrapped by the error of a typed handler (Typed, TypedStrict) whose
	// request body does not decode.
	ErrBadBody = errors.New("gsfnet: request body does not decode")
	// ErrHandlerPanic is wrapped by the error that a panicking handler turns into.
	ErrHandlerPanic = errors.New("gsfnet: handler panic")
	// ErrNoResponse is returned by a handler that wants no response sent for a request, as the
	// reference server does for a handler that writes nothing.
	ErrNoResponse = errors.New("gsfnet: no response")
	// ErrCallTimeout reports a call that had no response within the client's call timeout
	// (see ClientOptions.CallTimeout): a call whose context has no deadline of its own gets one. It
	// wraps context.DeadlineExceeded.
	ErrCallTimeout = fmt.Errorf("gsfnet: no response within the call timeout: %w", context.DeadlineExceeded)
	// ErrIdleTimeout is the cause of a client connection that was closed because calls waited
	// for their responses and the server sent nothing for the idle timeout (see
	// ClientOptions.IdleTimeout). It wraps os.ErrDeadlineExceeded.
	ErrIdleTimeout = fmt.Errorf("gsfnet: the server sent nothing while calls waited: %w", os.ErrDeadlineExceeded)
)

// Error is an error response: the result code, app code and app string of a response header.
// A handler returns an *Error to answer a request with an error; Client.Call returns one when
// the server answers with a non-zero result or app code. The response body of an error is null.
type Error struct {
	ResultCode gsf.ResultCode
	AppCode    gsf.AppCode
	AppString  string
	// AppCodes is the list of app codes sent with AppCode gsf.AppMultErrs.
	AppCodes []gsf.AppCodeEntry
	// Err is an optional cause. It is not sent; errors.Is and errors.As see it.
	Err error
}

// NewError returns an error response with result code ERR (as the reference server uses for
// application errors), the given app code and app string.
func NewError(app gsf.AppCode, appString string) *Error {
	return &Error{ResultCode: gsf.ResultErr, AppCode: app, AppString: appString}
}

// Errorf is NewError with a formatted app string. A %w verb in format makes the wrapped error
// the Err of the result.
func Errorf(app gsf.AppCode, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{ResultCode: gsf.ResultErr, AppCode: app, AppString: err.Error(), Err: errors.Unwrap(err)}
}

// Error implements error, for example "gsf error: result ERR, app AUTH: wrong password".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("gsf error: result ")
	b.WriteString(e.ResultCode.String())
	b.WriteString(", app ")
	b.WriteString(e.AppCode.String())
	if e.AppString != "" {
		b.WriteString(": ")
		b.WriteString(e.AppString)
	}
	return b.String()
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// ResponseError returns the error that a response header carries: an *Error when its result code
// or app code is not 0, nil otherwise (and for headers that are not responses).
func ResponseError(h *gsf.Header) error {
	if !h.IsResponse() || (h.ResultCode == 0 && h.AppCode == 0) {
		return nil
	}
	return &Error{ResultCode: h.ResultCode, AppCode: h.AppCode, AppString: h.AppString, AppCodes: h.AppCodes}
}

// setHeader writes the error's codes into a response header.
func (e *Error) setHeader(h *gsf.Header) {
	h.ResultCode, h.AppCode, h.AppString, h.AppCodes = e.ResultCode, e.AppCode, e.AppString, e.AppCodes
	if h.ResultCode == 0 && h.AppCode == 0 {
		// An *Error with zero codes would read as success: make it a generic error.
		h.ResultCode = gsf.ResultErr
	}
}

// closedError returns the error of a connection closed by cause.
func closedError(cause error) error {
	if cause == nil || errors.Is(cause, ErrClosed) {
		return ErrClosed
	}
	return fmt.Errorf("%w: %w", ErrClosed, cause)
}
