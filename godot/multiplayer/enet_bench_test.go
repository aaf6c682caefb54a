package multiplayer

import (
	"context"
	"log/slog"
	"testing"

	"github.com/gamewire/gamewire/enet"
)

// BenchmarkMultiplayerENetRPCRoundTrip: a Go client calls ping(seq, data) on a Go server over
// loopback ENet (ServeENet, DialENet), whose handler calls pong(seq, data) back (two RPCs,
// typed handlers, both sides); the yardstick is a bare ENet echo of the ping's bytes in the
// same run.
func BenchmarkMultiplayerENetRPCRoundTrip(b *testing.B) {
	ctx := context.Background()
	data := make([]byte, 64)
	quiet := slog.New(slog.DiscardHandler)
	b.Run("packet", func(b *testing.B) {
		var sn *Node
		sn = MustNode("Main",
			RPC{Name: "ping", Mode: ModeAnyPeer, Handler: func(p *Peer, seq int, d []byte) { p.RPC(sn, "pong", seq, d) }},
			RPC{Name: "pong"})
		addr := enetServer(b, &Server{Nodes: []*Node{sn}, Logger: quiet})
		pong := make(chan int, 1)
		cn := MustNode("Main", RPC{Name: "ping", Mode: ModeAnyPeer},
			RPC{Name: "pong", Handler: func(p *Peer, seq int, d []byte) { pong <- seq }})
		c := dialENet(b, addr, &ClientOptions{Nodes: []*Node{cn}, Logger: quiet})
		for range 3 { // the path caches: the measured calls use cache ids both ways
			if err := c.RPCID(1, cn, "ping", 0, data); err != nil {
				b.Fatal(err)
			}
			<-pong
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			c.RPCID(1, cn, "ping", i, data)
			<-pong
			i++
		}
	})
	b.Run("yardstick", func(b *testing.B) {
		h, err := enet.Listen("udp4", "127.0.0.1:0", nil)
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		go func() {
			p, err := h.Accept(ctx)
			if err != nil {
				return
			}
			for {
				pk, err := p.Receive(ctx)
				if err != nil {
					return
				}
				p.Send(pk.Channel, pk.Data, pk.Flags)
			}
		}()
		c, err := enet.Dial(ctx, "udp", h.LocalAddr().String(), &enet.DialOptions{Channels: 255, Data: 2})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		// As long as a ping by cache id (78 bytes: the header, the node's cache id, the
		// method's index, seq and the 64-byte PackedByteArray).
		pkt := make([]byte, 78)
		b.ReportAllocs()
		for b.Loop() {
			c.Send(0, pkt, enet.Reliable)
			if _, err := c.Receive(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
