package enet

import (
	"encoding/hex"
	"fmt"

	"github.com/gamewire/gamewire/enet/protocol"
	"github.com/gamewire/gamewire/explain"
)

// ExplainOptions say how the hosts that exchanged a datagram were configured: ENet's header
// does not say whether a checksum follows it, nor which compressor a compressed datagram used.
type ExplainOptions struct {
	// Checksum says the datagram carries ENet's CRC32 after its header.
	Checksum bool
	// Compressor, when set, decompresses a compressed datagram so that its commands are
	// explained; without it they are shown as compressed bytes.
	Compressor Compressor
}

// Explain explains a datagram of hosts without checksum or compression (Godot's defaults).
func Explain(datagram []byte) *explain.Frame { return ExplainOptions{}.Explain(datagram) }

// Explain returns the datagram's header and commands, every field with its bit range, in the
// model of package explain. A malformed datagram gets the fields read so far and Err.
func (o ExplainOptions) Explain(b []byte) *explain.Frame {
	f := &explain.Frame{Format: "enet", Bits: int64(len(b)) * 8}
	h, hl, err := protocol.ConsumeHeader(b, o.Checksum)
	if err != nil {
		f.Err = explainErr(err)
		f.Summary = "ENet datagram: " + err.Error()
		return f
	}
	hdr := &explain.Field{Name: "header", Type: "header", Bits: int64(hl) * 8}
	peer := "no peer yet (0xFFF)"
	if h.PeerID != protocol.MaximumPeerID {
		peer = fmt.Sprintf("peer %d", h.PeerID)
	}
	hdr.Children = []*explain.Field{
		{Name: "sentTimeFlag", Type: "bit", Bit: 0, Bits: 1, Value: h.HasSentTime, Text: fmt.Sprint(h.HasSentTime), Note: "a sent time follows: the datagram holds reliable commands"},
		{Name: "compressed", Type: "bit", Bit: 1, Bits: 1, Value: h.Compressed, Text: fmt.Sprint(h.Compressed)},
		{Name: "sessionID", Type: "u2", Bit: 2, Bits: 2, Value: int64(h.SessionID), Text: fmt.Sprint(h.SessionID)},
		{Name: "peerID", Type: "u12", Bit: 4, Bits: 12, Value: int64(h.PeerID), Text: fmt.Sprintf("%d", h.PeerID), Note: "the receiver's id for the sender: " + peer},
	}
	at := int64(16)
	if h.HasSentTime {
		hdr.Children = append(hdr.Children, &explain.Field{Name: "sentTime", Type: "u16", Bit: at, Bits: 16, Value: int64(h.SentTime),
			Text: fmt.Sprint(h.SentTime), Note: "the sender's clock in ms, low 16 bits; acknowledgements echo it"})
		at += 16
	}
	if o.Checksum {
		hdr.Children = append(hdr.Children, &explain.Field{Name: "checksum", Type: "u32", Bit: at, Bits: 32, Value: int64(h.Checksum),
			Text: fmt.Sprintf("%#08x", h.Checksum), Note: "CRC32 of the datagram with the connect id in this field"})
	}
	f.Fields = append(f.Fields, hdr)
	body := b[hl:]
	if h.Compressed {
		if o.Compressor == nil {
			f.Fields = append(f.Fields, &explain.Field{Name: "compressed", Type: "bytes", Bit: int64(hl) * 8, Bits: int64(len(body)) * 8,
				Value: preview(body), Text: fmt.Sprintf("%d %s", len(body), plural(len(body), "byte", "bytes")), Note: "commands compressed (say which compressor to see them)"})
			f.Summary = fmt.Sprintf("ENet datagram to %s, %d compressed %s", peer, len(body), plural(len(body), "byte", "bytes"))
			return f
		}
		out, err := o.Compressor.Decompress(append([]byte(nil), b[:hl]...), body, protocol.MaximumMTU)
		if err != nil {
			f.Err = &explain.Error{Bit: int64(hl) * 8, Bits: int64(len(body)) * 8, Msg: err.Error(), Err: err}
			f.Summary = "ENet datagram: " + err.Error()
			return f
		}
		// Explain the decompressed commands; their positions are in the decompressed datagram.
		f.Context = map[string]string{"decompressed": fmt.Sprintf("%d %s", len(out)-hl, plural(len(out)-hl, "byte", "bytes"))}
		b = out
		f.Bits = int64(len(b)) * 8
	}
	var names []string
	off := hl
	for i := 0; off < len(b); i++ {
		c, n, err := protocol.ConsumeCommand(b[off:], off)
		if err != nil {
			f.Err = explainErr(err)
			break
		}
		f.Fields = append(f.Fields, explainCommand(i, &c, off, n))
		names = append(names, c.Number.String())
		off += n
	}
	f.Summary = fmt.Sprintf("ENet datagram to %s: %d %s", peer, len(names), plural(len(names), "command", "commands"))
	if len(names) > 0 {
		f.Summary += " " + fmt.Sprint(names)
	}
	return f
}

func ackNote(ack bool) string {
	if ack {
		return "reliable: the receiver acknowledges it"
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func explainErr(err error) *explain.Error {
	e := &explain.Error{Msg: err.Error(), Err: err}
	if de, ok := err.(*protocol.DecodeError); ok {
		e.Bit = de.Offset * 8
	}
	return e
}

func preview(b []byte) string {
	if len(b) > 64 {
		return hex.EncodeToString(b[:64]) + "…"
	}
	return hex.EncodeToString(b)
}

func explainCommand(i int, c *protocol.Command, off, n int) *explain.Field {
	base := int64(off) * 8
	cf := &explain.Field{Name: fmt.Sprintf("command[%d]", i), Type: c.Number.String(), Bit: base, Bits: int64(n) * 8}
	u := func(name, typ string, byteOff, bytes int, v uint64, note string) {
		cf.Children = append(cf.Children, &explain.Field{Name: name, Type: typ, Bit: base + int64(byteOff)*8, Bits: int64(bytes) * 8,
			Value: v, Text: fmt.Sprint(v), Note: note})
	}
	ack := c.Flags&protocol.FlagAcknowledge != 0
	unseq := c.Flags&protocol.FlagUnsequenced != 0
	cf.Children = append(cf.Children,
		&explain.Field{Name: "acknowledge", Type: "bit", Bit: base, Bits: 1, Value: ack, Text: fmt.Sprint(ack), Note: ackNote(ack)},
		&explain.Field{Name: "unsequenced", Type: "bit", Bit: base + 1, Bits: 1, Value: unseq, Text: fmt.Sprint(unseq)},
		&explain.Field{Name: "reserved", Type: "bits", Bit: base + 2, Bits: 2, Value: uint64(c.Flags>>4) & 3, Text: fmt.Sprint(uint64(c.Flags>>4) & 3)},
		&explain.Field{Name: "command", Type: "u4", Bit: base + 4, Bits: 4, Value: uint64(c.Number), Text: fmt.Sprintf("%d (%s)", c.Number, c.Number)},
	)
	chNote := ""
	if c.ChannelID == 0xFF {
		chNote = "the connection's own channel"
	}
	u("channelID", "u8", 1, 1, uint64(c.ChannelID), chNote)
	u("reliableSequenceNumber", "u16", 2, 2, uint64(c.ReliableSeq), "")
	dataLen := -1
	switch c.Number {
	case protocol.CmdAcknowledge:
		u("receivedReliableSequenceNumber", "u16", 4, 2, uint64(c.ReceivedReliableSeq), "the command acknowledged")
		u("receivedSentTime", "u16", 6, 2, uint64(c.ReceivedSentTime), "its datagram's sent time, for the round trip time")
	case protocol.CmdConnect, protocol.CmdVerifyConnect:
		u("outgoingPeerID", "u16", 4, 2, uint64(c.OutgoingPeerID), "the sender's id for the receiver")
		u("incomingSessionID", "u8", 6, 1, uint64(c.IncomingSessionID), "")
		u("outgoingSessionID", "u8", 7, 1, uint64(c.OutgoingSessionID), "")
		u("mtu", "u32", 8, 4, uint64(c.MTU), "")
		u("windowSize", "u32", 12, 4, uint64(c.WindowSize), "")
		u("channelCount", "u32", 16, 4, uint64(c.ChannelCount), "")
		u("incomingBandwidth", "u32", 20, 4, uint64(c.IncomingBandwidth), "bytes/s, 0: unlimited")
		u("outgoingBandwidth", "u32", 24, 4, uint64(c.OutgoingBandwidth), "bytes/s, 0: unlimited")
		u("packetThrottleInterval", "u32", 28, 4, uint64(c.ThrottleInterval), "ms")
		u("packetThrottleAcceleration", "u32", 32, 4, uint64(c.ThrottleAcceleration), "")
		u("packetThrottleDeceleration", "u32", 36, 4, uint64(c.ThrottleDeceleration), "")
		u("connectID", "u32", 40, 4, uint64(c.ConnectID), "random, echoed by VERIFY_CONNECT")
		if c.Number == protocol.CmdConnect {
			u("data", "u32", 44, 4, uint64(c.Data), "user data (Godot: the client's peer id)")
		}
	case protocol.CmdDisconnect:
		u("data", "u32", 4, 4, uint64(c.Data), "user data")
	case protocol.CmdSendReliable:
		u("dataLength", "u16", 4, 2, uint64(len(c.Payload)), "")
		dataLen = 6
	case protocol.CmdSendUnreliable:
		u("unreliableSequenceNumber", "u16", 4, 2, uint64(c.UnreliableSeq), "")
		u("dataLength", "u16", 6, 2, uint64(len(c.Payload)), "")
		dataLen = 8
	case protocol.CmdSendUnsequenced:
		u("unsequencedGroup", "u16", 4, 2, uint64(c.UnsequencedGroup), "")
		u("dataLength", "u16", 6, 2, uint64(len(c.Payload)), "")
		dataLen = 8
	case protocol.CmdSendFragment, protocol.CmdSendUnreliableFragment:
		u("startSequenceNumber", "u16", 4, 2, uint64(c.StartSeq), "the first fragment's sequence number")
		u("dataLength", "u16", 6, 2, uint64(len(c.Payload)), "")
		u("fragmentCount", "u32", 8, 4, uint64(c.FragmentCount), "")
		u("fragmentNumber", "u32", 12, 4, uint64(c.FragmentNumber), "")
		u("totalLength", "u32", 16, 4, uint64(c.TotalLength), "the whole packet's length")
		u("fragmentOffset", "u32", 20, 4, uint64(c.FragmentOffset), "")
		dataLen = 24
	case protocol.CmdBandwidthLimit:
		u("incomingBandwidth", "u32", 4, 4, uint64(c.IncomingBandwidth), "bytes/s, 0: unlimited")
		u("outgoingBandwidth", "u32", 8, 4, uint64(c.OutgoingBandwidth), "bytes/s, 0: unlimited")
	case protocol.CmdThrottleConfigure:
		u("packetThrottleInterval", "u32", 4, 4, uint64(c.ThrottleInterval), "ms")
		u("packetThrottleAcceleration", "u32", 8, 4, uint64(c.ThrottleAcceleration), "")
		u("packetThrottleDeceleration", "u32", 12, 4, uint64(c.ThrottleDeceleration), "")
	}
	if dataLen >= 0 {
		cf.Children = append(cf.Children, &explain.Field{Name: "data", Type: "bytes", Bit: base + int64(dataLen)*8,
			Bits: int64(len(c.Payload)) * 8, Value: preview(c.Payload), Text: fmt.Sprintf("%d %s", len(c.Payload), plural(len(c.Payload), "byte", "bytes"))})
	}
	cf.Text = fmt.Sprintf("%s on channel %d, seq %d", c.Number, c.ChannelID, c.ReliableSeq)
	return cf
}
