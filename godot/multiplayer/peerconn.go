package multiplayer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// errMessageBudget ends a connection whose message took more bytes on the wire than its budget.
var errMessageBudget = errors.New("multiplayer: message exceeds its byte budget on the wire")

// peerConn is a server peer's TCP connection under the WebSocket library. It sees every byte
// the peer sends, frame headers and control frames included, which the library hides: it
// charges them to the peer's budget, and bounds each message in time (ReadTimeout) and in wire
// bytes, so that a message of endless empty continuation frames ends.
type peerConn struct {
	net.Conn
	readTimeout time.Duration
	msgBudget   int64

	mu       sync.Mutex // guards what follows: the library reads on the peer's goroutine, and
	b        *budget    // on another while closing
	inMsg    bool
	msgBytes int64
	deadline time.Time
	timer    *time.Timer
	stop     <-chan struct{} // closed when the peer is closed; ends a wait

	// The server writes its messages' frames itself, several to a system call (wbuf), on
	// the peer's writer goroutine; the library writes only control frames (pong, ping, close),
	// each with one Write. wmu keeps the two from interleaving.
	wmu          sync.Mutex
	wbuf         []byte
	writeTimeout time.Duration
}

// maxBatch is the most bytes of frames gathered for one system call.
const maxBatch = 64 << 10

// Write writes a frame of the library's.
func (c *peerConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.Conn.Write(p)
}

// appendFrame adds a binary message to the batch: a server frame, FIN set, not masked.
func (c *peerConn) appendFrame(pkt []byte) {
	n := len(pkt)
	switch {
	case n < 126:
		c.wbuf = append(c.wbuf, 0x82, byte(n))
	case n < 1<<16:
		c.wbuf = append(c.wbuf, 0x82, 126, byte(n>>8), byte(n))
	default:
		c.wbuf = append(c.wbuf, 0x82, 127, 0, 0, 0, 0, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	c.wbuf = append(c.wbuf, pkt...)
}

// flush writes the batch within the write timeout.
func (c *peerConn) flush() error {
	if len(c.wbuf) == 0 {
		return nil
	}
	c.wmu.Lock()
	if c.writeTimeout > 0 {
		c.Conn.SetWriteDeadline(time.Now().Add(c.writeTimeout))
	}
	_, err := c.Conn.Write(c.wbuf)
	if c.writeTimeout > 0 && err == nil {
		c.Conn.SetWriteDeadline(time.Time{})
	}
	c.wmu.Unlock()
	if cap(c.wbuf) > 2<<10 {
		c.wbuf = nil // an idle peer holds no batch buffer
	} else {
		c.wbuf = c.wbuf[:0]
	}
	return err
}

// Read reads from the connection, counting the bytes against the message in progress and the
// peer's budget.
func (c *peerConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n == 0 {
		return n, err
	}
	c.mu.Lock()
	if c.inMsg {
		c.msgBytes += int64(n)
		if c.msgBytes > c.msgBudget {
			c.mu.Unlock()
			return n, errMessageBudget
		}
	}
	c.mu.Unlock()
	if !c.charge(n) {
		return n, net.ErrClosed
	}
	return n, err
}

// charge spends cost bytes of the peer's budget, waiting as long as it requires; false if the
// peer was closed meanwhile. A message's deadline moves by the time waited: the wait is the
// server's doing, not the peer's.
func (c *peerConn) charge(cost int) bool {
	c.mu.Lock()
	d := c.b.take(time.Now(), cost)
	c.mu.Unlock()
	if d <= 0 {
		return true
	}
	c.mu.Lock()
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	t := c.timer
	c.mu.Unlock()
	select {
	case <-t.C:
	case <-c.stop:
		t.Stop()
		return false
	}
	c.mu.Lock()
	if c.inMsg && c.readTimeout > 0 {
		c.deadline = c.deadline.Add(d)
		c.Conn.SetReadDeadline(c.deadline)
	}
	c.mu.Unlock()
	return true
}

// startMessage starts a message's clock and byte count (the first frame header is read).
func (c *peerConn) startMessage() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inMsg, c.msgBytes = true, 0
	if c.readTimeout > 0 {
		c.deadline = time.Now().Add(c.readTimeout)
		c.Conn.SetReadDeadline(c.deadline)
	}
}

// endMessage stops them.
func (c *peerConn) endMessage() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inMsg = false
	if c.readTimeout > 0 {
		c.Conn.SetReadDeadline(time.Time{})
	}
}

// The buffers of a peer's connection under the WebSocket library.
const (
	readBufSize    = 512
	controlBufSize = 256
)

// hijackWriter hands the WebSocket library a peerConn instead of the raw connection.
type hijackWriter struct {
	http.ResponseWriter
	wrap func(net.Conn) net.Conn
}

// Hijack implements http.Hijacker.
func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	// ResponseController follows Unwrap through middleware, as the WebSocket library does.
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// What net/http left in its writer (the 101 response) goes out now; what it read ahead
	// of the request's end (frames a client sent at once) stays first to read.
	if err := brw.Writer.Flush(); err != nil {
		c.Close()
		return nil, nil, err
	}
	ahead, _ := brw.Reader.Peek(brw.Reader.Buffered())
	ahead = append([]byte(nil), ahead...)
	wc := w.wrap(c)
	// Smaller buffers than net/http's 4 KiB each: the library reads frame headers through the
	// reader (larger reads bypass it) and writes only control frames (at most 127 bytes) through
	// the writer, each of which must reach the connection in one Write.
	br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(ahead), wc), max(readBufSize, len(ahead)))
	if len(ahead) > 0 {
		br.Peek(len(ahead)) // into the buffer, where the library looks for them
	}
	return wc, bufio.NewReadWriter(br, bufio.NewWriterSize(wc, controlBufSize)), nil
}

// pinger pings a peer every interval and drops it when a pong does not come within timeout. It
// runs from a timer, so an idle peer has no goroutine for it.
type pinger struct {
	c        *websocket.Conn
	tr       *wsTransport
	interval time.Duration
	timeout  time.Duration
	timer    *time.Timer
}

func startPinger(c *websocket.Conn, tr *wsTransport, interval, timeout time.Duration) *pinger {
	p := &pinger{c: c, tr: tr, interval: interval, timeout: timeout}
	if interval > 0 {
		p.timer = time.AfterFunc(interval, p.ping)
	}
	return p
}

func (p *pinger) ping() {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if p.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, p.timeout)
	}
	err := p.c.Ping(ctx)
	cancel()
	if err != nil {
		p.tr.close(-1, "")
		return
	}
	select {
	case <-p.tr.closed:
	default:
		p.timer.Reset(p.interval)
	}
}

func (p *pinger) stop() {
	if p.timer != nil {
		p.timer.Stop()
	}
}
