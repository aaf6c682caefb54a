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

// A rawWriter makes non-blocking writes on a syscall.RawConn. Its function for rc.Write is
// made once, so that a write allocates nothing; it is used by one goroutine at a time (the
// sender's writing role).
type rawWriter struct {
	rc  syscall.RawConn
	buf []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

// newRawWriter returns a rawWriter on rc, or nil if rc is nil.
func newRawWriter(rc syscall.RawConn) *rawWriter {
	if rc == nil {
		return nil
	}
	w := &rawWriter{rc: rc}
	w.fn = func(fd uintptr) bool {
		for {
			w.n, w.err = syscall.Write(int(fd), w.buf)
			if w.err != syscall.EINTR {
				return true
			}
		}
	}
	return w
}

// write makes one write system call with buf, which never waits for the socket to take
// more: it returns how much was written (0 when the socket is full).
func (w *rawWriter) write(buf []byte) (int, error) {
	w.buf = buf
	cerr := w.rc.Write(w.fn)
	n, err := w.n, w.err
	w.buf, w.err = nil, nil
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
