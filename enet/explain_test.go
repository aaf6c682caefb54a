package enet

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/enet/protocol"
	"github.com/gamewire/gamewire/explain"
)

// checkTiles asserts that the leaves of f tile the bits they explain, in order, without gaps.
func checkTiles(t *testing.T, f *explain.Frame) {
	t.Helper()
	next := int64(0)
	var walk func(fs []*explain.Field)
	walk = func(fs []*explain.Field) {
		for _, x := range fs {
			if len(x.Children) > 0 {
				walk(x.Children)
				continue
			}
			if x.Bit != next {
				t.Fatalf("field %s at bit %d, want %d", x.Name, x.Bit, next)
			}
			next = x.Bit + x.Bits
		}
	}
	walk(f.Fields)
	if f.Err == nil && next != f.Bits {
		t.Fatalf("fields end at bit %d of %d", next, f.Bits)
	}
}

func TestExplainGodotConnect(t *testing.T) {
	b, _ := hex.DecodeString("8fffb78c82ff00010000ffff000005780001000000000003000000000000000000001388000000020000000" +
		"2dc3baed6134b4036")
	f := Explain(b)
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	checkTiles(t, f)
	if !strings.Contains(f.Summary, "CONNECT") || f.Format != "enet" {
		t.Fatalf("summary %q", f.Summary)
	}
	var data *explain.Field
	for _, c := range f.Fields[1].Children {
		if c.Name == "data" {
			data = c
		}
	}
	if data == nil || data.Value != uint64(323698742) || data.Offset() != 48 {
		t.Fatalf("data field %+v", data)
	}
}

func TestExplainAllCommandsAndErrors(t *testing.T) {
	cmds := []protocol.Command{
		{Number: protocol.CmdAcknowledge, ChannelID: 1, ReliableSeq: 2, ReceivedReliableSeq: 2, ReceivedSentTime: 3},
		{Number: protocol.CmdVerifyConnect, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 1, MTU: 1400},
		{Number: protocol.CmdDisconnect, Flags: protocol.FlagUnsequenced, ChannelID: 0xFF, Data: 5},
		{Number: protocol.CmdPing, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 2},
		{Number: protocol.CmdSendReliable, Flags: protocol.FlagAcknowledge, ChannelID: 1, ReliableSeq: 1, Payload: []byte("abc")},
		{Number: protocol.CmdSendUnreliable, ChannelID: 2, UnreliableSeq: 1, Payload: []byte("de")},
		{Number: protocol.CmdSendUnsequenced, Flags: protocol.FlagUnsequenced, ChannelID: 3, UnsequencedGroup: 1, Payload: []byte("f")},
		{Number: protocol.CmdSendFragment, Flags: protocol.FlagAcknowledge, ChannelID: 0, ReliableSeq: 2, StartSeq: 2, FragmentCount: 2, TotalLength: 10, Payload: []byte("01234")},
		{Number: protocol.CmdSendUnreliableFragment, ChannelID: 0, StartSeq: 1, FragmentCount: 2, TotalLength: 10, Payload: []byte("01234")},
		{Number: protocol.CmdBandwidthLimit, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 3},
		{Number: protocol.CmdThrottleConfigure, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 4},
	}
	for _, checksum := range []bool{false, true} {
		h := protocol.Header{PeerID: 3, SessionID: 1, HasSentTime: true, SentTime: 77}
		b := protocol.AppendHeader(nil, &h, checksum)
		for i := range cmds {
			b = protocol.AppendCommand(b, &cmds[i])
		}
		f := ExplainOptions{Checksum: checksum}.Explain(b)
		if f.Err != nil {
			t.Fatal(f.Err)
		}
		checkTiles(t, f)
		if len(f.Fields) != 1+len(cmds) {
			t.Fatalf("%d fields", len(f.Fields))
		}
		// Truncated: the fields before the cut, and a typed error at its offset.
		g := ExplainOptions{Checksum: checksum}.Explain(b[:len(b)-2])
		if g.Err == nil || !errors.Is(g.Err, protocol.ErrTruncated) {
			t.Fatalf("truncated: %v", g.Err)
		}
		checkTiles(t, g)
	}
	// A compressed datagram: shown as bytes, or explained with its compressor.
	rc := RangeCoder()
	h := protocol.Header{PeerID: 0, HasSentTime: true, Compressed: true}
	var body []byte
	for range 5 {
		body = protocol.AppendCommand(body, &protocol.Command{Number: protocol.CmdSendReliable, Flags: protocol.FlagAcknowledge, ChannelID: 1, Payload: []byte("hello hello hello")})
	}
	b := append(protocol.AppendHeader(nil, &h, false), rc.Compress(nil, body)...)
	if f := Explain(b); f.Err != nil || len(f.Fields) != 2 || f.Fields[1].Name != "compressed" {
		t.Fatalf("compressed without compressor: %+v", f)
	}
	if f := (ExplainOptions{Compressor: RangeCoder()}).Explain(b); f.Err != nil || len(f.Fields) != 6 {
		t.Fatalf("compressed with the range coder: %v, %d fields", f.Err, len(f.Fields))
	}
}

func FuzzExplain(f *testing.F) {
	b, _ := hex.DecodeString("8000000086010001000a00070e151c232a31383f")
	f.Add(b, false)
	f.Add([]byte{0x40, 0x00, 1, 2, 3}, false)
	f.Add([]byte{0x00, 0x00, 0, 0, 0, 0, 0x05, 0xff, 0, 1}, true)
	f.Fuzz(func(t *testing.T, b []byte, checksum bool) {
		fr := ExplainOptions{Checksum: checksum, Compressor: RangeCoder()}.Explain(b)
		if fr == nil || fr.Format != "enet" {
			t.Fatal("no frame")
		}
		if fr.Context == nil { // positions are in the input only when it was not decompressed
			checkTiles(t, fr)
		}
	})
}
