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
