package gsfnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

func TestRequestResponse(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	c := e.dial(nil)
	e.echo(c, "AmazingWorld")
	e.echo(c, "")

	// Do shows the whole response: the request's id, the response flag, result 0.
	m, err := c.Do(ctxTimeout(t, 10*time.Second), gsf.Header{Flags: gsf.FlagDiscardable, SvcClass: gsf.SvcUserServer, MsgType: msgEcho, LogCorrelator: "corr"}, &Echo{Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if h := m.Header; h.Flags != gsf.FlagDiscardable|gsf.FlagResponse || h.SvcClass != gsf.SvcUserServer || h.MsgType != msgEcho || h.RequestID == 0 || h.ResultCode != 0 || h.AppCode != 0 {
		t.Errorf("response header %+v", h)
	}
	var body Echo
	if err := m.DecodeBody(&body); err != nil || body.Text != "hi" {
		t.Errorf("body %+v, %v", body, err)
	}
	if ResponseError(&m.Header) != nil {
		t.Errorf("ResponseError of a success: %v", ResponseError(&m.Header))
	}

	// A raw client sees exactly the reference's response bytes.
	raw := e.rawConn()
	req := frame(t, gsf.NewRequest(gsf.SvcUserServer, msgEcho, 1), &Echo{Text: "133852.true"})
	if _, err := raw.Write(req); err != nil {
		t.Fatal(err)
	}
	resp := gsf.NewResponse(&gsf.Header{SvcClass: gsf.SvcUserServer, MsgType: msgEcho, RequestID: 1})
	want := frame(t, resp, &Echo{Text: "133852.true"})
	got := make([]byte, len(want))
	raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(raw, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("raw response\n% x, want\n% x", got, want)
	}
}

func TestErrorResponse(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	c := e.dial(nil)
	err := c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, msgFail, &Echo{Text: "wrong password"}, &Echo{})
	var ge *Error
	if !errors.As(err, &ge) {
		t.Fatalf("got %v, want an *Error", err)
	}
	if ge.ResultCode != gsf.ResultErr || ge.AppCode != gsf.AppAuth || ge.AppString != "wrong password" {
		t.Errorf("got %+v", ge)
	}
	if got, want := err.Error(), "gsf error: result ERR, app AUTH: wrong password"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	m, err := c.Do(ctxTimeout(t, 10*time.Second), gsf.NewRequest(gsf.SvcUserServer, msgFail, 0), &Echo{Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Body.IsNull() || m.Header.ResultCode != gsf.ResultErr || m.Header.AppCode != gsf.AppAuth || m.Header.AppString != "x" {
		t.Errorf("error response %v, null body %v", &m.Header, m.Body.IsNull())
	}
	e.echo(c, "the connection lives on")
}

func TestErrorHelpers(t *testing.T) {
	cause := errors.New("db down")
	err := Errorf(gsf.AppDB, "saving %q: %w", "x", cause)
	if err.AppString != `saving "x": db down` || !errors.Is(err, cause) || err.ResultCode != gsf.ResultErr {
		t.Errorf("Errorf: %+v", err)
	}
	var h gsf.Header
	(&Error{}).setHeader(&h)
	if h.ResultCode != gsf.ResultErr {
		t.Errorf("an *Error without codes must not read as success: %+v", h)
	}
	h = gsf.Header{Flags: gsf.FlagResponse, AppCode: gsf.AppMultErrs, AppCodes: []gsf.AppCodeEntry{{Code: 1, String: "a"}}}
	var ge *Error
	if !errors.As(ResponseError(&h), &ge) || len(ge.AppCodes) != 1 {
		t.Errorf("ResponseError: %v", ResponseError(&h))
	}
	if ResponseError(&gsf.Header{AppCode: 5}) != nil {
		t.Error("ResponseError of a request")
	}
}

// TestPipelining sends many calls at once on one connection; the slow ones finish last.
func TestPipelining(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	c := e.dial(nil)

	// A blocked call does not hold up the calls behind it.
	slow := make(chan error, 1)
	go func() {
		var resp Echo
		slow <- c.Call(ctxTimeout(t, 20*time.Second), gsf.SvcUserServer, msgBlock, &Echo{Text: "slow"}, &resp)
	}()
	<-e.started
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.echo(c, fmt.Sprint("fast ", i))
		}()
	}
	wg.Wait()
	select {
	case err := <-slow:
		t.Fatalf("the slow call returned first: %v", err)
	default:
	}
	e.release <- struct{}{}
	if err := <-slow; err != nil {
		t.Fatal(err)
	}

	// On the wire: two requests in one write, the first blocked; the second's response comes
	// first.
	raw := e.rawConn()
	b := frame(t, gsf.NewRequest(gsf.SvcUserServer, msgBlock, 7), &Echo{Text: "first"})
	b = append(b, frame(t, gsf.NewRequest(gsf.SvcUserServer, msgEcho, 8), &Echo{Text: "second"})...)
	if _, err := raw.Write(b); err != nil {
		t.Fatal(err)
	}
	fr := gsf.NewFrameReader(raw)
	raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := gsf.ReadMessage(fr)
	if err != nil || m.Header.RequestID != 8 {
		t.Fatalf("first response: %v, %v; want id 8", &m.Header, err)
	}
	e.release <- struct{}{}
	if m, err = gsf.ReadMessage(fr); err != nil || m.Header.RequestID != 7 {
		t.Fatalf("second response: %v, %v; want id 7", &m.Header, err)
	}
}

// TestConcurrentClients runs many clients with many calls each, checking every answer.
func TestConcurrentClients(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	var wg sync.WaitGroup
	for i := range 20 {
		c := e.dial(nil)
		for j := range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range 40 {
					e.echo(c, fmt.Sprintf("%d/%d/%d", i, j, k))
				}
			}()
		}
	}
	wg.Wait()
}

func TestSessionState(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	a, b := e.dial(nil), e.dial(nil)
	ctx := ctxTimeout(t, 10*time.Second)
	if err := a.Call(ctx, gsf.SvcUserServer, msgSet, &Echo{Text: "alice"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Call(ctx, gsf.SvcUserServer, msgSet, &Echo{Text: "bob"}, nil); err != nil {
		t.Fatal(err)
	}
	for c, want := range map[*Client]string{a: "alice", b: "bob"} {
		var got Echo
		if err := c.Call(ctx, gsf.SvcUserServer, msgGet, nil, &got); err != nil || got.Text != want {
			t.Errorf("got %q, %v; want %q", got.Text, err, want)
		}
	}
}

func TestMiddleware(t *testing.T) {
	checkLeaks(t)
	var order []string
	var mu sync.Mutex
	mark := func(name string) Middleware {
		return func(next Handler) Handler {
			return HandlerFunc(func(ctx context.Context, r *Request) (any, error) {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				return next.ServeGSF(ctx, r)
			})
		}
	}
	// Authentication: only USER_SERVER/msgEcho without the session value "auth".
	auth := func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, r *Request) (any, error) {
			if r.Header.MsgType == msgGet && r.Session.Get("auth") == nil {
				return nil, NewError(gsf.AppNotLogIn, "log in first")
			}
			return next.ServeGSF(ctx, r)
		})
	}
	e := newEnv(t, func(s *Server) {
		mux := s.Handler.(*Mux)
		mux.Use(mark("outer"), mark("inner"))
		mux.Use(auth)
		s.OnConnect = func(s *Session) {
			if strings.HasPrefix(s.RemoteAddr().String(), "127.") {
				s.Set("remote ok", true)
			}
		}
	})
	c := e.dial(nil)
	e.echo(c, "x")
	mu.Lock()
	if strings.Join(order, ",") != "outer,inner" {
		t.Errorf("middleware order %v", order)
	}
	mu.Unlock()
	var ge *Error
	if err := c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, msgGet, nil, &Echo{}); !errors.As(err, &ge) || ge.AppCode != gsf.AppNotLogIn {
		t.Errorf("got %v, want NOT_LOG_IN", err)
	}
	// The typed handler sees the request through its context.
	mux := e.srv.Handler.(*Mux)
	Handle(mux, gsf.SvcUserServer, 1500, func(ctx context.Context, s *Session, req *struct{}) (*Echo, error) {
		r := RequestFromContext(ctx)
		ok := s.Get("remote ok") == true
		return &Echo{Text: fmt.Sprintf("%s %v %s", r.Header.LogCorrelator, ok, r.Session.LocalAddr())}, nil
	})
	m, err := c.Do(ctxTimeout(t, 10*time.Second), gsf.Header{SvcClass: gsf.SvcUserServer, MsgType: 1500, LogCorrelator: "corr-1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got Echo
	if err := m.DecodeBody(&got); err != nil || got.Text != "corr-1 true "+e.addr {
		t.Errorf("got %q, %v", got.Text, err)
	}
	if h, ok := mux.Handler(gsf.SvcUserServer, 1500); !ok || h == nil {
		t.Error("Mux.Handler does not find the route")
	}
	if _, ok := mux.Handler(gsf.SvcUserServer, msgUnknown); ok {
		t.Error("Mux.Handler finds a route that is not there")
	}
}

func TestLoggingMiddleware(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, func(s *Server) {
		s.Handler.(*Mux).Use(Logging(s.Logger))
		s.UnknownPolicy = UnknownReject
	})
	c := e.dial(nil)
	e.echo(c, "logged")
	c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, msgFail, &Echo{Text: "nope"}, nil)
	c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, msgUnknown, nil, nil)
	logs := e.logs.String()
	for _, want := range []string{"level=INFO msg=\"gsf message\"", "request USER_SERVER/MessageType(1000) id=1", "err=\"gsf error: result ERR, app AUTH: nope\"", "level=DEBUG msg=\"gsf message\""} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
}

func TestUnknownPolicy(t *testing.T) {
	checkLeaks(t)
	t.Run("ignore", func(t *testing.T) {
		e := newEnv(t, nil)
		c := e.dial(nil)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		err := c.Call(ctx, gsf.SvcUserServer, msgUnknown, nil, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want the context's deadline", err)
		}
		e.echo(c, "after an ignored message")
	})
	t.Run("reject", func(t *testing.T) {
		e := newEnv(t, func(s *Server) { s.UnknownPolicy = UnknownReject })
		c := e.dial(nil)
		err := c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcSyncServer, 23, nil, nil)
		var ge *Error
		if !errors.As(err, &ge) || ge.AppCode != gsf.AppNotImplemented || ge.AppString != "unknown message type SYNC_SERVER/ECHO" {
			t.Errorf("got %v", err)
		}
		e.echo(c, "after a rejected message")
	})
	t.Run("close", func(t *testing.T) {
		e := newEnv(t, func(s *Server) { s.UnknownPolicy = UnknownClose })
		c := e.dial(nil)
		err := c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, msgUnknown, nil, nil)
		if !errors.Is(err, ErrClosed) {
			t.Errorf("got %v, want ErrClosed", err)
		}
		e.checkServes()
	})
	t.Run("no handler", func(t *testing.T) {
		e := newEnv(t, func(s *Server) { s.Handler = nil; s.UnknownPolicy = UnknownReject })
		c := e.dial(nil)
		var ge *Error
		if err := c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, msgEcho, nil, nil); !errors.As(err, &ge) || ge.AppCode != gsf.AppNotImplemented {
			t.Errorf("got %v", err)
		}
	})
	if UnknownClose.String() != "close" || UnknownPolicy(7).String() != "UnknownPolicy(7)" {
		t.Error("UnknownPolicy.String")
	}
}

func TestPanickingHandler(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	c := e.dial(nil)
	for range 3 {
		err := c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, msgPanic, nil, nil)
		var ge *Error
		if !errors.As(err, &ge) || ge.ResultCode != gsf.ResultErr || ge.AppCode != gsf.AppInternalError || ge.AppString != "internal error" {
			t.Fatalf("got %v, want INTERNAL_ERROR", err)
		}
	}
	e.echo(c, "the connection lives on")
	e.checkServes()
	logs := e.logs.String()
	if !strings.Contains(logs, "handler panic") || !strings.Contains(logs, "test panic") || !strings.Contains(logs, "goroutine") {
		t.Errorf("the panic is not logged with its stack:\n%s", logs)
	}
}

func TestHandlerErrors(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	mux := e.srv.Handler.(*Mux)
	mux.HandleFunc(gsf.SvcUserServer, 1600, func(ctx context.Context, r *Request) (any, error) {
		return nil, errors.New("secret detail")
	})
	mux.HandleFunc(gsf.SvcUserServer, 1601, func(ctx context.Context, r *Request) (any, error) {
		return make(chan int), nil // no wire form
	})
	mux.HandleFunc(gsf.SvcUserServer, 1602, func(ctx context.Context, r *Request) (any, error) {
		return nil, ErrNoResponse
	})
	mux.HandleFunc(gsf.SvcUserServer, 1603, func(ctx context.Context, r *Request) (any, error) {
		return nil, fmt.Errorf("wrapped: %w", NewError(gsf.AppState, "bad state"))
	})
	c := e.dial(nil)
	for _, mt := range []int32{1600, 1601} {
		var ge *Error
		err := c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, mt, nil, nil)
		if !errors.As(err, &ge) || ge.AppCode != gsf.AppInternalError || strings.Contains(ge.AppString, "secret") {
			t.Errorf("%d: got %v", mt, err)
		}
	}
	var ge *Error
	if err := c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, 1603, nil, nil); !errors.As(err, &ge) || ge.AppCode != gsf.AppState {
		t.Errorf("wrapped *Error: got %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, gsf.SvcUserServer, 1602, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ErrNoResponse: got %v", err)
	}
	// A body that does not decode into the typed request.
	raw := e.rawConn()
	h := gsf.NewRequest(gsf.SvcUserServer, msgEcho, 3)
	if _, err := raw.Write(frame(t, h, &struct{ N int32 }{N: 5000})); err != nil {
		t.Fatal(err)
	}
	raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := gsf.ReadMessage(gsf.NewFrameReader(raw))
	if err != nil || m.Header.ResultCode != gsf.ResultSerialize || m.Header.AppCode != gsf.AppInput {
		t.Errorf("malformed body: %v, %v", &m.Header, err)
	}
	e.echo(c, "still here")
	if logs := e.logs.String(); !strings.Contains(logs, "secret detail") {
		t.Errorf("the handler's error is not logged:\n%s", logs)
	}
}

func TestNotifies(t *testing.T) {
	checkLeaks(t)
	var room Group
	e := newEnv(t, func(s *Server) {
		s.OnConnect = func(s *Session) {
			room.Add(s)
			s.Notify(gsf.SvcClient, 20, &Echo{Text: "welcome"}) // ADD_PLAYER
		}
	})
	type got struct {
		mu    sync.Mutex
		texts []string
	}
	const clients = 5
	var gots [clients]got
	var cs [clients]*Client
	for i := range cs {
		cs[i] = e.dial(&ClientOptions{NotifyHandler: func(m *gsf.Message) {
			var b Echo
			if err := m.DecodeBody(&b); err != nil {
				t.Error(err)
			}
			if m.Header.SvcClass == gsf.SvcClient && m.Header.Flags != gsf.FlagNotify && !m.Header.IsDiscardable() {
				t.Errorf("notify header %v", &m.Header)
			}
			gots[i].mu.Lock()
			gots[i].texts = append(gots[i].texts, fmt.Sprintf("%d:%s", m.Header.MsgType, b.Text))
			gots[i].mu.Unlock()
			changes.signal()
		}})
		e.echo(cs[i], "connected") // OnConnect has run
	}
	waitFor(t, "the room", func() bool { return room.Len() == clients })
	n, err := room.Notify(gsf.SvcClient, 8, &Echo{Text: "hello all"}) // CHAT
	if err != nil || n != clients {
		t.Fatalf("Group.Notify: %d, %v", n, err)
	}
	sessions := room.Sessions()
	if n, _ := room.SendExcept(sessions[0], gsf.NewNotify(gsf.SvcClient, 8), &Echo{Text: "not to one"}); n != clients-1 {
		t.Errorf("SendExcept reached %d", n)
	}
	h := gsf.NewNotify(gsf.SvcClient, 6)
	h.SetDiscardable(true)
	if n, _ := room.Send(h, &Echo{Text: "moved"}); n != clients {
		t.Errorf("Send reached %d", n)
	}
	for i := range gots {
		waitFor(t, "the notifies", func() bool {
			gots[i].mu.Lock()
			defer gots[i].mu.Unlock()
			return len(gots[i].texts) >= 3
		})
	}
	// A client leaves: it leaves the room.
	cs[0].Close()
	waitFor(t, "the room to shrink", func() bool { return room.Len() == clients-1 })
	if err := sessions[0].Notify(gsf.SvcClient, 8, &Echo{}); err != nil && !errors.Is(err, ErrClosed) {
		t.Errorf("Notify to a closed session: %v", err)
	}
	var welcomed, all int
	for i := range gots {
		gots[i].mu.Lock()
		for _, s := range gots[i].texts {
			if s == "20:welcome" {
				welcomed++
			}
			if s == "8:hello all" {
				all++
			}
		}
		gots[i].mu.Unlock()
	}
	if welcomed != clients || all != clients {
		t.Errorf("welcomed %d, hello all %d: %v", welcomed, all, gots[0].texts)
	}

	// Client → server notifies are handled in the order they were sent.
	c := cs[1]
	for i := range 200 {
		if err := c.Notify(gsf.SvcUserServer, msgRecord, &Echo{Text: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	e.echo(c, "sync")
	waitFor(t, "the notifies to be handled", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return len(e.record) == 200
	})
	for i, s := range e.record {
		if s != fmt.Sprint(i) {
			t.Fatalf("notify %d handled as number %s", i, s)
		}
	}

	// A notify whose handler returns a body gets the flags-3 reply.
	replies := make(chan gsf.Header, 1)
	c2 := e.dial(&ClientOptions{NotifyHandler: func(m *gsf.Message) {
		if m.Header.MsgType == msgPoke {
			replies <- m.Header
		}
	}})
	if err := c2.Notify(gsf.SvcUserServer, msgPoke, &Echo{Text: "poke"}); err != nil {
		t.Fatal(err)
	}
	select {
	case h := <-replies:
		if h.Flags != 3 || h.SvcClass != gsf.SvcUserServer {
			t.Errorf("reply header %v", &h)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reply to the notify")
	}
}

func TestMaxInFlight(t *testing.T) {
	checkLeaks(t)
	var running, peak atomic.Int32
	e := newEnv(t, func(s *Server) { s.MaxInFlight = 2 })
	mux := e.srv.Handler.(*Mux)
	gate := make(chan struct{})
	mux.HandleFunc(gsf.SvcUserServer, 1700, func(ctx context.Context, r *Request) (any, error) {
		n := running.Add(1)
		changes.signal()
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-gate
		running.Add(-1)
		return nil, nil
	})
	c := e.dial(nil)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Call(ctxTimeout(t, 20*time.Second), gsf.SvcUserServer, 1700, nil, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	waitFor(t, "two handlers", func() bool { return running.Load() == 2 })
	// A third handler that does not start is no event: a 50 ms window in which it would show.
	time.Sleep(50 * time.Millisecond)
	if p := peak.Load(); p != 2 {
		t.Errorf("%d handlers ran at once, the limit is 2", p)
	}
	close(gate)
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Errorf("%d handlers ran at once, the limit is 2", p)
	}
}

func TestNoInFlightLimit(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, func(s *Server) {
		s.MaxInFlight = NoLimit
		s.MaxQueueBytes = NoLimit
		s.MaxConns = NoLimit
		s.MaxMessageBytes = NoLimit
	})
	c := e.dial(nil)
	results := make(chan error, 100)
	for range 100 {
		go func() { results <- c.Call(ctxTimeout(t, 20*time.Second), gsf.SvcUserServer, msgBlock, nil, nil) }()
	}
	for range 100 {
		<-e.started // all 100 handlers run at once
	}
	for range 100 {
		e.release <- struct{}{}
	}
	for range 100 {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
}

func TestShutdownDrains(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	const calls = 20
	clients := []*Client{e.dial(nil), e.dial(nil)}
	results := make(chan error, calls)
	for i := range calls {
		go func() {
			var resp Echo
			err := clients[i%2].Call(ctxTimeout(t, 20*time.Second), gsf.SvcUserServer, msgBlock, &Echo{Text: fmt.Sprint(i)}, &resp)
			if err == nil && resp.Text != fmt.Sprint(i) {
				err = fmt.Errorf("got %q", resp.Text)
			}
			results <- err
		}()
	}
	for range calls {
		<-e.started
	}
	idle := e.dial(nil)
	shut := make(chan error, 1)
	go func() { shut <- e.srv.Shutdown(ctxTimeout(t, 20*time.Second)) }()
	// The idle connection and the listener close; the busy ones wait for their handlers.
	select {
	case <-idle.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the idle connection stays open")
	}
	if err := <-e.served; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve returned %v", err)
	}
	e.served <- ErrServerClosed // for the cleanup
	if c, err := net.DialTimeout("tcp", e.addr, time.Second); err == nil {
		c.Close()
		t.Error("the listener still accepts")
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with handlers running", err)
	case <-time.After(50 * time.Millisecond):
	}
	for range calls {
		e.release <- struct{}{}
	}
	for range calls {
		if err := <-results; err != nil {
			t.Errorf("a call in flight at Shutdown: %v", err)
		}
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	for _, c := range clients {
		select {
		case <-c.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("a drained connection stays open")
		}
		if err := c.Call(ctxTimeout(t, time.Second), gsf.SvcUserServer, msgEcho, nil, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("a call after Shutdown: %v", err)
		}
	}
	if err := e.srv.ListenAndServe(); !errors.Is(err, ErrServerClosed) {
		t.Errorf("ListenAndServe after Shutdown: %v", err)
	}
}

func TestShutdownTimeoutAndClose(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	c := e.dial(nil)
	res := make(chan error, 1)
	go func() { res <- c.Call(ctxTimeout(t, 20*time.Second), gsf.SvcUserServer, msgBlock, nil, nil) }()
	<-e.started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want the deadline", err)
	}
	e.srv.Close() // cancels the handler's context
	if err := <-res; !errors.Is(err, ErrClosed) {
		t.Errorf("call: %v, want ErrClosed", err)
	}
	waitFor(t, "the sessions to end", func() bool { return e.srv.NumSessions() == 0 })
}

func TestClientErrors(t *testing.T) {
	checkLeaks(t)
	var sess atomic.Pointer[Session]
	e := newEnv(t, func(s *Server) { s.OnConnect = func(s *Session) { sess.Store(s) } })

	// The server closes the connection: calls in flight fail with ErrClosed.
	c := e.dial(nil)
	res := make(chan error, 1)
	go func() { res <- c.Call(ctxTimeout(t, 20*time.Second), gsf.SvcUserServer, msgBlock, nil, nil) }()
	<-e.started
	sess.Load().Close()
	err := <-res
	if !errors.Is(err, ErrClosed) {
		t.Errorf("got %v, want ErrClosed", err)
	}
	<-c.Done()
	if err := c.Call(ctxTimeout(t, time.Second), gsf.SvcUserServer, msgEcho, nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("after the close: %v", err)
	}
	if err := c.Notify(gsf.SvcUserServer, msgEcho, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Notify after the close: %v", err)
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Errorf("Err: %v", c.Err())
	}

	// Deadlines and cancellation.
	c = e.dial(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, gsf.SvcUserServer, msgBlock, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want DeadlineExceeded", err)
	}
	<-e.started // that call's handler, so that the next cancel waits for the next one's
	ctx, cancel = context.WithCancel(context.Background())
	go func() { <-e.started; cancel() }()
	if err := c.Call(ctx, gsf.SvcUserServer, msgBlock, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want Canceled", err)
	}
	if err := c.Call(ctx, gsf.SvcUserServer, msgEcho, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled context: %v", err)
	}
	// The late responses are dropped; the connection is fine.
	e.release <- struct{}{}
	e.release <- struct{}{}
	e.echo(c, "after the late responses")

	// Close: calls in flight fail with ErrClosed.
	go func() { res <- c.Call(ctxTimeout(t, 20*time.Second), gsf.SvcUserServer, msgBlock, nil, nil) }()
	<-e.started
	c.Close()
	if err := <-res; !errors.Is(err, ErrClosed) {
		t.Errorf("got %v, want ErrClosed", err)
	}
	e.release <- struct{}{} // the server answers what it read, to nobody
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.Do(ctxTimeout(t, time.Second), gsf.NewNotify(gsf.SvcUserServer, 1), nil); err == nil {
		t.Error("Do of a notify header")
	}
	// A body that cannot be encoded.
	c = e.dial(nil)
	if err := c.Call(ctxTimeout(t, time.Second), gsf.SvcUserServer, msgEcho, make(chan int), nil); err == nil {
		t.Error("encoding a channel")
	}
	e.echo(c, "after the encoding error")
	// A response that does not decode into the given type.
	if err := c.Call(ctxTimeout(t, time.Second), gsf.SvcUserServer, msgEcho, &Echo{Text: "abc"}, &struct{ A, B, C, D int64 }{}); err == nil {
		t.Error("decoding into the wrong type")
	}
}

func TestIdleAndReadTimeouts(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, func(s *Server) {
		s.IdleTimeout = 200 * time.Millisecond
		s.ReadTimeout = 200 * time.Millisecond
	})
	c := e.dial(nil)
	e.echo(c, "x")
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the idle connection stays open")
	}
	// A frame that does not arrive in ReadTimeout (a slowloris).
	raw := e.rawConn()
	b := frame(t, gsf.NewRequest(gsf.SvcUserServer, msgEcho, 1), &Echo{Text: "slowly"})
	raw.Write(b[:5])
	waitClosed(t, raw)
	e.checkServes()
}
