package multiplayer

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
)

// testServer starts s on a loopback httptest server and returns its ws:// URL.
func testServer(t testing.TB, s *Server) string {
	t.Helper()
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		hs.Close()
	})
	return "ws" + strings.TrimPrefix(hs.URL, "http")
}

func dial(t testing.TB, url string, o *ClientOptions) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c.Close(ctx)
	})
	select {
	case <-c.Connected():
	case <-time.After(5 * time.Second):
		t.Fatal("not connected")
	}
	return c
}

func wait[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("timed out")
		panic("unreachable")
	}
}

func TestRoundTrip(t *testing.T) {
	type hello struct {
		from int32
		name string
		pos  godot.Vector2
	}
	got := make(chan hello, 1)
	back := make(chan string, 1)
	srvNode := MustNode("Main",
		RPC{Name: "hello", Mode: ModeAnyPeer, Handler: func(p *Peer, name string, pos godot.Vector2) {
			got <- hello{p.ID(), name, pos}
			p.RPC(mainNodeFor(p), "welcome", "hi "+name)
		}},
		RPC{Name: "welcome"},
	)
	srvNodes = srvNode
	cliNode := MustNode("Main",
		RPC{Name: "hello", Mode: ModeAnyPeer},
		RPC{Name: "welcome", Handler: func(p *Peer, msg string) { back <- msg }},
	)
	var trace []string
	var mu sync.Mutex
	s := &Server{Nodes: []*Node{srvNode}, Trace: func(dir string, peer int32, pkt []byte) {
		mu.Lock()
		trace = append(trace, dir)
		mu.Unlock()
	}}
	url := testServer(t, s)
	c := dial(t, url, &ClientOptions{Nodes: []*Node{cliNode}})
	for i := range 3 {
		if err := c.RPCID(1, cliNode, "hello", "bob", godot.Vector2{X: 1, Y: float32(i)}); err != nil {
			t.Fatal(err)
		}
		h := wait(t, got)
		if h.from != c.ID() || h.name != "bob" || h.pos.Y != float32(i) {
			t.Fatalf("got %+v", h)
		}
		if m := wait(t, back); m != "hi bob" {
			t.Fatalf("back %q", m)
		}
	}
}

var srvNodes *Node

func mainNodeFor(*Peer) *Node { return srvNodes }

func TestAuthorityRefused(t *testing.T) {
	errs := make(chan error, 1)
	n := MustNode("Main", RPC{Name: "secret", Handler: func(p *Peer) { t.Error("called") }})
	s := &Server{Nodes: []*Node{n}, OnError: func(p *Peer, err error) { errs <- err }}
	c := dial(t, testServer(t, s), &ClientOptions{Nodes: []*Node{n}})
	if err := c.RPCID(1, n, "secret"); err != nil {
		t.Fatal(err)
	}
	err := wait(t, errs)
	var pe *PacketError
	if !errors.Is(err, ErrNotAllowed) || !errors.As(err, &pe) || pe.Peer != c.ID() {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(err.Error(), `Mode is "authority", authority is 1.`) {
		t.Fatal(err)
	}
}

// TestCalls: RPCPeers reaches the listed peers only, RPCID(-id) all but one, and a call_local
// method runs on the server too (as from peer 1) when the call includes it, as the engine
// decides; a handler that panics is reported and the server goes on.
func TestCalls(t *testing.T) {
	local := make(chan int32, 4)
	srvNode := MustNode("Main",
		RPC{Name: "note", CallLocal: true, Handler: func(p *Peer, s string) { local <- p.ID() }},
		RPC{Name: "boom", Mode: ModeAnyPeer, Handler: func(p *Peer) { panic("boom") }},
	)
	errs := make(chan error, 4)
	s := &Server{Nodes: []*Node{srvNode}, OnError: func(p *Peer, err error) { errs <- err }}
	url := testServer(t, s)
	type got struct {
		client int
		text   string
	}
	notes := make(chan got, 16)
	var clients []*Client
	var nodes []*Node
	for i := range 3 {
		n := MustNode("Main", RPC{Name: "note", CallLocal: true, Handler: func(p *Peer, s string) { notes <- got{i, s} }}, RPC{Name: "boom", Mode: ModeAnyPeer})
		nodes = append(nodes, n)
		clients = append(clients, dial(t, url, &ClientOptions{Nodes: []*Node{n}}))
	}
	if err := s.RPCPeers([]int32{clients[0].ID(), clients[2].ID()}, srvNode, "note", "list"); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{wait(t, notes).client: true, wait(t, notes).client: true}
	if !seen[0] || !seen[2] {
		t.Fatalf("list reached %v", seen)
	}
	if err := s.RPCID(-clients[0].ID(), srvNode, "note", "all but 0"); err != nil {
		t.Fatal(err)
	}
	// rpc_id(-id) includes the caller, so call_local runs here, as from peer 1; rpc_id(id) to
	// the listed peers did not.
	if id := wait(t, local); id != 1 {
		t.Fatalf("call_local ran as peer %d", id)
	}
	seen = map[int]bool{wait(t, notes).client: true, wait(t, notes).client: true}
	if !seen[1] || !seen[2] {
		t.Fatalf("all but one reached %v", seen)
	}
	select {
	case g := <-notes:
		t.Fatalf("extra %v", g)
	case id := <-local:
		t.Fatalf("an extra local call as %d", id)
	case <-time.After(50 * time.Millisecond):
	}
	if n := len(s.Peers()); n != 3 {
		t.Fatalf("%d peers", n)
	}
	clients[1].RPCID(1, nodes[1], "boom")
	if err := wait(t, errs); !errors.Is(err, ErrHandlerPanic) {
		t.Fatal(err)
	}
	if err := s.RPCID(clients[1].ID(), srvNode, "note", "after the panic"); err != nil {
		t.Fatal(err)
	}
	if g := wait(t, notes); g.client != 1 || g.text != "after the panic" {
		t.Fatal(g)
	}
}

// TestEncoding: allow_object_decoding admits full objects in arguments, which the default
// refuses; DoublePrecision writes real_t types as a precision=double build, and both forms
// decode into the handler's type.
func TestEncoding(t *testing.T) {
	obj := &godot.Object{Class: "Resource", Properties: []godot.Property{{Name: "resource_name", Value: "r"}}}
	b, err := Encoding{DoublePrecision: true}.AppendCompressed(nil, godot.Vector2{X: 1, Y: 2})
	if err != nil || len(b) != 20 || b[2]&1 == 0 {
		t.Fatalf("double Vector2: % x %v", b, err)
	}
	got := make(chan any, 4)
	errs := make(chan error, 4)
	for _, allow := range []bool{false, true} {
		n := MustNode("Main",
			RPC{Name: "obj", Mode: ModeAnyPeer, Handler: func(p *Peer, o *godot.Object) { got <- o }},
			RPC{Name: "vec", Mode: ModeAnyPeer, Handler: func(p *Peer, v godot.Vector2) { got <- v }})
		enc := Encoding{AllowObjectDecoding: allow, DoublePrecision: true}
		s := &Server{Nodes: []*Node{n}, Encoding: enc, OnError: func(p *Peer, err error) { errs <- err }}
		c := dial(t, testServer(t, s), &ClientOptions{Nodes: []*Node{n}, Encoding: enc})
		c.RPCID(1, n, "obj", obj)
		if allow {
			if o := wait(t, got).(*godot.Object); o.Class != "Resource" || o.Properties[0].Value != "r" {
				t.Fatalf("object %+v", o)
			}
		} else if err := wait(t, errs); !errors.Is(err, ErrBadVariant) || !errors.Is(err, godot.ErrObjectsNotAllowed) {
			t.Fatalf("full object without allow_object_decoding: %v", err)
		}
		c.RPCID(1, n, "vec", godot.Vector2{X: 1, Y: 2})
		if v := wait(t, got); v != (godot.Vector2{X: 1, Y: 2}) {
			t.Fatalf("vector %v", v)
		}
	}
}

// TestSendTooLarge: a call or raw packet that a Godot client could not receive (it closes the
// connection on a message beyond 65535 bytes) fails with ErrTooLarge and sends nothing.
func TestSendTooLarge(t *testing.T) {
	n := MustNode("Main", RPC{Name: "blob"})
	s := &Server{Nodes: []*Node{n}}
	url := testServer(t, s)
	got := make(chan int, 4)
	cn := MustNode("Main", RPC{Name: "blob", Handler: func(p *Peer, b []byte) { got <- len(b) }})
	c := dial(t, url, &ClientOptions{Nodes: []*Node{cn}})
	if err := s.RPCID(c.ID(), n, "blob", make([]byte, 70000)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("RPC: %v", err)
	}
	if err := s.SendBytes(c.ID(), make([]byte, 65535)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("SendBytes: %v", err)
	}
	if err := s.RPCID(c.ID(), n, "blob", make([]byte, 60000)); err != nil {
		t.Fatal(err)
	}
	if k := wait(t, got); k != 60000 {
		t.Fatal(k)
	}
}
