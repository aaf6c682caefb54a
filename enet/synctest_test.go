package enet

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// memNet is an in-memory datagram network for tests in a synctest bubble: conns by address,
// and a switch that cuts every link.
type memNet struct {
	mu    sync.Mutex
	conns map[string]*netConn
	cut   bool
}

type netConn struct {
	net    *memNet
	addr   *net.UDPAddr
	in     chan memDatagram
	closed chan struct{}
	once   sync.Once
}

func (n *memNet) listen(port int) *netConn {
	c := &netConn{net: n, addr: &net.UDPAddr{IP: net.IPv4(10, 0, 0, 1), Port: port}, in: make(chan memDatagram, 256), closed: make(chan struct{})}
	n.mu.Lock()
	if n.conns == nil {
		n.conns = map[string]*netConn{}
	}
	n.conns[c.addr.String()] = c
	n.mu.Unlock()
	return c
}

func (c *netConn) ReadFrom(b []byte) (int, net.Addr, error) {
	select {
	case d := <-c.in:
		return copy(b, d.b), d.from, nil
	case <-c.closed:
		return 0, nil, net.ErrClosed
	}
}

func (c *netConn) WriteTo(b []byte, a net.Addr) (int, error) {
	c.net.mu.Lock()
	dst, cut := c.net.conns[a.String()], c.net.cut
	c.net.mu.Unlock()
	if dst != nil && !cut {
		select {
		case dst.in <- memDatagram{append([]byte(nil), b...), c.addr}:
		default:
		}
	}
	return len(b), nil
}

func (c *netConn) Close() error                     { c.once.Do(func() { close(c.closed) }); return nil }
func (c *netConn) LocalAddr() net.Addr              { return c.addr }
func (c *netConn) SetDeadline(time.Time) error      { return nil }
func (c *netConn) SetReadDeadline(time.Time) error  { return nil }
func (c *netConn) SetWriteDeadline(time.Time) error { return nil }

// TestPeerTimeoutInBubble: in a synctest bubble (fake time), a connected peer whose link is cut
// times out as C ENet's timeout rules say: not before MinimumTimeout (5 s) after the first
// unacknowledged command, and by MaximumTimeout (30 s); the half-open peer on the other side of
// a handshake that never completes is forgotten after HandshakeTimeout.
func TestPeerTimeoutInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mn memNet
		srv, err := NewHost(mn.listen(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		cli, err := NewHost(mn.listen(2), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cli.Close()
		ctx := context.Background()
		go echo(ctx, srv)
		p, err := cli.ConnectAddr(ctx, srv.LocalAddr(), 1, 7)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Send(0, []byte("ping"), Reliable); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		mn.mu.Lock()
		mn.cut = true
		mn.mu.Unlock()
		start := time.Now()
		p.Send(0, []byte("lost"), Reliable)
		_, err = p.Receive(ctx)
		elapsed := time.Since(start)
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("got %v, want a timeout", err)
		}
		if elapsed < DefaultMinimumTimeout || elapsed > DefaultMaximumTimeout+time.Second {
			t.Fatalf("timed out after %v (want between %v and %v)", elapsed, DefaultMinimumTimeout, DefaultMaximumTimeout)
		}
		t.Logf("timed out after %v of fake time", elapsed)

		// A CONNECT whose VERIFY_CONNECT is never acknowledged: the server forgets the
		// half-open peer after HandshakeTimeout.
		mn.mu.Lock()
		mn.cut = false
		mn.mu.Unlock()
		spoof := mn.listen(3)
		spoof.WriteTo(connectDatagram(99, 0), srv.LocalAddr())
		synctest.Wait()
		count := func() int {
			srv.mu.Lock()
			defer srv.mu.Unlock()
			n := 0
			for _, q := range srv.peers {
				if q != nil && q.state == stateAckConnect {
					n++
				}
			}
			return n
		}
		if count() != 1 {
			t.Fatalf("%d half-open peers, want 1", count())
		}
		time.Sleep(DefaultHandshakeTimeout + serviceInterval) // fake time: the bubble's clock
		synctest.Wait()
		if count() != 0 {
			t.Fatal("the half-open peer is still held after HandshakeTimeout")
		}
	})
}

// TestBandwidthLimitInBubble: a second after a peer connects, a host with an incoming bandwidth
// shares it among its peers and tells each its part (BANDWIDTH_LIMIT), as
// enet_host_bandwidth_throttle does; the client's window follows.
func TestBandwidthLimitInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mn memNet
		srv, err := NewHost(mn.listen(1), &HostOptions{IncomingBandwidth: 100_000, OutgoingBandwidth: 300_000})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		cli, err := NewHost(mn.listen(2), &HostOptions{OutgoingBandwidth: 50_000})
		if err != nil {
			t.Fatal(err)
		}
		defer cli.Close()
		ctx := context.Background()
		go echo(ctx, srv)
		p, err := cli.ConnectAddr(ctx, srv.LocalAddr(), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		cli.mu.Lock()
		before := p.incomingBandwidth
		cli.mu.Unlock()
		if before != 100_000 {
			t.Fatalf("VERIFY_CONNECT gave the server's incoming bandwidth as %d", before)
		}
		time.Sleep(bandwidthThrottleInterval*time.Millisecond + 3*serviceInterval)
		synctest.Wait()
		cli.mu.Lock()
		in, out, win := p.incomingBandwidth, p.outgoingBandwidth, p.windowSize
		cli.mu.Unlock()
		// The one peer's part of 100 000 B/s is more than its own 50 000: it is told to use its
		// own outgoing bandwidth; the server's outgoing bandwidth comes along.
		if in != 50_000 || out != 300_000 {
			t.Fatalf("after BANDWIDTH_LIMIT: incoming %d outgoing %d, want 50000 and 300000", in, out)
		}
		if win != 4096 { // min(50 000, the client's own 50 000) / 65 536 × 4096 = 0, raised to 4096
			t.Fatalf("window %d", win)
		}
	})
}
