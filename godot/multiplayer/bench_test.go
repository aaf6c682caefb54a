package multiplayer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

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
	run := setupRPC(b, size, clients)
	pkt, _ := AppendRemoteCall(nil, 1, false, 0, "", []any{1, make([]byte, size)})
	b.SetBytes(int64(2 * len(pkt)))
	b.ReportAllocs()
	b.ResetTimer()
	run(b.N)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

// share runs n round trips split among the clients, each on a goroutine of its own, and
// returns when all are done.
func share(n, clients int, roundTrips func(client, count int)) {
	var wg sync.WaitGroup
	for i := range clients {
		k := n / clients
		if i < n%clients {
			k++
		}
		wg.Go(func() { roundTrips(i, k) })
	}
	wg.Wait()
}

// setupRPC starts a server and clients for benchRPC and returns what runs n round trips.
func setupRPC(b *testing.B, size, clients int) func(n int) {
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
	return func(n int) {
		share(n, clients, func(i, k int) {
			c := cls[i]
			for j := range k {
				c.c.RPCID(1, c.node, "ping", j, data)
				<-c.pong
			}
		})
	}
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
	run := setupEcho(b, size, clients)
	pkt, _ := AppendRemoteCall(nil, 1, false, 0, "", []any{1, make([]byte, size)})
	b.SetBytes(int64(2 * len(pkt)))
	b.ReportAllocs()
	b.ResetTimer()
	run(b.N)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

// setupEcho starts the echo server and clients for benchEcho and returns what runs n round
// trips.
func setupEcho(b *testing.B, size, clients int) func(n int) {
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
	b.Cleanup(hs.Close)
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	pkt, _ := AppendRemoteCall(nil, 1, false, 0, "", []any{1, make([]byte, size)})
	conns := make([]*websocket.Conn, clients)
	for i := range conns {
		c, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.SetReadLimit(1 << 20)
		b.Cleanup(func() { c.CloseNow() })
		conns[i] = c
	}
	return func(n int) {
		share(n, clients, func(i, k int) {
			c := conns[i]
			msg := append([]byte(nil), pkt...)
			for range k {
				c.Write(context.Background(), websocket.MessageBinary, msg)
				c.Read(context.Background())
			}
		})
	}
}

// BenchmarkMultiplayerRPCRoundTripRatio runs the RPC round trips of
// BenchmarkMultiplayerRPCRoundTrip and the echoes of its yardstick in alternating blocks of 200,
// so that both see the same load of a shared machine, and reports their rates and the ratio
// (RPC / echo; above 1 the RPC is faster). One op is one round trip of each.
func BenchmarkMultiplayerRPCRoundTripRatio(b *testing.B) {
	for _, size := range benchSizes {
		for _, n := range benchClients {
			b.Run(fmt.Sprintf("size=%d/clients=%d", size, n), func(b *testing.B) {
				rpc, echo := setupRPC(b, size, n), setupEcho(b, size, n)
				const block = 200
				var tRPC, tEcho time.Duration
				b.ResetTimer()
				for done := 0; done < b.N; done += block {
					k := min(block, b.N-done)
					t0 := time.Now()
					rpc(k)
					t1 := time.Now()
					echo(k)
					tRPC, tEcho = tRPC+t1.Sub(t0), tEcho+time.Since(t1)
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N)/tRPC.Seconds(), "rpc-roundtrips/s")
				b.ReportMetric(float64(b.N)/tEcho.Seconds(), "echo-roundtrips/s")
				b.ReportMetric(tEcho.Seconds()/tRPC.Seconds(), "ratio")
			})
		}
	}
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
