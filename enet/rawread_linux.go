package enet

import (
	"errors"
	"net"
	"syscall"

	"github.com/gamewire/gamewire/enet/protocol"
)

// readBatchSize is how many datagrams one recvmmsg(2) call may read.
const readBatchSize = 16

// initRawRead sets up the Linux read loop for a UDP socket: rawRead reads batches of datagrams
// with recvmmsg(2) inside the socket's RawConn.Read, so that it sees the socket drained (a batch
// shorter than asked for, or EAGAIN) and sends the acknowledgements of what it read then, before
// it waits for the next datagram. Its buffers hold protocol.MaximumMTU bytes, as C ENet's: a
// longer datagram is dropped, as C ENet drops it.
func (h *Host) initRawRead() {
	if h.udp == nil {
		return
	}
	rc, err := h.udp.SyscallConn()
	if err != nil {
		return
	}
	rb := newReadBatch(readBatchSize, protocol.MaximumMTU)
	var closed bool
	var rerr error
	burst := 0
	// read is called by RawConn.Read with the socket's read lock held; it returns false to
	// wait for the socket to become readable, true to leave Read (the host closed, or an
	// error for readError).
	read := func(fd uintptr) bool {
		for {
			n, err := rb.read(int(fd))
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				n = 0
			case err != nil:
				// ECONNREFUSED after an ICMP port unreachable, and the like.
				rerr = err
				return true
			}
			for i := range n {
				b, from, truncated := rb.datagram(i)
				if truncated {
					h.dropped(len(b))
					continue
				}
				var dirty bool
				closed, dirty = h.received(b, addrKey{ap: from}, nil)
				if closed {
					return true
				}
				if dirty {
					burst++
				}
			}
			if n < readBatchSize || burst >= maxReadBurst {
				// Drained (recvmmsg stops when no datagram is left), or a long burst.
				if burst > 0 {
					h.flushReceived()
					burst = 0
				}
				if n < readBatchSize {
					return false
				}
			}
		}
	}
	h.rawRead = func() bool {
		for {
			rerr = nil
			err := rc.Read(read)
			if closed {
				return true
			}
			if err == nil {
				err = rerr
			}
			if err != nil && h.readError(err) {
				return true
			}
			if errors.Is(err, net.ErrClosed) {
				return true
			}
		}
	}
}
