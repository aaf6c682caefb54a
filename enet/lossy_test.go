package enet

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/enet/enettest"
)

// reliableOverLoss sends n reliable packets of mixed sizes (fragments among them) on two
// channels through p and checks that every echo comes back once, in order per channel.
func reliableOverLoss(t *testing.T, ctx context.Context, p *Peer, n int) {
	t.Helper()
	sizes := []int{1, 50, 700, 1500, 5000}
	go func() {
		for i := range n {
			msg := []byte(fmt.Sprintf("%d:", i))
			msg = append(msg, payload(sizes[i%len(sizes)], i)...)
			if err := p.Send(uint8(i%2), msg, Reliable); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	next := [2]int{0, 1}
	for range n {
		pk, err := p.Receive(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", next, err)
		}
		head, _, _ := strings.Cut(string(pk.Data[:min(len(pk.Data), 12)]), ":")
		if want := fmt.Sprint(next[pk.Channel]); head != want {
			t.Fatalf("channel %d: got packet %s, want %s", pk.Channel, head, want)
		}
		i := next[pk.Channel]
		if want := len(fmt.Sprintf("%d:", i)) + sizes[i%len(sizes)]; len(pk.Data) != want {
			t.Fatalf("packet %d: %d bytes, want %d", i, len(pk.Data), want)
		}
		next[pk.Channel] += 2
	}
}

func lossyHost(t *testing.T, loss enettest.LossOptions, o *HostOptions) (*Host, *enettest.LossyConn) {
	t.Helper()
	uc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lc := enettest.NewLossyConn(uc, loss)
	h, err := NewHost(lc, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, lc
}

// TestLossyGoToGo: 10 % loss each way on both hosts (34 % of round trips lose a datagram),
// with duplicates and reordering, between two Go hosts.
func TestLossyGoToGo(t *testing.T) {
	ctx := testCtx(t)
	opts := &HostOptions{MinimumTimeout: 20 * time.Second, MaximumTimeout: 60 * time.Second}
	loss := enettest.LossOptions{Loss: 0.1, Duplicate: 0.05, Reorder: 0.1, Seed: 1}
	srv, lsrv := lossyHost(t, loss, opts)
	go echo(ctx, srv)
	loss.Seed = 2
	cli, lcli := lossyHost(t, loss, opts)
	p, err := cli.Connect(ctx, srv.LocalAddr().String(), 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	reliableOverLoss(t, ctx, p, 300)
	t.Logf("client conn: %d written, %d read, %d dropped, %d duplicated, %d reordered", lcli.Written, lcli.Read, lcli.Dropped, lcli.Duplicated, lcli.Reordered)
	t.Logf("server conn: %d written, %d read, %d dropped, %d duplicated, %d reordered", lsrv.Written, lsrv.Read, lsrv.Dropped, lsrv.Duplicated, lsrv.Reordered)
}

// TestLossyGoWithCENet: a Go client behind 15 % loss each way (about 28 % of round trips
// fail), with duplicates and reordering, against C ENet's echo: every reliable packet comes
// back once, in order.
func TestLossyGoWithCENet(t *testing.T) {
	ctx := testCtx(t)
	c := startCPeer(t, "server", "0", "-echo", "-channels", "2", "-timeout", "64", "20000", "60000")
	port := strings.TrimPrefix(c.expect("listening"), "listening ")
	opts := &HostOptions{MinimumTimeout: 20 * time.Second, MaximumTimeout: 60 * time.Second}
	cli, lc := lossyHost(t, enettest.LossOptions{Loss: 0.15, Duplicate: 0.05, Reorder: 0.1, Seed: 3}, opts)
	p, err := cli.Connect(ctx, "127.0.0.1:"+port, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range c.lines { // the C peer's "recv" lines: not needed here
		}
	}()
	reliableOverLoss(t, ctx, p, 300)
	t.Logf("lossy conn: %d written, %d read, %d dropped, %d duplicated, %d reordered", lc.Written, lc.Read, lc.Dropped, lc.Duplicated, lc.Reordered)
}

// TestLossyOneWayWithCENet: 30 % of what the Go client sends to C ENet is lost.
func TestLossyOneWayWithCENet(t *testing.T) {
	ctx := testCtx(t)
	c := startCPeer(t, "server", "0", "-echo", "-channels", "2", "-timeout", "64", "20000", "60000")
	port := strings.TrimPrefix(c.expect("listening"), "listening ")
	opts := &HostOptions{MinimumTimeout: 20 * time.Second, MaximumTimeout: 60 * time.Second}
	uc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lc := &writeLossy{LossyConn: enettest.NewLossyConn(uc, enettest.LossOptions{Loss: 0.3, Seed: 5})}
	cli, err := NewHost(lc, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	p, err := cli.Connect(ctx, "127.0.0.1:"+port, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range c.lines {
		}
	}()
	reliableOverLoss(t, ctx, p, 300)
	t.Logf("lossy conn: %d written, %d dropped", lc.Written, lc.Dropped)
}

// writeLossy loses only what is written.
type writeLossy struct{ *enettest.LossyConn }

func (w *writeLossy) ReadFrom(b []byte) (int, net.Addr, error) {
	return w.LossyConn.PacketConn.ReadFrom(b)
}
