package enet

import (
	"context"
	"errors"
)

// Defaults of PacketReader.
const (
	// DefaultReaderBytes is the buffer a PacketReader starts with: an MTU's worth and more,
	// so that most packets fit it.
	DefaultReaderBytes = 2 << 10
	// DefaultReaderKeptBytes bounds the buffer a PacketReader keeps between packets.
	DefaultReaderKeptBytes = 64 << 10
)

// A PacketReader reads a peer's packets into one buffer that it reuses, with
// [Peer.ReceiveInto]: reading allocates nothing while the packets fit the buffer. A packet's
// Data is valid until the next ReadPacket. The buffer starts at InitialBytes, grows to fit a
// longer packet, and is dropped for a new one of InitialBytes once it has grown past
// MaxKeptBytes, so that one long packet does not make the reader hold a long buffer from then
// on: between packets a reader holds at most MaxKeptBytes. A PacketReader is for one goroutine.
type PacketReader struct {
	// Peer is the peer read from.
	Peer *Peer
	// InitialBytes is the size of the buffer (0: DefaultReaderBytes), MaxKeptBytes the largest
	// buffer kept between packets (0: DefaultReaderKeptBytes).
	InitialBytes, MaxKeptBytes int
	buf                        []byte
}

// ReadPacket returns the peer's next packet, waiting for one until ctx ends; its Data is valid
// until the next call. Once the peer is gone and its packets are read, it returns a
// *DisconnectError, as Receive does.
func (r *PacketReader) ReadPacket(ctx context.Context) (Packet, error) {
	kept := r.MaxKeptBytes
	if kept <= 0 {
		kept = DefaultReaderKeptBytes
	}
	if r.buf == nil || cap(r.buf) > kept {
		n := r.InitialBytes
		if n <= 0 {
			n = DefaultReaderBytes
		}
		r.buf = make([]byte, n)
	}
	for {
		n, ch, fl, err := r.Peer.ReceiveInto(ctx, r.buf[:cap(r.buf)])
		if errors.Is(err, ErrShortBuffer) {
			r.buf = make([]byte, n)
			continue
		}
		if err != nil {
			return Packet{}, err
		}
		return Packet{Channel: ch, Data: r.buf[:n], Flags: fl}, nil
	}
}
