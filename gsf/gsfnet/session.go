package gsfnet

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// A Session is one client connection of a Server. Handlers get it with every message; it
// holds per-connection state (Set, Get) and sends server-initiated notifies (Notify, Send).
// Its methods are safe for concurrent use.
type Session struct {
	srv      *Server
	conn     net.Conn
	id       uint64
	ip       string // the client's IP, when MaxConnsPerIP is set
	ctx      context.Context
	cancel   context.CancelCauseFunc
	out      *sender
	fr       *gsf.FrameReader
	bufs     bufCache                // scratch buffers: received frames being handled, responses being encoded
	spareReq atomic.Pointer[request] // a request for reuse (newRequest, freeRequest)
	slots    *slots                  // in-flight slots: one per message from read to handled (and answered)

	// The reader goroutine's own, when messages are handled in order (readInOrder): the
	// request it reuses, the encoder and buffer of the responses, and when the last read from
	// the connection returned (monoNow; set by connReader in either mode).
	inReq  request
	inEnc  gsf.Encoder
	inBuf  []byte
	ctxs   []reqContext // handler contexts not handed out yet (newContext)
	readAt time.Duration

	handlers sync.WaitGroup // running handlers
	// Handing reading over from a reader goroutine that runs a slow handler (see readLoop).
	tmu          sync.Mutex
	reader       uint64        // the generation of the reader goroutine
	inHandler    bool          // the reader goroutine runs a handler
	handlerStart time.Duration // when the last handler on the reader goroutine started (monoNow)
	watched      bool          // on the server's watchdog's list
	inOrder      bool          // !Server.OutOfOrder: reading is never handed over
	slowFlushed  bool          // the watchdog flushed the held responses for the handler running
	lastNotify   chan struct{} // closed when the last notify's handler is done; reader goroutine only

	// Read deadlines, as monoNow readings. inFrame, frameStart, lastFrame and rdeadline are
	// used by the reader goroutine only.
	idleTimeout, readTimeout time.Duration
	handlerTimeout           time.Duration
	inFrame                  bool                         // a read has brought bytes of the frame being read
	frameStart               time.Duration                // when the frame being read went on past a read; 0: not yet
	lastFrame                time.Duration                // when the last frame was read; 0: none yet
	rdeadline                time.Duration                // the read deadline set last; 0: none
	rmu                      sync.Mutex                   // setting the read deadline, against drain's
	draining                 atomic.Bool                  // set under rmu
	failCause                atomic.Pointer[handlerError] // a handler failed under CloseOnError

	mu     sync.Mutex
	values map[any]any
	groups map[*Group]struct{}
	user   string // Session.SetUser
	closed bool
	cause  error

	closeOnce  sync.Once
	done       chan struct{} // closed by closeWith
	writerDone chan struct{} // closed when the writer goroutine has exited
}

// ID returns the session's number, unique within the process.
func (s *Session) ID() uint64 { return s.id }

// RemoteAddr returns the client's address.
func (s *Session) RemoteAddr() net.Addr { return s.conn.RemoteAddr() }

// LocalAddr returns the server's address of the connection.
func (s *Session) LocalAddr() net.Addr { return s.conn.LocalAddr() }

// Context returns the session's context, canceled when the connection closes; its cause
// (context.Cause) says why.
func (s *Session) Context() context.Context { return s.ctx }

// Server returns the server the session belongs to.
func (s *Session) Server() *Server { return s.srv }

// Set stores a value under a key in the session, for example the logged-in player. Keys are
// compared with ==; use an unexported key type to avoid clashes, as with context values.
func (s *Session) Set(key, value any) {
	s.mu.Lock()
	if s.values == nil {
		s.values = make(map[any]any)
	}
	s.values[key] = value
	s.mu.Unlock()
}

// Get returns the value stored under key, or nil.
func (s *Session) Get(key any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.values[key]
}

// Delete removes the value stored under key.
func (s *Session) Delete(key any) {
	s.mu.Lock()
	delete(s.values, key)
	s.mu.Unlock()
}

// Notify queues a notify (flags 2) to the client. Server-to-client notifies use the service
// class gsf.SvcClient (-1) in the reference. See Send for the errors.
func (s *Session) Notify(class gsf.ServiceClass, msgType int32, body any) error {
	return s.Send(gsf.NewNotify(class, msgType), body)
}

// Send queues a message with the given header to the client. It never blocks on the network:
// the message is encoded and appended to the session's outgoing queue, which the session's
// writer goroutine writes.
//
// When the queue already holds Server.MaxQueueBytes, a discardable message (FlagDiscardable)
// is dropped and Send returns ErrQueueFull; any other message closes the session, whose
// client does not keep up, and Send returns an error wrapping ErrClosed and ErrSlowConsumer.
// On a closed session Send returns an error wrapping ErrClosed.
func (s *Session) Send(h gsf.Header, body any) error {
	b, err := encodeFrame(nil, &h, body)
	if err != nil {
		return err
	}
	err = s.enqueue(*b, frameKind(&h))
	putBuf(b)
	return err
}

func frameKind(h *gsf.Header) int {
	if h.IsDiscardable() {
		return kindDiscardable
	}
	return kindMessage
}

// enqueue queues a frame and closes the session when its client is too slow.
func (s *Session) enqueue(frame []byte, kind int) error {
	err := s.out.enqueue(frame, kind, sendWake)
	if err == ErrSlowConsumer {
		s.srv.logger().Warn("gsfnet: closing a session whose client does not read", "session", s.id, "remote", s.conn.RemoteAddr().String())
		s.closeWith(ErrSlowConsumer)
		return closedError(ErrSlowConsumer)
	}
	return err
}

// Close closes the connection at once: handlers' contexts are canceled and queued messages
// that were not written yet are dropped.
func (s *Session) Close() error {
	s.closeWith(ErrClosed)
	return nil
}

// Err returns why the session closed (nil while it is open): ErrClosed for Session.Close,
// io.EOF for a client that closed the connection, ErrSlowConsumer, a timeout, a protocol
// error, ErrServerClosed.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cause
}

// closeWith closes the session with a cause. It takes no lock but the session's own, so it may
// be called from anywhere, also while a Group is being iterated.
func (s *Session) closeWith(cause error) {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.cause = cause
		s.mu.Unlock()
		s.out.stop(closedError(cause))
		s.cancel(cause)
		close(s.done)
		_ = s.conn.Close()
	})
}

// drain stops reading: the reader returns errDraining and the session finishes what it has.
func (s *Session) drain() {
	s.rmu.Lock()
	s.draining.Store(true)
	_ = s.conn.SetReadDeadline(aLongTimeAgo)
	s.rmu.Unlock()
}

var aLongTimeAgo = time.Unix(1, 0)

// errDraining stops the reader of a session that Shutdown drains.
var errDraining = fmt.Errorf("%w: shutting down", ErrServerClosed)

// connReader is the io.Reader of a session's FrameReader: it sets the read deadline before
// the reads that need it, IdleTimeout between frames, ReadTimeout within a frame.
//
// Setting a deadline costs about as much as reading a small frame, so the idle deadline is
// moved only when it leaves less than IdleTimeout, and then to IdleTimeout and a quarter:
// a client may stay silent for up to a quarter longer than IdleTimeout. The clock is read once
// after each read that brings bytes (readAt: the time of the frames it brought, from which
// their handlers' deadlines and a frame's ReadTimeout run), and between frames once more
// when messages are handled in order, since the handlers of the frames of the last read ran
// after it; out of order the time of the last frame (lastFrame, read for each message)
// stands for now.
type connReader Session

func (c *connReader) Read(p []byte) (int, error) {
	stateChanged() // the FrameReader has charged the buffer budget for what it holds so far
	s := (*Session)(c)
	deadline, set := s.rdeadline, false
	switch {
	case s.inFrame:
		deadline = 0
		if s.readTimeout > 0 {
			if s.frameStart == 0 {
				s.frameStart = s.readAt // the read that brought the frame's first bytes
			}
			deadline = s.frameStart + s.readTimeout
		}
		set = deadline != s.rdeadline
	case s.idleTimeout > 0:
		now := s.lastFrame
		if now == 0 || s.inOrder {
			// In order, lastFrame is the time of the read that brought the last frame,
			// which may be long ago when handlers are slow: read the clock (once per read,
			// not per message, as readAt is).
			now = monoNow()
		}
		if least := now + s.idleTimeout; s.rdeadline == 0 || s.rdeadline < least || s.rdeadline-least > s.idleTimeout/4 {
			deadline, set = least+s.idleTimeout/4, true
		}
	default:
		deadline = 0
		set = s.rdeadline != 0
	}
	if set {
		s.rmu.Lock()
		if s.draining.Load() {
			s.rmu.Unlock()
			return 0, errDraining
		}
		var t time.Time
		if deadline != 0 {
			t = wallAt(deadline)
		}
		err := s.conn.SetReadDeadline(t)
		s.rdeadline = deadline
		s.rmu.Unlock()
		if err != nil {
			return 0, err
		}
	} else if s.draining.Load() {
		// drain sets a deadline in the past after setting draining: a read that starts
		// before that fails at once.
		return 0, errDraining
	}
	n, err := s.conn.Read(p)
	if n > 0 {
		s.inFrame = true
		s.readAt = monoNow()
	}
	return n, err
}

// A Group is a set of sessions that notifies go to together: the players in a room, a chat
// channel, everyone. Sessions leave their groups when they close. The zero Group is ready to
// use; its methods are safe for concurrent use. Server.Group returns a named group, which
// spans the cluster when the server has a Cluster.
type Group struct {
	mu      sync.RWMutex
	members map[*Session]struct{}
	name    string  // named groups only (Server.Group)
	srv     *Server // named groups only
}

// Name returns the name of a group made by Server.Group, and "" for any other.
func (g *Group) Name() string { return g.name }

// cluster returns the Cluster a named group spans, or nil.
func (g *Group) cluster() Cluster {
	if g.srv == nil {
		return nil
	}
	return g.srv.Cluster
}

// Add adds a session to the group. It reports false for a session that is closed.
func (g *Group) Add(s *Session) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.groups == nil {
		s.groups = make(map[*Group]struct{})
	}
	s.groups[g] = struct{}{}
	if g.members == nil {
		g.members = make(map[*Session]struct{})
	}
	_, was := g.members[s]
	g.members[s] = struct{}{}
	if c := g.cluster(); c != nil && !was && s.srv == g.srv {
		c.GroupJoined(g.name, s)
	}
	stateChanged()
	return true
}

// Remove removes a session from the group.
func (g *Group) Remove(s *Session) {
	g.mu.Lock()
	_, was := g.members[s]
	delete(g.members, s)
	if c := g.cluster(); c != nil && was && s.srv == g.srv {
		c.GroupLeft(g.name, s)
	}
	g.mu.Unlock()
	s.mu.Lock()
	delete(s.groups, g)
	s.mu.Unlock()
	stateChanged()
}

// Len returns the number of sessions in the group.
func (g *Group) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.members)
}

// Sessions returns the sessions in the group, in no particular order.
func (g *Group) Sessions() []*Session {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]*Session, 0, len(g.members))
	for s := range g.members {
		out = append(out, s)
	}
	return out
}

// Notify queues a notify to every session of the group; see SendExcept.
func (g *Group) Notify(class gsf.ServiceClass, msgType int32, body any) (int, error) {
	return g.SendExcept(nil, gsf.NewNotify(class, msgType), body)
}

// Send queues a message to every session of the group; see SendExcept.
func (g *Group) Send(h gsf.Header, body any) (int, error) {
	return g.SendExcept(nil, h, body)
}

// SendExcept queues a message to every session of the group but except (which may be nil), and
// returns the number of sessions it was queued for. The message is encoded once. Like
// Session.Send it never blocks: a session whose queue is full drops a discardable message, or
// is closed as a slow consumer, and the others get the message all the same. The error is
// that of encoding the message.
//
// For a named group of a server with a Cluster, the message is also published to the group's
// members on the other nodes; the count is that of this node's sessions, and the error may
// also be that of publishing.
func (g *Group) SendExcept(except *Session, h gsf.Header, body any) (int, error) {
	b, err := encodeFrame(nil, &h, body)
	if err != nil {
		return 0, err
	}
	defer putBuf(b)
	kind := frameKind(&h)
	n := 0
	g.mu.RLock()
	for s := range g.members {
		if s != except && s.enqueue(*b, kind) == nil {
			n++
		}
	}
	g.mu.RUnlock()
	if c := g.cluster(); c != nil {
		if err := c.PublishGroup(g.name, except, *b, kind == kindDiscardable); err != nil {
			return n, fmt.Errorf("gsfnet: cluster: %w", err)
		}
	}
	return n, nil
}

// leaveGroups removes a closed session from its groups.
func (s *Session) leaveGroups() {
	s.mu.Lock()
	gs := s.groups
	s.groups = nil
	s.mu.Unlock()
	for g := range gs {
		g.mu.Lock()
		_, was := g.members[s]
		delete(g.members, s)
		if c := g.cluster(); c != nil && was && s.srv == g.srv {
			c.GroupLeft(g.name, s)
		}
		g.mu.Unlock()
	}
	stateChanged()
}
