package gsfnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// NoLimit, as the value of a limit or timeout (of a Server or ClientOptions), sets none.
const NoLimit = -1

// Defaults of the Server's fields, used when a field is 0.
const (
	DefaultAddr            = "127.0.0.1:7566"
	DefaultMaxMessageBytes = 64 << 10 // bytes (length prefix value: payload + terminator)
	DefaultReadTimeout     = 30 * time.Second
	DefaultIdleTimeout     = 5 * time.Minute
	DefaultWriteTimeout    = 30 * time.Second
	DefaultMaxConns        = 10_000
	DefaultMaxInFlight     = 64
	DefaultMaxQueueBytes   = 1 << 20
	// DefaultMaxBufferedBytes is the default of Server.MaxBufferedBytes.
	DefaultMaxBufferedBytes = 64 << 20
	// DefaultHandlerTimeout is the default of Server.HandlerTimeout.
	DefaultHandlerTimeout = time.Minute
)

// UnknownPolicy says how the server answers a message that no handler takes (the handler
// returned ErrUnknownMessage, as a Mux does for a pair without a route).
type UnknownPolicy int

// The unknown-message policies.
const (
	// UnknownIgnore sends nothing and keeps the connection open, as the reference server does.
	// A client calling an unknown message waits for its context to end.
	UnknownIgnore UnknownPolicy = iota
	// UnknownReject answers a request with result ERR and app code NOT_IMPLEMENTED.
	UnknownReject
	// UnknownClose closes the connection.
	UnknownClose
)

// String returns "ignore", "reject" or "close".
func (p UnknownPolicy) String() string {
	switch p {
	case UnknownIgnore:
		return "ignore"
	case UnknownReject:
		return "reject"
	case UnknownClose:
		return "close"
	}
	return fmt.Sprintf("UnknownPolicy(%d)", int(p))
}

// A Server serves GSF clients over TCP (or any net.Listener): it reads framed messages, hands
// them to its Handler and writes the responses.
//
// Every connection is a Session. Its reader goroutine reads frames, checks each length against
// MaxMessageBytes before allocating anything, and runs the handler of each message itself. By
// default a connection's messages are handled one after the other and its responses leave in
// the order of the requests, as the reference server does and as the real client expects: a
// handler that blocks holds up the messages behind it. A message handled in order is decoded
// where it was received, in the connection's read buffer, which is not read into again until
// its handler has returned: its Request and Body are the handler's until then (see Handler),
// and a handler that keeps the body clones it.
//
// With OutOfOrder set, a handler that runs longer than 200 µs (it waits for a database, say)
// keeps the goroutine it runs on, and a new goroutine takes over reading; so requests of one
// connection are handled concurrently as soon as one is slow, up to MaxInFlight at a time, a
// handler that blocks holds up the messages behind it by 200 to 300 µs (one that computes for
// long, until the Go scheduler preempts it: about 10 ms), and responses go out in the
// order they are ready (the client matches them by request id). Notifies from a client are
// handled one after the other, in the order they came, since they have no request id to tell
// their order by.
//
// A handler writes its response itself when no write is in progress on the connection;
// otherwise the response joins the queue that the writing goroutine is writing, and every
// write takes whatever piled up. When the next message is already buffered (a client
// pipelining its requests), a response waits for that message's, so that the batch is
// answered with one write. Notifies to the client are queued without blocking and written by
// the session's writer goroutine.
//
// When MaxInFlight messages are in flight the reader stops reading until one is answered and
// its response written, so a client that sends requests and never reads the responses only
// fills its own socket buffers, and is disconnected after WriteTimeout. When reading ends,
// whatever the reason (the client closed its side, a timeout, a protocol error, Shutdown), the
// messages already read are handled and answered before the connection closes.
//
// The zero value of each field but Handler selects a default (MaxConnsPerIP and AcceptRate,
// which few servers need, are off at zero); NoLimit (-1) disables a limit or timeout, and so
// does any other negative value, which a Server takes as NoLimit. The fields must not be
// changed once the server runs.
type Server struct {
	// Addr is the TCP address ListenAndServe listens on (default DefaultAddr).
	Addr string
	// Handler handles the messages, typically a *Mux. Without one every message is unknown.
	Handler Handler

	// ReadTimeout limits the time from the first byte of a frame to its last
	// (default DefaultReadTimeout).
	ReadTimeout time.Duration
	// IdleTimeout limits the time the server waits for the next frame of a client: a client
	// that sends nothing for that long (give or take a quarter more, which spares moving the
	// deadline for every frame) is disconnected (default DefaultIdleTimeout; game clients
	// send heartbeats).
	IdleTimeout time.Duration
	// WriteTimeout limits each write to a client (default DefaultWriteTimeout; a write may
	// take up to a quarter longer, which spares moving the deadline for every write). A
	// client that does not read for that long while the server has something to send is
	// disconnected.
	WriteTimeout time.Duration
	// MaxMessageBytes is the largest frame a client may send: the length prefix, which counts
	// the payload and the terminator (default DefaultMaxMessageBytes). A larger length closes
	// the connection before any memory is allocated for the frame.
	MaxMessageBytes int
	// MaxConns limits the number of open connections (default DefaultMaxConns). Connections
	// beyond it are accepted and closed at once.
	MaxConns int
	// MaxConnsPerIP limits the open connections from one IP address; connections beyond it
	// are accepted and closed at once. 0 (the default) sets no limit: players behind one NAT
	// share an address.
	MaxConnsPerIP int
	// AcceptRate limits the connections the server takes per second, with bursts of up to
	// AcceptBurst (at least 1); connections beyond it are accepted and closed at once. 0 (the
	// default) sets no limit.
	AcceptRate  float64
	AcceptBurst int
	// MaxBufferedBytes limits the memory that all connections together hold in buffers for
	// the frames they are receiving, beyond the first gsf.BaseBufferSize (4 KiB) of each, and,
	// with OutOfOrder, in the copies of frames larger than 4 KiB that are being handled
	// (default DefaultMaxBufferedBytes; in order, a message is handled where it was received,
	// without a copy). A connection whose frame needs more than is left is closed,
	// once the messages read before are answered. Clients that send the first part of large
	// frames and then nothing hold this memory until ReadTimeout closes them; the limit keeps
	// them from holding more: 10 000 connections holding most of a 64 KiB frame each would
	// hold 680 MiB. With the defaults, received frames take at most MaxConns × 4 KiB +
	// MaxBufferedBytes (40 MiB + 64 MiB) while they are read, and with OutOfOrder
	// MaxConns × MaxInFlight × 4 KiB more (2.5 GiB) if every connection has MaxInFlight small
	// requests held by slow handlers; lower MaxInFlight to lower that.
	MaxBufferedBytes int
	// MaxInFlight limits the messages of one connection being handled or waiting for their
	// response to be written (default DefaultMaxInFlight). 1 handles a connection's messages
	// strictly one after the other, as the reference server does.
	MaxInFlight int
	// MaxQueueBytes limits the notifies (bytes of encoded frames) waiting in a session's
	// outgoing queue (default DefaultMaxQueueBytes). When a notify finds the queue full, it is
	// dropped if it is discardable (FlagDiscardable; Send returns ErrQueueFull), and otherwise
	// the session is closed with ErrSlowConsumer: a client that cannot keep up would only see
	// an ever older state. Responses are never dropped: there are at most MaxInFlight of them.
	MaxQueueBytes int
	// HandlerTimeout is the time a handler's context gives it: the context's deadline is
	// HandlerTimeout after the message was read (default DefaultHandlerTimeout). A handler
	// that does not heed its context still holds its in-flight slot until it returns.
	HandlerTimeout time.Duration
	// DecodeMode is the bitproto mode that typed handlers (Typed, Handle) decode request
	// bodies with; the zero value uses bitproto's defaults.
	DecodeMode bitproto.DecodeMode
	// UnknownPolicy says how to answer messages that no handler takes (default UnknownIgnore,
	// as the reference does).
	UnknownPolicy UnknownPolicy
	// OutOfOrder lets the requests of one connection be handled concurrently once a handler
	// is slow, and their responses leave in the order they are ready (see above). The default,
	// false, handles a connection's messages one at a time and answers them in order, as the
	// reference does; set it for clients that match responses by request id and should not
	// wait behind a slow request.
	OutOfOrder bool
	// CloseOnError closes the connection when a handler fails, as the reference does: a
	// handler that returns an error other than an *Error (and ErrNoResponse and
	// ErrUnknownMessage), a request body that does not decode (ErrBadBody, from Typed and
	// TypedStrict) and a handler that panics (ErrHandlerPanic) get no response; the server
	// reads no more messages from the connection, writes the responses to the messages before
	// and closes it (Session.Err wraps the handler's error). An *Error is answered and the
	// connection stays open, as the reference does for its GSF errors; an *Error without an
	// AppString sends the text of its Err as the app string, as the reference sends the
	// error's text. The default, false, answers a failed handler with result ERR and app code
	// INTERNAL_ERROR (SERIALIZE/INPUT for a body that does not decode) and keeps the
	// connection.
	CloseOnError bool

	// Logger receives the server's logs (default slog.Default()): handler panics and errors
	// at level Error, protocol violations and slow consumers at Warn, connections and
	// timeouts at Debug.
	Logger *slog.Logger
	// OnConnect, if set, is called with every new session before its first message is read.
	// It may set session values, send notifies, add the session to groups, or close it.
	OnConnect func(s *Session)
	// OnDisconnect, if set, is called when a session has closed and all its handlers have
	// returned, with the reason (see Session.Err).
	OnDisconnect func(s *Session, err error)

	// Cluster, if set, spans the server's named groups (Server.Group) and user keys
	// (Session.SetUser, Server.SendUser) over several servers; see package
	// gsf/gsfnet/natscluster. Without one, both stay within the server.
	Cluster Cluster

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	sessions  map[*Session]struct{}
	shutdown  bool
	cluster   clusterState

	refusals  [numRefusals]refusalLog
	admission admission
	budget    *gsf.BufferBudget
	watchdog  watchdog
}

var sessionIDs atomic.Uint64

func (srv *Server) logger() *slog.Logger {
	if srv.Logger != nil {
		return srv.Logger
	}
	return slog.Default()
}

// limit returns v, def when v is 0, and 0 (none) when v is negative: NoLimit, or another
// negative value, which a Server takes as NoLimit.
func limit[T int | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// ListenAndServe listens on srv.Addr and serves connections until Shutdown or Close, after
// which it returns ErrServerClosed.
func (srv *Server) ListenAndServe() error {
	if srv.isShutdown() {
		return ErrServerClosed
	}
	addr := srv.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return srv.Serve(l)
}

// Serve accepts connections on l and serves each in its own goroutines. It returns
// ErrServerClosed after Shutdown or Close (which close l), or the error of Accept. Serve may be
// called for several listeners.
func (srv *Server) Serve(l net.Listener) error {
	srv.mu.Lock()
	if srv.shutdown {
		srv.mu.Unlock()
		_ = l.Close()
		return ErrServerClosed
	}
	if srv.listeners == nil {
		srv.listeners = make(map[net.Listener]struct{})
	}
	srv.listeners[l] = struct{}{}
	srv.mu.Unlock()
	if err := srv.startCluster(); err != nil {
		srv.mu.Lock()
		delete(srv.listeners, l)
		srv.mu.Unlock()
		_ = l.Close()
		return err
	}
	defer func() {
		srv.mu.Lock()
		delete(srv.listeners, l)
		srv.mu.Unlock()
	}()

	var delay time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if srv.isShutdown() {
				return ErrServerClosed
			}
			if te, ok := err.(interface{ Temporary() bool }); ok && te.Temporary() {
				// For example too many open files: wait, and try again.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				srv.logger().Warn("gsfnet: accept", "err", err, "retry", delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		if s := srv.newSession(c); s != nil {
			go s.serve()
		}
	}
}

// newSession registers a session for c, or closes c and returns nil when the server is full,
// a limit on new connections refuses it, or the server is shutting down.
func (srv *Server) newSession(c net.Conn) *Session {
	maxConns := limit(srv.MaxConns, DefaultMaxConns)
	if !srv.acceptRateOK() {
		_ = c.Close()
		srv.refuse(refuseAcceptRate, "remote", c.RemoteAddr().String())
		return nil
	}
	ip := ""
	if srv.MaxConnsPerIP > 0 {
		ip = ipOf(c)
	}
	srv.mu.Lock()
	reason := -1
	switch {
	case srv.shutdown:
	case maxConns > 0 && len(srv.sessions) >= maxConns:
		reason = refuseMaxConns
	case srv.MaxConnsPerIP > 0 && srv.admission.perIP[ip] >= srv.MaxConnsPerIP:
		reason = refusePerIP
	}
	if srv.shutdown || reason >= 0 {
		srv.mu.Unlock()
		_ = c.Close()
		if reason >= 0 {
			srv.refuse(reason, "remote", c.RemoteAddr().String())
		}
		return nil
	}
	inFlight := limit(srv.MaxInFlight, DefaultMaxInFlight)
	if inFlight == 0 {
		inFlight = math.MaxInt // no limit
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &Session{
		srv:            srv,
		conn:           c,
		id:             sessionIDs.Add(1),
		ip:             ip,
		ctx:            ctx,
		cancel:         cancel,
		slots:          newSlots(inFlight),
		idleTimeout:    limit(srv.IdleTimeout, DefaultIdleTimeout),
		readTimeout:    limit(srv.ReadTimeout, DefaultReadTimeout),
		handlerTimeout: limit(srv.HandlerTimeout, DefaultHandlerTimeout),
		inOrder:        !srv.OutOfOrder,
		done:           make(chan struct{}),
		writerDone:     make(chan struct{}),
	}
	queue := limit(srv.MaxQueueBytes, DefaultMaxQueueBytes)
	if queue == 0 {
		queue = int(^uint(0) >> 1)
	}
	s.out = newSender(c, limit(srv.WriteTimeout, DefaultWriteTimeout), queue, s.releaseSlots,
		func(err error) { s.closeWith(fmt.Errorf("gsfnet: write: %w", err)) })
	s.fr = gsf.NewFrameReader((*connReader)(s))
	s.fr.MaxMessageBytes = limit(srv.MaxMessageBytes, DefaultMaxMessageBytes)
	if s.fr.MaxMessageBytes == 0 {
		s.fr.MaxMessageBytes = gsf.MaxFrameLength
	}
	if srv.budget == nil {
		if b := limit(srv.MaxBufferedBytes, DefaultMaxBufferedBytes); b > 0 {
			srv.budget = gsf.NewBufferBudget(int64(b))
		}
	}
	s.fr.Budget = srv.budget
	if srv.sessions == nil {
		srv.sessions = make(map[*Session]struct{})
	}
	srv.sessions[s] = struct{}{}
	defer stateChanged()
	if srv.MaxConnsPerIP > 0 {
		if srv.admission.perIP == nil {
			srv.admission.perIP = make(map[string]int)
		}
		srv.admission.perIP[ip]++
	}
	srv.mu.Unlock()
	return s
}

func (srv *Server) isShutdown() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.shutdown
}

// NumSessions returns the number of open sessions.
func (srv *Server) NumSessions() int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return len(srv.sessions)
}

// Shutdown stops the server gracefully: it closes the listeners, stops reading from every
// connection, waits for the handlers of the messages already read to return and for their
// responses to be written, and then closes the connections. No response to a message the
// server has read is lost. A request still on its way when the connection closes fails on the
// client with ErrClosed.
//
// Shutdown returns when all sessions are closed, or with the context's error when it ends
// first; Close then closes what is left. Serve returns ErrServerClosed at once.
func (srv *Server) Shutdown(ctx context.Context) error {
	srv.mu.Lock()
	srv.shutdown = true
	err := srv.closeListeners()
	for s := range srv.sessions {
		s.drain()
	}
	srv.mu.Unlock()
	defer srv.flushRefusals()
	wait := time.Millisecond
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		if srv.NumSessions() == 0 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			wait = min(2*wait, 50*time.Millisecond)
			timer.Reset(wait)
		}
	}
}

// Close closes the listeners and every connection at once: handlers' contexts are canceled,
// and responses not written yet are lost. Use Shutdown to stop gracefully.
func (srv *Server) Close() error {
	defer srv.flushRefusals()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	srv.shutdown = true
	err := srv.closeListeners()
	for s := range srv.sessions {
		s.closeWith(ErrServerClosed)
	}
	return err
}

func (srv *Server) closeListeners() error {
	var err error
	for l := range srv.listeners {
		if e := l.Close(); e != nil && err == nil {
			err = e
		}
		delete(srv.listeners, l)
	}
	return err
}

// releaseSlots frees the in-flight slots of written responses.
func (s *Session) releaseSlots(n int) { s.slots.release(n) }

// serve runs a session: the writer goroutine, the reader loop, and the end of the session.
func (s *Session) serve() {
	srv := s.srv
	log := srv.logger()
	go func() {
		s.out.run(s.done)
		close(s.writerDone)
	}()
	log.Debug("gsfnet: connection", "session", s.id, "remote", s.conn.RemoteAddr().String())

	if srv.OnConnect != nil {
		if err := s.callHook(func() { srv.OnConnect(s) }); err != nil {
			s.end(err)
			return
		}
	}
	s.read(0)
}

// read runs the reader loop as the reader of generation gen. The goroutine whose reading
// ends (rather than being handed over) ends the session.
func (s *Session) read(gen uint64) {
	if s.inOrder {
		s.end(s.readInOrder())
		return
	}
	if handedOver, err := s.readLoop(gen); !handedOver {
		s.end(err)
	}
}

// end ends the session once reading has ended with err.
func (s *Session) end(err error) {
	srv := s.srv
	log := srv.logger()
	// Whatever the reason (the client closed its side, a timeout, a protocol error,
	// Shutdown), the messages already read are handled and answered before the connection
	// closes, unless the session was closed (the handlers' contexts then end).
	draining := errors.Is(err, errDraining) || (errors.Is(err, os.ErrDeadlineExceeded) && s.isDraining())
	failed := s.failCause.Load()
	switch {
	case failed != nil:
		err = failed
		log.Debug("gsfnet: connection closes after a handler error", "session", s.id, "remote", s.conn.RemoteAddr().String(), "err", err)
	case draining:
		err = ErrServerClosed
	case err == io.EOF, errors.Is(err, net.ErrClosed):
		log.Debug("gsfnet: connection ends", "session", s.id, "remote", s.conn.RemoteAddr().String(), "err", err)
	case errors.Is(err, os.ErrDeadlineExceeded):
		log.Debug("gsfnet: read timeout", "session", s.id, "remote", s.conn.RemoteAddr().String(), "err", err)
	case errors.Is(err, gsf.ErrBufferBudget):
		srv.refuse(refuseBudget, "session", s.id, "remote", s.conn.RemoteAddr().String(), "err", err)
	case isProtocolError(err):
		srv.refuse(refuseProtocol, "session", s.id, "remote", s.conn.RemoteAddr().String(), "err", err)
	default:
		log.Debug("gsfnet: connection ends", "session", s.id, "remote", s.conn.RemoteAddr().String(), "err", err)
	}
	s.fr.ReleaseBuffer() // reading has ended
	s.handlers.Wait()
	s.out.finish(closedError(err))
	<-s.writerDone
	s.closeWith(err)
	s.leaveGroups()
	s.leaveCluster()
	if srv.OnDisconnect != nil {
		_ = s.callHook(func() { srv.OnDisconnect(s, s.Err()) })
	}
	srv.mu.Lock()
	delete(srv.sessions, s)
	if srv.MaxConnsPerIP > 0 {
		if n := srv.admission.perIP[s.ip] - 1; n > 0 {
			srv.admission.perIP[s.ip] = n
		} else {
			delete(srv.admission.perIP, s.ip)
		}
	}
	srv.mu.Unlock()
	stateChanged()
}

func (s *Session) isDraining() bool {
	return s.draining.Load()
}

// callHook calls a hook and turns a panic into an error.
func (s *Session) callHook(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			s.srv.logger().Error("gsfnet: panic in a connection hook", "session", s.id, "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("gsfnet: panic in a connection hook: %v", p)
		}
	}()
	f()
	return nil
}

// isProtocolError reports the errors of a client that broke the protocol: framing errors
// other than a cut connection, and messages that do not decode.
func isProtocolError(err error) bool {
	var fe *gsf.FrameError
	if errors.As(err, &fe) {
		return errors.Is(err, gsf.ErrEmptyFrame) || errors.Is(err, gsf.ErrTooLarge) ||
			errors.Is(err, gsf.ErrLengthOverflow) || errors.Is(err, gsf.ErrMissingTerminator) ||
			errors.Is(err, io.ErrUnexpectedEOF)
	}
	var me *messageError
	return errors.As(err, &me)
}

// messageError is a frame whose message does not decode.
type messageError struct{ err error }

func (e *messageError) Error() string { return "gsfnet: bad message: " + e.err.Error() }
func (e *messageError) Unwrap() error { return e.err }

// frameRead notes a frame read at now (the read timeout of a next frame begun in the same read
// runs from then) and takes an in-flight slot for it, held until its response is written;
// while there is none, it stops reading. It returns when the wait ended: the handler's
// deadline runs from then.
func (s *Session) frameRead(now time.Duration) (time.Duration, error) {
	s.lastFrame = now
	if s.fr.Buffered() > 0 {
		s.inFrame, s.frameStart = true, now
	}
	if !s.slots.tryAcquire() {
		s.out.flushHeld() // held responses hold slots
		if !s.slots.acquire(s.done) {
			return now, s.Err()
		}
		now = monoNow() // the wait may have been long
		s.lastFrame = now
	}
	return now, nil
}

// readLoop reads frames and handles them until the connection fails, the session drains, or
// a handler that runs long hands reading over to another goroutine (handedOver).
//
// Messages are handled on the reader goroutine, one after the other, as long as their handlers
// return within inlineBudget: that saves handing each message to a goroutine of its own,
// which costs more than a typical handler. A handler that runs longer (it blocks on a database,
// say) keeps its goroutine, and a new goroutine takes over reading (the server's watchdog sees
// to it), so that it holds up the messages behind it by inlineBudget to inlineBudget+watchTick
// (the watchdog's timer runs when a P is free to run it: at once if the handler blocks, at the
// latest when the scheduler preempts a handler that computes). The requests of a connection
// are thus handled concurrently as soon as one of them is slow, as MaxInFlight allows.
func (s *Session) readLoop(gen uint64) (handedOver bool, err error) {
	for {
		payload, err := s.fr.ReadFrame()
		s.inFrame, s.frameStart = false, 0
		if err != nil {
			return false, err
		}
		// The one clock reading per message: the handler's deadline runs from it, and the
		// next read's idle deadline (see connReader).
		now, err := s.frameRead(monoNow())
		if err != nil {
			return false, err
		}
		r, err := s.newRequest(payload, now)
		if err != nil {
			s.slots.release(1)
			return false, err
		}
		if r.Header.IsResponse() {
			// Clients send requests and notifies; the reference has no use for a response
			// from a client either.
			s.srv.logger().Debug("gsfnet: ignoring a response from a client", "session", s.id, "header", r.Header.String())
			s.freeRequest(r)
			s.slots.release(1)
			continue
		}
		s.handlers.Add(1)
		if r.Header.IsNotify() {
			prev, done := s.lastNotify, make(chan struct{})
			s.lastNotify = done
			r.prev, r.done = prev, done
		}
		r.gen = gen
		s.tmu.Lock()
		s.inHandler = true
		s.handlerStart = s.lastFrame
		s.slowFlushed = false
		watched := s.watched
		s.watched = true
		s.tmu.Unlock()
		if !watched {
			s.srv.watchdog.watch(s)
		}
		s.handle(r)
		if s.failCause.Load() != nil {
			// A handler failed under CloseOnError: nothing more is handled.
			return false, errDraining
		}
		s.tmu.Lock()
		if s.reader != gen {
			s.tmu.Unlock()
			return true, nil
		}
		s.inHandler = false
		s.tmu.Unlock()
		if !s.fr.FrameBuffered() {
			// About to wait for the network: nothing may stay held (see sendResponse).
			s.out.flushHeld()
		}
	}
}

// readInOrder is the reader loop of a session whose messages are handled in order (the
// default, Server.OutOfOrder unset): every message is handled on the reader goroutine, which
// never hands reading over, and its response is queued before the next frame is read.
//
// A message is therefore decoded where it lies in the FrameReader's buffer, into the one
// request the session reuses, without a copy: the buffer is not read into again until the
// handler has returned and its response is encoded, and a handler must not use the Request
// or its Body after it returns (see Handler). Responses are encoded into the session's own
// buffer with its own gsf.Encoder, which only this goroutine uses. The clock is read once
// per read from the connection (connReader), not once per message: the messages of one read
// were all read at that time, and a handler's deadline runs from it.
func (s *Session) readInOrder() error {
	r := &s.inReq
	r.Session = s
	for {
		err := s.fr.ReadMessageInto(&r.Header, &r.Body)
		s.inFrame, s.frameStart = false, 0
		if err != nil {
			var de *bitproto.DecodeError
			if errors.As(err, &de) || errors.Is(err, gsf.ErrNullMessage) {
				return &messageError{err}
			}
			return err
		}
		now, err := s.frameRead(s.readAt)
		if err != nil {
			return err
		}
		if r.Header.IsResponse() {
			// Clients send requests and notifies; the reference has no use for a response
			// from a client either.
			s.srv.logger().Debug("gsfnet: ignoring a response from a client", "session", s.id, "header", r.Header.String())
			s.slots.release(1)
			continue
		}
		ctx := s.newContext()
		ctx.sess, ctx.r = s, &r.Request
		if s.handlerTimeout > 0 {
			ctx.deadline = now + s.handlerTimeout
		}
		r.ctx = ctx
		s.tmu.Lock()
		s.inHandler = true
		s.handlerStart = now
		s.slowFlushed = false
		watched := s.watched
		s.watched = true
		s.tmu.Unlock()
		if !watched {
			s.srv.watchdog.watch(s)
		}
		queued := s.respond(r)
		ctx.release()
		r.ctx = nil
		if !queued {
			s.slots.release(1)
		}
		if s.failCause.Load() != nil {
			// A handler failed under CloseOnError: nothing more is handled.
			return errDraining
		}
		s.tmu.Lock()
		s.inHandler = false
		s.tmu.Unlock()
		if !s.fr.FrameBuffered() {
			// About to wait for the network: nothing may stay held (see sendResponse).
			s.out.flushHeld()
		}
	}
}

// ctxSlab is the number of handler contexts readInOrder allocates at once.
const ctxSlab = 32

// newContext returns a new, zero handler context for readInOrder. A handler may keep its
// context, so none is ever reused; they are allocated ctxSlab at a time, which costs a
// fraction of an allocation each, and a context kept long keeps the others of its slab alive
// (ctxSlab × 32 bytes).
func (s *Session) newContext() *reqContext {
	if len(s.ctxs) == 0 {
		s.ctxs = make([]reqContext, ctxSlab)
	}
	c := &s.ctxs[0]
	s.ctxs = s.ctxs[1:]
	return c
}

// inlineBudget is how long a handler runs on the reader goroutine before another goroutine
// takes over reading (give or take the watchdog's tick, watchTick).
const inlineBudget = 200 * time.Microsecond

// holdResponse reports whether the response to r may wait for the one to the next message,
// which is then written with it: r was handled on the reader goroutine, which still reads, the
// next message is buffered whole, and there is an in-flight slot for it. If so it queues the
// frame, under the lock that the watchdog takes, so that the watchdog's flushHeld, when it
// hands reading over, sees it.
func (s *Session) holdResponse(r *request, frame []byte) (held bool, err error) {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	if s.reader != r.gen || !s.inHandler || s.slots.full() || !s.fr.FrameBuffered() {
		return false, nil
	}
	return true, s.out.enqueue(frame, kindResponse, sendHeld)
}

// newRequest copies a received frame, read at monoNow reading now, into a buffer of its own
// and decodes its header.
func (s *Session) newRequest(payload []byte, now time.Duration) (*request, error) {
	b := s.bufs.get()
	frame, err := gsf.AppendFrame((*b)[:0], payload)
	*b = frame
	if err != nil {
		s.bufs.put(b)
		return nil, err
	}
	// A large frame's copy shares the buffer budget with the frames being received while the
	// request holds it.
	if budget := s.fr.Budget; budget != nil && len(frame) > gsf.BaseBufferSize {
		if err := budget.Acquire(len(frame)); err != nil {
			s.bufs.put(b)
			return nil, err
		}
	}
	m, _, err := gsf.ConsumeMessage(frame)
	if err != nil {
		s.freeBuf(b)
		return nil, &messageError{err}
	}
	var r *request
	if s.spareReq.Load() != nil {
		r = s.spareReq.Swap(nil)
	}
	if r == nil {
		r = new(request)
	}
	r.Request = Request{Header: m.Header, Body: m.Body, Session: s}
	r.buf = b
	r.ctx = &reqContext{sess: s, r: &r.Request}
	if s.handlerTimeout > 0 {
		r.ctx.deadline = now + s.handlerTimeout
	}
	return r, nil
}

// freeRequest puts a request whose handler has returned back for reuse, with its frame buffer.
func (s *Session) freeRequest(r *request) {
	s.freeBuf(r.buf)
	*r = request{}
	s.spareReq.CompareAndSwap(nil, r)
}

// freeBuf puts a request's frame buffer back, and gives back what newRequest charged for it
// to the buffer budget: the frame's length, when it is larger than gsf.BaseBufferSize.
func (s *Session) freeBuf(b *[]byte) {
	if n := len(*b); n > gsf.BaseBufferSize && s.fr.Budget != nil {
		s.fr.Budget.Release(n)
		stateChanged()
	}
	s.bufs.put(b)
}

// handle runs the handler of one message and queues its response. r.prev and r.done order the
// notifies: prev is closed when the previous notify is handled, done when this one is.
func (s *Session) handle(r *request) {
	prev, done := r.prev, r.done
	defer s.handlers.Done()
	if done != nil {
		defer close(done)
	}
	if prev != nil {
		<-prev
	}
	queued := s.respond(r)
	r.ctx.release()
	s.freeRequest(r)
	if !queued {
		s.slots.release(1)
	}
}

// respond calls the handler and queues the response, if any. It reports whether a response was
// queued (its in-flight slot is then freed once it is written).
func (s *Session) respond(r *request) bool {
	srv := s.srv
	body, err := srv.callHandler(r)
	h := &r.Header
	if h.IsNotify() {
		if err != nil {
			if isUnknown(err) {
				if srv.UnknownPolicy == UnknownClose {
					s.closeUnknown(h)
				} else {
					srv.logger().Debug("gsfnet: unknown notify", "session", s.id, "header", h.String())
				}
			} else if !errors.Is(err, ErrNoResponse) {
				srv.logger().Error("gsfnet: notify handler failed", "session", s.id, "header", h.String(), "err", err)
				if srv.CloseOnError {
					s.fail(h, err)
				}
			}
			return false
		}
		if isNil(body) {
			return false
		}
		resp := gsf.NewResponse(h) // flags 3: the reference's reply to a notify
		return s.sendResponse(r, &resp, body)
	}
	resp := gsf.NewResponse(h)
	if err != nil {
		var ge *Error
		switch {
		case errors.Is(err, ErrNoResponse):
			return false
		case isUnknown(err):
			switch srv.UnknownPolicy {
			case UnknownReject:
				resp.ResultCode, resp.AppCode = gsf.ResultErr, gsf.AppNotImplemented
				resp.AppString = "unknown message type " + h.SvcClass.String() + "/" + h.MessageTypeName()
			case UnknownClose:
				s.closeUnknown(h)
				return false
			default:
				srv.logger().Debug("gsfnet: unknown request", "session", s.id, "header", h.String())
				return false
			}
		case srv.CloseOnError && closesConnection(err):
			srv.logger().Error("gsfnet: handler failed", "session", s.id, "header", h.String(), "err", err)
			s.fail(h, err)
			return false
		case errors.As(err, &ge):
			ge.setHeader(&resp)
			if srv.CloseOnError && resp.AppString == "" && ge.Err != nil {
				resp.AppString = ge.Err.Error()
			}
		default:
			srv.logger().Error("gsfnet: handler failed", "session", s.id, "header", h.String(), "err", err)
			setInternal(&resp)
		}
		body = nil
	}
	return s.sendResponse(r, &resp, body)
}

// closesConnection reports the handler errors that close the connection under CloseOnError:
// bodies that do not decode, panics, and errors other than an *Error.
func closesConnection(err error) bool {
	var ge *Error
	return errors.Is(err, ErrBadBody) || errors.Is(err, ErrHandlerPanic) || !errors.As(err, &ge)
}

// fail ends a session whose handler failed, under CloseOnError: no more messages are read
// (nor handled), the responses to those before are written, and the connection closes with
// the handler's error.
func (s *Session) fail(h *gsf.Header, err error) {
	cause := &handlerError{header: h.String(), err: err}
	s.failCause.CompareAndSwap(nil, cause)
	s.drain()
}

// handlerError is the cause of a session closed because a handler failed (CloseOnError).
type handlerError struct {
	header string
	err    error
}

func (e *handlerError) Error() string {
	return "gsfnet: handler failed, connection closed: " + e.header + ": " + e.err.Error()
}
func (e *handlerError) Unwrap() error { return e.err }

func (s *Session) closeUnknown(h *gsf.Header) {
	s.srv.logger().Warn("gsfnet: unknown message, closing the connection", "session", s.id, "header", h.String())
	s.closeWith(fmt.Errorf("%w: %s", ErrUnknownMessage, h))
}

func isUnknown(err error) bool { return errors.Is(err, ErrUnknownMessage) }

func setInternal(h *gsf.Header) {
	h.ResultCode, h.AppCode, h.AppString, h.AppCodes = gsf.ResultErr, gsf.AppInternalError, "internal error", nil
}

// sendResponse encodes and queues a response. A body that does not encode is logged and
// answered with an internal error.
func (s *Session) sendResponse(r *request, h *gsf.Header, body any) bool {
	if s.inOrder {
		return s.sendResponseInOrder(h, body)
	}
	b, err := s.encodeSafely(h, body)
	if err != nil {
		s.srv.logger().Error("gsfnet: response body does not encode", "session", s.id, "header", h.String(), "err", err)
		setInternal(h)
		if b, err = encodeFrame(&s.bufs, h, nil); err != nil {
			return false
		}
	}
	// The handler's goroutine writes the response itself if no write is in progress: it
	// may block, and it saves waking the writer goroutine. When the next message is already
	// buffered, the response waits for that message's, so that the responses to a pipelined
	// batch go out together.
	held, err := s.holdResponse(r, *b)
	if !held {
		err = s.out.enqueue(*b, kindResponse, sendNow)
	}
	s.bufs.put(b)
	return err == nil
}

// sendResponseInOrder is sendResponse on the reader goroutine of a session whose messages are
// handled in order (readInOrder): the response is encoded into the session's own buffer, and
// held for the next message's when that message is buffered whole and has an in-flight slot
// waiting for it (the watchdog writes what is held when a handler is slow).
func (s *Session) sendResponseInOrder(h *gsf.Header, body any) bool {
	frame, err := s.encodeInOrder(h, body)
	if err != nil {
		s.srv.logger().Error("gsfnet: response body does not encode", "session", s.id, "header", h.String(), "err", err)
		setInternal(h)
		if frame, err = s.encodeInOrder(h, nil); err != nil {
			return false
		}
	}
	mode := sendNow
	if !s.slots.full() && s.fr.FrameBuffered() {
		mode = sendHeld
	}
	err = s.out.enqueue(frame, kindResponse, mode)
	if cap(frame) <= maxKeep {
		s.inBuf = frame[:0]
	}
	return err == nil
}

// encodeInOrder encodes a framed message into the session's buffer of readInOrder, with a panic
// (of a body's MarshalBits) turned into an error.
func (s *Session) encodeInOrder(h *gsf.Header, body any) (frame []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			frame, err = nil, fmt.Errorf("gsfnet: panic while encoding: %v\n%s", p, debug.Stack())
		}
	}()
	return s.inEnc.AppendMessage(s.inBuf[:0], h, body)
}

// encodeSafely is encodeFrame with a panic (of a body's MarshalBits) turned into an error.
func (s *Session) encodeSafely(h *gsf.Header, body any) (b *[]byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("gsfnet: panic while encoding: %v\n%s", p, debug.Stack())
		}
	}()
	return encodeFrame(&s.bufs, h, body)
}

// callHandler calls the server's handler; a panic becomes an internal error response.
func (srv *Server) callHandler(r *request) (body any, err error) {
	defer func() {
		if p := recover(); p != nil {
			srv.logger().Error("gsfnet: handler panic", "session", r.Session.id, "header", r.Header.String(),
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			body = nil
			err = &Error{ResultCode: gsf.ResultErr, AppCode: gsf.AppInternalError, AppString: "internal error",
				Err: fmt.Errorf("%w: %v", ErrHandlerPanic, p)}
		}
	}()
	if srv.Handler == nil {
		return unknownMessage(r.ctx, &r.Request)
	}
	return srv.Handler.ServeGSF(r.ctx, &r.Request)
}

// isNil reports a nil body: nil, or a nil pointer, map or slice in an interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
