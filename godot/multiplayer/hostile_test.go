package multiplayer

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// rawClient is a WebSocket client that sends whatever it is told, with its peer id.
type rawClient struct {
	c  *websocket.Conn
	id int32
}

func dialRaw(t *testing.T, url string) *rawClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	_, msg, err := c.Read(ctx)
	if err != nil || len(msg) != 4 {
		t.Fatalf("id message % x: %v", msg, err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return &rawClient{c: c, id: int32(binary.LittleEndian.Uint32(msg))}
}

func (r *rawClient) send(t *testing.T, pkt []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.c.Write(ctx, websocket.MessageBinary, pkt); err != nil {
		t.Fatal(err)
	}
}

// errSink collects refused packets.
type errSink struct {
	mu      sync.Mutex
	errs    []error
	ch      chan error
	changed testSignal // signalled at every error
}

func newErrSink() *errSink { return &errSink{ch: make(chan error, 1024)} }

func (e *errSink) add(p *Peer, err error) {
	e.mu.Lock()
	e.errs = append(e.errs, err)
	e.mu.Unlock()
	e.changed.signal()
	select {
	case e.ch <- err:
	default:
	}
}

// settle waits until the number of goroutines is back to at most n (plus slack for the
// runtime's own), failing the test after 5 s.
func settle(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutine leak: %d, want ≤ %d\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHostilePackets: every malformed packet is refused with its typed error, and the server
// keeps serving the same peer and the others.
func TestHostilePackets(t *testing.T) {
	calls := make(chan string, 16)
	n := MustNode("Main", RPC{Name: "hello", Mode: ModeAnyPeer, Handler: func(p *Peer, s string) { calls <- s }})
	sink := newErrSink()
	s := &Server{Nodes: []*Node{n}, OnError: sink.add}
	url := testServer(t, s)
	bad := dialRaw(t, url)
	good := dial(t, url, &ClientOptions{Nodes: []*Node{n}})

	// An argument of 2000 nested Arrays: deeper than the decoder's limit.
	nested := bytes.Repeat([]byte{0x1c, 0, 0, 0, 1, 0, 0, 0}, 2000)
	deep := append(append([]byte{0x20, 0, 0, 0, 0, 0, 1}, nested...), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(deep[1:], pathFlag|uint32(len(deep)))
	deep = append(deep, "Main\x00"...)
	hugeArgc := append([]byte{0x20, 0, 0, 0, 0, 0, 255}, bytes.Repeat([]byte{2, 0}, 3)...)
	binary.LittleEndian.PutUint32(hugeArgc[1:], pathFlag|uint32(len(hugeArgc)))
	hugeArgc = append(hugeArgc, "Main\x00"...)
	manyArgs := append([]byte{0x20, 0, 0, 0, 0, 0, 255}, bytes.Repeat([]byte{2, 0}, 255)...)
	binary.LittleEndian.PutUint32(manyArgs[1:], pathFlag|uint32(len(manyArgs)))
	manyArgs = append(manyArgs, "Main\x00"...)

	for _, tc := range []struct {
		name string
		pkt  []byte
		want error
	}{
		{"empty", []byte{}, ErrTruncated},
		{"garbage", []byte{0xff, 0xfe, 0xfd}, ErrTruncated},
		{"short RPC", []byte{0x20, 1}, ErrTruncated},
		{"path offset past the end", []byte{0x20, 0xff, 0xff, 0, 0x80, 0}, ErrBadPacket},
		{"unknown cache id", []byte{0x00, 99, 0, 1, 2, 0}, ErrUnknownCacheID},
		{"unknown node", mustRC(AppendRemoteCall(nil, 0, true, 0, "Nope", []any{"x"})), ErrUnknownNode},
		{"unknown method", mustRC(AppendRemoteCall(nil, 0, true, 7, "Main", []any{"x"})), ErrUnknownMethod},
		{"wrong argument type", mustRC(AppendRemoteCall(nil, 0, true, 0, "Main", []any{5})), ErrArgs},
		{"unknown variant type", []byte{0x20, 8, 0, 0, 0x80, 0, 1, 0x3f, 'M', 'a', 'i', 'n', 0}, ErrBadVariant},
		{"deep variant", deep, ErrBadVariant},
		{"argument count beyond the bytes", hugeArgc, ErrTruncated},
		{"255 arguments for one parameter", manyArgs, ErrArgs},
		{"short SIMPLIFY_PATH", []byte{1, 2, 3}, ErrTruncated},
		{"SIMPLIFY_PATH of an unknown node", AppendSimplifyPath(nil, n.Checksum(), 5, "Nope"), ErrUnknownNode},
		{"bad checksum", AppendSimplifyPath(nil, strings.Repeat("0", 32), 6, "Main"), ErrChecksum},
		{"duplicate cache id", AppendSimplifyPath(nil, n.Checksum(), 6, "Main"), ErrDuplicateCacheID},
		{"CONFIRM_PATH of 5 bytes", []byte{2, 1, 1, 0, 0}, ErrBadPacket},
		{"CONFIRM_PATH never sent", []byte{2, 1, 1, 0, 0, 0}, nil}, // no node has id 1 yet: ignored
		{"short RAW", []byte{3}, ErrTruncated},
		{"ADD_PEER from a client", AppendSys(nil, SysAddPeer, 5, nil), ErrNotFromServer},
		{"short SYS", []byte{7, 1, 0}, ErrTruncated},
		{"unknown SYS", []byte{7, 9, 0, 0, 0, 0}, ErrBadPacket},
		{"RELAY to the server", AppendSys(nil, SysRelay, 1, []byte{3, 1}), ErrBadPacket},
		{"RELAY without a packet", AppendSys(nil, SysRelay, 0, nil), ErrTruncated},
		{"AUTH data after authentication", []byte{7, 0, 1}, ErrBadPacket},
		{"SPAWN", []byte{4, 0, 0}, ErrNotAuthority},
		{"SYNC of an unknown synchronizer", []byte{6, 1, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0}, nil}, // skipped silently, as the engine does
		{"RELAY of garbage to everyone", AppendSys(nil, SysRelay, 0, []byte{0x20}), ErrTruncated},
	} {
		bad.send(t, tc.pkt)
		// A good call after each bad packet proves the server still serves both peers.
		bad.send(t, mustRC(AppendRemoteCall(nil, 0, true, 0, "Main", []any{tc.name})))
		if got := wait(t, calls); got != tc.name {
			t.Fatalf("%s: call %q", tc.name, got)
		}
		if tc.want != nil {
			err := wait(t, sink.ch)
			var pe *PacketError
			if !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.Peer != bad.id {
				t.Errorf("%s: error %v, want %v from peer %d", tc.name, err, tc.want, bad.id)
			}
		}
		select {
		case err := <-sink.ch:
			t.Errorf("%s: an extra error %v", tc.name, err)
		default:
		}
	}
	if err := good.RPCID(1, n, "hello", "still here"); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, calls); got != "still here" {
		t.Fatal(got)
	}
	// RELAY to a peer that does not exist is dropped silently, as the engine does.
	bad.send(t, AppendSys(nil, SysRelay, 12345, []byte{3, 1}))
}

func mustRC(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestHostileCacheBound: one peer cannot grow the path cache without bound.
func TestHostileCacheBound(t *testing.T) {
	n := MustNode("Main")
	sink := newErrSink()
	s := &Server{Nodes: []*Node{n}, OnError: sink.add}
	bad := dialRaw(t, testServer(t, s))
	for i := range maxCachePerPeer + 10 {
		bad.send(t, AppendSimplifyPath(nil, n.Checksum(), uint32(i), "Main"))
	}
	nerrs := func() int {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		return len(sink.errs)
	}
	if !sink.changed.waitUntil(5*time.Second, func() bool { return nerrs() >= 10 }) {
		t.Fatalf("%d errors", nerrs())
	}
	s.sc.mu.Lock()
	got := len(s.sc.peers[bad.id].remote)
	s.sc.mu.Unlock()
	if got != maxCachePerPeer {
		t.Fatalf("%d cache entries", got)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if !errors.Is(sink.errs[0], ErrTooLarge) {
		t.Fatal(sink.errs[0])
	}
}

// TestHostileSlowReader: a peer that does not read is disconnected when its queue is full; the
// queued bytes never exceed the bound, and the others are not held up.
func TestHostileSlowReader(t *testing.T) {
	before := runtime.NumGoroutine()
	n := MustNode("Main", RPC{Name: "hello", Mode: ModeAnyPeer})
	gone := make(chan int32, 4)
	s := &Server{Nodes: []*Node{n}, MaxQueueBytes: 1 << 20, OnDisconnect: func(p *Peer) { gone <- p.ID() }}
	url := testServer(t, s)
	slow := dialRaw(t, url) // never reads
	got := make(chan int, 1)
	good := dial(t, url, &ClientOptions{OnBytes: func(p *Peer, b []byte) { got <- len(b) }})
	big := make([]byte, 60000)
	s.mu.Lock()
	tr := s.conns[slow.id].tr.(*wsTransport)
	s.mu.Unlock()
	for range 2000 { // 120 MB if nothing stopped it
		if s.SendBytes(slow.id, big) != nil {
			break
		}
	}
	if id := wait(t, gone); id != slow.id {
		t.Fatalf("peer %d left", id)
	}
	if peak := tr.peak(); peak > 1<<20 {
		t.Fatalf("%d bytes queued, bound 1 MiB", peak)
	}
	if err := s.SendBytes(good.ID(), []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if k := wait(t, got); k != 3 {
		t.Fatal(k)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	good.Close(ctx)
	slow.c.CloseNow()
	s.Shutdown(ctx)
	settle(t, before+4) // the httptest server's listener goroutines remain until cleanup
}

// TestHostileFlood: a peer that floods the server with packets is served in order without
// growing memory beyond its one message at a time, and the others are served meanwhile.
func TestHostileFlood(t *testing.T) {
	var mu sync.Mutex
	var counted testSignal
	count := map[int32]int{}
	n := MustNode("Main", RPC{Name: "hello", Mode: ModeAnyPeer, Handler: func(p *Peer, s string) {
		mu.Lock()
		count[p.ID()]++
		mu.Unlock()
		counted.signal()
	}})
	s := &Server{Nodes: []*Node{n}, OnError: func(*Peer, error) {}}
	url := testServer(t, s)
	flood := dialRaw(t, url)
	good := dial(t, url, &ClientOptions{Nodes: []*Node{n}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		pkt := mustRC(AppendRemoteCall(nil, 0, true, 0, "Main", []any{"flood"}))
		for i := 0; i < 20000; i++ {
			if i%3 == 0 {
				flood.c.Write(context.Background(), websocket.MessageBinary, []byte{0xff, 0, 1})
				continue
			}
			flood.c.Write(context.Background(), websocket.MessageBinary, pkt)
		}
	}()
	for range 100 {
		good.RPCID(1, n, "hello", "good")
	}
	<-done
	counts := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return count[good.ID()], count[flood.id]
	}
	if !counted.waitUntil(10*time.Second, func() bool { g, f := counts(); return g == 100 && f == 13333 }) {
		g, f := counts()
		t.Fatalf("good %d of 100, flood %d of 13333", g, f)
	}
}

// TestHostileNeverAuthenticates: peers that connect and never authenticate are closed at the
// timeout, reported, and leave no goroutine behind.
func TestHostileNeverAuthenticates(t *testing.T) {
	before := runtime.NumGoroutine()
	failed := make(chan int32, 16)
	s := &Server{Auth: func(p *Peer, data []byte) {}, AuthTimeout: 200 * time.Millisecond,
		OnAuthFailed: func(p *Peer) { failed <- p.ID() }, OnConnect: func(p *Peer) { t.Error("admitted") }}
	url := testServer(t, s)
	var clients []*rawClient
	for range 10 {
		c := dialRaw(t, url)
		c.send(t, mustRC(AppendRemoteCall(nil, 0, true, 0, "Main", nil))) // dropped: not authenticated
		clients = append(clients, c)
	}
	for range clients {
		wait(t, failed)
	}
	for _, c := range clients {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _, err := c.c.Read(ctx)
		cancel()
		if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			t.Errorf("read after the timeout: %v, want Close 1000", err)
		}
	}
	settle(t, before+4)
}

// TestShutdown: Shutdown closes every peer with 1001 and refuses new connections.
func TestShutdown(t *testing.T) {
	s := &Server{}
	url := testServer(t, s)
	c := dialRaw(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	read := make(chan error, 1)
	go func() { _, _, err := c.c.Read(ctx); read <- err }() // a client reads, and answers the Close
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-read; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("got %v, want Close 1001", err)
	}
	_, resp, err := websocket.Dial(ctx, url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("dial after Shutdown: %v", err)
	}
	if err := s.SendBytes(0, []byte{1}); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("SendBytes after Shutdown: %v", err)
	}
	if err := s.Shutdown(ctx); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("second Shutdown: %v", err)
	}
}

// TestClientAuthTimeout: a Go client whose server never completes authentication gives up after
// its AuthTimeout, as the engine's client does (Close 1000, peer_authentication_failed(1)).
func TestClientAuthTimeout(t *testing.T) {
	serverFailed := make(chan int32, 1)
	s := &Server{Auth: func(p *Peer, data []byte) {}, AuthTimeout: -1, // the server waits forever
		OnAuthFailed: func(p *Peer) { serverFailed <- p.ID() }}
	url := testServer(t, s)
	clientFailed := make(chan int32, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, url, &ClientOptions{AuthTimeout: 200 * time.Millisecond,
		Auth:         func(p *Peer, data []byte) {},
		OnAuthFailed: func(p *Peer) { clientFailed <- p.ID() },
		OnConnect:    func(p *Peer) { t.Error("connected") }})
	if err != nil {
		t.Fatal(err)
	}
	if id := wait(t, clientFailed); id != 1 {
		t.Fatalf("failed peer %d", id)
	}
	wait(t, c.Done())
	if id := wait(t, serverFailed); id != c.ID() {
		t.Fatalf("server: failed peer %d", id)
	}
}
