// Package protocol is ENet 1.3's wire format, allocation-free: the protocol header (peer id,
// session bits, flags, sent time, the optional CRC32 checksum) and every command as C ENet
// 1.3.15–1.3.18 puts it on the wire (protocol.h; every field big-endian).
//
// [ConsumeHeader] and [ConsumeCommand] read, [AppendHeader] and [AppendCommand] write. Readers
// return a *[DecodeError] with the byte offset of the failing field and a sentinel for
// errors.Is; they never panic and never allocate: a command's Payload aliases the input.
package protocol

import (
	"errors"
	"fmt"
)

// Limits and constants of the protocol (protocol.h, enet.h).
const (
	MinimumMTU          = 576
	MaximumMTU          = 4096
	MaximumPacketCmds   = 32
	MinimumWindowSize   = 4096
	MaximumWindowSize   = 65536
	MinimumChannelCount = 1
	MaximumChannelCount = 255
	// MaximumPeerID is the peer id of a datagram that has no peer yet (a CONNECT), 0xFFF.
	MaximumPeerID        = 0xFFF
	MaximumFragmentCount = 1024 * 1024
)

// CommandNumber is the low four bits of a command's first byte.
type CommandNumber uint8

// The commands of ENet 1.3.
const (
	CmdNone                   CommandNumber = 0
	CmdAcknowledge            CommandNumber = 1
	CmdConnect                CommandNumber = 2
	CmdVerifyConnect          CommandNumber = 3
	CmdDisconnect             CommandNumber = 4
	CmdPing                   CommandNumber = 5
	CmdSendReliable           CommandNumber = 6
	CmdSendUnreliable         CommandNumber = 7
	CmdSendFragment           CommandNumber = 8
	CmdSendUnsequenced        CommandNumber = 9
	CmdBandwidthLimit         CommandNumber = 10
	CmdThrottleConfigure      CommandNumber = 11
	CmdSendUnreliableFragment CommandNumber = 12
	cmdCount                                = 13
)

var cmdNames = [cmdCount]string{"NONE", "ACKNOWLEDGE", "CONNECT", "VERIFY_CONNECT", "DISCONNECT", "PING",
	"SEND_RELIABLE", "SEND_UNRELIABLE", "SEND_FRAGMENT", "SEND_UNSEQUENCED", "BANDWIDTH_LIMIT",
	"THROTTLE_CONFIGURE", "SEND_UNRELIABLE_FRAGMENT"}

// String returns the command's name as protocol.h spells it without its prefix.
func (c CommandNumber) String() string {
	if int(c) < len(cmdNames) {
		return cmdNames[c]
	}
	return fmt.Sprintf("COMMAND_%d", uint8(c))
}

// Flags of a command's first byte and of the header's peer id field.
const (
	FlagAcknowledge = 0x80 // the command is reliable and must be acknowledged
	FlagUnsequenced = 0x40 // the command is unsequenced
	CommandMask     = 0x0F

	HeaderFlagCompressed = 0x4000
	HeaderFlagSentTime   = 0x8000
	HeaderFlagMask       = HeaderFlagCompressed | HeaderFlagSentTime
	HeaderSessionMask    = 3 << 12
	HeaderSessionShift   = 12
)

// Sizes in bytes of each command including its 4-byte command header, without payload
// (commandSizes in protocol.c). A size of 0 marks a number that is not a command.
var commandSizes = [16]int{0, 8, 48, 44, 8, 4, 6, 8, 24, 8, 12, 16, 24}

// CommandSize returns the fixed size of the command numbered n (its low four bits), 0 when n is
// not a command.
func CommandSize(n CommandNumber) int { return commandSizes[n&CommandMask] }

// Sentinels, tested with errors.Is on a *DecodeError.
var (
	// ErrTruncated: the datagram ended inside the header, a command or its payload.
	ErrTruncated = errors.New("enet: truncated")
	// ErrUnknownCommand: a command number that ENet does not define (0 or above 12).
	ErrUnknownCommand = errors.New("enet: unknown command")
	// ErrChecksum: the CRC32 of the datagram is not the one in its header.
	ErrChecksum = errors.New("enet: checksum mismatch")
	// ErrRange: a field outside the range ENet accepts (a fragment beyond its packet, a channel
	// count above 255, …).
	ErrRange = errors.New("enet: value out of range")
)

// DecodeError is a datagram that does not parse: Offset is the byte offset from the start of the
// datagram where the failing field starts, Command the command being read (CmdNone in the
// header).
type DecodeError struct {
	Offset  int64
	Command CommandNumber
	Field   string
	Err     error
}

// Error names the command and field, the offset and the sentinel.
func (e *DecodeError) Error() string {
	where := "header"
	if e.Command != CmdNone {
		where = e.Command.String()
	}
	if e.Field != "" {
		where += " " + e.Field
	}
	return fmt.Sprintf("enet: %s at offset %d: %v", where, e.Offset, e.Err)
}

// Unwrap returns the sentinel.
func (e *DecodeError) Unwrap() error { return e.Err }
