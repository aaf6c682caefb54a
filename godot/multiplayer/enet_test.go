package multiplayer

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/godot"
)

// enetServer serves s on a loopback ENet host and returns its address.
func enetServer(t testing.TB, s *Server) string {
	t.Helper()
	h, err := enet.Listen("udp", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeENet(h) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		<-done
	})
	return h.LocalAddr().String()
}

func dialENet(t testing.TB, addr string, o *ClientOptions) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := DialENet(ctx, addr, o)
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

// TestENetRoundTrip (issue 23 §3): the Go client and server over ENet: RPCs both ways, the
// relay between two clients with ADD_PEER, RAW packets, and the server's notice of a leaving
// peer.
func TestENetRoundTrip(t *testing.T) {
	got := make(chan string, 8)
	srvNode := MustNode("Main",
		RPC{Name: "hello", Mode: ModeAnyPeer, Handler: func(p *Peer, s string) { got <- "server: " + s }},
		RPC{Name: "pong"},
	)
	s := &Server{Nodes: []*Node{srvNode}}
	addr := enetServer(t, s)
	cliNode := func(who string) *Node {
		return MustNode("Main",
			RPC{Name: "hello", Mode: ModeAnyPeer},
			RPC{Name: "pong", Handler: func(p *Peer, n int) { got <- who + " pong" }},
		)
	}
	raw := make(chan []byte, 4)
	joined := make(chan int32, 4)
	a := dialENet(t, addr, &ClientOptions{Nodes: []*Node{cliNode("a")}, OnConnect: func(p *Peer) {
		if p.ID() != 1 {
			joined <- p.ID()
		}
	}})
	b := dialENet(t, addr, &ClientOptions{Nodes: []*Node{cliNode("b")}, OnBytes: func(p *Peer, d []byte) {
		raw <- append([]byte{byte(p.ID() & 0xff)}, d...)
	}})
	if id := wait(t, joined); id != b.ID() {
		t.Fatalf("a learnt of %d, want b %d", id, b.ID())
	}
	if err := a.RPCID(1, cliNode("a"), "hello", "from a"); err != nil {
		t.Fatal(err)
	}
	if g := wait(t, got); g != "server: from a" {
		t.Fatal(g)
	}
	if err := s.RPCID(a.ID(), srvNode, "pong", 7); err != nil {
		t.Fatal(err)
	}
	if g := wait(t, got); g != "a pong" {
		t.Fatal(g)
	}
	if err := a.SendBytes(b.ID(), []byte("via relay")); err != nil {
		t.Fatal(err)
	}
	if g := wait(t, raw); !bytes.Equal(g, append([]byte{byte(a.ID() & 0xff)}, "via relay"...)) {
		t.Fatalf("%q", g)
	}
}

// TestENetChannelMap (issue 23 §3): what the server sends goes on the ENet channel and with the
// flags ENetMultiplayerPeer uses for its transfer mode and channel, seen by a plain ENet peer:
// SIMPLIFY_PATH reliable on channel 0, an unreliable RPC unsequenced on channel 1, an
// unreliable-ordered one sequenced on channel 1, an RPC on transfer channel 2 on ENet channel 3
// (UnreliableFragment, which both unreliable modes set, is not seen by a receiver of a packet
// that fits in a datagram). And a peer whose CONNECT data is not a valid id is refused.
func TestENetChannelMap(t *testing.T) {
	n := MustNode("Main",
		RPC{Name: "a", Transfer: TransferUnreliable},
		RPC{Name: "b", Transfer: TransferUnreliableOrdered},
		RPC{Name: "c", Channel: 2},
	)
	connected := make(chan int32, 1)
	s := &Server{Nodes: []*Node{n}, OnConnect: func(p *Peer) { connected <- p.ID() }}
	addr := enetServer(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if bad, err := enet.Dial(ctx, "udp", addr, &enet.DialOptions{Channels: 255, Data: 1}); err == nil {
		if _, err := bad.Receive(ctx); err == nil {
			t.Error("a peer with id 1 was served")
		}
	}

	const id = 4242
	p, err := enet.Dial(ctx, "udp", addr, &enet.DialOptions{Channels: 255, Data: id})
	if err != nil {
		t.Fatal(err)
	}
	defer p.DisconnectNow(0)
	if got := wait(t, connected); got != id {
		t.Fatalf("peer %d connected", got)
	}
	for _, m := range []string{"a", "b", "c"} {
		if err := s.RPCID(id, n, m); err != nil {
			t.Fatal(err)
		}
	}
	type seen struct {
		cmd   Command
		ch    uint8
		flags enet.Flags
	}
	want := []seen{
		{CmdSimplifyPath, 0, enet.Reliable},
		{CmdRemoteCall, 1, enet.Unsequenced}, // sent Unsequenced|UnreliableFragment
		{CmdRemoteCall, 1, 0},                // sent UnreliableFragment
		{CmdRemoteCall, 3, enet.Reliable},
	}
	var got []seen
	for len(got) < len(want) {
		pk, err := p.Receive(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		got = append(got, seen{Command(pk.Data[0] & cmdMask), pk.Channel, pk.Flags})
	}
	// Unreliable packets may overtake reliable ones: compare as sets.
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("nothing sent as %+v; got %+v", w, got)
		}
	}
}

// TestENetAuth (issue 23 §3): authentication over ENet: the client sends its secret with
// send_auth, the server checks it and both complete; a call made after that is handled.
func TestENetAuth(t *testing.T) {
	called := make(chan int32, 1)
	n := MustNode("Main", RPC{Name: "hello", Mode: ModeAnyPeer, Handler: func(p *Peer) { called <- p.ID() }})
	s := &Server{Nodes: []*Node{n}, Auth: func(p *Peer, data []byte) {
		if string(data) == "secret" {
			p.CompleteAuth()
		}
	}}
	addr := enetServer(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := DialENet(ctx, addr, &ClientOptions{Nodes: []*Node{n}, Auth: func(p *Peer, data []byte) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := c.Server().SendAuth([]byte("secret")); err != nil {
		t.Fatal(err)
	}
	if err := c.Server().CompleteAuth(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Connected():
	case <-ctx.Done():
		t.Fatal("authentication did not complete")
	}
	if err := c.RPCID(1, n, "hello"); err != nil {
		t.Fatal(err)
	}
	if id := wait(t, called); id != c.ID() {
		t.Fatalf("called by %d", id)
	}
}

// TestENetRelayBurst (issue 21 item 1 over ENet): a plain ENet peer relays 20 000 reliable
// packets to everyone as fast as it can; the 5 Go clients that read over ENet are not dropped
// and get every packet, in order.
func TestENetRelayBurst(t *testing.T) {
	const readers = 5
	burst := 20000
	if raceEnabled {
		burst = 2000
	}
	s := &Server{OnError: func(*Peer, error) {}}
	addr := enetServer(t, s)
	rs := make([]*burstReader, readers)
	for i := range rs {
		r := &burstReader{want: uint32(burst), done: make(chan struct{})}
		r.c = dialENet(t, addr, &ClientOptions{OnBytes: r.onBytes, OnDisconnect: r.onDisconnect})
		rs[i] = r
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := enet.Dial(ctx, "udp", addr, &enet.DialOptions{Channels: 255, Data: 777})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			if _, err := p.Receive(ctx); err != nil {
				return
			}
		}
	}()
	var seq [4]byte
	start := time.Now()
	for i := range burst {
		binary.LittleEndian.PutUint32(seq[:], uint32(i))
		if err := p.Send(0, AppendSys(nil, SysRelay, 0, AppendRaw(nil, seq[:])), enet.Reliable); err != nil {
			t.Fatalf("burst packet %d: %v", i, err)
		}
	}
	for i, r := range rs {
		select {
		case <-r.done:
		case <-ctx.Done():
		}
		r.mu.Lock()
		got, bad, gone := r.next, r.bad, r.gone
		r.mu.Unlock()
		if bad != "" || gone || got != uint32(burst) {
			t.Fatalf("reader %d: %d of %d packets, %q, dropped %v", i, got, burst, bad, gone)
		}
	}
	t.Logf("%d packets to %d readers in %v", burst, readers, time.Since(start))
}

// TestENetReplicationModes: over ENet, SPAWN goes reliable on channel 0 and SYNC unreliable
// (unsequenced, channel 1), as SceneReplicationInterface's _send_raw sets them.
func TestENetReplicationModes(t *testing.T) {
	players := &Spawner{Path: "World/PlayerSpawner", SpawnPath: "World/Players",
		Scenes: []*Scene{{Path: "res://player.tscn", Synchronizers: []*SyncConfig{{
			Path:       "ServerSync",
			Properties: []Property{{Path: ".:position", Spawn: true, Mode: ReplicateAlways}},
		}}}}}
	s := &Server{Spawners: []*Spawner{players}}
	s.OnConnect = func(p *Peer) {
		if _, err := s.Spawn(players, "res://player.tscn", "p", &SpawnOptions{State: map[string]any{"position": godot.Vector2{X: 1, Y: 2}}}); err != nil {
			t.Error(err)
		}
	}
	addr := enetServer(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := enet.Dial(ctx, "udp", addr, &enet.DialOptions{Channels: 255, Data: 4321})
	if err != nil {
		t.Fatal(err)
	}
	defer p.DisconnectNow(0)
	var spawn, sync bool
	for !spawn || !sync {
		pk, err := p.Receive(ctx)
		if err != nil {
			t.Fatalf("spawn %v, sync %v: %v", spawn, sync, err)
		}
		switch Command(pk.Data[0] & cmdMask) {
		case CmdSpawn:
			spawn = true
			if pk.Channel != 0 || pk.Flags != enet.Reliable {
				t.Errorf("SPAWN on channel %d with %v", pk.Channel, pk.Flags)
			}
		case CmdSync:
			sync = true
			if pk.Channel != 1 || pk.Flags != enet.Unsequenced {
				t.Errorf("SYNC on channel %d with %v", pk.Channel, pk.Flags)
			}
		}
	}
}

// TestENetHandlersKeepNoPacketBytes: over ENet, the server and the client read every packet
// into a buffer of their own that the next packet overwrites (enet.Peer.ReceiveInto); what
// handlers were given ([]byte and string arguments, OnBytes' data) stays theirs. Long packets
// (past the first buffer and past the kept bound) come between short ones, so the buffer both
// grows and is dropped.
func TestENetHandlersKeepNoPacketBytes(t *testing.T) {
	type got struct {
		data []byte
		s    string
	}
	srvGot := make(chan got, 16)
	cliGot := make(chan got, 16)
	srvRaw := make(chan []byte, 16)
	var sn *Node
	sn = MustNode("Main",
		RPC{Name: "up", Mode: ModeAnyPeer, Handler: func(p *Peer, d []byte, s string) {
			srvGot <- got{d, s}
			p.RPC(sn, "down", d, s)
		}},
		RPC{Name: "down"})
	const maxMsg = 256 << 10 // a packet past the PacketReader's 64 KiB is allowed
	s := &Server{Nodes: []*Node{sn}, MaxMessageBytes: maxMsg, OnBytes: func(p *Peer, d []byte) { srvRaw <- d }}
	addr := enetServer(t, s)
	cn := MustNode("Main", RPC{Name: "up", Mode: ModeAnyPeer},
		RPC{Name: "down", Handler: func(p *Peer, d []byte, s string) { cliGot <- got{d, s} }})
	c := dialENet(t, addr, &ClientOptions{Nodes: []*Node{cn}, MaxMessageBytes: maxMsg})

	var sent []got
	for i, n := range []int{10, 3000, 20, 100 << 10, 30, 5} {
		d := bytes.Repeat([]byte{byte('a' + i)}, n)
		g := got{d, string(bytes.Repeat([]byte{byte('A' + i)}, n%97+1))}
		sent = append(sent, g)
		if err := c.RPCID(1, cn, "up", g.data, g.s); err != nil {
			t.Fatal(err)
		}
		if err := c.SendBytes(1, d); err != nil {
			t.Fatal(err)
		}
	}
	var kept [3][]got
	for range sent {
		kept[0] = append(kept[0], wait(t, srvGot))
		kept[1] = append(kept[1], wait(t, cliGot))
		kept[2] = append(kept[2], got{data: wait(t, srvRaw)})
	}
	// Every packet has been read by now: the earlier ones' bytes must be as they came.
	for k, name := range []string{"server handler", "client handler", "server OnBytes"} {
		for i, g := range kept[k] {
			if !bytes.Equal(g.data, sent[i].data) || (k < 2 && g.s != sent[i].s) {
				t.Errorf("%s, packet %d: kept bytes changed (%d bytes, first %q)", name, i, len(g.data), g.data[:min(4, len(g.data))])
			}
		}
	}
}
