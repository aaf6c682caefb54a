package multiplayer3

import (
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/gamewire/gamewire/enet"
)

// A peer that sends thousands of malformed and mutated packets on every channel, and floods the
// path cache, beside a well-behaved client: the server refuses what it must, keeps the flooder's
// path cache within its limit, and the good client's calls all come back.
func TestServerHostilePeer(t *testing.T) {
	ctx := testCtx(t)
	var refused, tooLarge atomic.Int64
	var sn *Node
	sn = MustNode("Main",
		RPC{Name: "ping", Mode: ModeRemote, Handler: func(p *Peer, seq int) { p.RPC(sn, "pong", seq) }},
		RPC{Name: "pong", Mode: ModePuppet})
	markers := make(chan string, 4)
	s := &Server{Nodes: []*Node{sn}, OnError: func(p *Peer, err error) {
		refused.Add(1)
		if errors.Is(err, ErrTooLarge) {
			tooLarge.Add(1)
		}
	}, OnBytes: func(p *Peer, b []byte) {
		if p.ID() == 11 && string(b) == "end of the flood" {
			markers <- "end"
		}
	}}
	addr := startServer(t, s)

	pong := make(chan int, 1)
	cn := MustNode("Main", RPC{Name: "ping", Mode: ModeRemote},
		RPC{Name: "pong", Mode: ModePuppet, Handler: func(p *Peer, seq int) { pong <- seq }})
	good, err := Dial(ctx, addr, &ClientOptions{ID: 10, Nodes: []*Node{cn}})
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()

	bad, err := enet.Dial(ctx, "udp", addr, &enet.DialOptions{Channels: Channels, Data: 11})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	// Packets of the recorded session, mutated, and random bytes, on every channel.
	var seeds [][]byte
	for _, sp := range sessionPackets(t, loadSession(t, 0)) {
		if sp.Channel != ChannelSys && len(sp.Data) > HeaderBytes {
			seeds = append(seeds, sp.Data[HeaderBytes:])
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	flood := func(i int) {
		var body []byte
		switch i % 3 {
		case 0:
			body = make([]byte, r.IntN(64))
			for j := range body {
				body[j] = byte(r.Uint32())
			}
		case 1:
			body = append([]byte(nil), seeds[r.IntN(len(seeds))]...)
			for range 1 + r.IntN(4) {
				body[r.IntN(len(body))] = byte(r.Uint32())
			}
			body = body[:r.IntN(len(body)+1)]
		case 2: // a new path cache id each time
			body, _ = AppendSimplifyPath(nil, uint32(i), "Main")
		}
		src := int32(11)
		if r.IntN(10) == 0 {
			src = int32(r.Uint32()) // spoofed
		}
		target := []int32{1, 0, -10, 10, 99}[r.IntN(5)]
		pkt := AppendHeader(nil, src, target)
		if r.IntN(20) == 0 {
			pkt = pkt[:r.IntN(8)]
		}
		bad.Send(uint8(r.IntN(Channels)), append(pkt, body...), enet.Reliable)
	}
	for i := range 3000 {
		flood(i)
		if i%100 == 0 {
			// The good client goes on meanwhile.
			if err := good.RPCID(1, cn, "ping", i); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-pong:
				if got != i {
					t.Fatalf("pong %d, want %d", got, i)
				}
			case <-ctx.Done():
				t.Fatalf("no pong %d while the server is flooded", i)
			}
		}
	}
	// The flood has been read once a marker sent after it on each data channel has (ENet keeps
	// the order of reliable packets per channel).
	for ch := ChannelReliable; ch < Channels; ch++ {
		bad.Send(ch, AppendRaw(AppendHeader(nil, 11, 1), []byte("end of the flood")), enet.Reliable)
	}
	for range Channels - 1 {
		select {
		case <-markers:
		case <-ctx.Done():
			t.Fatal("the server did not read the flood to its end")
		}
	}
	if got := s.Peers(); len(got) != 2 {
		t.Errorf("peers %v: the flood ended a connection", got)
	}
	p := s.Peer(11)
	s.sc.mu.Lock()
	n := len(p.paths)
	s.sc.mu.Unlock()
	if n > maxPaths {
		t.Errorf("the flooder has %d cached paths, the limit is %d", n, maxPaths)
	}
	if refused.Load() == 0 || tooLarge.Load() == 0 {
		t.Errorf("refused %d packets, %d over the path limit", refused.Load(), tooLarge.Load())
	}
	t.Logf("refused %d packets (%d over the path cache limit); the flooder holds %d paths", refused.Load(), tooLarge.Load(), n)
}
