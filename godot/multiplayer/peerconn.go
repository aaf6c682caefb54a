package multiplayer

import (
	"bufio"
	"context"
	"errors"
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

// hijackWriter hands the WebSocket library a peerConn instead of the raw connection.
type hijackWriter struct {
	http.ResponseWriter
	wrap func(net.Conn) net.Conn
}

// Hijack implements http.Hijacker.
func (w *hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("multiplayer: the http.ResponseWriter cannot be hijacked")
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	return w.wrap(c), brw, nil
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
