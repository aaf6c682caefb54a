package multiplayer_test

import (
	"context"
	"fmt"
	"github.com/gamewire/gamewire/explain"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
)

// A server for a node "Main" whose GDScript has @rpc("any_peer") func move(pos: Vector2) and
// @rpc func moved(id: int, pos: Vector2), and a Go client calling it as a Godot client would.
func ExampleServer() {
	var main *multiplayer.Node
	main = multiplayer.MustNode("Main",
		multiplayer.RPC{Name: "move", Mode: multiplayer.ModeAnyPeer, Handler: func(p *multiplayer.Peer, pos godot.Vector2) {
			p.RPC(main, "moved", p.ID(), pos) // rpc_id(sender, "moved", …)
		}},
		multiplayer.RPC{Name: "moved"},
	)
	srv := &multiplayer.Server{Nodes: []*multiplayer.Node{main}}
	hs := httptest.NewServer(srv) // or http.Handle("/game", srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())

	done := make(chan string, 1)
	client := multiplayer.MustNode("Main",
		multiplayer.RPC{Name: "move", Mode: multiplayer.ModeAnyPeer},
		multiplayer.RPC{Name: "moved", Handler: func(p *multiplayer.Peer, id int32, pos godot.Vector2) {
			done <- fmt.Sprintf("peer %d asked the server for %v, from peer %d", id, pos, p.ID())
		}},
	)
	ctx := context.Background()
	c, err := multiplayer.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{client}})
	if err != nil {
		panic(err)
	}
	defer c.Close(ctx)
	<-c.Connected()
	c.RPCID(1, client, "move", godot.Vector2{X: 3, Y: 4})
	fmt.Println(strings.Replace(<-done, fmt.Sprint(c.ID()), "N", 1))
	// Output: peer N asked the server for {3 4}, from peer 1
}

// The RPC table and checksum of a node, as the engine builds them from its @rpc methods.
func ExampleNewNode() {
	n, _ := multiplayer.NewNode("Main/Player",
		multiplayer.RPC{Name: "b"}, multiplayer.RPC{Name: "A"}, multiplayer.RPC{Name: "_c"}, multiplayer.RPC{Name: "a"})
	for _, m := range []string{"A", "_c", "a", "b"} {
		id, _ := n.MethodID(m)
		fmt.Println(m, id)
	}
	fmt.Println(n.Checksum() == multiplayer.Checksum([]string{"A", "_c", "a", "b"}))
	// Output:
	// A 0
	// _c 1
	// a 2
	// b 3
	// true
}

// A client's first call of hello(42, "hi") on /root/RpcTarget, as the engine sends it before
// the server confirms the path: the path form.
func ExampleExplain() {
	pkt, _ := multiplayer.AppendRemoteCall(nil, 0, true, 0, "RpcTarget", []any{42, "hi"})
	fr, _ := multiplayer.Explain(pkt, nil)
	explain.WriteText(os.Stdout, pkt, fr)
	// Output:
	// multiplayer frame 0 at byte 0, 31 bytes: 0x20: REMOTE_CALL; node id in 4 bytes, method id in 1 byte, arguments follow an argument count
	//  offset   len  type                   name: meaning
	//       0     1  u8                     command: 0x20: REMOTE_CALL; node id in 4 bytes, method id in 1 byte, arguments follow an argument count
	//       1     4  u32                    node: 0x80000015: the node path follows at offset 21
	//       5     1  u8                     method id: 0 (index in the node's sorted @rpc methods)
	//       6     1  u8                     argument count: 2
	//       7     2  int                    argument 0: int 42, compressed to 1 byte
	//       7     1    u8                   header: 0x02: type 2, bits 6-7 the size
	//       8     1    int8                 value: 42
	//       9    12  String                 argument 1: String "hi"
	//       9     4    u32                  header: type 4 String
	//      13     4    u32                  length: 2
	//      17     2    utf8                 text: "hi"
	//      19     2    pad                  padding
	//      21    10  utf8                   node path: "RpcTarget" relative to /root, NUL-terminated
}

// A Go server for a game that put_vars Variants on a plain WebSocketPeer: each message is one
// Variant; this one answers each Dictionary with its "text" upper-cased.
func ExampleVarServer() {
	type chat struct {
		Text string        `godot:"text"`
		Pos  godot.Vector2 `godot:"pos"`
	}
	srv := &multiplayer.VarServer{Handler: func(ctx context.Context, c *multiplayer.VarConn) {
		for {
			var m chat
			if err := c.Decode(ctx, &m); err != nil {
				return
			}
			c.Encode(ctx, strings.ToUpper(m.Text))
		}
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()

	// The game's side, in Go: ws.put_var({"text": "hello", "pos": Vector2(1, 2)}); ws.get_var().
	ctx := context.Background()
	c, err := multiplayer.DialVars(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	if err != nil {
		panic(err)
	}
	c.Encode(ctx, chat{Text: "hello", Pos: godot.Vector2{X: 1, Y: 2}})
	var reply string
	c.Decode(ctx, &reply)
	fmt.Println(reply)
	c.Close(1000, "")
	// Output: HELLO
}

// The same server for desktop games, whose clients connect with an ENetMultiplayerPeer:
// create_client(address, port) there, DialENet here.
func ExampleServer_ServeENet() {
	var main *multiplayer.Node
	main = multiplayer.MustNode("Main",
		multiplayer.RPC{Name: "move", Mode: multiplayer.ModeAnyPeer, Transfer: multiplayer.TransferUnreliableOrdered,
			Handler: func(p *multiplayer.Peer, pos godot.Vector2) { p.RPC(main, "moved", p.ID(), pos) }},
		multiplayer.RPC{Name: "moved"},
	)
	srv := &multiplayer.Server{Nodes: []*multiplayer.Node{main}}
	host, err := enet.Listen("udp", "127.0.0.1:0", nil) // ENetMultiplayerPeer.create_server's host
	if err != nil {
		panic(err)
	}
	go srv.ServeENet(host)
	defer srv.Close()

	done := make(chan string, 1)
	client := multiplayer.MustNode("Main",
		multiplayer.RPC{Name: "move", Mode: multiplayer.ModeAnyPeer, Transfer: multiplayer.TransferUnreliableOrdered},
		multiplayer.RPC{Name: "moved", Handler: func(p *multiplayer.Peer, id int32, pos godot.Vector2) {
			done <- fmt.Sprintf("moved to %v", pos)
		}},
	)
	ctx := context.Background()
	c, err := multiplayer.DialENet(ctx, host.LocalAddr().String(), &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{client}})
	if err != nil {
		panic(err)
	}
	defer c.Close(ctx)
	<-c.Connected()
	c.RPCID(1, client, "move", godot.Vector2{X: 3, Y: 4})
	fmt.Println(<-done)
	// Output: moved to {3 4}
}
