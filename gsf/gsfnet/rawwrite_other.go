//go:build !unix

package gsfnet

import (
	"errors"
	"net"
	"syscall"
)

// rawConnOf returns nil: flush leaves writing to the writer goroutine on this platform.
func rawConnOf(net.Conn) syscall.RawConn { return nil }

// rawWrite is not used on this platform (rawConnOf returns nil).
func rawWrite(syscall.RawConn, []byte) (int, error) { return 0, errors.ErrUnsupported }
