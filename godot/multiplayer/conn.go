package multiplayer

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// wsTransport writes packets to one WebSocket connection from a goroutine of its own, in order,
// each as one binary message. The goroutine runs while there is something to write, so an idle
// peer has none. A full queue (in packets or in bytes) drops the connection: the engine
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
	running    bool          // a writer goroutine is running
	finished   bool          // the writer has sent the Close frame; done is closed
	drained    chan struct{} // closed when the queue falls under a quarter of its limits; nil if nobody waits

	done      chan struct{} // closed when the writer has ended after close
	closeOnce sync.Once
	closed    chan struct{} // closed by close(); the writer then sends the Close frame
	closeCode websocket.StatusCode
	closeWhy  string
	ctx       context.Context // canceled by timer when a write takes too long (client)
	timer     *time.Timer

	pc        *peerConn   // the server peer's connection, to batch writes; nil on a client
	lazyTimer *time.Timer // wakes the writer for packets sent with sendLazy
	lazyArmed bool        // guarded by mu
}

// lazyDelay is how long a packet sent with sendLazy may wait for others to share its write.
const lazyDelay = 20 * time.Millisecond

func newWSTransport(c *websocket.Conn, pc *peerConn, maxPackets, maxBytes int, writeTimeout time.Duration) *wsTransport {
	t := &wsTransport{c: c, pc: pc, maxPackets: maxPackets, maxBytes: maxBytes, writeTimeout: writeTimeout,
		done: make(chan struct{}), closed: make(chan struct{}), ctx: context.Background()}
	if writeTimeout > 0 && pc == nil { // a server peer's writes have the connection's deadline
		ctx, cancel := context.WithCancel(context.Background())
		t.ctx = ctx
		t.timer = time.AfterFunc(time.Hour, cancel)
		t.timer.Stop()
	}
	return t
}

// startLocked starts the writer unless it runs; t.mu is held.
func (t *wsTransport) startLocked() {
	if !t.running && !t.finished {
		t.running = true
		go t.writer()
	}
}

func (t *wsTransport) send(pkt []byte) bool { return t.enqueue(pkt, false) }

// sendLazy queues pkt as send does, but lets it wait up to lazyDelay for more packets, so that
// a burst of notices (ADD_PEER and DEL_PEER while many peers come and go) costs each peer one
// write instead of one per notice. A packet sent with send meanwhile takes it along.
func (t *wsTransport) sendLazy(pkt []byte) bool { return t.enqueue(pkt, true) }

func (t *wsTransport) enqueue(pkt []byte, lazy bool) bool {
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
	if lazy && !t.running {
		if !t.lazyArmed {
			t.lazyArmed = true
			if t.lazyTimer == nil {
				t.lazyTimer = time.AfterFunc(lazyDelay, t.wakeLazy)
			} else {
				t.lazyTimer.Reset(lazyDelay)
			}
		}
	} else {
		t.startLocked()
	}
	t.mu.Unlock()
	return true
}

// wakeLazy starts the writer for packets sent with sendLazy.
func (t *wsTransport) wakeLazy() {
	t.mu.Lock()
	t.lazyArmed = false
	if t.head < len(t.queue) {
		t.startLocked()
	}
	t.mu.Unlock()
}

// sendWait queues pkt when the queue is under half its limits (or empty), else waits until it
// is, the transport closes, or stop is closed.
func (t *wsTransport) sendWait(pkt []byte, stop <-chan struct{}) bool {
	for {
		t.mu.Lock()
		select {
		case <-t.closed:
			t.mu.Unlock()
			return false
		default:
		}
		n := len(t.queue) - t.head
		if n == 0 || (t.queued+len(pkt) <= t.maxBytes/2 && n < t.maxPackets/2) {
			t.queue = append(t.queue, pkt)
			t.queued += len(pkt)
			t.peakQueued = max(t.peakQueued, t.queued)
			t.startLocked()
			t.mu.Unlock()
			return true
		}
		if t.drained == nil {
			t.drained = make(chan struct{})
		}
		ch := t.drained
		t.mu.Unlock()
		select {
		case <-ch:
		case <-t.closed:
			return false
		case <-stop:
			return false
		}
	}
}

// stopped is closed once close has been called.
func (t *wsTransport) stopped() <-chan struct{} { return t.closed }

// next takes the next packet to write, or nil if there is none.
func (t *wsTransport) next() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.head == len(t.queue) {
		if cap(t.queue) > 16 {
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
	if t.drained != nil && t.queued <= t.maxBytes/4 && len(t.queue)-t.head < t.maxPackets/4 {
		close(t.drained)
		t.drained = nil
	}
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
		t.mu.Lock()
		t.startLocked() // to send the Close frame
		t.mu.Unlock()
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

// readLoop reads messages into one reused buffer and passes each to fn, until an error or fn
// returns false. fn must not keep the slice. pc, if not nil, is told where messages start and
// end.
func readLoop(c *websocket.Conn, pc *peerConn, fn func(msg []byte) bool) {
	var buf []byte
	for {
		_, r, err := c.Reader(context.Background())
		if err != nil {
			return
		}
		if pc != nil {
			pc.startMessage()
		}
		if buf == nil {
			buf = make([]byte, 0, 512) // an idle peer holds no buffer until its first message
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
		if pc != nil {
			pc.endMessage()
		}
		if !fn(buf) {
			return
		}
		if cap(buf) > 64<<10 && len(buf) < 4<<10 {
			buf = make([]byte, 0, 512) // do not keep a large buffer for small messages
		}
	}
}

// writeQueued writes the queued packets. On a server peer it builds their frames itself and
// writes up to 64 KiB of them with one system call; on a client the library writes each.
func (t *wsTransport) writeQueued() error {
	if t.pc == nil {
		for pkt := t.next(); pkt != nil; pkt = t.next() {
			if err := t.write(pkt); err != nil {
				return err
			}
		}
		return nil
	}
	batch := 0
	for pkt := t.next(); pkt != nil; pkt = t.next() {
		t.pc.appendFrame(pkt)
		batch += len(pkt)
		if len(t.pc.wbuf) >= maxBatch {
			err := t.pc.flush()
			t.written(batch)
			if err != nil {
				return err
			}
			batch = 0
		}
	}
	err := t.pc.flush()
	t.written(batch)
	return err
}

// writer sends queued packets and ends when there are none; after close() it sends what was
// queued before and then the Close frame, as wslay sends its queue before a queued Close.
func (t *wsTransport) writer() {
	for {
		if err := t.writeQueued(); err != nil {
			t.close(-1, "")
			t.c.CloseNow()
			t.finish()
			return
		}
		t.mu.Lock()
		if t.head < len(t.queue) {
			t.mu.Unlock()
			continue
		}
		select {
		case <-t.closed:
		default:
			t.running = false
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
		if t.closeCode < 0 || t.closeCode == websocket.StatusPolicyViolation {
			// A peer that does not read would not answer the Close handshake either: the
			// library would wait 5 s for it. Drop the connection at once.
			t.c.CloseNow()
		} else {
			t.c.Close(t.closeCode, t.closeWhy)
		}
		t.finish()
		return
	}
}

// finish marks the writer as ended for good.
func (t *wsTransport) finish() {
	t.mu.Lock()
	t.finished, t.running = true, false
	t.mu.Unlock()
	if t.lazyTimer != nil {
		t.lazyTimer.Stop()
	}
	close(t.done)
}
