package gsfnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// Client defaults.
const (
	// DefaultClientMaxMessageBytes is the largest frame a client accepts from a server unless
	// told otherwise: servers send larger messages (inventories, item lists) than clients.
	DefaultClientMaxMessageBytes = 16 << 20
	// DefaultClientWriteTimeout limits each write of a client unless told otherwise.
	DefaultClientWriteTimeout = 30 * time.Second
	// DefaultClientReadTimeout limits the time from the first byte of a frame from the server
	// to its last unless told otherwise.
	DefaultClientReadTimeout = 30 * time.Second
	// DefaultClientIdleTimeout is how long a client waits for a byte from the server while
	// calls wait for their responses, unless told otherwise.
	DefaultClientIdleTimeout = 2 * time.Minute
	// DefaultClientMaxQueueBytes limits the bytes of messages waiting to be written unless
	// told otherwise.
	DefaultClientMaxQueueBytes = 1 << 20
	// DefaultCallTimeout is the time a call whose context has no deadline waits for its
	// response unless told otherwise.
	DefaultCallTimeout = 30 * time.Second
)

// A Client is a connection to a GSF server: it sends requests and matches the responses to them
// by request id, so that any number of calls can be in flight at once on the one connection
// (pipelining); it sends notifies; and it hands the notifies the server sends to a handler.
// Its methods are safe for concurrent use.
//
// Like the server's sessions, a client has a reader goroutine and a writer goroutine that
// batches the requests of concurrent calls into one write; Go pipelines the calls of one
// goroutine.
type Client struct {
	conn     net.Conn
	rd       clientReader
	fr       *gsf.FrameReader
	out      *sender
	onNotify func(m *gsf.Message)
	log      *slog.Logger

	mu      sync.Mutex
	pending map[int32]*call
	calls   atomic.Int32 // calls in flight
	nextID  int32
	err     error // non-nil once the client is closed

	callTimeout time.Duration // 0: none
	decodeOpts  bitproto.DecodeMode
	strict      bool

	bufs       bufCache
	spareCalls [2]atomic.Pointer[call] // finished calls for reuse, in front of callPool

	inNotify atomic.Bool
	stop     chan struct{} // closed by closeWith
	wg       sync.WaitGroup
}

// ClientOptions are the settings of a Client (Dial, NewClient). A nil *ClientOptions, or the
// zero value of a field, selects the default; a limit or timeout set to NoLimit has none.
type ClientOptions struct {
	// NotifyHandler gets the notifies the server sends (messages with flags 2, including the
	// flags-3 replies to notifies). It runs on the client's reader goroutine: it must not
	// block for long, nor call Close, and m's body is valid only until it returns (decode it,
	// or Clone it). Without a handler notifies are dropped.
	NotifyHandler func(m *gsf.Message)
	// MaxMessageBytes is the largest frame accepted from the server: the value of its length
	// prefix (default DefaultClientMaxMessageBytes). A larger frame closes the connection
	// before it is allocated.
	MaxMessageBytes int
	// WriteTimeout limits each write (default DefaultClientWriteTimeout; a write may take up
	// to a quarter longer). A server that does not read for that long gets the connection
	// closed.
	WriteTimeout time.Duration
	// ReadTimeout limits the time from the first byte of a frame from the server to its last
	// (default DefaultClientReadTimeout). A server that stops in the middle of a frame for
	// longer gets the connection closed.
	ReadTimeout time.Duration
	// IdleTimeout is how long the client waits for a byte from the server while calls wait
	// for their responses (default DefaultClientIdleTimeout; NoLimit: forever). A server that
	// sends nothing for that long, give or take a quarter and up to twice that when the calls
	// started during a silence, is taken for dead: the connection is closed with
	// ErrIdleTimeout and the calls fail. A client without calls waiting may stay idle for any
	// time.
	IdleTimeout time.Duration
	// CallTimeout is the time a call (Call, Do, a Pending's Wait) whose context has no
	// deadline waits for its response (default DefaultCallTimeout; NoLimit: no limit but the
	// context's). Such a call then fails with an error wrapping ErrCallTimeout and
	// context.DeadlineExceeded, as it would if its context had had the deadline; a server
	// that ignores unknown messages (UnknownIgnore, as the reference does) never answers
	// them, and the call must not wait forever. A call whose context has a deadline keeps it.
	CallTimeout time.Duration
	// MaxQueueBytes limits the bytes of messages waiting to be written to the server (default
	// DefaultClientMaxQueueBytes). A message that finds the queue full (a server that does
	// not read) is not sent: Call, Go, Notify and Send return an error wrapping ErrQueueFull,
	// and the client stays open. A message alone in the queue is always taken.
	MaxQueueBytes int
	// DecodeMode is the bitproto mode that Call and Pending.Wait decode response bodies with
	// (default: bitproto's defaults).
	DecodeMode bitproto.DecodeMode
	// Strict decodes response bodies (Call, Pending.Wait) with gsf.RawBody.DecodeStrict: a
	// body that leaves bits over after the response type, or reads past the payload, fails the
	// call with an error wrapping gsf.ErrTrailingBits or gsf.ErrBodyOverrun. The default, like
	// the reference's client, ignores what is left over.
	Strict bool
	// Logger gets the client's logs (default slog.Default()); it logs at level Debug only.
	Logger *slog.Logger
	// Dialer is the dialer Dial uses (default a zero net.Dialer).
	Dialer *net.Dialer
}

// validate reports a limit set to a negative value other than NoLimit.
func (o *ClientOptions) validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"MaxMessageBytes", int64(o.MaxMessageBytes)},
		{"WriteTimeout", int64(o.WriteTimeout)},
		{"ReadTimeout", int64(o.ReadTimeout)},
		{"IdleTimeout", int64(o.IdleTimeout)},
		{"CallTimeout", int64(o.CallTimeout)},
		{"MaxQueueBytes", int64(o.MaxQueueBytes)},
	} {
		if f.v < NoLimit {
			return fmt.Errorf("gsfnet: ClientOptions.%s is %d: 0 is the default, NoLimit (-1) none, other negative values are invalid", f.name, f.v)
		}
	}
	return nil
}

// Dial connects to the GSF server at addr (host:port) over TCP. The context bounds the
// connecting only. A nil opts selects every default. Dial refuses options with a limit set to a
// negative value other than NoLimit.
func Dial(ctx context.Context, addr string, opts *ClientOptions) (*Client, error) {
	if opts == nil {
		opts = new(ClientOptions)
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	d := opts.Dialer
	if d == nil {
		d = new(net.Dialer)
	}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("gsfnet: dial: %w", err)
	}
	return newClient(conn, opts), nil
}

// NewClient returns a client on an open connection, for example one made with a custom dialer
// or a net.Pipe in tests. The client owns conn and closes it. A nil opts selects every
// default; a limit set to a negative value other than NoLimit is taken as NoLimit.
func NewClient(conn net.Conn, opts *ClientOptions) *Client {
	if opts == nil {
		opts = new(ClientOptions)
	}
	return newClient(conn, opts)
}

func newClient(conn net.Conn, cfg *ClientOptions) *Client {
	c := &Client{
		conn:        conn,
		onNotify:    cfg.NotifyHandler,
		log:         cfg.Logger,
		pending:     make(map[int32]*call),
		stop:        make(chan struct{}),
		callTimeout: limit(cfg.CallTimeout, DefaultCallTimeout),
		decodeOpts:  cfg.DecodeMode,
		strict:      cfg.Strict,
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.rd = clientReader{c: c, readTimeout: limit(cfg.ReadTimeout, DefaultClientReadTimeout),
		idleTimeout: limit(cfg.IdleTimeout, DefaultClientIdleTimeout)}
	c.fr = gsf.NewFrameReader(&c.rd)
	c.fr.MaxMessageBytes = limit(cfg.MaxMessageBytes, DefaultClientMaxMessageBytes)
	if c.fr.MaxMessageBytes == 0 {
		c.fr.MaxMessageBytes = gsf.MaxFrameLength
	}
	queue := limit(cfg.MaxQueueBytes, DefaultClientMaxQueueBytes)
	if queue == 0 {
		queue = int(^uint(0) >> 1)
	}
	c.out = newSender(conn, limit(cfg.WriteTimeout, DefaultClientWriteTimeout), queue, nil,
		func(err error) { c.closeWith(fmt.Errorf("write: %w", err)) })
	// The writer waits for other callers only when there are some.
	c.out.shouldYield = func() bool { return c.calls.Load() > 1 }
	c.out.raw = newRawWriter(rawConnOf(conn))
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		c.out.run(c.stop)
	}()
	go func() {
		defer c.wg.Done()
		c.closeWith(c.readLoop())
	}()
	return c
}

// call is one request waiting for its response. Calls are pooled.
type call struct {
	done    chan struct{} // capacity 1: one token per completion
	resp    any           // where to decode the body (Call)
	wantMsg bool          // keep the whole message (Do)
	msg     *gsf.Message
	err     error
}

var callPool = sync.Pool{New: func() any { return &call{done: make(chan struct{}, 1)} }}

// Call sends a request with the given service class, message type and body (a struct or a
// pointer to one, mapped by package bitproto, or nil for a null body) and waits for the
// response, whose body it decodes into resp (a pointer; nil ignores the body). A response with
// a non-zero result or app code gives an *Error. Any number of calls may run at once.
//
// When ctx ends first, Call returns its error (a response that comes later is dropped). A ctx
// without a deadline gets the client's call timeout (see ClientOptions.CallTimeout, default
// DefaultCallTimeout): a call to a message the server ignores fails with ErrCallTimeout. When
// the connection closes first, the error wraps ErrClosed.
func (c *Client) Call(ctx context.Context, class gsf.ServiceClass, msgType int32, req, resp any) error {
	h := gsf.NewRequest(class, msgType, 0)
	_, err := c.roundTrip(ctx, &h, req, resp, false)
	return err
}

// Do sends a request with the given header (the client sets its request id; the flags must
// make it a request) and returns the response message, whatever its result code, with a body
// the caller owns. ResponseError tells an error response.
func (c *Client) Do(ctx context.Context, h gsf.Header, body any) (*gsf.Message, error) {
	if !h.IsRequest() {
		return nil, fmt.Errorf("gsfnet: Do: the header is a %s, not a request", h.Kind())
	}
	return c.roundTrip(ctx, &h, body, nil, true)
}

func (c *Client) roundTrip(ctx context.Context, h *gsf.Header, req, resp any, wantMsg bool) (*gsf.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A lone call writes its request on this goroutine, as far as the socket takes it at once,
	// which saves waking the writer goroutine; concurrent calls leave it to the writer
	// goroutine, which batches them into one write.
	mode := sendWake
	if c.calls.Load() == 0 {
		mode = sendTry
	}
	cl, err := c.start(h, req, resp, wantMsg, mode)
	if err != nil {
		return nil, err
	}
	return c.wait(ctx, h.SvcClass, h.MsgType, h.RequestID, cl)
}

// start registers a call, gives h its request id and queues the request. On error the call is
// gone.
func (c *Client) start(h *gsf.Header, req, resp any, wantMsg bool, mode int) (*call, error) {
	c.calls.Add(1)
	cl := c.getCall()
	cl.resp, cl.wantMsg = resp, wantMsg
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		c.endCall(cl)
		return nil, err
	}
	id := c.newID()
	c.pending[id] = cl
	c.mu.Unlock()

	h.RequestID = id
	b, err := encodeFrame(&c.bufs, h, req)
	if err == nil {
		err = c.enqueue(*b, mode)
		c.bufs.put(b)
	}
	if err != nil {
		if !c.forget(id, cl) {
			<-cl.done // the connection closed meanwhile and completed the call
		}
		c.endCall(cl)
		return nil, err
	}
	return cl, nil
}

// wait waits for the response of a call that start registered under id, or for ctx.
func (c *Client) wait(ctx context.Context, class gsf.ServiceClass, msgType, id int32, cl *call) (*gsf.Message, error) {
	select {
	case <-cl.done:
	default:
		var timeout <-chan time.Time
		if c.callTimeout > 0 {
			if _, ok := ctx.Deadline(); !ok {
				t := getTimer(c.callTimeout)
				defer putTimer(t)
				timeout = t.C
			}
		}
		select {
		case <-cl.done:
		case <-ctx.Done():
			if c.forget(id, cl) {
				c.endCall(cl)
				h := gsf.Header{SvcClass: class, MsgType: msgType}
				return nil, fmt.Errorf("gsfnet: %s/%s id=%d: %w", class, h.MessageTypeName(), id, ctx.Err())
			}
			<-cl.done // the response is being decoded: take it
		case <-timeout:
			if c.forget(id, cl) {
				c.endCall(cl)
				h := gsf.Header{SvcClass: class, MsgType: msgType}
				return nil, fmt.Errorf("gsfnet: %s/%s id=%d: %w (%v)", class, h.MessageTypeName(), id, ErrCallTimeout, c.callTimeout)
			}
			<-cl.done
		}
	}
	msg, err := cl.msg, cl.err
	c.endCall(cl)
	return msg, err
}

// endCall puts a finished call back into the pool.
func (c *Client) endCall(cl *call) {
	c.calls.Add(-1)
	c.putCall(cl)
}

// A Pending is a call started with Client.Go whose response has not been collected yet.
type Pending struct {
	c       *Client
	class   gsf.ServiceClass
	msgType int32
	id      int32 // the request id
	cl      *call // nil once the call is over
	err     error
}

// Go sends a request as Call does but returns at once, without waiting for the response; the
// response is decoded into resp (which must stay untouched until Wait returns) and collected
// with the Pending's Wait. Requests that several Go calls of one goroutine queue in a row go
// out in one write, as do their responses when the server handles them together, so that a
// client with many requests to make can pipeline them at a fraction of the system calls of
// sequential Calls. The requests are written by the first Wait, Call, Notify or Send that
// follows, or by the client's writer goroutine after at most a fraction of a millisecond:
//
//	a := c.Go(gsf.SvcUserServer, 566, &versionReq, &versionResp)
//	b := c.Go(gsf.SvcUserServer, 562, &loginReq, &loginResp)
//	errA, errB := a.Wait(ctx), b.Wait(ctx)
//
// An error sending the request (a body that does not encode, a closed connection) is
// returned by Wait.
func (c *Client) Go(class gsf.ServiceClass, msgType int32, req, resp any) *Pending {
	h := gsf.NewRequest(class, msgType, 0)
	p := &Pending{c: c, class: class, msgType: msgType}
	p.cl, p.err = c.start(&h, req, resp, false, sendSoon)
	if p.err == nil {
		p.id = h.RequestID
	}
	return p
}

// Wait waits for the response of the call and returns what Call would have: nil, an *Error
// for an error response, the error of a body that does not decode, an error wrapping ErrClosed
// when the connection closed first, or, when ctx ends first, ctx's error (the call is then
// abandoned, and a response that comes later is dropped). A response that is in wins over a
// context that has ended. Called again, Wait returns the same. Wait must not be called from
// two goroutines at once.
func (p *Pending) Wait(ctx context.Context) error {
	if p.cl != nil {
		// Send what Go queued, if nobody has yet: the requests of Go calls made in a row go
		// out in one write, on this goroutine as far as the socket takes them at once.
		p.c.out.flush()
		_, p.err = p.c.wait(ctx, p.class, p.msgType, p.id, p.cl)
		p.cl = nil
	}
	return p.err
}

// RequestID returns the request id the call was sent with (0 if it was never sent).
func (p *Pending) RequestID() int32 { return p.id }

// getCall returns a call from the client's spares or callPool.
func (c *Client) getCall() *call {
	for i := range c.spareCalls {
		if c.spareCalls[i].Load() != nil {
			if cl := c.spareCalls[i].Swap(nil); cl != nil {
				return cl
			}
		}
	}
	return callPool.Get().(*call)
}

func (c *Client) putCall(cl *call) {
	cl.resp, cl.msg, cl.err, cl.wantMsg = nil, nil, nil, false
	for i := range c.spareCalls {
		if c.spareCalls[i].Load() == nil && c.spareCalls[i].CompareAndSwap(nil, cl) {
			return
		}
	}
	callPool.Put(cl)
}

// newID returns a request id that is not in use: 1, 2, ... up to 2^31-1, then 1 again.
// c.mu is held.
func (c *Client) newID() int32 {
	for {
		c.nextID++
		if c.nextID <= 0 {
			c.nextID = 1
		}
		if _, busy := c.pending[c.nextID]; !busy {
			return c.nextID
		}
	}
}

// forget removes a pending call; it reports false when the reader has taken it already.
func (c *Client) forget(id int32, cl *call) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[id] == cl {
		delete(c.pending, id)
		return true
	}
	return false
}

// Notify sends a notify (flags 2) to the server. It returns once the message is queued.
func (c *Client) Notify(class gsf.ServiceClass, msgType int32, body any) error {
	return c.Send(gsf.NewNotify(class, msgType), body)
}

// Send queues a message with the given header as it is, for messages Call and Notify do not
// make (a discardable notify, for example). A request sent this way gets no call: its response
// is dropped.
func (c *Client) Send(h gsf.Header, body any) error {
	b, err := encodeFrame(&c.bufs, &h, body)
	if err != nil {
		return err
	}
	err = c.enqueue(*b, sendWake)
	c.bufs.put(b)
	return err
}

// enqueue queues a frame for the writer.
func (c *Client) enqueue(frame []byte, mode int) error {
	err := c.out.enqueue(frame, kindMessage, mode)
	if err == ErrSlowConsumer {
		unit := "bytes"
		if c.out.limit == 1 {
			unit = "byte"
		}
		return fmt.Errorf("%w: %d %s wait to be written to a server that does not read", ErrQueueFull, c.out.limit, unit)
	}
	return err
}

// Close closes the connection. Calls in flight fail with ErrClosed. Close waits for the
// client's goroutines to end (unless it is called from the notify handler).
func (c *Client) Close() error {
	c.closeWith(nil)
	if !c.inNotify.Load() {
		c.wg.Wait()
	}
	return nil
}

// Err returns why the client closed (nil while it is open); it wraps ErrClosed.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Done returns a channel that is closed when the client is closed, by Close or because the
// connection ended.
func (c *Client) Done() <-chan struct{} { return c.stop }

// LocalAddr returns the local address of the connection.
func (c *Client) LocalAddr() net.Addr { return c.conn.LocalAddr() }

// RemoteAddr returns the server's address.
func (c *Client) RemoteAddr() net.Addr { return c.conn.RemoteAddr() }

// closeWith closes the client with a cause (nil for Close) and fails the pending calls.
func (c *Client) closeWith(cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	if cause == nil {
		c.err = ErrClosed
	} else {
		if cause == io.EOF {
			cause = errPeerClosed
		}
		c.err = closedError(cause)
	}
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	c.out.stop(c.err)
	close(c.stop)
	_ = c.conn.Close()
	for _, cl := range pending {
		cl.err = c.err
		cl.done <- struct{}{}
	}
}

var errPeerClosed = fmt.Errorf("closed by the server: %w", io.EOF)

// readLoop reads the server's messages until the connection ends.
func (c *Client) readLoop() error {
	var m gsf.Message // one for all messages: the notify handler gets a pointer to it
	for {
		var err error
		m, err = gsf.ReadMessage(c.fr)
		c.rd.frameDone(c.fr.Buffered() > 0)
		if err != nil {
			c.mu.Lock()
			closed := c.err != nil
			c.mu.Unlock()
			if closed {
				return nil
			}
			var fe *gsf.FrameError
			if err != io.EOF && !errors.As(err, &fe) {
				err = &messageError{err}
			}
			c.log.Debug("gsfnet: client connection ends", "remote", c.conn.RemoteAddr().String(), "err", err)
			return err
		}
		h := &m.Header
		switch {
		case h.IsNotify():
			if c.onNotify != nil {
				c.inNotify.Store(true)
				c.onNotify(&m)
				c.inNotify.Store(false)
			}
		case h.IsResponse():
			c.complete(&m)
		default:
			c.log.Debug("gsfnet: client ignores a request from the server", "header", h.String())
		}
	}
}

// complete hands a response to its call.
func (c *Client) complete(m *gsf.Message) {
	id := m.Header.RequestID
	c.mu.Lock()
	cl := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if cl == nil {
		c.log.Debug("gsfnet: response without a call (canceled?)", "header", m.Header.String())
		return
	}
	switch {
	case cl.wantMsg:
		cl.msg = &gsf.Message{Header: m.Header, Body: m.Body.Clone()}
	case m.Header.ResultCode != 0 || m.Header.AppCode != 0:
		cl.err = ResponseError(&m.Header)
	case cl.resp != nil:
		var err error
		if c.strict {
			err = m.Body.DecodeStrict(c.decodeOpts, cl.resp)
		} else {
			err = m.Body.DecodeWith(c.decodeOpts, cl.resp)
		}
		if err != nil {
			cl.err = fmt.Errorf("gsfnet: decode the response body of %s: %w", &m.Header, err)
		}
	}
	cl.done <- struct{}{}
}
