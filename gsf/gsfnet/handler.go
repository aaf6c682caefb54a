package gsfnet

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// A Handler handles the messages a client sends: requests and notifies.
//
// ServeGSF returns the body of the response, or an error. For a request the server then sends
// the response (the request's header with the response flag, the same request id and result
// code 0) with that body; a nil body, or a nil pointer, is sent as a null body. An error is
// answered as follows:
//
//   - *Error (also wrapped): a response with its result code, app code and app string, and a
//     null body;
//   - ErrNoResponse: nothing is sent;
//   - ErrUnknownMessage: as Server.UnknownPolicy says;
//   - any other error: logged, and answered with result ERR and app code INTERNAL_ERROR (the
//     error's text is not sent to the client); with Server.CloseOnError, as the reference
//     does, not answered: the connection is closed.
//
// For a notify nothing is sent, unless the handler returns a non-nil body: that is sent with
// the notify's header and the response flag (flags 3), as the reference server does. Errors of
// notify handlers are logged (and close the connection with Server.CloseOnError).
//
// A handler that panics is recovered: the panic is logged with its stack, the request is
// answered like an error (ErrHandlerPanic), and the connection and the server go on (with
// Server.CloseOnError the connection closes).
//
// The context is canceled when the connection closes (it is not canceled by a graceful
// Shutdown, which waits for handlers), and its deadline is Server.HandlerTimeout after the
// message was read. The Request and its body must not be used after
// ServeGSF returns.
type Handler interface {
	ServeGSF(ctx context.Context, r *Request) (body any, err error)
}

// HandlerFunc adapts a function to the Handler interface.
type HandlerFunc func(ctx context.Context, r *Request) (any, error)

// ServeGSF calls f(ctx, r).
func (f HandlerFunc) ServeGSF(ctx context.Context, r *Request) (any, error) { return f(ctx, r) }

// Middleware wraps a handler, for logging, authentication, metrics and the like.
type Middleware func(Handler) Handler

// A Request is a message the server received: a request or a notify.
type Request struct {
	// Header is the message's header.
	Header gsf.Header
	// Body is the undecoded body. It aliases a buffer that is reused once the handler returns:
	// decode it (Body.Decode) or Clone it to keep it.
	Body gsf.RawBody
	// Session is the connection the message came on.
	Session *Session
}

// request is a Request with what the server keeps about it. A session reuses its requests
// (Session.spareReq; in order, the one Session.inReq), since a handler must not use its
// Request once it has returned; the handler's context, which it may keep, is never reused (in
// order, contexts are allocated a slab at a time: Session.newContext).
type request struct {
	Request
	ctx *reqContext
	buf *[]byte // the frame that Body aliases, returned to the pool after the handler (freeBuf)

	prev, done chan struct{} // the order of notifies (see Session.handle)
	gen        uint64        // the generation of the reader goroutine that read it
}

// reqContext is the context of one handler call: the session's context (its parent), the
// Request for RequestFromContext, and the deadline of Server.HandlerTimeout (see
// deadline.go). It names its parent by the session, a word where a context.Context takes two:
// 32 bytes, the smallest of the size classes it could take, where 40 took 48 (every request
// allocates one, and the garbage collector runs the more often the more a request allocates).
type reqContext struct {
	sess     *Session
	r        *Request
	deadline time.Duration                 // a monoNow reading; 0: none
	dl       atomic.Pointer[deadlineState] // made by the first Done when there is a deadline
}

type requestKey struct{}

// Value returns the Request for the key of RequestFromContext, and asks the parent otherwise.
func (c *reqContext) Value(key any) any {
	if key == (requestKey{}) {
		return c.r
	}
	return c.sess.ctx.Value(key)
}

// RequestFromContext returns the Request that a handler's context belongs to, or nil. Typed
// handlers (see Handle) use it to see the request's header.
func RequestFromContext(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// routeKey identifies a route: the service class and the message type.
func routeKey(class gsf.ServiceClass, msgType int32) uint64 {
	return uint64(uint32(class))<<32 | uint64(uint32(msgType))
}

// A Mux routes messages by their (service class, message type) to handlers, through the
// middleware added with Use. Messages without a route get ErrUnknownMessage, which the server
// answers as its UnknownPolicy says; middleware sees them too.
//
// Routes and middleware may be added in any order, also while the server runs. The zero Mux is
// ready to use.
type Mux struct {
	mu         sync.Mutex // serializes changes
	raw        map[uint64]Handler
	middleware []Middleware
	table      atomic.Pointer[muxTable] // what ServeGSF reads: the handlers wrapped in middleware
}

type muxTable struct {
	routes   map[uint64]Handler
	notFound Handler
}

// NewMux returns an empty Mux.
func NewMux() *Mux { return new(Mux) }

// Handle registers the handler for a service class and message type. A second registration
// for the same pair replaces the first.
func (m *Mux) Handle(class gsf.ServiceClass, msgType int32, h Handler) {
	if h == nil {
		panic("gsfnet: nil handler")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.raw == nil {
		m.raw = make(map[uint64]Handler)
	}
	m.raw[routeKey(class, msgType)] = h
	m.rebuild()
}

// HandleFunc registers a handler function for a service class and message type.
func (m *Mux) HandleFunc(class gsf.ServiceClass, msgType int32, f func(ctx context.Context, r *Request) (any, error)) {
	m.Handle(class, msgType, HandlerFunc(f))
}

// Use adds middleware. Middleware wraps every route, including the ones registered before,
// and the answer for unknown messages; the first middleware added is the outermost.
func (m *Mux) Use(mw ...Middleware) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.middleware = append(m.middleware, mw...)
	m.rebuild()
}

// Handler returns the handler registered for a service class and message type, without
// middleware, and whether there is one.
func (m *Mux) Handler(class gsf.ServiceClass, msgType int32) (Handler, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.raw[routeKey(class, msgType)]
	return h, ok
}

// rebuild computes the table ServeGSF reads. m.mu is held.
func (m *Mux) rebuild() {
	wrap := func(h Handler) Handler {
		for i := len(m.middleware) - 1; i >= 0; i-- {
			h = m.middleware[i](h)
		}
		return h
	}
	t := &muxTable{routes: maps.Clone(m.raw), notFound: wrap(HandlerFunc(unknownMessage))}
	for k, h := range t.routes {
		t.routes[k] = wrap(h)
	}
	m.table.Store(t)
}

func unknownMessage(ctx context.Context, r *Request) (any, error) {
	return nil, fmt.Errorf("%w: %s/%s", ErrUnknownMessage, r.Header.SvcClass, r.Header.MessageTypeName())
}

// ServeGSF routes the message to its handler.
func (m *Mux) ServeGSF(ctx context.Context, r *Request) (any, error) {
	t := m.table.Load()
	if t == nil {
		return unknownMessage(ctx, r)
	}
	if h, ok := t.routes[routeKey(r.Header.SvcClass, r.Header.MsgType)]; ok {
		return h.ServeGSF(ctx, r)
	}
	return t.notFound.ServeGSF(ctx, r)
}

// Typed returns a handler that decodes the message body into a new Req (with package
// bitproto's mapping), calls f, and sends *Resp as the response body. A nil *Resp is sent as a
// null body (and, for a notify, means no reply). A body that does not decode is answered with
// result SERIALIZE and app code INPUT, and f is not called. f can get the header from its
// context with RequestFromContext.
func Typed[Req, Resp any](f func(ctx context.Context, s *Session, req *Req) (*Resp, error)) Handler {
	return HandlerFunc(func(ctx context.Context, r *Request) (any, error) {
		req := new(Req)
		var opts bitproto.DecodeMode
		if r.Session != nil {
			opts = r.Session.srv.DecodeMode
		}
		if err := r.Body.DecodeWith(opts, req); err != nil {
			return nil, &Error{ResultCode: gsf.ResultSerialize, AppCode: gsf.AppInput,
				AppString: "malformed request body", Err: fmt.Errorf("%w: %s/%s: %w", ErrBadBody, r.Header.SvcClass, r.Header.MessageTypeName(), err)}
		}
		resp, err := f(ctx, r.Session, req)
		if resp == nil {
			return nil, err // an untyped nil: a null body
		}
		return resp, err
	})
}

// Handle registers a typed handler on m (see Typed): no per-message code beyond the request
// and response structs.
//
//	gsfnet.Handle(mux, gsf.SvcUserServer, 566, func(ctx context.Context, s *gsfnet.Session, req *VersionRequest) (*VersionResponse, error) {
//		return &VersionResponse{Info: "133852.true"}, nil
//	})
func Handle[Req, Resp any](m *Mux, class gsf.ServiceClass, msgType int32, f func(ctx context.Context, s *Session, req *Req) (*Resp, error)) {
	m.Handle(class, msgType, Typed(f))
}

// Logging returns middleware that logs every message at level Info (Debug for messages without
// a handler) with its header, the session, the duration and the error, if any.
func Logging(l *slog.Logger) Middleware {
	return func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, r *Request) (any, error) {
			start := time.Now()
			body, err := next.ServeGSF(ctx, r)
			level := slog.LevelInfo
			attrs := []slog.Attr{
				slog.Uint64("session", r.Session.ID()),
				slog.String("header", r.Header.String()),
				slog.Duration("took", time.Since(start)),
			}
			if err != nil {
				if isUnknown(err) {
					level = slog.LevelDebug
				}
				attrs = append(attrs, slog.String("err", err.Error()))
			}
			l.LogAttrs(ctx, level, "gsf message", attrs...)
			return body, err
		})
	}
}
