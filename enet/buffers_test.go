package enet

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/gamewire/gamewire/enet/protocol"
)

// TestBufPoolClasses: buffers come in power-of-two classes and go back to their class; foreign
// buffers and buffers over the pool's limit are dropped, so the pool never holds more than
// maxPoolBytes.
func TestBufPoolClasses(t *testing.T) {
	var bp bufPool
	for _, n := range []int{0, 1, 64, 65, 1000, 1024, 1025, maxPoolBuffer} {
		b := bp.get(n)
		if len(b) != n || cap(b) < n || cap(b)&(cap(b)-1) != 0 {
			t.Fatalf("get(%d): len %d cap %d", n, len(b), cap(b))
		}
		bp.put(b)
		if c := bp.get(n); &c[:1][0] != &b[:1][0] {
			t.Fatalf("get(%d) after put: a new buffer, not the one given back", n)
		}
	}
	if b := bp.get(maxPoolBuffer + 1); len(b) != maxPoolBuffer+1 {
		t.Fatalf("get over the largest class: len %d", len(b))
	}
	bp.put(make([]byte, 100)) // not a class size: dropped
	if bp.bytes != 0 {
		t.Fatalf("pool holds %d bytes after a foreign buffer", bp.bytes)
	}
	for range 1000 {
		bp.put(make([]byte, 0, maxPoolBuffer))
	}
	held := 0
	for _, f := range bp.free {
		for _, b := range f {
			held += cap(b)
		}
	}
	if held != bp.bytes || held > maxPoolBytes {
		t.Fatalf("pool holds %d bytes (counted %d), limit %d", held, bp.bytes, maxPoolBytes)
	}
}

// TestReceiveIntoShortBuffer: a packet longer than the buffer stays queued and its length is
// returned with ErrShortBuffer; a buffer that fits gets it, then the next one.
func TestReceiveIntoShortBuffer(t *testing.T) {
	ctx := testCtx(t)
	srv, err := Listen("udp4", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go echo(ctx, srv)
	p, err := Dial(ctx, "udp", srv.LocalAddr().String(), &DialOptions{Channels: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Host().Close()
	big := bytes.Repeat([]byte("0123456789"), 500) // 5000 bytes: fragmented
	if err := p.Send(1, big, Reliable); err != nil {
		t.Fatal(err)
	}
	if err := p.Send(0, []byte("next"), Reliable); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	n, _, _, err := p.ReceiveInto(ctx, buf)
	if !errors.Is(err, ErrShortBuffer) || n != len(big) {
		t.Fatalf("ReceiveInto(100-byte buffer) = %d, %v; want %d, ErrShortBuffer", n, err, len(big))
	}
	buf = make([]byte, n)
	n, ch, flags, err := p.ReceiveInto(ctx, buf)
	if err != nil || ch != 1 || flags != Reliable || !bytes.Equal(buf[:n], big) {
		t.Fatalf("ReceiveInto = %d bytes on %d, %v, %v", n, ch, flags, err)
	}
	n, ch, _, err = p.ReceiveInto(ctx, buf)
	if err != nil || ch != 0 || string(buf[:n]) != "next" {
		t.Fatalf("second packet: %q on %d, %v", buf[:n], ch, err)
	}
}

// TestReassemblyClearsPooledBuffer: a hostile peer's fragments that overlap and leave part of a
// packet unwritten deliver zeros there, never the bytes of a packet that used the buffer before.
func TestReassemblyClearsPooledBuffer(t *testing.T) {
	c := newMemConn()
	h, err := NewHost(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	addr := &net.UDPAddr{IP: net.IPv4(203, 0, 113, 7), Port: 7}
	p := fakePeer(t, h, addr)
	ctx := testCtx(t)
	const total = 3000
	frag := func(seq uint16, num, off uint32, payload []byte) {
		hd := protocol.Header{PeerID: p.id, HasSentTime: true, SentTime: 1, SessionID: p.incomingSessionID}
		b := protocol.AppendHeader(nil, &hd, false)
		b = protocol.AppendCommand(b, &protocol.Command{Number: protocol.CmdSendFragment, Flags: protocol.FlagAcknowledge,
			ChannelID: 0, ReliableSeq: seq + uint16(num), StartSeq: seq, FragmentCount: 2, FragmentNumber: num,
			TotalLength: total, FragmentOffset: off, Payload: payload})
		inject(h, b, addr)
	}
	secret := bytes.Repeat([]byte{0xAA}, total)
	frag(1, 0, 0, secret[:1500])
	frag(1, 1, 1500, secret[1500:])
	buf := make([]byte, total)
	if n, _, _, err := p.ReceiveInto(ctx, buf); err != nil || !bytes.Equal(buf[:n], secret) {
		t.Fatalf("first packet: %d bytes, %v", n, err)
	}
	// Both fragments of the next packet write bytes 0–99 only.
	frag(3, 0, 0, make([]byte, 100))
	frag(3, 1, 0, make([]byte, 100))
	n, _, _, err := p.ReceiveInto(ctx, buf)
	if err != nil || n != total {
		t.Fatalf("second packet: %d bytes, %v", n, err)
	}
	if i := bytes.IndexByte(buf[:n], 0xAA); i >= 0 {
		t.Fatalf("byte %d of a reassembled packet is the previous packet's", i)
	}
}

// TestSteadyStateAllocs: reliable, unreliable and unsequenced round trips between two Go hosts,
// and fragmented ones (reliable and unreliable fragments), sent with Send and received with
// ReceiveInto, allocate nothing once the hosts are warm.
// The server echoes from a goroutine with ReceiveInto, then from a Handler.
func TestSteadyStateAllocs(t *testing.T) {
	for _, handler := range []bool{false, true} {
		t.Run(fmt.Sprintf("handler=%v", handler), func(t *testing.T) { steadyStateAllocs(t, handler) })
	}
}

func steadyStateAllocs(t *testing.T, handler bool) {
	ctx := testCtx(t)
	var so HostOptions
	if handler {
		so.Handler = echoHandler
	}
	srv, err := Listen("udp4", "127.0.0.1:0", &so)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !handler {
		go echo(ctx, srv)
	}
	p, err := Dial(ctx, "udp", srv.LocalAddr().String(), &DialOptions{Channels: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Host().Close()
	buf := make([]byte, 4096)
	for _, c := range []struct {
		n     int
		flags Flags
	}{{1024, Reliable}, {1024, Unsequenced}, {1024, 0}, {3000, Reliable}, {3000, UnreliableFragment}} {
		msg, flags := bytes.Repeat([]byte{7}, c.n), c.flags
		rt := func() {
			if err := p.Send(1, msg, flags); err != nil {
				t.Fatal(err)
			}
			if n, _, _, err := p.ReceiveInto(ctx, buf); err != nil || n != len(msg) {
				t.Fatalf("%v: %d bytes, %v", flags, n, err)
			}
		}
		for range 50 {
			rt()
		}
		// On loopback nothing is lost: an unreliable round trip that would wait forever
		// fails the test at testCtx's deadline.
		if a := testing.AllocsPerRun(500, rt); a > 0.05 {
			t.Errorf("%d-byte %v round trip: %.2f allocations, want 0", c.n, flags, a)
		}
	}
}
