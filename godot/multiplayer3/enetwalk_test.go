package multiplayer3

import (
	"encoding/binary"
	"fmt"

	"github.com/gamewire/gamewire/enet"
)

// This file reads the ENet datagrams of the recordings: just enough of ENet 1.3's protocol
// (protocol.h) to take the packets out of uncompressed datagrams without checksums, as Godot 3.2.3
// sends them by default. The enet package is the real parser; this one only serves the tests of
// the layer above it.

// enetCommandSizes are the fixed sizes of ENet's commands (enet_protocol_command_size), by
// command number.
var enetCommandSizes = [...]int{0, 8, 48, 44, 8, 4, 6, 8, 24, 8, 12, 16, 24}

const (
	enetSendReliable            = 6
	enetSendUnreliable          = 7
	enetSendFragment            = 8
	enetSendUnsequenced         = 9
	enetSendUnreliableFragment  = 12
	enetHeaderFlagSentTime      = 0x8000
	enetHeaderFlagCompressed    = 0x4000
	enetCommandFlagAcknowledge  = 0x80
	enetCommandFlagUnsequenced  = 0x40
	enetCommandConnect          = 2
	enetCommandDisconnect       = 4
	enetCommandMask             = 0x0f
	enetConnectDataOffset       = 44 // the data field of CONNECT, from the command's start
	enetVerifyConnectPeerOffset = 4
)

// enetCommand is one command of a datagram that carries data.
type enetCommand struct {
	Command     uint8 // without flags
	Flags       uint8
	Channel     uint8
	ReliableSeq uint16
	Data        []byte
	// fragments
	StartSeq                  uint16
	FragCount, FragNum, Total uint32
	FragOffset                uint32
	// CONNECT
	ConnectData uint32
}

// enetWalk returns the commands of one datagram, decompressed with comp when it is compressed.
func enetWalk(d []byte, comp enet.Compressor) ([]enetCommand, error) {
	if len(d) < 2 {
		return nil, fmt.Errorf("datagram of %d bytes", len(d))
	}
	flags := binary.BigEndian.Uint16(d)
	off := 2
	if flags&enetHeaderFlagSentTime != 0 {
		off += 2
	}
	if flags&enetHeaderFlagCompressed != 0 {
		if comp == nil || off > len(d) {
			return nil, fmt.Errorf("compressed datagram")
		}
		plain, err := comp.Decompress(append([]byte(nil), d[:off]...), d[off:], 1<<16)
		if err != nil {
			return nil, fmt.Errorf("decompressing: %w", err)
		}
		d = plain
	}
	var out []enetCommand
	for off < len(d) {
		if off+4 > len(d) {
			return nil, fmt.Errorf("command header truncated at %d", off)
		}
		c := enetCommand{Command: d[off] & enetCommandMask, Flags: d[off] &^ enetCommandMask, Channel: d[off+1], ReliableSeq: binary.BigEndian.Uint16(d[off+2:])}
		if int(c.Command) >= len(enetCommandSizes) || c.Command == 0 {
			return nil, fmt.Errorf("unknown command %d at %d", c.Command, off)
		}
		size := enetCommandSizes[c.Command]
		if off+size > len(d) {
			return nil, fmt.Errorf("command %d truncated at %d", c.Command, off)
		}
		cmd := d[off : off+size]
		dataLen := 0
		switch c.Command {
		case enetSendReliable:
			dataLen = int(binary.BigEndian.Uint16(cmd[4:]))
		case enetSendUnreliable, enetSendUnsequenced:
			dataLen = int(binary.BigEndian.Uint16(cmd[6:]))
		case enetSendFragment, enetSendUnreliableFragment:
			c.StartSeq = binary.BigEndian.Uint16(cmd[4:])
			dataLen = int(binary.BigEndian.Uint16(cmd[6:]))
			c.FragCount = binary.BigEndian.Uint32(cmd[8:])
			c.FragNum = binary.BigEndian.Uint32(cmd[12:])
			c.Total = binary.BigEndian.Uint32(cmd[16:])
			c.FragOffset = binary.BigEndian.Uint32(cmd[20:])
		case enetCommandConnect:
			c.ConnectData = binary.BigEndian.Uint32(cmd[enetConnectDataOffset:])
		}
		off += size
		if off+dataLen > len(d) {
			return nil, fmt.Errorf("data of command %d truncated at %d", c.Command, off)
		}
		c.Data = d[off : off+dataLen]
		off += dataLen
		out = append(out, c)
	}
	return out, nil
}

// enetPacket is one packet that an ENet peer delivered, reassembled.
type enetPacket struct {
	Channel uint8
	Flags   string // "reliable", "unreliable" or "unsequenced"
	Data    []byte
}

// enetStream turns the datagrams one side sent into the packets it sent, in order:
// reliable resends are dropped, fragments joined.
type enetStream struct {
	comp  enet.Compressor
	seen  map[[2]uint16]bool // channel, reliable sequence number
	frags map[[2]uint32]*fragBuf
}

type fragBuf struct {
	data []byte
	got  map[uint32]bool
	n    uint32
}

func (s *enetStream) add(d []byte) ([]enetPacket, []enetCommand, error) {
	if s.seen == nil {
		s.seen, s.frags = map[[2]uint16]bool{}, map[[2]uint32]*fragBuf{}
	}
	cmds, err := enetWalk(d, s.comp)
	if err != nil {
		return nil, nil, err
	}
	var out []enetPacket
	for _, c := range cmds {
		reliable := c.Flags&enetCommandFlagAcknowledge != 0
		if reliable && c.Channel != 0xff {
			k := [2]uint16{uint16(c.Channel), c.ReliableSeq}
			if s.seen[k] {
				continue // a resend
			}
			s.seen[k] = true
		}
		switch c.Command {
		case enetSendReliable:
			out = append(out, enetPacket{c.Channel, "reliable", c.Data})
		case enetSendUnreliable:
			out = append(out, enetPacket{c.Channel, "unreliable", c.Data})
		case enetSendUnsequenced:
			out = append(out, enetPacket{c.Channel, "unsequenced", c.Data})
		case enetSendFragment, enetSendUnreliableFragment:
			k := [2]uint32{uint32(c.Channel), uint32(c.StartSeq)}
			f := s.frags[k]
			if f == nil {
				if c.Total > 1<<24 {
					return nil, nil, fmt.Errorf("fragmented packet of %d bytes", c.Total)
				}
				f = &fragBuf{data: make([]byte, c.Total), got: map[uint32]bool{}}
				s.frags[k] = f
			}
			if !f.got[c.FragNum] && int(c.FragOffset)+len(c.Data) <= len(f.data) {
				f.got[c.FragNum] = true
				copy(f.data[c.FragOffset:], c.Data)
				f.n++
			}
			if f.n == c.FragCount {
				delete(s.frags, k)
				kind := "reliable"
				if c.Command == enetSendUnreliableFragment {
					kind = "unreliable"
				}
				out = append(out, enetPacket{c.Channel, kind, f.data})
			}
		}
	}
	return out, cmds, nil
}
