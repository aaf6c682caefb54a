//go:build !unix

package gsfnet

import (
	"errors"
	"net"
	"syscall"
)

// rawConnOf returns nil: flush leaves writing to the writer goroutine on this platform.
func rawConnOf(net.Conn) syscall.RawConn { return nil }

// A rawWriter is not used on this platform (rawConnOf returns nil).
type rawWriter struct{}

// newRawWriter returns nil on this platform.
func newRawWriter(syscall.RawConn) *rawWriter { return nil }

func (*rawWriter) write([]byte) (int, error) { return 0, errors.ErrUnsupported }
