//go:build unix

package gsfnet

import (
	"net"
	"os"
	"syscall"
)

// rawConnOf returns the syscall.RawConn of c, or nil if it has none.
func rawConnOf(c net.Conn) syscall.RawConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// rawWrite makes one write system call with buf, which never waits for the socket to take
// more: it returns how much was written (0 when the socket is full).
func rawWrite(rc syscall.RawConn, buf []byte) (int, error) {
	var n int
	var err error
	cerr := rc.Write(func(fd uintptr) bool {
		for {
			n, err = syscall.Write(int(fd), buf)
			if err != syscall.EINTR {
				break
			}
		}
		return true
	})
	switch {
	case cerr != nil:
		return 0, cerr
	case err == syscall.EAGAIN:
		return 0, nil
	case err != nil:
		return 0, os.NewSyscallError("write", err)
	}
	return max(n, 0), nil
}
