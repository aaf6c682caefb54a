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
	h.initWriteBatch(rc)
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

// writeBatchSize is how many datagrams one sendmmsg(2) call may send.
const writeBatchSize = 32

// initWriteBatch sets up sending the datagrams of one flush with sendmmsg(2) (see
// Host.sendBatch).
func (h *Host) initWriteBatch(rc syscall.RawConn) {
	var inet6, ok bool
	if rc.Control(func(fd uintptr) {
		sa, err := syscall.Getsockname(int(fd))
		if err != nil {
			return
		}
		switch sa.(type) {
		case *syscall.SockaddrInet4:
			ok = true
		case *syscall.SockaddrInet6:
			ok, inet6 = true, true
		}
	}) != nil || !ok {
		return
	}
	w := newWriteBatch(writeBatchSize, int(h.o.mtu), inet6) // no datagram sent is longer
	off := 0
	// write is called by RawConn.Write with the socket's write lock held.
	write := func(fd uintptr) bool {
		for off < w.n {
			n, err := w.send(int(fd), off)
			switch {
			case err == syscall.EINTR:
			case err == syscall.EAGAIN:
				return false
			case err != nil:
				// That datagram cannot go (as a failed WriteTo): skip it.
				h.log.Debug("enet: write", "err", err)
				off++
			default:
				for i := off; i < off+n; i++ {
					h.stats.DatagramsSent++
					h.stats.BytesSent += uint64(w.iovs[i].Len)
				}
				off += n
			}
		}
		return true
	}
	h.wbatch = w
	h.sendBatch = func() {
		if w.n == 0 {
			return
		}
		off = 0
		if err := rc.Write(write); err != nil {
			h.log.Debug("enet: write", "err", err)
		}
		w.n = 0
	}
}

// batchWrite adds a datagram to the batch of the flush under way, and sends the batch when it
// is full. It reports false when the datagram must be sent on its own.
func (h *Host) batchWrite(p *Peer, b []byte) bool {
	if !h.batching || p.key.s != "" {
		return false
	}
	if h.wbatch.add(b, p.key.ap) {
		return true
	}
	h.sendBatch()
	return h.wbatch.add(b, p.key.ap)
}
