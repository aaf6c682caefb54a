package gsfnet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// Message types of the test server (USER_SERVER numbers that the reference does not route).
const (
	msgEcho    int32 = 1000 // Echo → Echo
	msgFail    int32 = 1001 // Echo → *Error{ResultErr, AppAuth, Text}
	msgPanic   int32 = 1002 // panics
	msgBlock   int32 = 1003 // Echo → Echo, once the test's release channel lets it
	msgSet     int32 = 1004 // Echo → stores Text in the session
	msgGet     int32 = 1005 // → Echo{the stored text}
	msgRecord  int32 = 1006 // notify Echo: appended to the test's record
	msgPoke    int32 = 1007 // notify Echo → flags-3 reply with the same body
	msgBig     int32 = 1008 // Echo{Text: n} → Echo of n bytes
	msgUnknown int32 = 1999 // no handler
)

type Echo struct {
	Text string
}

// testEnv is a server on loopback with the test handlers.
type testEnv struct {
	t       *testing.T
	srv     *Server
	addr    string
	release chan struct{} // msgBlock handlers wait for a value
	started chan struct{} // msgBlock handlers send one value when they start
	logs    *syncBuffer

	mu       sync.Mutex
	record   []string
	served   chan error
	accepted atomic.Int64 // connections the listener has accepted
}

// countingAccepts counts the connections a listener accepts.
type countingAccepts struct {
	net.Listener
	n *atomic.Int64
}

func (l countingAccepts) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
		changes.signal()
	}
	return c, err
}

type sessionKey struct{}

// envInOrder makes newEnv's server handle messages in order, as a Server does by default
// (TestHostileInOrder sets it while it runs; no test of the package runs in parallel).
var envInOrder bool

// newEnv starts a server configured by cfg (which may be nil) on 127.0.0.1:0.
func newEnv(t *testing.T, cfg func(*Server)) *testEnv {
	t.Helper()
	e := &testEnv{t: t, release: make(chan struct{}), started: make(chan struct{}, 1000), logs: new(syncBuffer), served: make(chan error, 1)}
	mux := NewMux()
	Handle(mux, gsf.SvcUserServer, msgEcho, func(ctx context.Context, s *Session, req *Echo) (*Echo, error) {
		return req, nil
	})
	Handle(mux, gsf.SvcUserServer, msgFail, func(ctx context.Context, s *Session, req *Echo) (*Echo, error) {
		return nil, NewError(gsf.AppAuth, req.Text)
	})
	mux.HandleFunc(gsf.SvcUserServer, msgPanic, func(ctx context.Context, r *Request) (any, error) {
		panic("test panic")
	})
	Handle(mux, gsf.SvcUserServer, msgBlock, func(ctx context.Context, s *Session, req *Echo) (*Echo, error) {
		e.started <- struct{}{}
		select {
		case <-e.release:
			return req, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	Handle(mux, gsf.SvcUserServer, msgSet, func(ctx context.Context, s *Session, req *Echo) (*struct{}, error) {
		s.Set(sessionKey{}, req.Text)
		return &struct{}{}, nil
	})
	Handle(mux, gsf.SvcUserServer, msgGet, func(ctx context.Context, s *Session, req *struct{}) (*Echo, error) {
		v, _ := s.Get(sessionKey{}).(string)
		return &Echo{Text: v}, nil
	})
	Handle(mux, gsf.SvcUserServer, msgRecord, func(ctx context.Context, s *Session, req *Echo) (*Echo, error) {
		e.mu.Lock()
		e.record = append(e.record, req.Text)
		changes.signal()
		e.mu.Unlock()
		return nil, nil
	})
	Handle(mux, gsf.SvcUserServer, msgPoke, func(ctx context.Context, s *Session, req *Echo) (*Echo, error) {
		return req, nil
	})
	Handle(mux, gsf.SvcUserServer, msgBig, func(ctx context.Context, s *Session, req *Echo) (*Echo, error) {
		n := len(req.Text)
		return &Echo{Text: strings.Repeat("x", n)}, nil
	})
	// The tests of concurrent handling were written for OutOfOrder; the default, in order, has
	// its own (reference_test.go).
	e.srv = &Server{Handler: mux, OutOfOrder: !envInOrder, Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if cfg != nil {
		cfg(e.srv)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.addr = l.Addr().String()
	go func() { e.served <- e.srv.Serve(countingAccepts{l, &e.accepted}) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
			e.srv.Close()
		}
		if err := <-e.served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", e.logs.String())
		}
	})
	return e
}

func (e *testEnv) dial(opts *ClientOptions) *Client {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, e.addr, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// waitStarted waits until n more msgBlock handlers have started. A handler that does not start
// within 10 seconds fails the test with every goroutine's stack, instead of hanging it.
func (e *testEnv) waitStarted(n int) {
	e.t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for i := range n {
		select {
		case <-e.started:
		case <-timeout.C:
			e.t.Fatalf("%d of %d msgBlock handlers started within 10 s\n%s", i, n, allStacks())
		}
	}
}

// releaseHandlers lets n msgBlock handlers return. When fewer than n are waiting for it
// within 10 seconds, the test fails with every goroutine's stack and the server's log,
// instead of hanging.
func (e *testEnv) releaseHandlers(n int) {
	e.t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for i := range n {
		select {
		case e.release <- struct{}{}:
		case <-timeout.C:
			e.t.Fatalf("%d of %d msgBlock handlers took their release within 10 s\nserver log:\n%s\n%s", i, n, e.logs.String(), allStacks())
		}
	}
}

// allStacks returns the stacks of all goroutines.
func allStacks() []byte {
	buf := make([]byte, 1<<20)
	return buf[:runtime.Stack(buf, true)]
}

// echo makes one call of msgEcho and checks the answer.
func (e *testEnv) echo(c *Client, text string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var resp Echo
	if err := c.Call(ctx, gsf.SvcUserServer, msgEcho, &Echo{Text: text}, &resp); err != nil {
		e.t.Fatalf("echo %q: %v", text, err)
	}
	if resp.Text != text {
		e.t.Fatalf("echo %q: got %q", text, resp.Text)
	}
}

// checkServes checks that a new, well-behaved client is served.
func (e *testEnv) checkServes() {
	e.t.Helper()
	c := e.dial(nil)
	e.echo(c, "still serving")
	c.Close()
}

// changes wakes the tests' waitFor calls: the package's stateChanged hook and the tests'
// own counters signal it.
var changes broadcast

func init() { testHookStateChanged = changes.signal }

// broadcast is a condition that many goroutines wait on: signal wakes all of them. With no
// waiter a signal is one atomic load, so that the hook costs the benchmarks (which run with
// it set) next to nothing.
type broadcast struct {
	ch atomic.Pointer[chan struct{}] // closed at the next signal; nil while no one waits
}

// next returns a channel that the next signal closes.
func (b *broadcast) next() <-chan struct{} {
	for {
		if p := b.ch.Load(); p != nil {
			return *p
		}
		c := make(chan struct{})
		if b.ch.CompareAndSwap(nil, &c) {
			return c
		}
	}
}

// signal wakes the waiters. A waiter that took its channel (next) before checking its
// condition cannot miss a change made before signal: either signal sees that channel and
// closes it, or the channel was made after signal's load, and so after the change.
func (b *broadcast) signal() {
	if b.ch.Load() == nil {
		return
	}
	if p := b.ch.Swap(nil); p != nil {
		close(*p)
	}
}

// waitFor waits up to 10 s for cond, checking it again at each change signalled (by the
// package's stateChanged hook or by the test's own counters). A cond that holds only after
// the 10 s names a change that is not signalled: that is a defect of the test or the hook.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if waitUntil(10*time.Second, cond) {
		return
	}
	if cond() {
		t.Fatalf("%s happened without a signal: the change needs a stateChanged or changes.signal call", what)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// waitUntil waits up to timeout for cond, checking it again at each change signalled, and
// reports whether it held (at a signal: not once more after the timeout).
func waitUntil(timeout time.Duration, cond func() bool) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		changed := changes.next() // before cond: a change after cond closes it
		if cond() {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		}
	}
}

// checkLeaks records the number of goroutines and, in a cleanup (after the test's own
// cleanups, registered later, have run), checks that it comes back to that. A goroutine's
// end is no event a test can wait for, so this check polls: every 10 ms, for at most 10 s.
func checkLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutines leaked: %d before, %d after\n%s", before, n, buf)
				return
			}
			time.Sleep(10 * time.Millisecond) // polling: see above
		}
	})
}

// rawConn is a client that writes bytes by hand.
func (e *testEnv) rawConn() net.Conn {
	e.t.Helper()
	c, err := net.DialTimeout("tcp", e.addr, 10*time.Second)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// frame encodes a message.
func frame(t testing.TB, h gsf.Header, body any) []byte {
	t.Helper()
	b, err := gsf.AppendMessage(nil, &h, body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitClosed reads from c until the server closes it (EOF or reset) and returns what it read.
func waitClosed(t *testing.T, c net.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	var out bytes.Buffer
	_, err := io.Copy(&out, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server did not close the connection")
	}
	return out.Bytes()
}

// syncBuffer is a bytes.Buffer for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// counter is a count that a test waits for without polling: every add wakes the waiters.
type counter struct {
	mu      sync.Mutex
	n       int64
	changed chan struct{} // closed at the next add
}

func (c *counter) add() {
	c.mu.Lock()
	c.n++
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
	c.mu.Unlock()
}

func (c *counter) load() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// waitFor waits until the count is at least n, and reports whether it got there within timeout.
func (c *counter) waitFor(n int64, timeout time.Duration) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		c.mu.Lock()
		if c.n >= n {
			c.mu.Unlock()
			return true
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			return false
		}
	}
}
