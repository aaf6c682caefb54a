package multiplayer3

import (
	"bytes"
	"slices"
	"testing"

	"github.com/gamewire/gamewire/enet"
)

// TestHandlersKeepNoPacketBytes: the server and the client read every packet into a buffer of
// their own that the next packet overwrites (enet.Peer.ReceiveInto); what handlers were given
// ([]byte and string arguments, OnBytes' data) stays theirs. Long packets (past the first
// buffer and past maxScratch) come between short ones, so the buffer both grows and is
// dropped.
func TestHandlersKeepNoPacketBytes(t *testing.T) {
	ctx := testCtx(t)
	type got struct {
		data []byte
		s    string
	}
	srvGot := make(chan got, 16)
	cliGot := make(chan got, 16)
	srvRaw := make(chan []byte, 16)
	var sn *Node
	sn = MustNode("Main",
		RPC{Name: "up", Mode: ModeRemote, Handler: func(p *Peer, d []byte, s string) {
			srvGot <- got{d, s}
			p.RPC(sn, "down", d, s)
		}},
		RPC{Name: "down", Mode: ModePuppet})
	s := &Server{Nodes: []*Node{sn}, OnBytes: func(p *Peer, d []byte) { srvRaw <- d }}
	addr := startServer(t, s)
	cn := MustNode("Main", RPC{Name: "up", Mode: ModeRemote},
		RPC{Name: "down", Mode: ModePuppet, Handler: func(p *Peer, d []byte, s string) { cliGot <- got{d, s} }})
	c, err := Dial(ctx, addr, &ClientOptions{Nodes: []*Node{cn}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

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
	for i := range sent {
		for k, ch := range []chan got{srvGot, cliGot} {
			select {
			case g := <-ch:
				kept[k] = append(kept[k], g)
			case <-ctx.Done():
				t.Fatalf("call %d: not received", i)
			}
		}
		select {
		case d := <-srvRaw:
			kept[2] = append(kept[2], got{data: d})
		case <-ctx.Done():
			t.Fatalf("RAW %d: not received", i)
		}
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

// TestReceiverBufferBound: the client's batch buffer grows for a long packet and goes back to
// recvBufBytes after a batch that grew it past maxScratch (a server peer's reader is an
// enet.PacketReader: TestPacketReaderBufferBound).
func TestReceiverBufferBound(t *testing.T) {
	ctx := testCtx(t)
	h, err := enet.Listen("udp4", "127.0.0.1:0", &enet.HostOptions{Channels: Channels})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c, err := enet.Dial(ctx, "udp", h.LocalAddr().String(), &enet.DialOptions{Channels: Channels, Data: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ep, err := h.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{10, 3000, 20, maxScratch + 1, 30}
	// The batch: the packets, in as many batches as they take to arrive.
	for _, n := range sizes {
		if err := c.Send(0, bytes.Repeat([]byte{byte(n)}, n), enet.Reliable); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Send(0, []byte("end"), enet.Reliable); err != nil {
		t.Fatal(err)
	}
	br := batchReceiver{ep: ep}
	var got []int
	grown := 0
	for len(got) == 0 || got[len(got)-1] != 3 {
		batch, err := br.next(ctx, maxBatch)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range batch {
			got = append(got, len(br.data(b)))
		}
		grown = max(grown, cap(br.buf))
	}
	if want := append(sizes, 3); !slices.Equal(got, want) {
		t.Fatalf("batches: %v, want %v", got, want)
	}
	if grown <= maxScratch {
		t.Fatalf("the batch buffer did not grow: %d", grown)
	}
	if err := c.Send(0, []byte("x"), enet.Reliable); err != nil {
		t.Fatal(err)
	}
	if _, err := br.next(ctx, maxBatch); err != nil {
		t.Fatal(err)
	}
	if cap(br.buf) != recvBufBytes {
		t.Errorf("after a batch past maxScratch: buffer of %d, want %d", cap(br.buf), recvBufBytes)
	}
}
