package gsfnet

import (
	"net"
	"runtime"
	"sync"
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
// short lock, which never blocks on the network; one writer goroutine (run) swaps the buffer
// out and writes everything that piled up with one Write call, so that frames queued while a
// write is in progress go out together.
type sender struct {
	conn         net.Conn
	writeTimeout time.Duration       // per Write call; 0: none
	limit        int                 // bytes of frames of kindMessage or kindDiscardable allowed waiting
	release      func(responses int) // called once the frames holding so many responses are written

	mu        sync.Mutex
	buf       []byte // frames waiting for the writer
	spare     []byte // the buffer the writer handed back
	responses int    // responses in buf
	err       error  // non-nil once no more frames are accepted
	finishing bool   // the writer exits once buf is written

	kick chan struct{} // capacity 1: buf has frames
}

func newSender(conn net.Conn, writeTimeout time.Duration, limit int, release func(int)) *sender {
	return &sender{conn: conn, writeTimeout: writeTimeout, limit: limit, release: release, kick: make(chan struct{}, 1)}
}

// enqueue appends a frame. It does not block. A full queue drops a discardable frame
// (ErrQueueFull) and refuses any other frame but a response with ErrSlowConsumer, which the
// caller answers by closing the connection.
func (s *sender) enqueue(frame []byte, kind int) error {
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
	wake := len(s.buf) == 0
	s.buf = append(s.buf, frame...)
	if kind == kindResponse {
		s.responses++
	}
	s.mu.Unlock()
	if wake {
		s.wake()
	}
	return nil
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

// finish makes enqueue fail with err, and the writer exit once it has written what is queued.
func (s *sender) finish(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.finishing = true
	s.mu.Unlock()
	s.wake()
}

// run is the writer goroutine. It returns nil after finish once everything was written, nil
// when done is closed, or the error of a failed write.
func (s *sender) run(done <-chan struct{}) error {
	for {
		select {
		case <-s.kick:
		case <-done:
			return nil
		}
		// Let the goroutines that are ready to run go first: under load they are handlers
		// and callers about to queue more frames, which then go out in the same write. When
		// nothing else is ready this costs next to nothing.
		runtime.Gosched()
		for {
			s.mu.Lock()
			buf, responses, finishing := s.buf, s.responses, s.finishing
			s.buf, s.spare, s.responses = s.spare[:0], nil, 0
			s.mu.Unlock()
			if len(buf) == 0 {
				s.putBack(buf)
				if finishing {
					return nil
				}
				break
			}
			if s.writeTimeout > 0 {
				if err := s.conn.SetWriteDeadline(time.Now().Add(s.writeTimeout)); err != nil {
					return err
				}
			}
			if _, err := s.conn.Write(buf); err != nil {
				return err
			}
			if responses > 0 && s.release != nil {
				s.release(responses)
			}
			s.putBack(buf)
			// Loop: frames queued during the write go out now, without waiting for a kick
			// (the kick, if any, then finds an empty buffer).
		}
	}
}

func (s *sender) putBack(buf []byte) {
	if cap(buf) > maxKeep {
		buf = nil
	}
	s.mu.Lock()
	if s.spare == nil {
		s.spare = buf[:0]
	}
	s.mu.Unlock()
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

// encodeFrame encodes a framed message into a pooled buffer; the caller puts it back.
func encodeFrame(h *gsf.Header, body any) (*[]byte, error) {
	b := getBuf()
	frame, err := gsf.AppendMessage((*b)[:0], h, body)
	*b = frame
	if err != nil {
		putBuf(b)
		return nil, err
	}
	return b, nil
}
