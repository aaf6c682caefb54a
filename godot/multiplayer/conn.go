package multiplayer

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// wsTransport writes packets to one WebSocket connection from its own goroutine, in order, each
// as one binary message. A full queue (in packets or in bytes) drops the connection: the engine
// would drop the packet, which would leave the path cache of both ends out of step, and a peer
// that does not read would not complete a Close handshake either.
type wsTransport struct {
	c            *websocket.Conn
	out          chan outItem
	maxBytes     int64
	queued       atomic.Int64  // bytes in out
	peakQueued   atomic.Int64  // the most bytes ever in out (tests)
	done         chan struct{} // closed when the writer ends
	writeTimeout time.Duration
	closeOnce    sync.Once
	closed       chan struct{} // closed by close(); the writer then sends the Close frame
	closeCode    websocket.StatusCode
	closeWhy     string
	ctx          context.Context // canceled by timer when a write takes too long
	timer        *time.Timer
}

type outItem struct {
	pkt []byte
}

func newWSTransport(c *websocket.Conn, queue int, maxBytes int64, writeTimeout time.Duration) *wsTransport {
	t := &wsTransport{c: c, out: make(chan outItem, queue), done: make(chan struct{}),
		closed: make(chan struct{}), writeTimeout: writeTimeout, maxBytes: maxBytes}
	ctx, cancel := context.WithCancel(context.Background())
	t.ctx = ctx
	t.timer = time.AfterFunc(time.Hour, cancel)
	t.timer.Stop()
	go t.writer()
	return t
}

func (t *wsTransport) send(pkt []byte) bool {
	select {
	case <-t.closed:
		return false
	default:
	}
	n := t.queued.Add(int64(len(pkt)))
	if n > t.maxBytes {
		t.queued.Add(-int64(len(pkt)))
		t.close(int(websocket.StatusPolicyViolation), "send queue full")
		return false
	}
	select {
	case t.out <- outItem{pkt: pkt}:
		for p := t.peakQueued.Load(); n > p && !t.peakQueued.CompareAndSwap(p, n); p = t.peakQueued.Load() {
		}
		return true
	default:
		t.queued.Add(-int64(len(pkt)))
		t.close(int(websocket.StatusPolicyViolation), "send queue full")
		return false
	}
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
	defer t.queued.Add(-int64(len(pkt)))
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
		select {
		case it := <-t.out:
			if err := t.write(it.pkt); err != nil {
				t.close(-1, "")
				t.c.CloseNow()
				return
			}
		case <-t.closed:
			for {
				select {
				case it := <-t.out:
					if t.write(it.pkt) != nil {
						t.c.CloseNow()
						return
					}
					continue
				default:
				}
				break
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
}
