package multiplayer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/gamewire/gamewire/godot"
)

var benchSizes = []int{16, 1024}
var benchClients = []int{1, 8}

// BenchmarkMultiplayerRPCRoundTrip: N Go clients on loopback each call ping(seq, data) on the
// server, whose handler calls pong(seq, data) back; one op is one round trip (two RPCs, both
// sides' work and allocations included). The yardstick is BenchmarkWebSocketEchoRoundTrip.
func BenchmarkMultiplayerRPCRoundTrip(b *testing.B) {
	for _, size := range benchSizes {
		for _, n := range benchClients {
			b.Run(fmt.Sprintf("size=%d/clients=%d", size, n), func(b *testing.B) { benchRPC(b, size, n) })
		}
	}
}

func benchRPC(b *testing.B, size, clients int) {
	var srvNode *Node
	srvNode = MustNode("Main",
		RPC{Name: "ping", Mode: ModeAnyPeer, Handler: func(p *Peer, seq int, data []byte) {
			p.RPC(srvNode, "pong", seq, data)
		}},
		RPC{Name: "pong"},
	)
	// The per-peer budget is policy, not protocol work: off, so that the round trips measure
	// what they cost and not how fast a peer may go.
	s := &Server{Nodes: []*Node{srvNode}, PeerBytesPerSecond: NoLimit}
	url := testServer(b, s)
	type cl struct {
		c    *Client
		node *Node
		pong chan int
	}
	cls := make([]cl, clients)
	for i := range cls {
		pong := make(chan int, 1)
		node := MustNode("Main", RPC{Name: "ping", Mode: ModeAnyPeer},
			RPC{Name: "pong", Handler: func(p *Peer, seq int, data []byte) { pong <- seq }})
		cls[i] = cl{c: dial(b, url, &ClientOptions{Nodes: []*Node{node}}), node: node, pong: pong}
		// Warm the path cache: the measured calls use cached ids both ways.
		for range 3 {
			cls[i].c.RPCID(1, node, "ping", 0, make([]byte, size))
			<-pong
		}
	}
	data := make([]byte, size)
	pkt, _ := AppendRemoteCall(nil, 1, false, 0, "", []any{1, data})
	b.SetBytes(int64(2 * len(pkt)))
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for i, c := range cls {
		share := b.N / clients
		if i < b.N%clients {
			share++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range share {
				c.c.RPCID(1, c.node, "ping", j, data)
				<-c.pong
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

// BenchmarkWebSocketEchoRoundTrip is the yardstick: the same WebSocket library on the same
// loopback, a server that echoes each binary message, N clients sending messages of the size
// of the RPC packets above and waiting for the echo.
func BenchmarkWebSocketEchoRoundTrip(b *testing.B) {
	for _, size := range benchSizes {
		for _, n := range benchClients {
			b.Run(fmt.Sprintf("size=%d/clients=%d", size, n), func(b *testing.B) { benchEcho(b, size, n) })
		}
	}
}

func benchEcho(b *testing.B, size, clients int) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(1 << 20)
		for {
			typ, msg, err := c.Read(context.Background())
			if err != nil {
				return
			}
			if c.Write(context.Background(), typ, msg) != nil {
				return
			}
		}
	}))
	defer hs.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	pkt, _ := AppendRemoteCall(nil, 1, false, 0, "", []any{1, make([]byte, size)})
	conns := make([]*websocket.Conn, clients)
	for i := range conns {
		c, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.SetReadLimit(1 << 20)
		defer c.CloseNow()
		conns[i] = c
	}
	b.SetBytes(int64(2 * len(pkt)))
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for i, c := range conns {
		share := b.N / clients
		if i < b.N%clients {
			share++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := append([]byte(nil), pkt...)
			for range share {
				c.Write(context.Background(), websocket.MessageBinary, msg)
				c.Read(context.Background())
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

// BenchmarkMultiplayerRemoteCallEncode: a cached-form REMOTE_CALL with (int, Vector2, String)
// into a reused buffer.
func BenchmarkMultiplayerRemoteCallEncode(b *testing.B) {
	args := []any{42, godot.Vector2{X: 1, Y: 2}, "hello"}
	buf, _ := AppendRemoteCall(nil, 1, false, 3, "", args)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendRemoteCall(buf[:0], 1, false, 3, "", args)
	}
}

// BenchmarkMultiplayerRemoteCallDecode: the server's processing of that packet, from the
// bytes to the typed handler's call, without the network.
func BenchmarkMultiplayerRemoteCallDecode(b *testing.B) {
	n := MustNode("Main", RPC{Name: "move", Mode: ModeAnyPeer, Handler: func(p *Peer, id int, pos godot.Vector2, name string) {}})
	sc, err := newScene(1, true, []*Node{n}, hooks{onError: func(_ *Peer, err error) { b.Fatal(err) }}, 0, Encoding{})
	if err != nil {
		b.Fatal(err)
	}
	p := sc.newPeer(2, &nullTransport{})
	sc.mu.Lock()
	sc.admit(p)
	sc.mu.Unlock()
	sc.receive(p, AppendSimplifyPath(nil, n.Checksum(), 1, "Main"))
	pkt, _ := AppendRemoteCall(nil, 1, false, 0, "", []any{42, godot.Vector2{X: 1, Y: 2}, "hello"})
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		sc.receive(p, pkt)
	}
}
