package protocol

import "encoding/binary"

// Command is one ENet command. Fields that the command does not carry are zero; Payload (the
// data of a send command) aliases the datagram it was read from.
type Command struct {
	// Number is the command number; Flags its FlagAcknowledge and FlagUnsequenced bits.
	Number CommandNumber
	Flags  uint8
	// ChannelID is the channel, 0xFF for the connection's own commands.
	ChannelID uint8
	// ReliableSeq is the command's reliable sequence number.
	ReliableSeq uint16

	// ACKNOWLEDGE
	ReceivedReliableSeq uint16
	ReceivedSentTime    uint16

	// CONNECT, VERIFY_CONNECT (OutgoingPeerID … ConnectID), BANDWIDTH_LIMIT (the two
	// bandwidths), THROTTLE_CONFIGURE (the three throttle fields)
	OutgoingPeerID       uint16
	IncomingSessionID    uint8
	OutgoingSessionID    uint8
	MTU                  uint32
	WindowSize           uint32
	ChannelCount         uint32
	IncomingBandwidth    uint32
	OutgoingBandwidth    uint32
	ThrottleInterval     uint32
	ThrottleAcceleration uint32
	ThrottleDeceleration uint32
	ConnectID            uint32
	// Data is CONNECT's and DISCONNECT's user data.
	Data uint32

	// SEND_UNRELIABLE
	UnreliableSeq uint16
	// SEND_UNSEQUENCED
	UnsequencedGroup uint16
	// SEND_FRAGMENT, SEND_UNRELIABLE_FRAGMENT
	StartSeq       uint16
	FragmentCount  uint32
	FragmentNumber uint32
	TotalLength    uint32
	FragmentOffset uint32

	// Payload is the data of a send command (its dataLength bytes).
	Payload []byte
}

// HasPayload reports whether commands numbered n carry data after their fixed part.
func HasPayload(n CommandNumber) bool {
	switch n {
	case CmdSendReliable, CmdSendUnreliable, CmdSendFragment, CmdSendUnsequenced, CmdSendUnreliableFragment:
		return true
	}
	return false
}

// Size returns the encoded size of c with its payload.
func (c *Command) Size() int { return CommandSize(c.Number) + len(c.Payload) }

// ConsumeCommand reads one command from b, which starts at byte offset base of the datagram (for
// error offsets). It returns the command and its length with payload.
func ConsumeCommand(b []byte, base int) (Command, int, error) {
	var c Command
	if len(b) < 4 {
		return c, 0, &DecodeError{Offset: int64(base), Field: "command header", Err: ErrTruncated}
	}
	c.Number = CommandNumber(b[0] & CommandMask)
	c.Flags = b[0] &^ CommandMask
	c.ChannelID = b[1]
	c.ReliableSeq = binary.BigEndian.Uint16(b[2:])
	size := commandSizes[c.Number]
	if size == 0 {
		return c, 0, &DecodeError{Offset: int64(base), Command: c.Number, Field: "command", Err: ErrUnknownCommand}
	}
	if len(b) < size {
		return c, 0, &DecodeError{Offset: int64(base), Command: c.Number, Err: ErrTruncated}
	}
	be := binary.BigEndian
	dataLen := -1
	switch c.Number {
	case CmdAcknowledge:
		c.ReceivedReliableSeq = be.Uint16(b[4:])
		c.ReceivedSentTime = be.Uint16(b[6:])
	case CmdConnect, CmdVerifyConnect:
		c.OutgoingPeerID = be.Uint16(b[4:])
		c.IncomingSessionID = b[6]
		c.OutgoingSessionID = b[7]
		c.MTU = be.Uint32(b[8:])
		c.WindowSize = be.Uint32(b[12:])
		c.ChannelCount = be.Uint32(b[16:])
		c.IncomingBandwidth = be.Uint32(b[20:])
		c.OutgoingBandwidth = be.Uint32(b[24:])
		c.ThrottleInterval = be.Uint32(b[28:])
		c.ThrottleAcceleration = be.Uint32(b[32:])
		c.ThrottleDeceleration = be.Uint32(b[36:])
		c.ConnectID = be.Uint32(b[40:])
		if c.Number == CmdConnect {
			c.Data = be.Uint32(b[44:])
		}
	case CmdDisconnect:
		c.Data = be.Uint32(b[4:])
	case CmdPing:
	case CmdSendReliable:
		dataLen = int(be.Uint16(b[4:]))
	case CmdSendUnreliable:
		c.UnreliableSeq = be.Uint16(b[4:])
		dataLen = int(be.Uint16(b[6:]))
	case CmdSendUnsequenced:
		c.UnsequencedGroup = be.Uint16(b[4:])
		dataLen = int(be.Uint16(b[6:]))
	case CmdSendFragment, CmdSendUnreliableFragment:
		c.StartSeq = be.Uint16(b[4:])
		dataLen = int(be.Uint16(b[6:]))
		c.FragmentCount = be.Uint32(b[8:])
		c.FragmentNumber = be.Uint32(b[12:])
		c.TotalLength = be.Uint32(b[16:])
		c.FragmentOffset = be.Uint32(b[20:])
	case CmdBandwidthLimit:
		c.IncomingBandwidth = be.Uint32(b[4:])
		c.OutgoingBandwidth = be.Uint32(b[8:])
	case CmdThrottleConfigure:
		c.ThrottleInterval = be.Uint32(b[4:])
		c.ThrottleAcceleration = be.Uint32(b[8:])
		c.ThrottleDeceleration = be.Uint32(b[12:])
	}
	if dataLen < 0 {
		return c, size, nil
	}
	if len(b)-size < dataLen {
		return c, 0, &DecodeError{Offset: int64(base + size), Command: c.Number, Field: "data", Err: ErrTruncated}
	}
	c.Payload = b[size : size+dataLen : size+dataLen]
	return c, size + dataLen, nil
}

// AppendCommand appends c with its payload to b. A send command's dataLength is len(c.Payload).
func AppendCommand(b []byte, c *Command) []byte {
	b = AppendCommandHeader(b, c, len(c.Payload))
	return append(b, c.Payload...)
}

// AppendCommandHeader appends c's fixed part to b with dataLength n, without the payload: the
// caller appends the n bytes of data (a fragment of a larger packet, say) itself.
func AppendCommandHeader(b []byte, c *Command, n int) []byte {
	be := binary.BigEndian
	b = append(b, byte(c.Number)&CommandMask|c.Flags&^CommandMask, c.ChannelID)
	b = be.AppendUint16(b, c.ReliableSeq)
	switch c.Number {
	case CmdAcknowledge:
		b = be.AppendUint16(b, c.ReceivedReliableSeq)
		b = be.AppendUint16(b, c.ReceivedSentTime)
	case CmdConnect, CmdVerifyConnect:
		b = be.AppendUint16(b, c.OutgoingPeerID)
		b = append(b, c.IncomingSessionID, c.OutgoingSessionID)
		b = be.AppendUint32(b, c.MTU)
		b = be.AppendUint32(b, c.WindowSize)
		b = be.AppendUint32(b, c.ChannelCount)
		b = be.AppendUint32(b, c.IncomingBandwidth)
		b = be.AppendUint32(b, c.OutgoingBandwidth)
		b = be.AppendUint32(b, c.ThrottleInterval)
		b = be.AppendUint32(b, c.ThrottleAcceleration)
		b = be.AppendUint32(b, c.ThrottleDeceleration)
		b = be.AppendUint32(b, c.ConnectID)
		if c.Number == CmdConnect {
			b = be.AppendUint32(b, c.Data)
		}
	case CmdDisconnect:
		b = be.AppendUint32(b, c.Data)
	case CmdSendReliable:
		b = be.AppendUint16(b, uint16(n))
	case CmdSendUnreliable:
		b = be.AppendUint16(b, c.UnreliableSeq)
		b = be.AppendUint16(b, uint16(n))
	case CmdSendUnsequenced:
		b = be.AppendUint16(b, c.UnsequencedGroup)
		b = be.AppendUint16(b, uint16(n))
	case CmdSendFragment, CmdSendUnreliableFragment:
		b = be.AppendUint16(b, c.StartSeq)
		b = be.AppendUint16(b, uint16(n))
		b = be.AppendUint32(b, c.FragmentCount)
		b = be.AppendUint32(b, c.FragmentNumber)
		b = be.AppendUint32(b, c.TotalLength)
		b = be.AppendUint32(b, c.FragmentOffset)
	case CmdBandwidthLimit:
		b = be.AppendUint32(b, c.IncomingBandwidth)
		b = be.AppendUint32(b, c.OutgoingBandwidth)
	case CmdThrottleConfigure:
		b = be.AppendUint32(b, c.ThrottleInterval)
		b = be.AppendUint32(b, c.ThrottleAcceleration)
		b = be.AppendUint32(b, c.ThrottleDeceleration)
	}
	return b
}

// Datagram is a parsed datagram: its header and commands.
type Datagram struct {
	Header   Header
	Commands []Command
}

// ParseDatagram parses an uncompressed datagram, appending its commands to d.Commands[:0]. It
// stops at the first malformed command and returns the commands before it with the error. It
// does not verify the checksum (see [Checksum]).
func ParseDatagram(b []byte, checksum bool, d *Datagram) error {
	d.Commands = d.Commands[:0]
	h, n, err := ConsumeHeader(b, checksum)
	d.Header = h
	if err != nil {
		return err
	}
	for n < len(b) {
		c, m, err := ConsumeCommand(b[n:], n)
		if err != nil {
			return err
		}
		d.Commands = append(d.Commands, c)
		n += m
	}
	return nil
}
