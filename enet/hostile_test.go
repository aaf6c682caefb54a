package enet

import (
	"context"
	"net"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gamewire/gamewire/enet/protocol"
)

// memConn is an in-memory net.PacketConn: tests inject datagrams from any address and count
// what the host sends.
type memConn struct {
	in      chan memDatagram
	mu      sync.Mutex
	sent    map[string]int // bytes sent per address
	packets int
	closed  chan struct{}
	once    sync.Once
}

type memDatagram struct {
	b    []byte
	from net.Addr
}

func newMemConn() *memConn {
	return &memConn{in: make(chan memDatagram, 1024), sent: map[string]int{}, closed: make(chan struct{})}
}

func (c *memConn) ReadFrom(b []byte) (int, net.Addr, error) {
	select {
	case d := <-c.in:
		return copy(b, d.b), d.from, nil
	case <-c.closed:
		return 0, nil, net.ErrClosed
	}
}

func (c *memConn) WriteTo(b []byte, a net.Addr) (int, error) {
	c.mu.Lock()
	c.sent[a.String()] += len(b)
	c.packets++
	c.mu.Unlock()
	return len(b), nil
}

func (c *memConn) Close() error                     { c.once.Do(func() { close(c.closed) }); return nil }
func (c *memConn) LocalAddr() net.Addr              { return &net.UDPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

func (c *memConn) sentTo(a string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent[a]
}

// connectDatagram is a CONNECT as C ENet 1.3.17 sends it.
func connectDatagram(connectID, data uint32) []byte {
	h := protocol.Header{PeerID: protocol.MaximumPeerID, HasSentTime: true, SentTime: 1}
	b := protocol.AppendHeader(nil, &h, false)
	c := protocol.Command{Number: protocol.CmdConnect, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 1,
		IncomingSessionID: 0xFF, OutgoingSessionID: 0xFF, MTU: 1400, WindowSize: 65536, ChannelCount: 4,
		ThrottleInterval: 5000, ThrottleAcceleration: 2, ThrottleDeceleration: 2, ConnectID: connectID, Data: data}
	return protocol.AppendCommand(b, &c)
}

// inject hands h a datagram from addr synchronously (as its read loop would).
func inject(h *Host, b []byte, addr *net.UDPAddr) *Peer {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.now = h.clock()
	h.recvAddr = keyOf(addr)
	p := h.handleDatagram(b, addr)
	if p != nil && p.state != stateDisconnected {
		h.flushPeer(p, false)
	}
	return p
}

// fakePeer connects a peer from addr to h by hand: CONNECT, then the ACK of VERIFY_CONNECT.
func fakePeer(t testing.TB, h *Host, addr *net.UDPAddr) *Peer {
	t.Helper()
	p := inject(h, connectDatagram(0x11223344, 7), addr)
	if p == nil {
		t.Fatal("CONNECT refused")
	}
	h.mu.Lock()
	now := uint16(h.clock())
	h.mu.Unlock()
	hd := protocol.Header{PeerID: p.id, HasSentTime: true, SentTime: now, SessionID: p.incomingSessionID}
	b := protocol.AppendHeader(nil, &hd, false)
	b = protocol.AppendCommand(b, &protocol.Command{Number: protocol.CmdAcknowledge, ChannelID: 0xFF, ReliableSeq: 1,
		ReceivedReliableSeq: 1, ReceivedSentTime: now})
	inject(h, b, addr)
	if p.state != stateConnected {
		t.Fatalf("fake peer in state %d", p.state)
	}
	return p
}

// TestNoAmplification: spoofed CONNECTs (from addresses that never answer) make the host send
// less than it received, per address, however often they come and however long it waits.
func TestNoAmplification(t *testing.T) {
	// In a bubble: the handshake timeout and the resend timers run on fake time.
	synctest.Test(t, func(t *testing.T) {
		c := newMemConn()
		h, err := NewHost(c, &HostOptions{HandshakeTimeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		received := map[string]int{}
		for i := range 200 {
			a := &net.UDPAddr{IP: net.IPv4(192, 0, 2, byte(i)), Port: 1000 + i}
			d := connectDatagram(uint32(i), 0)
			for range 1 + i%3 { // some spoofers repeat their CONNECT
				inject(h, d, a)
				received[a.String()] += len(d)
			}
		}
		// Let resend timers and the handshake timeout run: wait until every half-open peer is gone.
		h.mu.Lock()
		var half []*Peer
		for _, p := range h.peers {
			if p != nil {
				half = append(half, p)
			}
		}
		h.mu.Unlock()
		if len(half) != 200 {
			t.Fatalf("%d half-open peers, want 200", len(half))
		}
		timeout := time.After(5 * time.Second)
		for _, p := range half {
			select {
			case <-p.done:
			case <-timeout:
				t.Fatal("half-open peers still held 5 s after HandshakeTimeout (300 ms)")
			}
		}
		for a, in := range received {
			if out := c.sentTo(a); out > in {
				t.Errorf("%s: sent %d bytes for %d received", a, out, in)
			}
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, p := range h.peers {
			if p != nil {
				t.Fatalf("half-open peer %d still held after HandshakeTimeout", p.id)
			}
		}
	})
}

// TestHalfOpenPeersMemory measures what a half-open peer (CONNECT received, VERIFY_CONNECT
// not acknowledged) costs: the host holds at most MaxConns of them (the protocol's 4095), the
// rest of 10 000 spoofed CONNECTs are dropped.
func TestHalfOpenPeersMemory(t *testing.T) {
	c := newMemConn()
	h, err := NewHost(c, &HostOptions{MaxConnsPerIP: NoLimit, HandshakeTimeout: 10 * time.Minute,
		MinimumTimeout: 10 * time.Minute, MaximumTimeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 10000 {
		a := &net.UDPAddr{IP: net.IPv4(198, 18, byte(i>>8), byte(i)), Port: 4000}
		inject(h, connectDatagram(uint32(i), 0), a)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	h.mu.Lock()
	n := 0
	for _, p := range h.peers {
		if p != nil {
			n++
		}
	}
	h.mu.Unlock()
	if n != DefaultMaxConns {
		t.Fatalf("%d half-open peers held, want %d", n, DefaultMaxConns)
	}
	per := float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	t.Logf("%d half-open peers (4 channels each): %.0f bytes each", n, per)
	if per > 4096 {
		t.Fatalf("a half-open peer costs %.0f bytes (budget 4096)", per)
	}
}

// TestFragmentFlood: a peer that starts many huge fragmented packets and never finishes them
// is held to its share of MaxBufferedBytes; a well-behaved peer beside it is not disturbed.
func TestFragmentFlood(t *testing.T) {
	c := newMemConn()
	h, err := NewHost(c, &HostOptions{MaxBufferedBytes: 8 << 20, MaxMessageBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	bad := &net.UDPAddr{IP: net.IPv4(203, 0, 113, 1), Port: 1}
	good := &net.UDPAddr{IP: net.IPv4(203, 0, 113, 2), Port: 2}
	pb := fakePeer(t, h, bad)
	pg := fakePeer(t, h, good)
	for i := range 5000 {
		hd := protocol.Header{PeerID: pb.id, HasSentTime: true, SentTime: 1, SessionID: pb.incomingSessionID}
		b := protocol.AppendHeader(nil, &hd, false)
		seq := uint16(2 + i*3)
		b = protocol.AppendCommand(b, &protocol.Command{Number: protocol.CmdSendFragment, Flags: protocol.FlagAcknowledge,
			ChannelID: uint8(i % 4), ReliableSeq: seq, StartSeq: seq, FragmentCount: 1000, FragmentNumber: 0,
			TotalLength: 1 << 20, Payload: make([]byte, 100)})
		inject(h, b, bad)
	}
	h.mu.Lock()
	waiting, buffered, budget := pb.waiting, h.buffered, h.o.peerBudget
	h.mu.Unlock()
	t.Logf("flooding peer holds %d bytes (budget %d); host %d", waiting, budget, buffered)
	if waiting > budget || buffered > 8<<20 {
		t.Fatalf("flooding peer holds %d bytes, host %d", waiting, buffered)
	}
	// The good peer's reliable packet still gets through.
	hd := protocol.Header{PeerID: pg.id, HasSentTime: true, SentTime: 1, SessionID: pg.incomingSessionID}
	b := protocol.AppendHeader(nil, &hd, false)
	b = protocol.AppendCommand(b, &protocol.Command{Number: protocol.CmdSendReliable, Flags: protocol.FlagAcknowledge,
		ChannelID: 1, ReliableSeq: 1, Payload: []byte("still here")})
	inject(h, b, good)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pk, err := pg.Receive(ctx)
	if err != nil || string(pk.Data) != "still here" {
		t.Fatalf("good peer: %q, %v", pk.Data, err)
	}
}

// FuzzHostDatagram feeds arbitrary commands, under a valid header, to a host with a connected
// peer: no panic, the buffer accounting stays within its limits and is never negative.
func FuzzHostDatagram(f *testing.F) {
	seed := func(cmds ...protocol.Command) []byte {
		var b []byte
		for i := range cmds {
			b = protocol.AppendCommand(b, &cmds[i])
		}
		return b
	}
	f.Add(seed(protocol.Command{Number: protocol.CmdSendReliable, Flags: protocol.FlagAcknowledge, ChannelID: 1, ReliableSeq: 1, Payload: []byte("x")}))
	f.Add(seed(
		protocol.Command{Number: protocol.CmdSendFragment, Flags: protocol.FlagAcknowledge, ChannelID: 0, ReliableSeq: 1, StartSeq: 1, FragmentCount: 2, FragmentNumber: 1, TotalLength: 8, FragmentOffset: 4, Payload: []byte("5678")},
		protocol.Command{Number: protocol.CmdSendFragment, Flags: protocol.FlagAcknowledge, ChannelID: 0, ReliableSeq: 2, StartSeq: 1, FragmentCount: 2, FragmentNumber: 0, TotalLength: 8, Payload: []byte("1234")}))
	f.Add(seed(
		protocol.Command{Number: protocol.CmdSendUnreliableFragment, ChannelID: 2, StartSeq: 1, FragmentCount: 2, FragmentNumber: 0, TotalLength: 6, Payload: []byte("abc")},
		protocol.Command{Number: protocol.CmdSendUnreliableFragment, ChannelID: 2, StartSeq: 1, FragmentCount: 2, FragmentNumber: 1, TotalLength: 6, FragmentOffset: 3, Payload: []byte("def")}))
	f.Add(seed(protocol.Command{Number: protocol.CmdSendUnsequenced, Flags: protocol.FlagUnsequenced, ChannelID: 3, UnsequencedGroup: 40000, Payload: []byte("u")}))
	f.Add(seed(protocol.Command{Number: protocol.CmdSendUnreliable, ChannelID: 1, ReliableSeq: 3, UnreliableSeq: 1, Payload: []byte("later")},
		protocol.Command{Number: protocol.CmdBandwidthLimit, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 2, IncomingBandwidth: 1000},
		protocol.Command{Number: protocol.CmdThrottleConfigure, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 3, ThrottleInterval: 1},
		protocol.Command{Number: protocol.CmdPing, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 4},
		protocol.Command{Number: protocol.CmdDisconnect, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 5}))
	c := newMemConn()
	h, err := NewHost(c, &HostOptions{MaxBufferedBytes: 1 << 20, MaxMessageBytes: 64 << 10})
	if err != nil {
		f.Fatal(err)
	}
	defer h.Close()
	addr := &net.UDPAddr{IP: net.IPv4(203, 0, 113, 9), Port: 9}
	var p *Peer
	f.Fuzz(func(t *testing.T, body []byte) {
		if p == nil || p.state != stateConnected {
			if p != nil {
				h.mu.Lock()
				h.finish(p, nil)
				h.mu.Unlock()
			}
			p = fakePeer(t, h, addr)
		}
		// Split the input into datagrams at 0xFE 0xFE, each under a valid header.
		for len(body) > 0 {
			part := body
			for i := 0; i+1 < len(body); i++ {
				if body[i] == 0xFE && body[i+1] == 0xFE {
					part, body = body[:i], body[i+2:]
					break
				}
			}
			if len(part) == len(body) {
				body = nil
			}
			hd := protocol.Header{PeerID: p.id, HasSentTime: true, SentTime: 7, SessionID: p.incomingSessionID}
			b := protocol.AppendHeader(nil, &hd, false)
			inject(h, append(b, part...), addr)
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.buffered < 0 || p.waiting < 0 || h.buffered > 1<<20 || p.waiting > h.o.peerBudget {
			t.Fatalf("accounting: host %d peer %d", h.buffered, p.waiting)
		}
		// Drain delivered packets so the budget frees.
		for _, pk := range p.recvQ[p.recvHead:] {
			c := len(pk.Data) + inCmdOverhead
			if p.state != stateDisconnected {
				p.waiting -= c
				h.buffered -= c
			}
		}
		p.recvQ, p.recvHead = nil, 0
	})
}

// TestFuzzedDatagramsBesideGoodPeer: random and mutated datagrams (3000 a second) hit a running
// host from other sockets (claiming every peer id and session, with valid and broken commands) while a
// well-behaved client exchanges reliable packets with it; the client notices nothing.
func TestFuzzedDatagramsBesideGoodPeer(t *testing.T) {
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

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.ListenPacket("udp4", "127.0.0.1:0")
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			seeds := [][]byte{connectDatagram(1, 2)}
			for i := range 4 {
				hd := protocol.Header{PeerID: uint16(i), SessionID: uint8(i), HasSentTime: true}
				b := protocol.AppendHeader(nil, &hd, false)
				b = protocol.AppendCommand(b, &protocol.Command{Number: protocol.CmdSendFragment, Flags: protocol.FlagAcknowledge,
					ChannelID: 1, ReliableSeq: 1, StartSeq: 1, FragmentCount: 3, TotalLength: 3000, Payload: make([]byte, 100)})
				b = protocol.AppendCommand(b, &protocol.Command{Number: protocol.CmdDisconnect, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF, ReliableSeq: 9})
				seeds = append(seeds, b)
			}
			rnd := uint64(w + 1)
			next := func() uint64 { rnd ^= rnd << 13; rnd ^= rnd >> 7; rnd ^= rnd << 17; return rnd }
			sent := 0
			// 1000 datagrams a second each: a flood that fills the socket's buffer would make
			// any host lose the good peer's datagrams; this is about what the host does with
			// what it reads.
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					t.Logf("fuzzer %d sent %d datagrams", w, sent)
					return
				case <-tick.C:
				}
				b := append([]byte(nil), seeds[next()%uint64(len(seeds))]...)
				for range 1 + next()%4 {
					if len(b) > 0 {
						b[next()%uint64(len(b))] = byte(next())
					}
				}
				if next()%5 == 0 {
					b = make([]byte, next()%200)
					for i := range b {
						b[i] = byte(next())
					}
				}
				c.WriteTo(b, srv.LocalAddr())
				sent++
			}
		}()
	}
	for range 6 {
		reliableOverLoss(t, ctx, p, 500)
	}
	close(stop)
	wg.Wait()
	if err := p.Err(); err != nil {
		t.Fatalf("the good client was disturbed: %v", err)
	}
	st := srv.Stats()
	t.Logf("host: %d datagrams received, %d dropped", st.DatagramsReceived, st.DatagramsDropped)
}
