package multiplayer

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// wsTransport writes packets to one WebSocket connection from its own goroutine, in order, each
// as one binary message. A full queue (in packets or in bytes) drops the connection: the engine
// would drop the packet, which would leave the path cache of both ends out of step, and a peer
// that does not read would not complete a Close handshake either.
//
// The queue is a slice that grows with use and shrinks when empty, so that an idle peer holds
// no queue memory.
type wsTransport struct {
	c            *websocket.Conn
	maxPackets   int
	maxBytes     int
	writeTimeout time.Duration

	mu         sync.Mutex
	queue      [][]byte // waiting packets; queue[head:] are not written yet
	head       int
	queued     int           // bytes in queue[head:]
	peakQueued int           // the most bytes ever queued (tests)
	wake       chan struct{} // signalled when a packet is queued or the transport closes

	done      chan struct{} // closed when the writer ends
	closeOnce sync.Once
	closed    chan struct{} // closed by close(); the writer then sends the Close frame
	closeCode websocket.StatusCode
	closeWhy  string
	ctx       context.Context // canceled by timer when a write takes too long
	timer     *time.Timer
}

func newWSTransport(c *websocket.Conn, maxPackets, maxBytes int, writeTimeout time.Duration) *wsTransport {
	t := &wsTransport{c: c, maxPackets: maxPackets, maxBytes: maxBytes, writeTimeout: writeTimeout,
		wake: make(chan struct{}, 1), done: make(chan struct{}), closed: make(chan struct{}), ctx: context.Background()}
	if writeTimeout > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		t.ctx = ctx
		t.timer = time.AfterFunc(time.Hour, cancel)
		t.timer.Stop()
	}
	go t.writer()
	return t
}

func (t *wsTransport) send(pkt []byte) bool {
	select {
	case <-t.closed:
		return false
	default:
	}
	t.mu.Lock()
	if t.queued+len(pkt) > t.maxBytes || len(t.queue)-t.head >= t.maxPackets {
		t.mu.Unlock()
		t.close(int(websocket.StatusPolicyViolation), "send queue full")
		return false
	}
	t.queue = append(t.queue, pkt)
	t.queued += len(pkt)
	t.peakQueued = max(t.peakQueued, t.queued)
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
	return true
}

// next takes the next packet to write, or nil if there is none.
func (t *wsTransport) next() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.head == len(t.queue) {
		if cap(t.queue) > 64 {
			t.queue = nil // an idle peer holds no queue
		} else {
			t.queue = t.queue[:0]
		}
		t.head = 0
		return nil
	}
	pkt := t.queue[t.head]
	t.queue[t.head] = nil
	t.head++
	return pkt
}

// written releases the bytes of a written packet.
func (t *wsTransport) written(n int) {
	t.mu.Lock()
	t.queued -= n
	t.mu.Unlock()
}

// peak returns the most bytes ever queued.
func (t *wsTransport) peak() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.peakQueued
}

func (t *wsTransport) close(code int, why string) {
	t.closeOnce.Do(func() {
		t.closeCode, t.closeWhy = websocket.StatusCode(code), why
		close(t.closed)
		if code < 0 || t.closeCode == websocket.StatusPolicyViolation {
			// Drop the connection now, even if the writer is blocked on a peer that does not
			// read.
			t.c.CloseNow()
		}
	})
}

// write writes one message. The write timeout cancels the writer's context, which makes the
// library close the connection; one timer serves every write, so a write does not allocate.
func (t *wsTransport) write(pkt []byte) error {
	defer t.written(len(pkt))
	if t.timer == nil {
		return t.c.Write(t.ctx, websocket.MessageBinary, pkt)
	}
	t.timer.Reset(t.writeTimeout)
	err := t.c.Write(t.ctx, websocket.MessageBinary, pkt)
	t.timer.Stop()
	return err
}

// readLoop reads messages into one reused buffer and passes each to fn, until an error. fn must
// not keep the slice.
func readLoop(c *websocket.Conn, fn func(msg []byte)) {
	buf := make([]byte, 0, 512)
	for {
		_, r, err := c.Reader(context.Background())
		if err != nil {
			return
		}
		buf = buf[:0]
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				return
			}
		}
		fn(buf)
		if cap(buf) > 64<<10 && len(buf) < 4<<10 {
			buf = make([]byte, 0, 512) // do not keep a large buffer for small messages
		}
	}
}

// writer sends queued packets; after close() it sends what was queued before and then the
// Close frame, as wslay sends its queue before a queued Close.
func (t *wsTransport) writer() {
	defer close(t.done)
	for {
		for pkt := t.next(); pkt != nil; pkt = t.next() {
			if err := t.write(pkt); err != nil {
				t.close(-1, "")
				t.c.CloseNow()
				return
			}
		}
		select {
		case <-t.wake:
			continue
		case <-t.closed:
		}
		for pkt := t.next(); pkt != nil; pkt = t.next() {
			if t.write(pkt) != nil {
				t.c.CloseNow()
				return
			}
		}
		if t.closeCode < 0 || t.closeCode == websocket.StatusPolicyViolation {
			// A peer that does not read would not answer the Close handshake either: the
			// library would wait 5 s for it. Drop the connection at once.
			t.c.CloseNow()
		} else {
			t.c.Close(t.closeCode, t.closeWhy)
		}
		return
	}
}
