package enet

import (
	"errors"
	"net"
	"syscall"
)

// initRawRead sets up the Linux read loop for a UDP socket: rawRead reads with recvfrom(2)
// inside the socket's RawConn.Read, so that it sees the socket drained (EAGAIN) and sends the
// acknowledgements of what it read then, before it waits for the next datagram.
func (h *Host) initRawRead() {
	if h.udp == nil {
		return
	}
	rc, err := h.udp.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 65536)
	var rsa syscall.RawSockaddrAny
	var closed bool
	var rerr error
	burst := 0
	// read is called by RawConn.Read with the socket's read lock held; it returns false to
	// wait for the socket to become readable, true to leave Read (the host closed, or an
	// error for readError).
	read := func(fd uintptr) bool {
		for {
			n, ap, err := recvfrom(int(fd), buf, &rsa)
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				if burst > 0 {
					h.flushReceived()
					burst = 0
				}
				return false
			case err != nil:
				// ECONNREFUSED after an ICMP port unreachable, and the like.
				rerr = err
				return true
			}
			var dirty bool
			closed, dirty = h.received(buf[:n], addrKey{ap: ap}, nil)
			if closed {
				return true
			}
			if dirty {
				burst++
				if burst >= maxReadBurst {
					h.flushReceived()
					burst = 0
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
