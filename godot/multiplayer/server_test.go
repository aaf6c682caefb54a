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
