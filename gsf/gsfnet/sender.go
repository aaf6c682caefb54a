package gsfnet

import (
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// The kinds of outgoing frames, for the policy of a full queue.
const (
	// kindMessage may not be dropped: a full queue closes the connection (ErrSlowConsumer).
	kindMessage = iota
	// kindDiscardable (flag 0x10) is dropped when the queue is full (ErrQueueFull).
	kindDiscardable
	// kindResponse is always queued: responses are bounded by the in-flight limit, whose slot
	// each one holds until it is written.
	kindResponse
)

// maxKeep is the largest buffer kept for reuse; larger ones are left to the garbage collector
// once written, so that an idle connection does not hold a burst's memory.
const maxKeep = 64 << 10

// A sender owns the outgoing side of a connection. Frames are appended to a buffer under a
// short lock, which never blocks on the network, and written by whoever holds the writing
// role: the connection's writer goroutine (run), woken for frames queued by anyone; a
// goroutine that may block and queues a frame with sendNow (a handler sending its response),
// which then writes itself when no write is in progress and saves waking the writer; or a
// goroutine that calls flush (a client about to wait for the responses to the requests it
// queued with sendSoon). Each writes everything that piled up with one Write call, and goes
// on until the buffer is empty, so that frames queued while a write is in progress go out
// together. Frames may also be left for a write that is known to follow (sendSoon, hold): a
// timer then makes sure that the writer goroutine writes them if that write does not come.
type sender struct {
	conn         net.Conn
	writeTimeout time.Duration // per Write call; 0: none
	limit        int           // bytes of frames of kindMessage or kindDiscardable allowed waiting
	deadline     time.Duration // the write deadline set last (monoNow); by the goroutine that writes
	// raw, if set, lets flush write without blocking (see rawWriter); without it, flush wakes
	// the writer goroutine.
	raw     *rawWriter
	release func(responses int) // called once the frames holding so many responses are written
	fail    func(err error)     // called when a write fails
	// shouldYield, if set, tells the writer goroutine whether to let the goroutines that are
	// ready to run go first (see run); without it, it always does.
	shouldYield func() bool

	mu        sync.Mutex
	buf       []byte      // frames waiting for the writer
	spare     []byte      // the buffer the writer handed back
	responses int         // responses in buf
	err       error       // non-nil once no more frames are accepted
	writing   bool        // a goroutine holds the writing role
	werr      error       // the error of a failed write
	finishing bool        // the writer goroutine exits once buf is written
	urgent    bool        // the writer goroutine is to write without letting others go first
	timer     *time.Timer // wakes the writer goroutine for frames left for later (sendSoon)
	armed     bool        // timer is set

	kick chan struct{} // capacity 1: the writer goroutine has something to do
}

func newSender(conn net.Conn, writeTimeout time.Duration, limit int, release func(int), fail func(error)) *sender {
	return &sender{conn: conn, writeTimeout: writeTimeout, limit: limit, release: release, fail: fail, kick: make(chan struct{}, 1)}
}

// How enqueue sends a frame.
const (
	// sendWake wakes the writer goroutine, unless a write is in progress or due.
	sendWake = iota
	// sendNow writes on the calling goroutine, which may block, unless a write is in progress
	// (which then takes the frame).
	sendNow
	// sendSoon leaves the write to whoever sends next or calls flush, and to the writer
	// goroutine if nobody has within flushDelay.
	sendSoon
	// sendHeld leaves the write to whoever sends next; the caller makes sure that somebody
	// does, or calls flushHeld.
	sendHeld
	// sendTry writes on the calling goroutine without blocking, as flush does, unless a
	// write is in progress (which then takes the frame); what the socket does not take at
	// once is left to the writer goroutine. Without raw it is sendWake.
	sendTry
)

// flushDelay is how long frames left for a later write (sendSoon) wait at most for
// the goroutine expected to write them before the writer goroutine does. It is far longer
// than that goroutine needs when it is running (microseconds), so that the timer seldom
// fires, and short enough not to matter when it blocks.
const flushDelay = 200 * time.Microsecond

// enqueue appends a frame and sends it as mode says (sendWake, sendNow or sendSoon). Only
// sendNow may block on the network.
//
// A full queue drops a discardable frame (ErrQueueFull) and refuses any other frame but a
// response with ErrSlowConsumer, which the caller answers by closing the connection.
func (s *sender) enqueue(frame []byte, kind, mode int) error {
	s.mu.Lock()
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		return err
	}
	if kind != kindResponse && len(s.buf) > 0 && len(s.buf)+len(frame) > s.limit {
		s.mu.Unlock()
		if kind == kindDiscardable {
			return ErrQueueFull
		}
		return ErrSlowConsumer
	}
	idle := !s.writing && (len(s.buf) == 0 || s.armed) // nobody is about to write
	s.buf = append(s.buf, frame...)
	if kind == kindResponse {
		s.responses++
	}
	switch {
	case s.writing:
		// The goroutine that is writing takes the frame.
	case mode == sendNow:
		s.writing = true
		s.mu.Unlock()
		s.write()
		return nil
	case mode == sendTry && s.raw != nil:
		s.writing = true
		s.mu.Unlock()
		s.writeLoop(true)
		return nil
	case mode == sendSoon:
		s.armLocked()
	case (mode == sendWake || mode == sendTry) && idle:
		s.mu.Unlock()
		s.wake()
		return nil
	}
	s.mu.Unlock()
	return nil
}

// armLocked makes the writer goroutine write within flushDelay what is queued now. s.mu is
// held.
func (s *sender) armLocked() {
	if s.armed {
		return
	}
	s.armed = true
	if s.timer == nil {
		s.timer = time.AfterFunc(flushDelay, s.wake)
	} else {
		s.timer.Reset(flushDelay)
	}
}

// flushHeld wakes the writer goroutine for frames left with sendHeld, unless a write is in
// progress.
func (s *sender) flushHeld() {
	s.mu.Lock()
	wake := len(s.buf) > 0 && !s.writing
	if wake {
		s.urgent = true
	}
	s.mu.Unlock()
	if wake {
		s.wake()
	}
}

// flush sends the queue now, unless a write is in progress, without blocking: it writes on the
// calling goroutine what the socket takes at once and leaves the rest to the writer goroutine,
// which it wakes without letting others go first. (A client's Wait calls it before it waits
// for its response: it must not block on the network, where it could not honour its
// context.)
func (s *sender) flush() {
	s.mu.Lock()
	if len(s.buf) == 0 || s.writing || s.err != nil {
		s.mu.Unlock()
		return
	}
	if s.raw == nil {
		s.urgent = true
		s.mu.Unlock()
		s.wake()
		return
	}
	s.writing = true
	s.mu.Unlock()
	s.writeLoop(true)
}

func (s *sender) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// stop makes enqueue fail with err from now on.
func (s *sender) stop(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// finish makes enqueue fail with err, and the writer goroutine exit once everything queued is
// written.
func (s *sender) finish(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.finishing = true
	s.mu.Unlock()
	s.wake()
}

// run is the writer goroutine. It returns after finish once everything was written, when done
// is closed, or when a write failed.
func (s *sender) run(done <-chan struct{}) {
	for {
		select {
		case <-s.kick:
		case <-done:
			return
		}
		// Let the goroutines that are ready to run go first: under load they are handlers
		// and callers about to queue more frames, which then go out in the same write.
		// Not when flush woke us: its caller is waiting for the responses.
		s.mu.Lock()
		urgent := s.urgent
		s.urgent = false
		s.mu.Unlock()
		if !urgent && (s.shouldYield == nil || s.shouldYield()) {
			runtime.Gosched()
		}
		s.mu.Lock()
		if s.werr != nil || (s.finishing && !s.writing && len(s.buf) == 0) {
			s.mu.Unlock()
			return
		}
		if s.writing || len(s.buf) == 0 {
			s.mu.Unlock() // the goroutine that writes takes the frames, and wakes us when finishing
			continue
		}
		s.writing = true
		s.mu.Unlock()
		s.write()
	}
}

// write writes the queue until it is empty. The caller has taken the writing role, which write
// gives back.
func (s *sender) write() { s.writeLoop(false) }

// writeLoop is write, or flush's part of it if nonBlocking is set: once the socket takes less
// than it is given, the rest goes back to the front of the queue for the writer goroutine.
func (s *sender) writeLoop(nonBlocking bool) {
	s.mu.Lock()
	for {
		buf, responses := s.buf, s.responses
		if len(buf) == 0 {
			s.writing = false
			finishing := s.finishing
			s.mu.Unlock()
			if finishing {
				s.wake() // the writer goroutine may exit now
			}
			return
		}
		s.buf, s.spare, s.responses = s.spare[:0], nil, 0
		if s.armed {
			s.armed = false
			s.timer.Stop()
		}
		s.mu.Unlock()
		var err error
		if nonBlocking {
			var n int
			// The raw write fails at once once the deadline a blocking write set has passed:
			// it is moved here as for a blocking write.
			if err = s.moveDeadline(); err == nil {
				n, err = s.raw.write(buf)
			}
			if err == nil && n < len(buf) {
				s.mu.Lock()
				s.buf = append(buf[n:], s.buf...)
				s.responses += responses
				s.writing, s.urgent = false, true
				s.mu.Unlock()
				s.wake()
				return
			}
		} else {
			err = s.writeBuf(buf)
		}
		if err != nil {
			s.mu.Lock()
			s.writing = false
			s.werr = err
			if s.err == nil {
				s.err = closedError(err)
			}
			s.mu.Unlock()
			s.wake()
			if s.fail != nil {
				s.fail(err)
			}
			return
		}
		if responses > 0 && s.release != nil {
			s.release(responses)
		}
		if cap(buf) > maxKeep {
			buf = nil
		}
		s.mu.Lock()
		if s.spare == nil {
			s.spare = buf[:0]
		}
	}
}

// writeBuf writes buf with a deadline that leaves at least writeTimeout. Setting a deadline
// costs about as much as writing a small frame, so the deadline is moved only when it leaves
// less, and then to writeTimeout and a quarter: a write may take up to a quarter longer than
// writeTimeout before it fails.
func (s *sender) writeBuf(buf []byte) error {
	if err := s.moveDeadline(); err != nil {
		return err
	}
	_, err := s.conn.Write(buf)
	return err
}

// moveDeadline moves the connection's write deadline to writeTimeout and a quarter from now
// when it leaves less than writeTimeout (see writeBuf). Non-blocking writes need it too: the
// connection refuses any write, blocking or not, once its deadline has passed.
func (s *sender) moveDeadline() error {
	if s.writeTimeout > 0 {
		if least := monoNow() + s.writeTimeout; s.deadline < least || s.deadline-least > s.writeTimeout/4 {
			s.deadline = least + s.writeTimeout/4
			if err := s.conn.SetWriteDeadline(wallAt(s.deadline)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Pooled scratch buffers: frames are encoded into one and then copied into a queue, and
// received frames are copied into one for their handler.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) > maxKeep {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}

// A bufCache keeps two scratch buffers of one connection in front of bufPool: taking one and
// putting it back is an atomic swap, where sync.Pool's Get and Put cost several times as much,
// and every request takes two buffers on each side. A nil *bufCache is bufPool alone.
type bufCache [2]atomic.Pointer[[]byte]

func (c *bufCache) get() *[]byte {
	if c != nil {
		for i := range c {
			if c[i].Load() != nil {
				if b := c[i].Swap(nil); b != nil {
					return b
				}
			}
		}
	}
	return getBuf()
}

func (c *bufCache) put(b *[]byte) {
	if cap(*b) > maxKeep {
		return
	}
	*b = (*b)[:0]
	if c != nil {
		for i := range c {
			if c[i].Load() == nil && c[i].CompareAndSwap(nil, b) {
				return
			}
		}
	}
	bufPool.Put(b)
}

// encodeFrame encodes a framed message into a buffer from c (nil: bufPool); the caller puts it
// back.
func encodeFrame(c *bufCache, h *gsf.Header, body any) (*[]byte, error) {
	b := c.get()
	frame, err := gsf.AppendMessage((*b)[:0], h, body)
	*b = frame
	if err != nil {
		c.put(b)
		return nil, err
	}
	return b, nil
}
