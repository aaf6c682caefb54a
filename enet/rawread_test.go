package enet

import (
	"fmt"
	"net"
	"sync"
	"testing"
)

// TestReadAddressFamilies: the read loop takes the source address of IPv4, IPv6 and
// IPv4-mapped datagrams (a dual-stack socket) as the peer's, so the handshake and a round trip
// work on each.
func TestReadAddressFamilies(t *testing.T) {
	for _, c := range []struct{ name, network, listen, dial string }{
		{"IPv4", "udp4", "127.0.0.1:0", "127.0.0.1"},
		{"IPv6", "udp6", "[::1]:0", "::1"},
		{"dual stack, IPv4 client", "udp", "[::]:0", "127.0.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := testCtx(t)
			srv, err := Listen(c.network, c.listen, nil)
			if err != nil {
				t.Skipf("no %s socket here: %v", c.network, err)
			}
			defer srv.Close()
			go echo(ctx, srv)
			_, port, _ := net.SplitHostPort(srv.LocalAddr().String())
			p, err := Dial(ctx, "udp", net.JoinHostPort(c.dial, port), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Host().Close()
			if err := p.Send(0, []byte("hi"), Reliable); err != nil {
				t.Fatal(err)
			}
			pk, err := p.Receive(ctx)
			if err != nil || string(pk.Data) != "hi" {
				t.Fatalf("echo: %q, %v", pk.Data, err)
			}
		})
	}
}

// TestOversizedDatagramDropped: a datagram longer than the protocol's largest MTU (4096 bytes,
// C ENet's receive buffer) is counted and dropped, and the host goes on serving.
func TestOversizedDatagramDropped(t *testing.T) {
	ctx := testCtx(t)
	srv, err := Listen("udp4", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go echo(ctx, srv)
	p, err := Dial(ctx, "udp", srv.LocalAddr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Host().Close()
	before := srv.Stats().DatagramsDropped
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	big := make([]byte, 5000)
	big[0], big[1] = 0x80, 0x00 // peer 0, with a sent time: the rest is zeros
	if _, err := c.WriteTo(big, srv.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	// The big datagram is in the server's socket before the client's packet.
	if err := p.Send(0, []byte("after"), Reliable); err != nil {
		t.Fatal(err)
	}
	if pk, err := p.Receive(ctx); err != nil || string(pk.Data) != "after" {
		t.Fatalf("echo after the oversized datagram: %q, %v", pk.Data, err)
	}
	if d := srv.Stats().DatagramsDropped - before; d < 1 {
		t.Fatalf("%d datagrams dropped, want the oversized one", d)
	}
}

// TestManyPeersBatched: 50 peers of one client host exchange packets with a server at once, so
// that the server's flushes and its handler's answers go to several peers together (one
// sendmmsg on Linux), on an IPv4 and a dual-stack socket: every packet comes back, in order.
func TestManyPeersBatched(t *testing.T) {
	for _, c := range []struct {
		name, network, listen string
		handler               bool
	}{
		{"IPv4, Receive", "udp4", "127.0.0.1:0", false},
		{"IPv4, Handler", "udp4", "127.0.0.1:0", true},
		{"dual stack, Handler", "udp", "[::]:0", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := testCtx(t)
			so := &HostOptions{MaxConnsPerIP: NoLimit}
			if c.handler {
				so.Handler = echoHandler
			}
			srv, err := Listen(c.network, c.listen, so)
			if err != nil {
				t.Skipf("no %s socket here: %v", c.network, err)
			}
			defer srv.Close()
			if !c.handler {
				go echo(ctx, srv)
			}
			cli, err := Listen("udp4", "127.0.0.1:0", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			_, port, _ := net.SplitHostPort(srv.LocalAddr().String())
			var wg sync.WaitGroup
			for i := range 50 {
				p, err := cli.Connect(ctx, net.JoinHostPort("127.0.0.1", port), 2, 0)
				if err != nil {
					t.Fatal(err)
				}
				wg.Go(func() {
					for j := range 20 {
						msg := fmt.Appendf(nil, "peer %d packet %d", i, j)
						if err := p.Send(uint8(j%2), msg, Reliable); err != nil {
							t.Error(err)
							return
						}
						pk, err := p.Receive(ctx)
						if err != nil || string(pk.Data) != string(msg) {
							t.Errorf("peer %d: got %q, %v; want %q", i, pk.Data, err, msg)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}
