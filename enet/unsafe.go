//go:build linux

package enet

// unsafe.go holds the package's one use of unsafe: reading a datagram and its source address
// with recvfrom(2) directly. The read loop needs to see EAGAIN (the socket drained) to send the
// acknowledgements of what it read at that moment, as C ENet does; net.UDPConn hides it, and
// syscall.Recvfrom allocates the source address on every call. Reading this way instead of
// asking SIOCINQ after each datagram saves one ioctl per datagram that calls for an
// acknowledgement: 2 of the ~12 system calls of a loopback round trip, about 1.3 µs of its
// 26 µs of CPU (BenchmarkENetRoundTrip/Handler/1Peers/64B, docs/performance.md).

import (
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"unsafe"
)

// recvfrom reads one datagram from the non-blocking socket fd into b and returns its length and
// source address (IPv4-mapped IPv6 addresses unmapped).
func recvfrom(fd int, b []byte, rsa *syscall.RawSockaddrAny) (int, netip.AddrPort, error) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	l := uint32(syscall.SizeofSockaddrAny)
	n, _, e := syscall.Syscall6(syscall.SYS_RECVFROM, uintptr(fd), uintptr(p), uintptr(len(b)), 0,
		uintptr(unsafe.Pointer(rsa)), uintptr(unsafe.Pointer(&l)))
	if e != 0 {
		return 0, netip.AddrPort{}, e
	}
	switch rsa.Addr.Family {
	case syscall.AF_INET:
		sa := (*syscall.RawSockaddrInet4)(unsafe.Pointer(rsa))
		port := (*[2]byte)(unsafe.Pointer(&sa.Port))
		return int(n), netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(port[0])<<8|uint16(port[1])), nil
	case syscall.AF_INET6:
		sa := (*syscall.RawSockaddrInet6)(unsafe.Pointer(rsa))
		port := (*[2]byte)(unsafe.Pointer(&sa.Port))
		return int(n), netip.AddrPortFrom(withZone(netip.AddrFrom16(sa.Addr).Unmap(), sa.Scope_id),
			uint16(port[0])<<8|uint16(port[1])), nil
	}
	return int(n), netip.AddrPort{}, nil
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
