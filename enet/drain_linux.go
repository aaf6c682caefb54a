package enet

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// drainCheck tells the read loop whether the socket has no datagram waiting (SIOCINQ, one
// ioctl), so that the loop sends the acknowledgements of what it read itself once it has read
// everything, as C ENet acknowledges in one datagram what one enet_host_service call received,
// instead of handing them to the service goroutine (a goroutine wake-up per datagram).
type drainCheck struct {
	rc      syscall.RawConn
	control func(fd uintptr) // made once: Control with it allocates nothing
	queued  int
	err     error
}

// init sets the check up for the host's socket; it reports whether the socket supports it.
func (d *drainCheck) init(h *Host) bool {
	if h.udp == nil {
		return false
	}
	rc, err := h.udp.SyscallConn()
	if err != nil {
		return false
	}
	d.rc = rc
	d.control = func(fd uintptr) { d.queued, d.err = unix.IoctlGetInt(int(fd), unix.SIOCINQ) }
	return true
}

// empty reports whether no datagram waits on the socket. An error counts as empty: the read
// loop then flushes at once, which is always correct.
func (d *drainCheck) empty() bool {
	if err := d.rc.Control(d.control); err != nil || d.err != nil {
		return true
	}
	return d.queued == 0
}
