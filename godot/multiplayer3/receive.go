package multiplayer3

import (
	"context"
	"errors"
	"slices"

	"github.com/gamewire/gamewire/enet"
)

// recvBufBytes is the buffer a client's batch of packets is first read into: an MTU's worth
// and more, enough for the calls of a game.
const recvBufBytes = enet.DefaultReaderBytes

// A server reads each peer's packets with an enet.PacketReader (enet.Peer.ReceiveInto into one
// reused buffer: no allocation per packet, as Receive makes), with MaxKeptBytes maxScratch. A
// packet is read on the goroutine that handles it, as with Receive, so the peer's packets still
// wait in the ENet host's queue while a handler runs, within HostOptions.MaxBufferedBytes (back
// pressure: what does not fit is not acknowledged and the sender resends it). Between packets a
// peer holds at most maxScratch (64 KiB) of buffer, and 2 KiB unless its packets are longer.
//
// Nothing that handles a packet keeps its bytes: the Variant decoder copies the arguments,
// OnBytes gets a copy, relayed packets are copied by enet.Peer.Send, and Trace must not keep
// them (TestHandlersKeepNoPacketBytes).

// drained is a context that has ended: a receive with it takes what has arrived and waits for
// nothing.
var drained = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// batched is one packet of a client's batch: its place in the batch's buffer.
type batched struct {
	off, n  int
	channel uint8
	flags   enet.Flags
}

// batchReceiver reads the packets that have arrived from the server together, as the engine's
// poll() takes them, into one buffer (enet.Peer.ReceiveInto: no allocation per packet). The
// buffer grows to the batch's bytes (at most twice them, as it doubles) and is dropped after a
// batch that grew it past maxScratch. A batch holds what the ENet host had queued for the peer
// (within HostOptions.MaxBufferedBytes) and what arrives while it is taken, as the batch of
// Receive's packets did, up to maxBatch packets.
type batchReceiver struct {
	ep    *enet.Peer
	buf   []byte
	batch []batched
}

// next waits for a packet until ctx ends, then takes the others that have arrived, up to max
// packets in all. The batch and its bytes are valid until the next call.
func (r *batchReceiver) next(ctx context.Context, max int) ([]batched, error) {
	if cap(r.buf) > maxScratch || r.buf == nil {
		r.buf = make([]byte, 0, recvBufBytes)
	}
	r.buf, r.batch = r.buf[:0], r.batch[:0]
	if err := r.take(ctx); err != nil {
		return nil, err
	}
	for len(r.batch) < max && r.take(drained) == nil {
	}
	return r.batch, nil
}

// take appends one packet to the batch.
func (r *batchReceiver) take(ctx context.Context) error {
	for {
		off := len(r.buf)
		n, ch, fl, err := r.ep.ReceiveInto(ctx, r.buf[off:cap(r.buf)])
		if errors.Is(err, enet.ErrShortBuffer) {
			r.buf = slices.Grow(r.buf, max(n, cap(r.buf)))
			continue
		}
		if err != nil {
			return err
		}
		r.buf = r.buf[:off+n]
		r.batch = append(r.batch, batched{off: off, n: n, channel: ch, flags: fl})
		return nil
	}
}

// data returns the bytes of packet b of the batch.
func (r *batchReceiver) data(b batched) []byte { return r.buf[b.off : b.off+b.n : b.off+b.n] }
