package enet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// echo serves h: every packet back to its sender on the same channel with the same flags.
func echo(ctx context.Context, h *Host) {
	for {
		p, err := h.Accept(ctx)
		if err != nil {
			return
		}
		go func() {
			// ReceiveInto with a buffer that grows when a packet does not fit: the echo
			// allocates nothing per packet.
			buf := make([]byte, 2048)
			for {
				n, ch, flags, err := p.ReceiveInto(ctx, buf)
				if errors.Is(err, ErrShortBuffer) {
					buf = make([]byte, n)
					continue
				}
				if err != nil {
					return
				}
				if err := p.Send(ch, buf[:n], flags); err != nil {
					return
				}
			}
		}()
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func payload(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + seed)
	}
	return b
}

// echoAllKinds sends p's echoing peer a packet of every kind (empty, reliable on every one of
// four channels, unreliable, unsequenced, fragmented, unreliable fragments, 300 kB) and checks
// that each comes back on its channel with its flags and bytes.
func echoAllKinds(ctx context.Context, t *testing.T, p *Peer) {
	t.Helper()
	cases := []struct {
		ch    uint8
		n     int
		flags Flags
	}{
		{0, 10, Reliable}, {1, 0, Reliable}, {2, 100, 0}, {3, 50, Unsequenced},
		{0, 5000, Reliable}, {1, 300000, Reliable}, {2, 4000, UnreliableFragment}, {3, 1300, Reliable},
	}
	for i, c := range cases {
		want := payload(c.n, i)
		if err := p.Send(c.ch, want, c.flags); err != nil {
			t.Fatal(err)
		}
		got, err := p.Receive(ctx)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got.Channel != c.ch || got.Flags != c.flags || !bytes.Equal(got.Data, want) {
			t.Fatalf("case %d: got ch %d flags %v %d bytes, want ch %d flags %v %d bytes", i, got.Channel, got.Flags, len(got.Data), c.ch, c.flags, c.n)
		}
	}
}

func TestGoEchoAllKinds(t *testing.T) {
	ctx := testCtx(t)
	srv, err := Listen("udp4", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go echo(ctx, srv)
	p, err := Dial(ctx, "udp", srv.LocalAddr().String(), &DialOptions{Channels: 4, Data: 0xC0FFEE})
	if err != nil {
		t.Fatal(err)
	}
	echoAllKinds(ctx, t, p)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = p.Receive(ctx)
	if !errors.Is(err, ErrDisconnected) {
		t.Fatalf("after Close: %v", err)
	}
}

func TestGoManyReliableInOrder(t *testing.T) {
	ctx := testCtx(t)
	// Generous peer timeouts: on a loaded machine under the race detector round trips take
	// seconds, and this test is about order, not about timeouts.
	opts := HostOptions{MinimumTimeout: 30 * time.Second, MaximumTimeout: 60 * time.Second}
	srv, err := Listen("udp4", "127.0.0.1:0", &opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go echo(ctx, srv)
	p, err := Dial(ctx, "udp", srv.LocalAddr().String(), &DialOptions{HostOptions: opts, Channels: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const n = 10000
	go func() {
		for i := range n {
			if err := p.Send(uint8(i%2), fmt.Appendf(nil, "m%d", i), Reliable); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	next := [2]int{0, 1}
	for range n {
		pk, err := p.Receive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("m%d", next[pk.Channel])
		if string(pk.Data) != want {
			t.Fatalf("channel %d: got %q want %q", pk.Channel, pk.Data, want)
		}
		next[pk.Channel] += 2
	}
}

func asErr[T error](err error, target *T) bool { return errors.As(err, target) }

func isErr(err, target error) bool { return errors.Is(err, target) }
