package multiplayer

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHeldWritesGoOut: while a peer's handler runs, the packets its reader holds back include
// those that others send to the peer meanwhile; they go out within lazyDelay, not when the
// handler returns.
func TestHeldWritesGoOut(t *testing.T) {
	entered, leave := make(chan struct{}), make(chan struct{})
	n := MustNode("Main", RPC{Name: "block", Mode: ModeAnyPeer, Handler: func(p *Peer) {
		close(entered)
		<-leave
	}})
	s := &Server{Nodes: []*Node{n}}
	url := testServer(t, s)
	got := make(chan []byte, 1)
	c := dial(t, url, &ClientOptions{Nodes: []*Node{n}, OnBytes: func(p *Peer, b []byte) { got <- b }})
	if err := c.RPCID(1, n, "block"); err != nil {
		t.Fatal(err)
	}
	<-entered
	defer close(leave)
	if err := s.SendBytes(c.ID(), []byte{7}); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		if !bytes.Equal(b, []byte{7}) {
			t.Fatalf("% x", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a packet sent during a handler of its peer waits for the handler")
	}
}

// TestWriteTimeout: a peer that stops reading while the server writes to it is dropped once a
// write has been blocked for WriteTimeout, before its queue fills.
func TestWriteTimeout(t *testing.T) {
	gone := make(chan int32, 1)
	const queue = 64 << 20
	s := &Server{WriteTimeout: 200 * time.Millisecond, MaxQueueBytes: queue, PingInterval: NoLimit,
		OnDisconnect: func(p *Peer) { gone <- p.ID() }}
	url := testServer(t, s)
	c, br, err := upgradeRaw(t, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(4096)
	_, idMsg := serverFrame(t, br)
	id := int32(binary.LittleEndian.Uint32(idMsg))
	s.mu.Lock()
	tr := s.conns[id].tr.(*wsTransport)
	s.mu.Unlock()
	big := make([]byte, 60000)
	start := time.Now()
	for range queue / len(big) / 2 { // at most half the queue: it must not be what drops the peer
		if s.SendBytes(id, big) != nil {
			break
		}
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("a peer that does not read is still connected after 10 s")
	}
	if peak := tr.peak(); peak >= queue {
		t.Fatalf("the queue filled (%d bytes)", peak)
	}
	t.Logf("dropped after %v, %d bytes queued at most", time.Since(start), tr.peak())
}

// TestCloseHandshake: the Close handshake completes both ways without waiting for closeWait:
// the client's Close returns once the server has echoed its Close, and the server's
// Disconnect ends the peer once the client has echoed the server's.
func TestCloseHandshake(t *testing.T) {
	gone := make(chan int32, 2)
	s := &Server{OnDisconnect: func(p *Peer) { gone <- p.ID() }}
	url := testServer(t, s)
	c := dial(t, url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), closeWait/2)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatalf("client Close: %v", err)
	}
	wait(t, gone)

	c = dial(t, url, nil)
	start := time.Now()
	if err := s.Disconnect(c.ID()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gone:
	case <-time.After(closeWait / 2):
		t.Fatal("the server still waits for the client's Close")
	}
	select {
	case <-c.Done():
	case <-time.After(closeWait / 2):
		t.Fatal("the client did not end at the server's Close")
	}
	t.Logf("Disconnect took %v", time.Since(start))
}

// TestTLS: over wss:// (TLS under the frames, the caller's HTTPClient for the handshake) a call
// and its answer go through, and the Close handshake completes.
func TestTLS(t *testing.T) {
	var srvNode *Node
	srvNode = MustNode("Main", RPC{Name: "ping", Mode: ModeAnyPeer, Handler: func(p *Peer, data []byte) {
		p.RPC(srvNode, "pong", data)
	}}, RPC{Name: "pong"})
	s := &Server{Nodes: []*Node{srvNode}}
	hs := httptest.NewTLSServer(s)
	defer hs.Close()
	defer s.Close()
	got := make(chan []byte, 1)
	n := MustNode("Main", RPC{Name: "ping", Mode: ModeAnyPeer}, RPC{Name: "pong", Handler: func(p *Peer, data []byte) { got <- data }})
	c := dial(t, "wss"+strings.TrimPrefix(hs.URL, "https"), &ClientOptions{Nodes: []*Node{n}, HTTPClient: hs.Client()})
	if err := c.RPCID(1, n, "ping", []byte("over TLS")); err != nil {
		t.Fatal(err)
	}
	if b := wait(t, got); string(b) != "over TLS" {
		t.Fatalf("%q", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeWait/2)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
