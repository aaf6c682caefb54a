package multiplayer3

import (
	"context"
	"log/slog"
	"testing"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/godot"
)

// The benchmarks run gamewire's work beside a yardstick in the same benchmark: "packet" is the
// work measured, "yardstick" what it cannot do without (the Godot 3 Variant codec for the
// arguments, a bare ENet echo for a round trip). docs/multiplayer3.md gives the ratios.

var benchArgs = []any{42, "héllo", godot.Vector2{X: 1, Y: 2}}

// BenchmarkMultiplayer3RemoteCallEncode: rpc_id(1, "hello", 42, "héllo", Vector2(1, 2)) by
// cache id, into a reused buffer; the yardstick encodes the three Variants alone.
func BenchmarkMultiplayer3RemoteCallEncode(b *testing.B) {
	buf := make([]byte, 0, 256)
	b.Run("packet", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = AppendRemoteCall(buf[:0], Target{CacheID: 1}, "hello", benchArgs...)
		}
	})
	b.Run("yardstick", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = buf[:0]
			for _, a := range benchArgs {
				buf, _ = enc3.Append(buf, a)
			}
		}
	})
}

// BenchmarkMultiplayer3RemoteCallDecode: Parse of that packet (every argument decoded to find
// its end); the yardstick decodes the three Variants alone.
func BenchmarkMultiplayer3RemoteCallDecode(b *testing.B) {
	pkt, _ := AppendRemoteCall(nil, Target{CacheID: 1}, "hello", benchArgs...)
	p, _ := Parse(pkt)
	args := p.Args
	dec := defaultArgs
	b.Run("packet", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse(pkt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("yardstick", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, a := range args {
				if _, _, err := dec.Decode(a); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkMultiplayer3RPCRoundTrip: a Go client calls ping(seq, data) on a Go server over
// loopback ENet, whose handler calls pong(seq, data) back (two RPCs, typed handlers, both
// sides); the yardstick is the same bytes echoed by a bare ENet peer.
func BenchmarkMultiplayer3RPCRoundTrip(b *testing.B) {
	quiet := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	data := make([]byte, 64)
	b.Run("packet", func(b *testing.B) {
		var sn *Node
		sn = MustNode("Main",
			RPC{Name: "ping", Mode: ModeRemote, Handler: func(p *Peer, seq int, d []byte) { p.RPC(sn, "pong", seq, d) }},
			RPC{Name: "pong", Mode: ModePuppet})
		s := &Server{Nodes: []*Node{sn}, Logger: quiet}
		h, err := enet.Listen("udp4", "127.0.0.1:0", &enet.HostOptions{Channels: Channels})
		if err != nil {
			b.Fatal(err)
		}
		go s.Serve(h)
		defer s.Close()
		pong := make(chan int, 1)
		cn := MustNode("Main", RPC{Name: "ping", Mode: ModeRemote},
			RPC{Name: "pong", Mode: ModePuppet, Handler: func(p *Peer, seq int, d []byte) { pong <- seq }})
		c, err := Dial(ctx, h.LocalAddr().String(), &ClientOptions{Nodes: []*Node{cn}, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		for range 3 { // the path caches: the measured calls use cache ids both ways
			c.RPCID(1, cn, "ping", 0, data)
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
		h, err := enet.Listen("udp4", "127.0.0.1:0", &enet.HostOptions{Channels: Channels})
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
		c, err := enet.Dial(ctx, "udp", h.LocalAddr().String(), &enet.DialOptions{Channels: Channels, Data: 2})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		pkt, _ := AppendRemoteCall(AppendHeader(nil, 2, 1), Target{CacheID: 1}, "ping", 1, data)
		b.ReportAllocs()
		for b.Loop() {
			c.Send(ChannelReliable, pkt, enet.Reliable)
			if _, err := c.Receive(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
