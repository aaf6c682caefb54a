package enet

import (
	"net"
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
