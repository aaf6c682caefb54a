package multiplayer

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"time"
)

// errMessageBudget ends a connection whose message took more bytes on the wire than its budget.
var errMessageBudget = errors.New("multiplayer: message exceeds its byte budget on the wire")

// peerConn is a server peer's TCP connection. Its frame reader reads through it: it charges
// every byte the peer sends, frame headers and control frames included, to the peer's budget,
// and bounds each message in time (ReadTimeout); the reader bounds the message's wire bytes
// (msgBudget), so that a message of endless empty continuation frames ends. Only the peer's
// reading goroutine uses it.
type peerConn struct {
	net.Conn
	readTimeout time.Duration
	msgBudget   int64

	b        *budget
	armed    bool      // the read deadline is set (a message is being read)
	deadline time.Time // the read deadline while armed
	timer    *time.Timer
	stop     <-chan struct{} // closed when the peer is closed; ends a wait
}

// maxBatch is the most bytes of frames gathered for one system call.
const maxBatch = 64 << 10

// read reads from the connection into p, counting the bytes against the peer's budget. While
// a message is being read (inMsg) its read deadline runs, from the first read that had to wait
// for the rest of it: a message that arrives whole costs no deadline.
func (c *peerConn) read(p []byte, inMsg bool) (int, error) {
	if inMsg != c.armed && c.readTimeout > 0 {
		if inMsg {
			c.deadline = time.Now().Add(c.readTimeout)
			c.Conn.SetReadDeadline(c.deadline)
		} else {
			c.Conn.SetReadDeadline(time.Time{})
		}
		c.armed = inMsg
	}
	n, err := c.Conn.Read(p)
	if n == 0 {
		return n, err
	}
	if !c.charge(n) {
		return n, net.ErrClosed
	}
	return n, err
}

// charge spends cost bytes of the peer's budget, waiting as long as it requires; false if the
// peer was closed meanwhile. A message's deadline moves by the time waited: the wait is the
// server's doing, not the peer's.
func (c *peerConn) charge(cost int) bool {
	if c.b.rate == 0 {
		return true
	}
	d := c.b.take(time.Now(), cost)
	if d <= 0 {
		return true
	}
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-c.timer.C:
	case <-c.stop:
		c.timer.Stop()
		return false
	}
	if c.armed {
		c.deadline = c.deadline.Add(d)
		c.Conn.SetReadDeadline(c.deadline)
	}
	return true
}

// hijackWriter keeps what net/http read ahead of the upgrade request's end (frames a client
// sent at once) for the frame reader, and hands the WebSocket library, which does the opening
// handshake only, the smallest buffers.
type hijackWriter struct {
	http.ResponseWriter
	conn  net.Conn
	ahead []byte
}

// Hijack implements http.Hijacker.
func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	// ResponseController follows Unwrap through middleware, as the WebSocket library does.
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// What net/http left in its writer (the 101 response) goes out now.
	if err := brw.Writer.Flush(); err != nil {
		c.Close()
		return nil, nil, err
	}
	ahead, _ := brw.Reader.Peek(brw.Reader.Buffered())
	w.ahead = append([]byte(nil), ahead...)
	w.conn = c
	return c, bufio.NewReadWriter(bufio.NewReaderSize(c, 16), bufio.NewWriterSize(c, 16)), nil
}
