package multiplayer3

import (
	"errors"
	"fmt"

	"github.com/gamewire/gamewire/godot"
)

// Packet errors. Every error from parsing a packet is a *PacketError that wraps one of these,
// testable with errors.Is.
var (
	// ErrTruncated: the packet ends inside a field it must hold (the engine's "Invalid packet
	// received. Size too small."). It is godot.ErrTruncated, so that an argument cut short is
	// ErrTruncated as well as ErrBadVariant.
	ErrTruncated = godot.ErrTruncated
	// ErrBadPacket: a field holds a value the engine refuses: an unknown command, a path
	// offset past the end, a name without its NUL, an empty RAW packet, an unknown SYS message.
	ErrBadPacket = errors.New("malformed packet")
	// ErrBadVariant: an RPC argument or an rset value does not decode as a Godot 3 Variant (the
	// engine's "Unable to decode RPC argument."); the *godot.DecodeError is the cause.
	ErrBadVariant = errors.New("undecodable Variant")
	// ErrTrailingData: bytes after the last argument that no field accounts for. The engine
	// never writes them (it ignores them when it reads).
	ErrTrailingData = errors.New("trailing data")
	// ErrTooLarge: a packet over the limit (MaxMessageBytes).
	ErrTooLarge = errors.New("packet too large")
)

// Errors of calls that parse but are refused, reported to OnError (the engine prints these).
var (
	// ErrUnknownNode: the call's node is not declared, or its cached path id was never announced.
	ErrUnknownNode = errors.New("node not found")
	// ErrUnknownPath: a CONFIRM_PATH for a path that was not sent to that peer.
	ErrUnknownPath = errors.New("path not in the send cache")
	// ErrNotAllowed: the function or property is not declared with an rpc mode that lets the
	// sender call it here (the engine's "RPC '…' is not allowed on node …").
	ErrNotAllowed = errors.New("not allowed by the rpc mode")
	// ErrArgs: the arguments do not fit the handler (count or types).
	ErrArgs = errors.New("arguments do not fit the handler")
	// ErrHandlerPanic: a handler panicked; the panic is in the error's text.
	ErrHandlerPanic = errors.New("handler panicked")
	// ErrSpoofed: a client's packet names another peer as its source (the engine drops it:
	// "Someone is cheating and trying to fake the source!").
	ErrSpoofed = errors.New("spoofed source id")
	// ErrUnknownPeer: a packet for, or a call to, a peer that is not connected.
	ErrUnknownPeer = errors.New("unknown peer")
	// ErrClosed: the server or client has been closed.
	ErrClosed = errors.New("multiplayer3: closed")
)

// PacketError says why a packet could not be parsed, and where. Offset is the byte offset of
// the offending field from the start of the bytes given to the parser.
type PacketError struct {
	// Command is the packet's command, when its first byte was read.
	Command Command
	// Offset is the byte offset of the field that failed.
	Offset int64
	// Detail adds what the field held.
	Detail string
	// Err is the sentinel (ErrTruncated, ErrBadPacket, …).
	Err error
	// Cause is the underlying error, such as the *godot.DecodeError of an argument.
	Cause error
}

// Error says what failed, in which command, at which offset.
func (e *PacketError) Error() string {
	s := fmt.Sprintf("multiplayer3: %s packet at offset %d: %v", e.Command, e.Offset, e.Err)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel and the cause, so that errors.Is and errors.As see both.
func (e *PacketError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

func perr(cmd Command, off int, err error, format string, args ...any) *PacketError {
	return &PacketError{Command: cmd, Offset: int64(off), Err: err, Detail: fmt.Sprintf(format, args...)}
}
