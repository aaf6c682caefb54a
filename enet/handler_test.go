package enet

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamewire/gamewire/enet/enettest"
)

// echoHandler sends every packet back to its peer on its channel with its flags.
var echoHandler = HandlerFunc(func(p *Peer, pk Packet) { p.Send(pk.Channel, pk.Data, pk.Flags) })

// TestHandlerEchoAllKinds: a server whose Handler echoes gets every kind of packet (empty,
// fragmented, unreliable fragments, 300 kB) to its handler intact, and gives back the buffer
// budget of each once handled.
func TestHandlerEchoAllKinds(t *testing.T) {
	ctx := testCtx(t)
	srv, err := Listen("udp4", "127.0.0.1:0", &HostOptions{Handler: echoHandler})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p, err := Dial(ctx, "udp", srv.LocalAddr().String(), &DialOptions{Channels: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Host().Close()
	echoAllKinds(ctx, t, p)
	srv.mu.Lock()
	buffered := srv.buffered
	srv.mu.Unlock()
	if buffered != 0 {
		t.Fatalf("server holds %d bytes of buffer budget after every packet was handled", buffered)
	}
}

// TestHandlerOrderOneAtATime: 4000 reliable packets from two clients on two channels each reach
// the handler in order per peer and channel, and no two calls overlap.
func TestHandlerOrderOneAtATime(t *testing.T) {
	ctx := testCtx(t)
	const n = 2000
	var (
		mu      sync.Mutex
		next    = map[[2]uint64]int{}
		in      atomic.Int32
		handled atomic.Int32
		done    = make(chan struct{})
	)
	h := HandlerFunc(func(p *Peer, pk Packet) {
		if in.Add(1) != 1 {
			t.Error("two handler calls at once")
		}
		defer in.Add(-1)
		k := [2]uint64{uint64(p.ID()), uint64(pk.Channel)}
		mu.Lock()
		want := fmt.Sprintf("m%d", next[k])
		next[k]++
		mu.Unlock()
		if string(pk.Data) != want {
			t.Errorf("peer %d channel %d: got %q, want %q", p.ID(), pk.Channel, pk.Data, want)
		}
		if handled.Add(1) == 2*n {
			close(done)
		}
	})
	opts := HostOptions{MinimumTimeout: 30 * time.Second, MaximumTimeout: 60 * time.Second}
	so := opts
	so.Handler = h
	srv, err := Listen("udp4", "127.0.0.1:0", &so)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var wg sync.WaitGroup
	for range 2 {
		p, err := Dial(ctx, "udp", srv.LocalAddr().String(), &DialOptions{HostOptions: opts, Channels: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Host().Close()
		wg.Go(func() {
			count := [2]int{}
			for i := range n {
				ch := uint8(i % 2)
				if err := p.Send(ch, fmt.Appendf(nil, "m%d", count[ch]), Reliable); err != nil {
					t.Error(err)
					return
				}
				count[ch]++
			}
		})
	}
	wg.Wait()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("%d of %d packets handled", handled.Load(), 2*n)
	}
}

// TestHandlerOverLoss: a Handler server behind a lossy, reordering PacketConn (not a
// *net.UDPConn: the read loop hands the flushes, and the handler calls, to the service
// goroutine) echoes 300 reliable packets, fragmented ones among them, once each and in order.
func TestHandlerOverLoss(t *testing.T) {
	ctx := testCtx(t)
	opts := HostOptions{MinimumTimeout: 20 * time.Second, MaximumTimeout: 60 * time.Second}
	so := opts
	so.Handler = echoHandler
	srv, lsrv := lossyHost(t, enettest.LossOptions{Loss: 0.1, Duplicate: 0.05, Reorder: 0.1, Seed: 11}, &so)
	cli, err := Listen("udp4", "127.0.0.1:0", &opts)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	p, err := cli.Connect(ctx, srv.LocalAddr().String(), 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	reliableOverLoss(t, ctx, p, 300)
	t.Logf("server conn: %+v", lsrv.Counts())
}
