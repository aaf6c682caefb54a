package protocol

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

// A Godot 3.2.3 client's CONNECT as captured on this machine kind (spec/enet.md §2; the two
// bandwidth words, elided there, are 0: Godot sets no bandwidth limit).
const godotConnect = "8fffb78c82ff00010000ffff000005780001000000000003000000000000000000001388000000020000000" +
	"2dc3baed6134b4036"

func TestGodotConnect(t *testing.T) {
	b, _ := hex.DecodeString(godotConnect)
	var d Datagram
	if err := ParseDatagram(b, false, &d); err != nil {
		t.Fatal(err)
	}
	h := d.Header
	if h.PeerID != MaximumPeerID || !h.HasSentTime || h.SentTime != 0xb78c || h.SessionID != 0 || h.Compressed {
		t.Fatalf("header %+v", h)
	}
	if len(d.Commands) != 1 {
		t.Fatalf("%d commands", len(d.Commands))
	}
	c := d.Commands[0]
	want := Command{Number: CmdConnect, Flags: FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 1,
		OutgoingPeerID: 0, IncomingSessionID: 0xFF, OutgoingSessionID: 0xFF, MTU: 1400, WindowSize: 65536,
		ChannelCount: 3, ThrottleInterval: 5000, ThrottleAcceleration: 2, ThrottleDeceleration: 2,
		ConnectID: 0xdc3baed6, Data: 323698742}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
	out := AppendHeader(nil, &h, false)
	out = AppendCommand(out, &c)
	if !bytes.Equal(out, b) {
		t.Fatalf("re-encoded %x\nwant        %x", out, b)
	}
}

func TestEveryCommandRoundTrips(t *testing.T) {
	cmds := []Command{
		{Number: CmdAcknowledge, ChannelID: 3, ReliableSeq: 9, ReceivedReliableSeq: 9, ReceivedSentTime: 0xBEEF},
		{Number: CmdConnect, Flags: FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 1, OutgoingPeerID: 7, IncomingSessionID: 1,
			OutgoingSessionID: 2, MTU: 1392, WindowSize: 4096, ChannelCount: 255, IncomingBandwidth: 1, OutgoingBandwidth: 2,
			ThrottleInterval: 3, ThrottleAcceleration: 4, ThrottleDeceleration: 5, ConnectID: 6, Data: 0xFFFFFFFF},
		{Number: CmdVerifyConnect, Flags: FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 1, OutgoingPeerID: 4094, MTU: 576,
			WindowSize: 65536, ChannelCount: 1, ConnectID: 0x01020304},
		{Number: CmdDisconnect, Flags: FlagUnsequenced, ChannelID: 0xFF, Data: 42},
		{Number: CmdPing, Flags: FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 2},
		{Number: CmdSendReliable, Flags: FlagAcknowledge, ChannelID: 1, ReliableSeq: 65535, Payload: []byte("abc")},
		{Number: CmdSendReliable, Flags: FlagAcknowledge, ChannelID: 1, ReliableSeq: 1, Payload: []byte{}},
		{Number: CmdSendUnreliable, ChannelID: 2, ReliableSeq: 3, UnreliableSeq: 4, Payload: []byte("xy")},
		{Number: CmdSendFragment, Flags: FlagAcknowledge, ChannelID: 0, ReliableSeq: 5, StartSeq: 4, FragmentCount: 3,
			FragmentNumber: 1, TotalLength: 3000, FragmentOffset: 1372, Payload: bytes.Repeat([]byte{9}, 100)},
		{Number: CmdSendUnsequenced, Flags: FlagUnsequenced, ChannelID: 3, UnsequencedGroup: 77, Payload: []byte("u")},
		{Number: CmdBandwidthLimit, Flags: FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 3, IncomingBandwidth: 10, OutgoingBandwidth: 20},
		{Number: CmdThrottleConfigure, Flags: FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 4, ThrottleInterval: 1000,
			ThrottleAcceleration: 3, ThrottleDeceleration: 4},
		{Number: CmdSendUnreliableFragment, ChannelID: 0, ReliableSeq: 0, StartSeq: 1, FragmentCount: 2, FragmentNumber: 0,
			TotalLength: 2000, Payload: []byte("frag")},
	}
	for _, checksum := range []bool{false, true} {
		h := Header{PeerID: 12, SessionID: 3, HasSentTime: true, SentTime: 999, Checksum: 0xCAFEBABE}
		b := AppendHeader(nil, &h, checksum)
		for i := range cmds {
			b = AppendCommand(b, &cmds[i])
		}
		var d Datagram
		if err := ParseDatagram(b, checksum, &d); err != nil {
			t.Fatal(err)
		}
		if !checksum {
			h.Checksum = 0
		}
		if d.Header != h {
			t.Fatalf("header %+v want %+v", d.Header, h)
		}
		if len(d.Commands) != len(cmds) {
			t.Fatalf("%d commands, want %d", len(d.Commands), len(cmds))
		}
		for i := range cmds {
			got, want := d.Commands[i], cmds[i]
			if !bytes.Equal(got.Payload, want.Payload) {
				t.Fatalf("%v payload %q want %q", want.Number, got.Payload, want.Payload)
			}
			got.Payload, want.Payload = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
			if CommandSize(want.Number) == 0 {
				t.Fatalf("%v has no size", want.Number)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		hex      string
		checksum bool
		err      error
		offset   int64
	}{
		{"", false, ErrTruncated, 0},
		{"80", false, ErrTruncated, 0},
		{"8000", false, ErrTruncated, 2},
		{"800000", false, ErrTruncated, 2},
		{"000000", true, ErrTruncated, 2},
		{"0000" + "00ff0001", false, ErrUnknownCommand, 2},
		{"0000" + "0dff0001", false, ErrUnknownCommand, 2},
		{"0000" + "01ff0001", false, ErrTruncated, 2},
		{"0000" + "05ff0001" + "06010001", false, ErrTruncated, 6},
		{"0000" + "0601000100", false, ErrTruncated, 2},
		{"0000" + "06010001000561", false, ErrTruncated, 8},
		{"0000" + "080100010001", false, ErrTruncated, 2},
		{"0000" + "02", false, ErrTruncated, 2},
	} {
		b, _ := hex.DecodeString(tc.hex)
		var d Datagram
		err := ParseDatagram(b, tc.checksum, &d)
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, tc.err) || de.Offset != tc.offset {
			t.Errorf("%s: got %v, want %v at offset %d", tc.hex, err, tc.err, tc.offset)
		}
	}
}

// bitCRC is CRC-32 computed bit by bit as C ENet's table encodes it (reflected polynomial
// 0xEDB88320, initial and final inversion), independently of hash/crc32.
func bitCRC(parts ...[]byte) uint32 {
	crc := ^uint32(0)
	for _, p := range parts {
		for _, b := range p {
			crc ^= uint32(b)
			for range 8 {
				if crc&1 != 0 {
					crc = crc>>1 ^ 0xEDB88320
				} else {
					crc >>= 1
				}
			}
		}
	}
	return ^crc
}

// TestChecksum: ENet's checksum is the CRC-32 of the datagram with the connect id (big-endian,
// as C ENet copies it from the wire) in the checksum field. TestChecksumWithCENet checks it
// against C ENet itself.
func TestChecksum(t *testing.T) {
	if got := bitCRC([]byte("123456789")); got != 0xCBF43926 {
		t.Fatalf("bitCRC check value %08x", got)
	}
	b := []byte("\x80\x00\x12\x34\xff\xff\xff\xff\x86\x01\x00\x01\x00\x02hi")
	got := Checksum(b, 8, 0x01020304)
	if want := bitCRC(b[:4], []byte{1, 2, 3, 4}, b[8:]); got != want {
		t.Fatalf("got %08x want %08x", got, want)
	}
	SetChecksum(b, 8, 0x01020304)
	if h, _, _ := ConsumeHeader(b, true); h.Checksum != got {
		t.Fatalf("SetChecksum wrote %08x", h.Checksum)
	}
}

func FuzzParseDatagram(f *testing.F) {
	b, _ := hex.DecodeString(godotConnect)
	f.Add(b, false)
	f.Add([]byte{0x80, 0x00, 0x12, 0x34, 0x86, 0x01, 0x00, 0x01, 0x00, 0x02, 'h', 'i'}, false)
	f.Add([]byte{0x00, 0x00, 0, 0, 0, 0, 0x05, 0xff, 0, 1}, true)
	f.Fuzz(func(t *testing.T, b []byte, checksum bool) {
		var d Datagram
		err := ParseDatagram(b, checksum, &d)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > int64(len(b)) {
				t.Fatalf("error %v", err)
			}
			return
		}
		// A datagram that parses is re-encoded to the same bytes, but for header flags
		// that are not in the peer id field's meaning (none) and unused session bits.
		out := AppendHeader(nil, &d.Header, checksum)
		for i := range d.Commands {
			out = AppendCommand(out, &d.Commands[i])
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("re-encoded %x\nfrom        %x", out, b)
		}
	})
}
