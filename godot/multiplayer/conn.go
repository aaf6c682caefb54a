package multiplayer

import (
	"encoding/binary"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// wsTransport is one WebSocket connection after its opening handshake, at either end. Packets
// are framed as they are queued, into one buffer, and written in order from a goroutine of its
// own, up to maxBatch bytes of frames to a system call; the goroutine runs while there is
// something to write, so an idle peer has none. A full queue (in packets or in bytes) drops the
// connection: the engine would drop the packet, which would leave the path cache of both ends
// out of step, and a peer that does not read would not complete a Close handshake either.
//
// The queue's buffer grows with use and is released when it empties, so that an idle peer holds
// no queue memory. Its bytes are the frames' (headers included), at most maxBytes, plus the
// batch being written.
type wsTransport struct {
	w            io.Writer // the connection (frames go out whole)
	lib          *websocket.Conn
	client       bool // frames are masked
	maxPackets   int
	maxBytes     int
	writeTimeout time.Duration
	watchdog     *time.Timer  // drops the connection when a write takes longer than writeTimeout
	writeStart   atomic.Int64 // when the write under way began (monoNow), 0 if none
	dogArmed     atomic.Bool  // the watchdog is armed

	mu         sync.Mutex
	pend       []byte        // queued frames; pend[head:] are not written yet
	head       int           // start of the frames not taken by the writer
	pendFrames int           // frames in pend[head:]
	queued     int           // frame bytes in pend[head:] and being written
	peakQueued int           // the most bytes ever queued (tests)
	running    bool          // a writer goroutine is running
	finished   bool          // the writer has ended for good; done is closed
	drained    chan struct{} // closed when the queue falls under a quarter of its limits; nil if nobody waits
	wbuf       []byte        // the batch being written (the writer's)

	done      chan struct{} // closed when the writer has ended after close
	closeOnce sync.Once
	closed    chan struct{} // closed by close(); the writer then sends the Close frame
	closeCode websocket.StatusCode
	closeWhy  string
	rdone     chan struct{} // closed when the reader has ended

	// lazyTimer wakes the writer for packets sent with sendLazy or held (see hold). Armed by the
	// first such packet, it is left to fire even when release has written the packet meanwhile
	// (it then finds nothing to do), so that a busy connection costs one timer operation per
	// lazyDelay rather than one per packet.
	lazyTimer *time.Timer
	lazyArmed bool // guarded by mu
	holds     int  // hold calls not released yet (guarded by mu)
	handling  bool // a client's reader is handling a message (guarded by mu)

	// Liveness: a ping every pingInterval, answered within pingTimeout (guarded by mu).
	pingInterval, pingTimeout time.Duration
	pingTimer                 *time.Timer
	pingWaiting               bool
	pingSeq                   uint64
	onPong                    func() // tests: the pong of a ping arrived

	fr frameReader
}

// lazyDelay is how long a packet sent with sendLazy may wait for others to share its write.
const lazyDelay = 20 * time.Millisecond

// closeWait is how long the writer waits for the peer's Close frame after sending its own.
const closeWait = 5 * time.Second

// wsOptions are a connection's limits.
type wsOptions struct {
	maxMessage, maxPackets, maxBytes        int
	writeTimeout, pingInterval, pingTimeout time.Duration
}

// newWSTransport makes the transport of a connection whose handshake lib did: rw is the
// connection under it, ahead what was read of it past the handshake, pc the server peer's
// connection (nil on a client, whose frames are masked).
func newWSTransport(lib *websocket.Conn, rw io.ReadWriter, ahead []byte, pc *peerConn, o wsOptions) *wsTransport {
	t := &wsTransport{w: rw, lib: lib, client: pc == nil, maxPackets: o.maxPackets, maxBytes: o.maxBytes,
		writeTimeout: o.writeTimeout, pingInterval: o.pingInterval, pingTimeout: o.pingTimeout,
		done: make(chan struct{}), closed: make(chan struct{}), rdone: make(chan struct{})}
	if pc != nil {
		t.w = pc.Conn
	}
	if o.writeTimeout > 0 {
		t.watchdog = time.AfterFunc(time.Hour, t.watch)
		t.watchdog.Stop()
	}
	t.fr = frameReader{src: rw, pc: pc, client: pc == nil, maxMsg: o.maxMessage,
		onPing: t.pong, onPong: t.gotPong, onClose: func(code websocket.StatusCode) { t.close(int(code), "") }}
	if len(ahead) > 0 {
		t.fr.seed(ahead)
	}
	return t
}

// closeNow drops the connection at once.
func (t *wsTransport) closeNow() { t.lib.CloseNow() }

// startLocked starts the writer unless it runs; t.mu is held.
func (t *wsTransport) startLocked() {
	if !t.running && !t.finished {
		t.running = true
		go t.writer()
	}
}

// copiesPackets marks wsTransport as a copyingTransport: packets are framed into its queue.
func (t *wsTransport) copiesPackets() {}

func (t *wsTransport) send(pkt []byte) bool { return t.enqueue(opBinary, pkt, false) }

// sendLazy queues pkt as send does, but lets it wait up to lazyDelay for more packets, so that
// a burst of notices (ADD_PEER and DEL_PEER while many peers come and go) costs each peer one
// write instead of one per notice. A packet sent with send meanwhile takes it along.
func (t *wsTransport) sendLazy(pkt []byte) bool { return t.enqueue(opBinary, pkt, true) }

// pong answers a ping.
func (t *wsTransport) pong(payload []byte) { t.enqueue(opPong, payload, false) }

func (t *wsTransport) enqueue(op byte, pkt []byte, lazy bool) bool {
	t.mu.Lock()
	if !t.enqueueLocked(op, pkt) {
		t.mu.Unlock()
		return false
	}
	if (lazy || t.holds > 0) && !t.running {
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

// enqueueLocked frames pkt into the queue; t.mu is held. A full queue closes the connection.
func (t *wsTransport) enqueueLocked(op byte, pkt []byte) bool {
	select {
	case <-t.closed:
		return false
	default:
	}
	size := len(pkt) + maxFrameHeader
	if t.queued+size > t.maxBytes || t.pendFrames >= t.maxPackets {
		t.mu.Unlock()
		t.close(int(websocket.StatusPolicyViolation), "send queue full")
		t.mu.Lock()
		return false
	}
	t.appendLocked(op, pkt)
	return true
}

// appendLocked frames pkt into the queue; t.mu is held.
func (t *wsTransport) appendLocked(op byte, pkt []byte) {
	if need := len(t.pend) + len(pkt) + maxFrameHeader; need > cap(t.pend) && t.head > 0 {
		// Drop the frames already taken before growing.
		n := copy(t.pend, t.pend[t.head:])
		t.pend, t.head = t.pend[:n], 0
	}
	if need := len(t.pend) + len(pkt) + maxFrameHeader; need > cap(t.pend) {
		// Grow within the queue's bound, so that a full queue holds no more than maxBytes.
		size := max(min(2*cap(t.pend), t.maxBytes), need, 512)
		t.pend = append(make([]byte, 0, size), t.pend...)
	}
	before := len(t.pend)
	t.pend = appendFrame(t.pend, op, pkt, t.client)
	t.pendFrames++
	t.queued += len(t.pend) - before
	t.peakQueued = max(t.peakQueued, t.queued)
}

// wakeLazy starts the writer for packets sent with sendLazy.
func (t *wsTransport) wakeLazy() {
	t.mu.Lock()
	t.lazyArmed = false
	if t.head < len(t.pend) {
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
		if t.queued == 0 || (t.queued+len(pkt)+maxFrameHeader <= t.maxBytes/2 && t.pendFrames < t.maxPackets/2) {
			t.appendLocked(opBinary, pkt)
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

// take copies the next batch of whole frames (up to maxBatch bytes, or one larger frame) into
// t.wbuf, or returns nil if none is queued.
func (t *wsTransport) take() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.head == len(t.pend) {
		if cap(t.pend) > 2<<10 {
			t.pend = nil // an idle peer holds no queue
		} else {
			t.pend = t.pend[:0]
		}
		t.head = 0
		return nil
	}
	end, frames := len(t.pend), t.pendFrames
	if end-t.head > maxBatch {
		end, frames = t.head, 0
		for end < len(t.pend) && (end == t.head || end-t.head+frameSize(t.pend[end:]) <= maxBatch) {
			end += frameSize(t.pend[end:])
			frames++
		}
	}
	t.wbuf = append(t.wbuf[:0], t.pend[t.head:end]...)
	t.head = end
	t.pendFrames -= frames
	return t.wbuf
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
			t.closeNow()
		}
		t.mu.Lock()
		if t.pingTimer != nil {
			t.pingTimer.Stop()
		}
		t.startLocked() // to send the Close frame
		t.mu.Unlock()
	})
}

// monoBase is the origin of the transports' write clocks.
var monoBase = time.Now()

// monoNow is the time since monoBase, in nanoseconds, never 0.
func monoNow() int64 { return int64(time.Since(monoBase)) + 1 }

// write writes b within the write timeout. The watchdog is not reset for every write: it is
// armed when a write finds it idle, and when it fires it drops the connection if the write
// under way began writeTimeout ago, waits for the rest of the timeout if one began later, and
// goes idle if none is under way. Busy or idle, a connection costs about one timer operation
// per writeTimeout.
func (t *wsTransport) write(b []byte) error {
	if t.watchdog == nil {
		_, err := t.w.Write(b)
		return err
	}
	t.writeStart.Store(monoNow())
	if !t.dogArmed.Load() && t.dogArmed.CompareAndSwap(false, true) {
		t.watchdog.Reset(t.writeTimeout)
	}
	_, err := t.w.Write(b)
	t.writeStart.Store(0)
	return err
}

// watch is the watchdog's timer function.
func (t *wsTransport) watch() {
	for {
		start := t.writeStart.Load()
		if start == 0 {
			t.dogArmed.Store(false)
			if t.writeStart.Load() == 0 || !t.dogArmed.CompareAndSwap(false, true) {
				return
			}
			continue // a write began meanwhile, and found the watchdog still armed
		}
		elapsed := time.Duration(monoNow() - start)
		if elapsed >= t.writeTimeout {
			t.closeNow()
			return
		}
		t.watchdog.Reset(t.writeTimeout - elapsed)
		return
	}
}

// writer sends queued frames and ends when there are none; after close() it sends what was
// queued before and then the Close frame, as wslay sends its queue before a queued Close.
func (t *wsTransport) writer() {
	if t.drain() {
		t.closeSequence()
	}
}

// drain writes the queued frames until none is left; t.running is set. It reports whether the
// Close sequence is due (the transport is closed; t.running stays set); otherwise it has
// cleared t.running, or the connection failed and the writer has finished.
func (t *wsTransport) drain() bool {
	for {
		if b := t.take(); b != nil {
			err := t.write(b)
			t.written(len(b))
			if err != nil {
				t.close(-1, "")
				t.closeNow()
				t.finish()
				return false
			}
			continue
		}
		t.mu.Lock()
		if t.head < len(t.pend) {
			t.mu.Unlock()
			continue
		}
		select {
		case <-t.closed:
			t.mu.Unlock()
			return true
		default:
			t.running = false
			t.mu.Unlock()
			return false
		}
	}
}

// closeSequence sends the Close frame after the queue and waits for the peer's.
func (t *wsTransport) closeSequence() {
	if t.closeCode < 0 || t.closeCode == websocket.StatusPolicyViolation {
		// A peer that does not read would not answer the Close handshake either. Drop the
		// connection at once.
		t.closeNow()
		t.finish()
		return
	}
	var payload [maxControlPayload]byte
	frame := appendFrame(t.wbuf[:0], opClose, appendClosePayload(payload[:0], t.closeCode, t.closeWhy), t.client)
	if t.write(frame) == nil {
		// Wait for the peer's Close (the reader ends at it), at most closeWait.
		tm := time.NewTimer(closeWait)
		select {
		case <-t.rdone:
		case <-tm.C:
		}
		tm.Stop()
	}
	t.closeNow()
	t.finish()
}

// hold defers the writer's start: packets queued from now on wait for release (or, sent by
// someone else meanwhile, at most lazyDelay), which writes them on its caller's goroutine if no
// writer runs. A call made while handling a message then costs no goroutine hand-off.
func (t *wsTransport) hold() {
	t.mu.Lock()
	t.holds++
	t.mu.Unlock()
}

// holdCaller holds for a call made on a client, unless the client's reader is handling a
// message: the reader must stay free to read (writing on it could block both ends while each
// writes to the other), so a call its handlers make is written by the writer goroutine. It
// reports whether it held.
func (t *wsTransport) holdCaller() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.handling {
		return false
	}
	t.holds++
	return true
}

// setHandling records whether a client's reader is handling a message.
func (t *wsTransport) setHandling(on bool) {
	t.mu.Lock()
	t.handling = on
	t.mu.Unlock()
}

// release ends a hold and writes what is queued, unless a writer runs or other holds remain.
func (t *wsTransport) release() {
	t.mu.Lock()
	t.holds--
	if t.holds > 0 || t.running || t.finished || t.head == len(t.pend) {
		t.mu.Unlock()
		return
	}
	t.running = true
	t.mu.Unlock()
	if t.drain() {
		go t.closeSequence()
	}
}

// written releases the bytes of a written batch, and the buffer of a large one.
func (t *wsTransport) written(n int) {
	if cap(t.wbuf) > 2<<10 {
		t.wbuf = nil
	}
	t.mu.Lock()
	t.queued -= n
	if t.drained != nil && t.queued <= t.maxBytes/4 && t.pendFrames < t.maxPackets/4 {
		close(t.drained)
		t.drained = nil
	}
	t.mu.Unlock()
}

// finish marks the writer as ended for good.
func (t *wsTransport) finish() {
	t.mu.Lock()
	t.finished, t.running = true, false
	if t.pingTimer != nil {
		t.pingTimer.Stop()
	}
	t.mu.Unlock()
	if t.lazyTimer != nil {
		t.lazyTimer.Stop()
	}
	if t.watchdog != nil {
		t.watchdog.Stop()
	}
	close(t.done)
}

// startPing starts the liveness check: a ping every pingInterval, and the connection dropped
// when its pong does not come within pingTimeout. It runs from a timer, so an idle peer has no
// goroutine for it.
func (t *wsTransport) startPing() {
	if t.pingInterval <= 0 {
		return
	}
	t.mu.Lock()
	t.pingTimer = time.AfterFunc(t.pingInterval, t.ping)
	t.mu.Unlock()
}

func (t *wsTransport) ping() {
	t.mu.Lock()
	select {
	case <-t.closed:
		t.mu.Unlock()
		return
	default:
	}
	if t.pingWaiting {
		t.mu.Unlock()
		t.close(-1, "") // no pong within pingTimeout
		return
	}
	t.pingSeq++
	var payload [8]byte
	binary.BigEndian.PutUint64(payload[:], t.pingSeq)
	if !t.enqueueLocked(opPing, payload[:]) {
		t.mu.Unlock()
		return
	}
	t.startLocked()
	if t.pingTimeout > 0 {
		t.pingWaiting = true
		t.pingTimer.Reset(t.pingTimeout)
	} else {
		t.pingTimer.Reset(t.pingInterval)
	}
	t.mu.Unlock()
}

// gotPong ends the wait for the pong of the last ping.
func (t *wsTransport) gotPong(payload []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.pingWaiting || len(payload) != 8 || binary.BigEndian.Uint64(payload) != t.pingSeq {
		return // unsolicited, or an old one
	}
	t.pingWaiting = false
	if t.onPong != nil {
		t.onPong()
	}
	select {
	case <-t.closed:
	default:
		t.pingTimer.Reset(t.pingInterval)
	}
}

// readLoop reads messages and passes each to fn, until an error or fn returns false. fn must
// not keep the slice. A protocol error is answered with its Close code; the peer's Close with
// its own.
func (t *wsTransport) readLoop(fn func(msg []byte) bool) {
	defer close(t.rdone)
	for {
		msg, _, err := t.fr.next()
		if err != nil {
			if ce, ok := err.(*closeError); ok {
				t.close(int(ce.code), ce.reason)
			}
			return
		}
		select {
		case <-t.closed:
			// Our Close is queued: what follows is read for the peer's Close, not handled.
			continue
		default:
		}
		if !fn(msg) {
			return
		}
	}
}
