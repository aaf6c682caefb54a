package gsfnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// dialCounting connects a client whose Write calls are counted in n.
func (e *testEnv) dialCounting(n *atomic.Int64) *Client {
	e.t.Helper()
	conn, err := net.DialTimeout("tcp", e.addr, 10*time.Second)
	if err != nil {
		e.t.Fatal(err)
	}
	c := NewClient(&countingConn{conn, n}, nil)
	e.t.Cleanup(func() { c.Close() })
	return c
}

func TestGo(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	var clientWrites atomic.Int64
	c := e.dialCounting(&clientWrites)
	e.echo(c, "warm up")
	clientWrites.Store(0)

	// A batch of Go calls goes out in one write, and each gets its own response.
	const n = 20
	resps := make([]Echo, n)
	calls := make([]*Pending, n)
	for i := range calls {
		calls[i] = c.Go(gsf.SvcUserServer, msgEcho, &Echo{Text: fmt.Sprint("call ", i)}, &resps[i])
	}
	ids := map[int32]bool{}
	for i, p := range calls {
		if err := p.Wait(ctxTimeout(t, 10*time.Second)); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if want := fmt.Sprint("call ", i); resps[i].Text != want {
			t.Errorf("call %d: got %q, want %q", i, resps[i].Text, want)
		}
		if ids[p.RequestID()] || p.RequestID() == 0 {
			t.Errorf("call %d: request id %d used twice or zero", i, p.RequestID())
		}
		ids[p.RequestID()] = true
		if err := p.Wait(ctxTimeout(t, time.Second)); err != nil {
			t.Errorf("call %d: a second Wait: %v", i, err)
		}
	}
	// One write, unless the goroutine was descheduled for longer than flushDelay.
	if w := clientWrites.Load(); w > n/4 {
		t.Errorf("%d requests of Go went out in %d writes, want 1", n, w)
	}

	// Error responses, as Call gives them.
	p := c.Go(gsf.SvcUserServer, msgFail, &Echo{Text: "no"}, nil)
	var ge *Error
	if err := p.Wait(ctxTimeout(t, 10*time.Second)); !errors.As(err, &ge) || ge.AppString != "no" {
		t.Errorf("an error response: %v", err)
	}

	// A Go call that is never waited for is sent all the same.
	p = c.Go(gsf.SvcUserServer, msgBlock, &Echo{Text: "unwaited"}, nil)
	select {
	case <-e.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the request of a Go call that nobody waits for was not sent")
	}
	e.release <- struct{}{}
	if err := p.Wait(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}

	// A Go call followed by a Call goes out with the Call's request.
	var r1, r2 Echo
	p = c.Go(gsf.SvcUserServer, msgEcho, &Echo{Text: "go"}, &r1)
	if err := c.Call(ctxTimeout(t, 10*time.Second), gsf.SvcUserServer, msgEcho, &Echo{Text: "call"}, &r2); err != nil || r2.Text != "call" {
		t.Fatalf("Call after Go: %v, %q", err, r2.Text)
	}
	if err := p.Wait(ctxTimeout(t, 10*time.Second)); err != nil || r1.Text != "go" {
		t.Fatalf("Go before Call: %v, %q", err, r1.Text)
	}

	// A context that ends abandons the call; its late response is dropped.
	p = c.Go(gsf.SvcUserServer, msgBlock, nil, nil)
	<-e.started
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want DeadlineExceeded", err)
	}
	if err := p.Wait(ctxTimeout(t, time.Second)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait after the deadline: got %v, want the same error", err)
	}
	e.release <- struct{}{}
	e.echo(c, "after the late response")

	// A response that is in wins over a context that has ended.
	var r3 Echo
	p = c.Go(gsf.SvcUserServer, msgEcho, &Echo{Text: "in"}, &r3)
	p.c.out.flush()
	select { // the response is in
	case <-p.cl.done:
		p.cl.done <- struct{}{}
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for the response")
	}
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := p.Wait(canceled); err != nil || r3.Text != "in" {
		t.Errorf("a response that is in, with a canceled context: %v, %q", err, r3.Text)
	}

	// A body that does not encode.
	if err := c.Go(gsf.SvcUserServer, msgEcho, make(chan int), nil).Wait(ctxTimeout(t, time.Second)); err == nil {
		t.Error("encoding a channel")
	}
	e.echo(c, "after the encoding error")

	// Calls in flight when the client closes, and calls after.
	p = c.Go(gsf.SvcUserServer, msgBlock, nil, nil)
	<-e.started
	c.Close()
	if err := p.Wait(ctxTimeout(t, 10*time.Second)); !errors.Is(err, ErrClosed) {
		t.Errorf("in flight at Close: %v, want ErrClosed", err)
	}
	e.release <- struct{}{} // the server answers what it read, to nobody
	if err := c.Go(gsf.SvcUserServer, msgEcho, nil, nil).Wait(ctxTimeout(t, time.Second)); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

// TestPipelinedBatch checks that a blocked handler in a batch of requests that arrive
// together does not hold up the responses of the others, which the server may hold back to
// write them together (sender.hold; TestSenderHold checks the writes).
func TestPipelinedBatch(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)

	for _, blockAt := range []int{0, 3, 7} {
		t.Run(fmt.Sprint("blocked ", blockAt), func(t *testing.T) {
			raw := e.rawConn()
			var b []byte
			for i := range 8 {
				typ := msgEcho
				if i == blockAt {
					typ = msgBlock
				}
				b = append(b, frame(t, gsf.NewRequest(gsf.SvcUserServer, typ, int32(100+i)), &Echo{Text: fmt.Sprint(i)})...)
			}
			if _, err := raw.Write(b); err != nil {
				t.Fatal(err)
			}
			fr := gsf.NewFrameReader(raw)
			raw.SetReadDeadline(time.Now().Add(10 * time.Second))
			got := map[int32]bool{}
			for range 7 {
				m, err := gsf.ReadMessage(fr)
				if err != nil {
					t.Fatalf("after %d responses: %v", len(got), err)
				}
				got[m.Header.RequestID] = true
			}
			if got[int32(100+blockAt)] {
				t.Fatalf("the blocked request was answered before it was released")
			}
			<-e.started
			e.release <- struct{}{}
			m, err := gsf.ReadMessage(fr)
			if err != nil || m.Header.RequestID != int32(100+blockAt) {
				t.Fatalf("last response: %v, %v; want id %d", &m.Header, err, 100+blockAt)
			}
		})
	}
}

// recordingConn is a net.Conn that records what each Write call writes.
type recordingConn struct {
	net.Conn // nil: only Write and SetWriteDeadline are used
	mu       sync.Mutex
	writes   [][]byte
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, append([]byte(nil), p...))
	changes.signal()
	return len(p), nil
}

func (c *recordingConn) SetWriteDeadline(time.Time) error { return nil }

func (c *recordingConn) written() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, w := range c.writes {
		out = append(out, string(w))
	}
	return out
}

func TestSenderModes(t *testing.T) {
	checkLeaks(t)
	conn := &recordingConn{}
	s := newSender(conn, 0, 1<<20, nil, nil)
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() { s.run(done); close(exited) }()
	defer func() { close(done); <-exited }()
	want := func(what string, w ...string) {
		t.Helper()
		if got := conn.written(); !slices.Equal(got, w) {
			t.Fatalf("%s: writes %q, want %q", what, got, w)
		}
	}

	// sendNow writes at once, on the calling goroutine.
	s.enqueue([]byte("a"), kindResponse, sendNow)
	want("sendNow", "a")

	// sendHeld leaves the frame to the next sendNow, which writes both.
	s.enqueue([]byte("b"), kindResponse, sendHeld)
	s.enqueue([]byte("c"), kindResponse, sendHeld)
	want("held", "a")
	s.enqueue([]byte("d"), kindResponse, sendNow)
	want("after the hold", "a", "bcd")

	// Held frames whose next sender does not come: flushHeld has the writer goroutine write
	// them.
	s.enqueue([]byte("e"), kindResponse, sendHeld)
	want("held again", "a", "bcd")
	s.flushHeld()
	waitFor(t, "the writer goroutine", func() bool { return len(conn.written()) == 3 })
	want("flushHeld", "a", "bcd", "e")

	// sendSoon frames go out with the next flush, together (written by the writer goroutine,
	// since recordingConn has no syscall.RawConn for flush to write with).
	s.enqueue([]byte("f"), kindMessage, sendSoon)
	s.enqueue([]byte("g"), kindMessage, sendSoon)
	s.flush()
	waitFor(t, "the writer goroutine", func() bool { return len(conn.written()) == 4 })
	want("flush", "a", "bcd", "e", "fg")
	s.mu.Lock()
	armed := s.armed
	s.mu.Unlock()
	if armed {
		t.Error("the timer is still set after the write")
	}

	// ... or within flushDelay by the writer goroutine.
	s.enqueue([]byte("h"), kindMessage, sendSoon)
	waitFor(t, "the writer goroutine", func() bool { return len(conn.written()) == 5 })
	want("sendSoon", "a", "bcd", "e", "fg", "h")

	// sendWake wakes the writer goroutine, also for sendSoon frames before it.
	s.enqueue([]byte("i"), kindMessage, sendSoon)
	s.enqueue([]byte("j"), kindMessage, sendWake)
	waitFor(t, "the writer goroutine", func() bool { return len(conn.written()) == 6 })
	want("sendWake", "a", "bcd", "e", "fg", "h", "ij")
}

// TestWaitDoesNotBlockOnWrites checks that Wait honours its context when the server does not
// read: the requests it flushes go to the socket as far as it takes them, and the writer
// goroutine writes the rest.
func TestWaitDoesNotBlockOnWrites(t *testing.T) {
	testNoBlockOnWrites(t, "Wait", func(ctx context.Context, c *Client, body *Echo) error {
		return c.Go(gsf.SvcUserServer, msgEcho, body, nil).Wait(ctx)
	})
}

// TestCallDoesNotBlockOnWrites checks that a lone Call, which writes its request on its own
// goroutine, honours its context when the server does not read: it writes only what the
// socket takes at once, and the writer goroutine writes the rest.
func TestCallDoesNotBlockOnWrites(t *testing.T) {
	testNoBlockOnWrites(t, "Call", func(ctx context.Context, c *Client, body *Echo) error {
		return c.Call(ctx, gsf.SvcUserServer, msgEcho, body, nil)
	})
}

// testNoBlockOnWrites makes 300 calls of 64 KiB each with call to a server that never reads,
// each with a 5 ms context: every one must end with DeadlineExceeded, none may block on the full
// socket, and the socket must really be full at the end.
func testNoBlockOnWrites(t *testing.T, what string, call func(context.Context, *Client, *Echo) error) {
	checkLeaks(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c // and never read from it
		}
	}()
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(conn, &ClientOptions{WriteTimeout: time.Minute, MaxQueueBytes: NoLimit})
	defer c.Close()
	server := <-accepted
	defer server.Close()

	big := &Echo{Text: strings.Repeat("x", 64<<10)}
	start := time.Now()
	for i := range 300 { // 19 MiB: more than the socket buffers of both ends take
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		err := call(ctx, c, big)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: %v, want DeadlineExceeded", i, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("call %d: %s blocked on a full socket (%v so far)", i, what, d)
		}
	}
	c.out.mu.Lock()
	queued, writing := len(c.out.buf), c.out.writing
	c.out.mu.Unlock()
	if queued == 0 && !writing {
		t.Errorf("the socket took 19 MiB: the test did not fill it")
	}
}

// TestSlowHandlerHandsOver checks what a handler that blocks on the reader goroutine does to
// the messages behind it: a request behind it is answered while it blocks (another goroutine
// takes over reading), and a notify behind a blocked notify waits for it (notifies keep their
// order).
func TestSlowHandlerHandsOver(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	raw := e.rawConn()
	var b []byte
	b = append(b, frame(t, gsf.NewNotify(gsf.SvcUserServer, msgBlock), &Echo{Text: "n1"})...)
	b = append(b, frame(t, gsf.NewNotify(gsf.SvcUserServer, msgRecord), &Echo{Text: "n2"})...)
	b = append(b, frame(t, gsf.NewRequest(gsf.SvcUserServer, msgEcho, 9), &Echo{Text: "r"})...)
	if _, err := raw.Write(b); err != nil {
		t.Fatal(err)
	}
	<-e.started
	fr := gsf.NewFrameReader(raw)
	raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := gsf.ReadMessage(fr)
	if err != nil || m.Header.RequestID != 9 {
		t.Fatalf("while a notify handler blocks: %v, %v; want the response to id 9", &m.Header, err)
	}
	e.mu.Lock()
	early := len(e.record)
	e.mu.Unlock()
	if early != 0 {
		t.Fatalf("a notify was handled before the blocked notify before it")
	}
	e.release <- struct{}{}
	// The blocked notify's reply (flags 3), then the second notify is recorded.
	if m, err = gsf.ReadMessage(fr); err != nil || !m.Header.IsNotify() {
		t.Fatalf("the reply to the blocked notify: %v, %v", &m.Header, err)
	}
	waitFor(t, "the second notify", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return len(e.record) == 1 && e.record[0] == "n2"
	})
	e.checkServes()
}
