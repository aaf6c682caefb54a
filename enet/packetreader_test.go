package enet

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// TestPacketReaderBufferBound: a PacketReader's buffer grows for a long packet, is kept while
// it is within MaxKeptBytes, and goes back to InitialBytes after a packet that grew it past
// them; every packet's bytes are whole.
func TestPacketReaderBufferBound(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := Listen("udp4", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c, err := Dial(ctx, "udp", h.LocalAddr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ep, err := h.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{10, 3000, 20, DefaultReaderKeptBytes + 1, 30}
	for _, n := range sizes {
		if err := c.Send(0, bytes.Repeat([]byte{byte(n)}, n), Reliable); err != nil {
			t.Fatal(err)
		}
	}
	r := PacketReader{Peer: ep}
	wantCap := []int{DefaultReaderBytes, 3000, 3000, DefaultReaderKeptBytes + 1, DefaultReaderBytes}
	for i, n := range sizes {
		pkt, err := r.ReadPacket(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(pkt.Data) != n || !bytes.Equal(pkt.Data, bytes.Repeat([]byte{byte(n)}, n)) || pkt.Flags&Reliable == 0 {
			t.Fatalf("packet %d: %d bytes, flags %v; want %d reliable", i, len(pkt.Data), pkt.Flags, n)
		}
		if cap(r.buf) != wantCap[i] {
			t.Errorf("after packet %d (%d bytes): buffer of %d, want %d", i, n, cap(r.buf), wantCap[i])
		}
	}
	c.DisconnectNow(0)
	if _, err := r.ReadPacket(ctx); err == nil {
		t.Error("ReadPacket after the peer left: no error")
	}
}
