//go:build linux

package enet

// unsafe.go holds the package's one use of unsafe: reading datagrams and their source
// addresses with recvmmsg(2) directly, and sending several at once with sendmmsg(2). The read
// loop needs to see the socket drained to send the acknowledgements of what it read at that
// moment, as C ENet does; net.UDPConn hides that, and syscall.Recvfrom allocates the source
// address on every call. Reading a batch, where a batch shorter than asked for says the socket
// is drained, takes one system call per datagram that arrives alone, where ReadFromUDPAddrPort
// plus a SIOCINQ ioctl took three (the read, the ioctl, the read that fails with EAGAIN): a
// loopback round trip with a Handler went from about 15.6 system calls to 10 and from 25.8 to
// 22 µs of CPU (BenchmarkENetRoundTrip/Handler/1Peers/64B, runs at the same load). Sending the
// datagrams of one flush to several peers with one sendmmsg(2) took the 100-peer round trip with
// a Handler from 18.7–19.7 to 14.0–15.7 µs of CPU (interleaved runs). docs/performance.md has
// the figures beside C ENet's.

import (
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mmsghdr is struct mmsghdr: a msghdr and the length received, padded to the msghdr's
// alignment.
type mmsghdr struct {
	hdr syscall.Msghdr
	n   uint32
	_   [unsafe.Sizeof(uintptr(0)) - 4]byte
}

// readBatch is the memory of one recvmmsg(2) call: size datagrams of at most bufSize bytes.
type readBatch struct {
	hdrs  []mmsghdr
	iovs  []syscall.Iovec
	addrs []syscall.RawSockaddrAny
	bufs  [][]byte
}

func newReadBatch(size, bufSize int) *readBatch {
	b := &readBatch{hdrs: make([]mmsghdr, size), iovs: make([]syscall.Iovec, size),
		addrs: make([]syscall.RawSockaddrAny, size), bufs: make([][]byte, size)}
	for i := range b.hdrs {
		b.bufs[i] = make([]byte, bufSize)
		b.iovs[i].Base = &b.bufs[i][0]
		b.iovs[i].SetLen(bufSize)
		b.hdrs[i].hdr.Iov = &b.iovs[i]
		b.hdrs[i].hdr.Iovlen = 1
		b.hdrs[i].hdr.Name = (*byte)(unsafe.Pointer(&b.addrs[i]))
	}
	return b
}

// read reads up to len(b.hdrs) datagrams from the non-blocking socket fd and returns how many.
func (b *readBatch) read(fd int) (int, error) {
	for i := range b.hdrs {
		b.hdrs[i].hdr.Namelen = syscall.SizeofSockaddrAny
		b.hdrs[i].hdr.Flags = 0
		b.hdrs[i].n = 0
	}
	n, _, e := syscall.Syscall6(syscall.SYS_RECVMMSG, uintptr(fd), uintptr(unsafe.Pointer(&b.hdrs[0])),
		uintptr(len(b.hdrs)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// datagram returns the i-th datagram read, its source address (IPv4-mapped IPv6 addresses
// unmapped), and whether it was cut to the buffer's size.
func (b *readBatch) datagram(i int) (data []byte, from netip.AddrPort, truncated bool) {
	h := &b.hdrs[i]
	data = b.bufs[i][:min(int(h.n), len(b.bufs[i]))]
	truncated = h.hdr.Flags&syscall.MSG_TRUNC != 0
	switch rsa := &b.addrs[i]; rsa.Addr.Family {
	case syscall.AF_INET:
		sa := (*syscall.RawSockaddrInet4)(unsafe.Pointer(rsa))
		port := (*[2]byte)(unsafe.Pointer(&sa.Port))
		from = netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(port[0])<<8|uint16(port[1]))
	case syscall.AF_INET6:
		sa := (*syscall.RawSockaddrInet6)(unsafe.Pointer(rsa))
		port := (*[2]byte)(unsafe.Pointer(&sa.Port))
		from = netip.AddrPortFrom(withZone(netip.AddrFrom16(sa.Addr).Unmap(), sa.Scope_id),
			uint16(port[0])<<8|uint16(port[1]))
	}
	return data, from, truncated
}

// withZone gives a link-local address its zone as the net package names it (the interface's
// name), so that it matches the peer's address from Connect.
func withZone(a netip.Addr, scope uint32) netip.Addr {
	if scope == 0 || !a.Is6() {
		return a
	}
	if ifi, err := net.InterfaceByIndex(int(scope)); err == nil {
		return a.WithZone(ifi.Name)
	}
	return a.WithZone(strconv.FormatUint(uint64(scope), 10))
}

// writeBatch is the memory of one sendmmsg(2) call: up to size datagrams of at most bufSize
// bytes, to IPv4 addresses (an AF_INET socket) or to IPv6 and IPv4-mapped ones (AF_INET6).
type writeBatch struct {
	hdrs  []mmsghdr
	iovs  []syscall.Iovec
	addrs []syscall.RawSockaddrInet6
	bufs  [][]byte
	n     int
	inet6 bool
}

func newWriteBatch(size, bufSize int, inet6 bool) *writeBatch {
	w := &writeBatch{hdrs: make([]mmsghdr, size), iovs: make([]syscall.Iovec, size),
		addrs: make([]syscall.RawSockaddrInet6, size), bufs: make([][]byte, size), inet6: inet6}
	for i := range w.hdrs {
		w.bufs[i] = make([]byte, bufSize)
		w.iovs[i].Base = &w.bufs[i][0]
		w.hdrs[i].hdr.Iov = &w.iovs[i]
		w.hdrs[i].hdr.Iovlen = 1
		w.hdrs[i].hdr.Name = (*byte)(unsafe.Pointer(&w.addrs[i]))
	}
	return w
}

// add copies a datagram to ap into the batch. It reports false, and adds nothing, when the
// datagram or the address does not fit (too long, a zone, IPv6 on an IPv4 socket) or the
// batch is full.
func (w *writeBatch) add(b []byte, ap netip.AddrPort) bool {
	a := ap.Addr()
	if w.n == len(w.hdrs) || len(b) > len(w.bufs[w.n]) || a.Zone() != "" || (!w.inet6 && !a.Is4()) {
		return false
	}
	i := w.n
	copy(w.bufs[i], b)
	w.iovs[i].SetLen(len(b))
	port := ap.Port()
	if w.inet6 {
		sa := &w.addrs[i]
		*sa = syscall.RawSockaddrInet6{Family: syscall.AF_INET6, Addr: netip.AddrFrom16(a.As16()).As16()}
		p := (*[2]byte)(unsafe.Pointer(&sa.Port))
		p[0], p[1] = byte(port>>8), byte(port)
		w.hdrs[i].hdr.Namelen = syscall.SizeofSockaddrInet6
	} else {
		sa := (*syscall.RawSockaddrInet4)(unsafe.Pointer(&w.addrs[i]))
		*sa = syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: a.As4()}
		p := (*[2]byte)(unsafe.Pointer(&sa.Port))
		p[0], p[1] = byte(port>>8), byte(port)
		w.hdrs[i].hdr.Namelen = syscall.SizeofSockaddrInet4
	}
	w.n++
	return true
}

// send sends the batch's datagrams from the off-th on with sendmmsg(2) on the non-blocking
// socket fd and returns how many went; an error is the off-th datagram's.
func (w *writeBatch) send(fd, off int) (int, error) {
	n, _, e := syscall.Syscall6(unix.SYS_SENDMMSG, uintptr(fd), uintptr(unsafe.Pointer(&w.hdrs[off])),
		uintptr(w.n-off), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
