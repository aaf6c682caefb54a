package multiplayer3_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/godot/multiplayer3"
)

// A Godot 3 client's rpc_id(1, "hello", 42, "héllo") on /root/N, before the server has
// confirmed the path: the packet on ENet channel 1, header and all.
func ExampleAppendRemoteCall() {
	pkt := multiplayer3.AppendHeader(nil, 323698742, multiplayer3.ServerID)
	pkt, err := multiplayer3.AppendRemoteCall(pkt, multiplayer3.Target{Path: "N"}, "hello", 42, "héllo")
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", pkt)

	src, dst, body, _ := multiplayer3.ParseHeader(pkt)
	p, _ := multiplayer3.Parse(body)
	args, _ := p.Values()
	fmt.Println(src, "→", dst, p.Command, p.Path, p.Name, args)
	// Output:
	// 36 40 4b 13 01 00 00 00 00 24 00 00 80 68 65 6c 6c 6f 00 02 02 00 00 00 2a 00 00 00 04 00 00 00 06 00 00 00 68 c3 a9 6c 6c 6f 00 00 4e 00
	// 323698742 → 1 REMOTE_CALL N hello [42 héllo]
}

// Explain names every field of a packet as an explain.Frame.
func ExampleExplain() {
	pkt := multiplayer3.AppendHeader(nil, 1, 0)
	pkt, _ = multiplayer3.AppendRemoteSet(pkt, multiplayer3.Target{CacheID: 2}, "score", 7)
	f := multiplayer3.Explain(multiplayer3.ChannelReliable, pkt)
	fmt.Println(f.Summary)
	for _, fl := range f.Fields {
		fmt.Printf("%3d %-8s %-8s %s\n", fl.Offset(), fl.Name, fl.Type, fl.Text)
	}
	// Output:
	// 1 → all peers: REMOTE_SET cache 2.score
	//   0 source   u32      peer 1
	//   4 target   i32      all peers
	//   8 command  u8       REMOTE_SET
	//   9 target   u32      path cache id 2
	//  13 property cstring  "score"
	//  19 value    int      7
}

// A Go server for Godot 3 clients and a Go client, on loopback: the client calls the server's
// remote function hello(name) (rpc_id(1, "hello", …) in GDScript), and the server answers with
// the client's puppet function greeting(text).
func ExampleServer() {
	quiet := slog.New(slog.DiscardHandler)
	got := make(chan string)

	var srv *multiplayer3.Server
	var serverNode *multiplayer3.Node
	serverNode = multiplayer3.MustNode("Main",
		multiplayer3.RPC{Name: "hello", Mode: multiplayer3.ModeRemote, Handler: func(p *multiplayer3.Peer, name string) error {
			return p.RPC(serverNode, "greeting", "hello, "+name)
		}},
		multiplayer3.RPC{Name: "greeting", Mode: multiplayer3.ModePuppet},
	)
	srv = &multiplayer3.Server{Nodes: []*multiplayer3.Node{serverNode}, Logger: quiet}
	h, err := enet.Listen("udp4", "127.0.0.1:0", &enet.HostOptions{Channels: multiplayer3.Channels})
	if err != nil {
		panic(err)
	}
	go srv.Serve(h)
	defer srv.Close()

	clientNode := multiplayer3.MustNode("Main",
		multiplayer3.RPC{Name: "hello", Mode: multiplayer3.ModeRemote},
		multiplayer3.RPC{Name: "greeting", Mode: multiplayer3.ModePuppet, Handler: func(p *multiplayer3.Peer, text string) {
			got <- fmt.Sprintf("peer %d says %q", p.ID(), text)
		}},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := multiplayer3.Dial(ctx, h.LocalAddr().String(), &multiplayer3.ClientOptions{ID: 1234, Nodes: []*multiplayer3.Node{clientNode}, Logger: quiet})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if err := c.RPCID(multiplayer3.ServerID, clientNode, "hello", "gopher"); err != nil {
		panic(err)
	}
	fmt.Println(<-got)
	// Output:
	// peer 1 says "hello, gopher"
}
