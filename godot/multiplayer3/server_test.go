package multiplayer3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/enet"
)

// startServer serves s on a loopback host and returns its address.
func startServer(t *testing.T, s *Server) string {
	t.Helper()
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	h, err := enet.Listen("udp4", "127.0.0.1:0", &enet.HostOptions{Channels: Channels})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(h) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve = %v", err)
		}
	})
	return h.LocalAddr().String()
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// events collects what handlers report, for waiting on in tests.
type events struct {
	ch   chan string
	seen map[string]int // taken from ch, not yet waited for
}

func newEvents() *events { return &events{ch: make(chan string, 64), seen: map[string]int{}} }

func (e *events) add(s string) { e.ch <- s }

// wait waits for an event, in any order with the others.
func (e *events) wait(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	for e.seen[want] == 0 {
		select {
		case got := <-e.ch:
			e.seen[got]++
		case <-ctx.Done():
			t.Fatalf("no %q (seen %v)", want, e.seen)
		}
	}
	e.seen[want]--
}

// rest returns the events not waited for.
func (e *events) rest() []string {
	var out []string
	for {
		select {
		case s := <-e.ch:
			out = append(out, s)
		default:
			for s, n := range e.seen {
				for range n {
					out = append(out, s)
				}
			}
			return out
		}
	}
}

// The server refuses ids below 2 and ids in use, as the engine does: the ENet peer is
// disconnected at once and no one hears of it.
func TestServerRefusesIDs(t *testing.T) {
	ctx := testCtx(t)
	ev := newEvents()
	s := &Server{OnConnect: func(p *Peer) { ev.add("connect") }}
	addr := startServer(t, s)
	c, err := Dial(ctx, addr, &ClientOptions{ID: 77, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ev.wait(t, ctx, "connect")
	for _, id := range []uint32{0, 1, 77, 0x80000000} {
		p, err := enet.Dial(ctx, "udp", addr, &enet.DialOptions{Channels: Channels, Data: id})
		if err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
		if _, err := p.Receive(ctx); !errors.Is(err, enet.ErrDisconnected) {
			t.Errorf("id %#x: Receive = %v, want a disconnection", id, err)
		}
		p.Host().Close()
	}
	if got := s.Peers(); !slices.Equal(got, []int32{77}) {
		t.Errorf("Peers = %v, want [77]", got)
	}
}

// A client's packet that names another source is refused and not relayed.
func TestServerRefusesSpoofedSource(t *testing.T) {
	ctx := testCtx(t)
	errs := make(chan error, 4)
	ev := newEvents()
	s := &Server{OnError: func(p *Peer, err error) { errs <- err }, OnBytes: func(p *Peer, b []byte) { ev.add("raw " + string(b)) }}
	addr := startServer(t, s)
	b, err := Dial(ctx, addr, &ClientOptions{ID: 5, OnBytes: func(p *Peer, d []byte) { ev.add("b got " + string(d)) }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a, err := enet.Dial(ctx, "udp", addr, &enet.DialOptions{Channels: Channels, Data: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// ADD_PEER of 5 arrives first.
	if pk, err := a.Receive(ctx); err != nil || pk.Channel != ChannelSys {
		t.Fatalf("first packet %v %v", pk, err)
	}
	spoof := AppendRaw(AppendHeader(nil, 9, 0), []byte("spoofed"))
	a.Send(ChannelReliable, spoof, enet.Reliable)
	honest := AppendRaw(AppendHeader(nil, 4, 0), []byte("honest"))
	a.Send(ChannelReliable, honest, enet.Reliable)
	ev.wait(t, ctx, "raw honest")
	ev.wait(t, ctx, "b got honest")
	select {
	case err := <-errs:
		var pe *PacketError
		if !errors.Is(err, ErrSpoofed) || !errors.As(err, &pe) {
			t.Errorf("OnError got %v, want ErrSpoofed", err)
		}
	default:
		t.Error("the spoofed packet was not reported")
	}
	for _, e := range ev.rest() {
		if e == "raw spoofed" || e == "b got spoofed" {
			t.Errorf("the spoofed packet ran: %s", e)
		}
	}
}

// Without relay, clients are not told about each other and packets for another client are
// dropped.
func TestServerNoRelay(t *testing.T) {
	ctx := testCtx(t)
	errs := make(chan error, 4)
	s := &Server{NoRelay: true, OnError: func(p *Peer, err error) { errs <- err }}
	addr := startServer(t, s)
	ev := newEvents()
	b, err := Dial(ctx, addr, &ClientOptions{ID: 5, OnBytes: func(p *Peer, d []byte) { ev.add("b got " + string(d)) }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a, err := Dial(ctx, addr, &ClientOptions{ID: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := a.Peers(); !slices.Equal(got, []int32{1}) {
		t.Errorf("A's peers = %v, want only the server", got)
	}
	a.sc.mu.Lock()
	a.sc.peers[5] = a.sc.newPeer(5, nil) // pretend to know B
	a.sc.mu.Unlock()
	if err := a.SendBytes(5, []byte("x")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		if !errors.Is(err, ErrUnknownPeer) {
			t.Errorf("OnError got %v", err)
		}
	case e := <-ev.ch:
		t.Errorf("relayed without relay: %s", e)
	case <-ctx.Done():
		t.Fatal("nothing reported")
	}
}

// The sync modes run the handler locally, with this peer as the caller, as _should_call_local
// decides: remotesync always, mastersync on the master (and then not remotely), puppetsync on
// the others; master alone runs only locally on the master, puppet only remotely.
func TestLocalCalls(t *testing.T) {
	ctx := testCtx(t)
	ev := newEvents()
	mk := func(who string) *Node {
		var rpcs []RPC
		for i, m := range modeNames {
			rpcs = append(rpcs, RPC{Name: "m_" + m, Mode: Mode(i + 1), Handler: func(p *Peer) { ev.add(who + " " + m + " from " + itoa(p.ID())) }})
		}
		return MustNode("Main", rpcs...)
	}
	sn := mk("server")
	s := &Server{Nodes: []*Node{sn}, OnConnect: func(*Peer) { ev.add("connected") }}
	addr := startServer(t, s)
	cn := mk("client")
	c, err := Dial(ctx, addr, &ClientOptions{ID: 9, Nodes: []*Node{cn}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ev.wait(t, ctx, "connected")
	for _, m := range modeNames {
		if err := s.RPC(sn, "m_"+m); err != nil && m != "puppet" {
			t.Errorf("RPC m_%s: %v", m, err)
		}
	}
	if err := s.RPC(sn, "m_remote"); err != nil { // a marker: everything before it has arrived
		t.Fatal(err)
	}
	var got []string
	for len(got) < 9 {
		select {
		case e := <-ev.ch:
			got = append(got, e)
		case <-ctx.Done():
			t.Fatalf("got %v", got)
		}
	}
	slices.Sort(got)
	want := []string{
		"client puppet from 1", "client puppetsync from 1", "client remote from 1", "client remote from 1", "client remotesync from 1",
		"server master from 1", "server mastersync from 1", "server puppetsync from 1", "server remotesync from 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("calls:\n%v\nwant\n%v", got, want)
	}
}

func itoa(i int32) string { return fmtInt(int64(i)) }

func fmtInt(i int64) string { return strconv.FormatInt(i, 10) }

// A peer's Context ends when it disconnects, and Server.Disconnect ends it.
func TestPeerContextAndDisconnect(t *testing.T) {
	ctx := testCtx(t)
	peers := make(chan *Peer, 1)
	s := &Server{OnConnect: func(p *Peer) { peers <- p }}
	addr := startServer(t, s)
	c, err := Dial(ctx, addr, &ClientOptions{ID: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := <-peers
	if p.Context().Err() != nil {
		t.Fatal("the context of a connected peer is done")
	}
	if err := s.Disconnect(3); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Context().Done():
	case <-ctx.Done():
		t.Fatal("the peer's context did not end")
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("the client did not see the disconnection")
	}
	if err := s.Disconnect(3); !errors.Is(err, ErrUnknownPeer) {
		t.Errorf("Disconnect of a gone peer: %v", err)
	}
}

// A flood of refused packets logs one line per second, with a count.
func TestRefusedPacketsLogBounded(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	sc, err := newScene(ServerID, true, nil, hooks{log: logger}, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sent int
	p := sc.newPeer(5, memLink{&sent})
	sc.addPeer(p)
	in := 0
	for range 10000 {
		pkt := []byte{5, 0, 0, 0, 1, 0, 0, 0, 9} // command 9: refused
		sc.receive(p, ChannelReliable, pkt, reliable)
		in += len(pkt)
	}
	mu.Lock()
	defer mu.Unlock()
	if lines := strings.Count(buf.String(), "\n"); lines > 2 || buf.Len() > in/10 {
		t.Errorf("%d packets (%d bytes) refused: %d log lines, %d bytes:\n%s", 10000, in, lines, buf.Len(), buf.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
