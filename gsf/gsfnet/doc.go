// Package gsfnet runs GSF (BitProtocol) servers and clients over TCP, in the shape of net/http:
// a Server with a Handler, a Mux that routes by (service class, message type), typed handlers,
// middleware, per-connection sessions, and a Client that pipelines calls on one connection.
//
// # Server
//
//	mux := gsfnet.NewMux()
//	mux.Use(gsfnet.Logging(logger))
//	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgGetClientVersionInfo,
//		func(ctx context.Context, s *gsfnet.Session, req *VersionRequest) (*VersionResponse, error) {
//			return &VersionResponse{Info: "133852.true"}, nil
//		})
//	srv := &gsfnet.Server{Addr: "127.0.0.1:7566", Handler: mux, Logger: logger}
//	go srv.ListenAndServe()
//	...
//	srv.Shutdown(ctx) // answers what was read, then closes
//
// Request and response bodies are Go structs mapped to the bit stream by package bitproto. A
// response echoes the request's id with the response flag set; a handler's *Error becomes the
// response's result code, app code and app string; a panicking handler is logged and answered
// with INTERNAL_ERROR. Unknown (class, type) pairs are ignored, as the reference server does,
// or answered with an error (Server.UnknownPolicy).
//
// # The reference's behaviour
//
// A connection's messages are handled one at a time and answered in order, as the reference
// server does (Server.OutOfOrder lets a slow request's followers overtake it). Where the
// reference closes the connection on a handler that fails (an error that is not a GSF error, a
// body that does not decode, a panic), gsfnet answers ERR/INTERNAL_ERROR and keeps the
// connection, unless Server.CloseOnError asks for the reference's behaviour. A client decodes
// response bodies leniently, as the reference does, unless ClientOptions.Strict is set.
//
// Sessions keep per-connection state (Session.Set, Session.Get) and get server-initiated
// notifies (Session.Notify); a Group sends a notify to many sessions, encoding it once.
//
// # Named groups, user keys and clusters
//
// Server.Group returns a named group, and Session.SetUser binds a session to the key the game
// knows a player by, so that Server.NotifyUser reaches the player's sessions. On one server both
// stay in the process; with a Cluster (package gsf/gsfnet/natscluster, on NATS) the same calls
// reach the group's members and the player on every node.
//
// # Limits
//
// Every limit has a default that is safe to face the Internet with: frames are checked against
// MaxMessageBytes before anything is allocated for them, frames must arrive within ReadTimeout,
// silent clients are dropped after IdleTimeout, writes time out after WriteTimeout, and
// MaxConns and MaxInFlight bound connections and concurrent handlers. The buffers of frames
// being received grow with the bytes that arrive, and beyond 4 KiB per connection they share
// MaxBufferedBytes (64 MiB): clients that send the first part of large frames and then nothing
// cannot make the server hold more. A handler's context has a deadline (HandlerTimeout), and
// typed handlers decode with Server.DecodeMode. MaxConnsPerIP and AcceptRate are there for
// operators who need them, off by default. Refused connections and protocol errors are counted
// (Server.Refusals) and logged at most once a second per reason.
//
// Each connection has its own writer goroutine and a bounded outgoing queue, so that sending
// never blocks on the network: a client that does not read cannot hold up the notifies of
// others. When a session's queue is full (MaxQueueBytes), a discardable notify (flag 0x10) is
// dropped, and any other notify closes the session as a slow consumer (ErrSlowConsumer).
// Responses are never dropped: there are at most MaxInFlight of them per connection, and the
// server reads no more requests from a connection until its responses are written.
//
// # Client
//
//	c, err := gsfnet.Dial(ctx, "127.0.0.1:7566", &gsfnet.ClientOptions{NotifyHandler: onNotify})
//	var resp VersionResponse
//	err = c.Call(ctx, gsf.SvcUserServer, 566, &VersionRequest{ClientName: "AmazingWorld"}, &resp)
//
// Calls are matched to responses by request id, so many may be in flight at once; the
// requests of concurrent calls go out in one write. A lone call writes its request itself,
// without blocking (what the socket does not take at once is left to the client's writer
// goroutine), which saves a goroutine hand-off per call. Call honours the context's deadline and
// cancellation, returns an *Error for an error response, and an error wrapping ErrClosed
// when the connection closes. A context without a deadline gets the client's call timeout
// (DefaultCallTimeout, 30 s; ClientOptions.CallTimeout): a call to a message the server ignores fails
// with ErrCallTimeout rather than waiting forever. The client closes a connection on which
// calls wait and the server sends nothing for the idle timeout (DefaultClientIdleTimeout),
// or a frame stops half-way for the read timeout (DefaultClientReadTimeout), and its outgoing
// queue is bounded (DefaultClientMaxQueueBytes; a message that finds it full gets
// ErrQueueFull).
//
// Go pipelines: it starts a call and returns a Pending whose Wait collects the response.
// The requests of Go calls made in a row go out in one write, and the server answers such a
// batch with one write as well, so a client with several requests to make (a bot logging in,
// a load generator) spends a fraction of the system calls of one Call after another:
//
//	a := c.Go(gsf.SvcUserServer, 566, &versionReq, &versionResp)
//	b := c.Go(gsf.SvcUserServer, 17, &nameReq, nil)
//	errA, errB := a.Wait(ctx), b.Wait(ctx)
//
// Both sides reuse their buffers (sync.Pool), so that the steady state allocates little more
// than the decoded bodies.
package gsfnet
