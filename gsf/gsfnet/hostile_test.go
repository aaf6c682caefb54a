package gsfnet

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// TestGarbage sends bytes that are not GSF: each connection is closed, the server counts and
// logs a protocol error, and a client connected all along is served.
func TestGarbage(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	good := e.dial(nil)
	valid := frame(t, gsf.NewRequest(gsf.SvcUserServer, msgEcho, 1), &Echo{Text: "ok"})
	badTerminator := append([]byte(nil), valid...)
	badTerminator[len(badTerminator)-1] = 0x55
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"http", []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n" + strings.Repeat("x", 100))},
		{"empty frame", []byte{0x00}},
		{"length overflow", []byte{0xff, 0xff, 0xff, 0xff, 0x01}},
		{"missing terminator", badTerminator},
		{"null message", []byte{0x02, 0x80, 0x00}},
		{"truncated header", []byte{0x03, 0x20, 0xc2, 0x00}},
		{"after a valid frame", append(append([]byte(nil), valid...), 0xff, 0xff, 0xff, 0xff, 0xff)},
		{"tls hello", []byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := e.rawConn()
			if _, err := raw.Write(tc.data); err != nil {
				t.Fatal(err)
			}
			got := waitClosed(t, raw)
			if tc.name == "after a valid frame" {
				// The valid request was answered before the connection closed.
				if m, _, err := gsf.ConsumeMessage(got); err != nil || m.Header.RequestID != 1 {
					t.Errorf("the valid request before the garbage: %x, %v", got, err)
				}
			} else if len(got) != 0 {
				t.Errorf("the server answered garbage with %x", got)
			}
			e.echo(good, "after "+tc.name)
		})
	}
	// Counted one by one, logged at most once a second.
	if n := e.srv.Refusals().ProtocolErrors; n != 8 {
		t.Errorf("%d protocol errors counted, want 8 (one per case)", n)
	}
	if logs := e.logs.String(); !strings.Contains(logs, "protocol error") {
		t.Errorf("protocol errors are not logged:\n%s", logs)
	}
	e.checkServes()
}

// TestOversizeFrame sends length prefixes above MaxMessageBytes: the connection closes before the
// frame is allocated.
func TestOversizeFrame(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, func(s *Server) { s.MaxMessageBytes = 1000 })
	good := e.dial(nil)

	// A frame of exactly MaxMessageBytes is fine.
	h := gsf.NewRequest(gsf.SvcUserServer, msgEcho, 1)
	for n := 900; ; n++ {
		b := frame(t, h, &Echo{Text: strings.Repeat("a", n)})
		if _, l, _ := lengthOf(b); l == 1000 {
			raw := e.rawConn()
			raw.Write(b)
			raw.SetReadDeadline(time.Now().Add(10 * time.Second))
			if m, err := gsf.ReadMessage(gsf.NewFrameReader(raw)); err != nil || m.Header.RequestID != 1 {
				t.Fatalf("a frame of MaxMessageBytes: %v", err)
			}
			// One byte more is not.
			raw = e.rawConn()
			raw.Write(frame(t, h, &Echo{Text: strings.Repeat("a", n+1)}))
			if got := waitClosed(t, raw); len(got) != 0 {
				t.Errorf("answered an oversize frame: %x", got)
			}
			break
		}
	}

	// The largest length the prefix can carry, 256 MiB, with a few bytes behind it.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 5 {
		raw := e.rawConn()
		raw.Write([]byte{0xff, 0xff, 0xff, 0x7f, 0x20, 0xc2})
		waitClosed(t, raw)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("5 oversize frames allocated %d MiB", grew>>20)
	}
	if !strings.Contains(e.logs.String(), "frame too large") {
		t.Errorf("the oversize frame is not logged:\n%s", e.logs.String())
	}
	e.echo(good, "after the oversize frames")
}

func lengthOf(frame []byte) (int, int, error) {
	l, size, err := gsf.ConsumeLength(frame)
	return size, l, err
}

// TestCutFrame sends part of a frame and closes, or stops sending.
func TestCutFrame(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, func(s *Server) { s.ReadTimeout = 300 * time.Millisecond })
	good := e.dial(nil)
	b := frame(t, gsf.NewRequest(gsf.SvcUserServer, msgEcho, 1), &Echo{Text: "a frame cut off mid-way"})
	for _, cut := range []int{1, 5, len(b) - 1} {
		// The client closes its side after part of the frame.
		raw := e.rawConn()
		raw.Write(b[:cut])
		raw.(*net.TCPConn).CloseWrite()
		if got := waitClosed(t, raw); len(got) != 0 {
			t.Errorf("answered a cut frame: %x", got)
		}
		// The client keeps the connection open and sends no more: ReadTimeout.
		raw = e.rawConn()
		raw.Write(b[:cut])
		waitClosed(t, raw)
		e.echo(good, fmt.Sprint("after a cut at ", cut))
	}
	if !strings.Contains(e.logs.String(), "unexpected EOF") {
		t.Errorf("the cut frame is not logged:\n%s", e.logs.String())
	}
	e.checkServes()
}

// TestSlowReader has a client that sends requests for large responses and never reads. The
// server goes on serving the others, and notifies to a group with the slow client in it reach
// the others at once; the slow client is closed as a slow consumer.
func TestSlowReader(t *testing.T) {
	checkLeaks(t)
	var mu sync.Mutex
	reasons := map[string]error{}
	sessions := map[string]*Session{}
	e := newEnv(t, func(s *Server) {
		s.MaxInFlight = 4
		s.MaxQueueBytes = 256 << 10
		s.WriteTimeout = 20 * time.Second // the queue limit acts first
		s.OnConnect = func(s *Session) {
			mu.Lock()
			sessions[s.RemoteAddr().String()] = s
			mu.Unlock()
			changes.signal()
		}
		s.OnDisconnect = func(s *Session, err error) {
			mu.Lock()
			reasons[s.RemoteAddr().String()] = err
			mu.Unlock()
			changes.signal()
		}
	})
	session := func(addr net.Addr) *Session {
		var s *Session
		waitFor(t, "the session", func() bool {
			mu.Lock()
			defer mu.Unlock()
			s = sessions[addr.String()]
			return s != nil
		})
		return s
	}

	const goodClients = 3
	var room Group
	var received [goodClients]counter
	var goods []*Client
	for i := range goodClients {
		c := e.dial(&ClientOptions{NotifyHandler: func(m *gsf.Message) { received[i].add() }})
		goods = append(goods, c)
		room.Add(session(c.LocalAddr()))
	}

	slow := e.rawConn()
	slow.(*net.TCPConn).SetReadBuffer(4096)
	var reqs []byte
	for i := range 100 {
		reqs = append(reqs, frame(t, gsf.NewRequest(gsf.SvcUserServer, msgBig, int32(i+1)), &Echo{Text: strings.Repeat("b", 32<<10)})...)
	}
	go slow.Write(reqs) // blocks once the server stops reading
	slowSession := session(slow.LocalAddr())
	room.Add(slowSession)

	// Well-behaved clients are served while the slow one is stuck.
	for i, c := range goods {
		e.echo(c, fmt.Sprint("served ", i))
	}
	// Notifies to the room, until the slow client's queue overflows (the kernel's socket
	// buffers take a few megabytes first): they never wait for the slow client.
	slowClosed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		_, ok := reasons[slow.LocalAddr().String()]
		return ok
	}
	body := &Echo{Text: strings.Repeat("n", 8<<10)}
	start := time.Now()
	notifies := int32(0)
	for !slowClosed() && time.Since(start) < 20*time.Second {
		if _, err := room.Notify(gsf.SvcClient, 8, body); err != nil {
			t.Fatal(err)
		}
		notifies++
		if notifies%8 == 0 {
			// Let the good clients catch up, so that their queues never hold more than 8
			// notifies (64 KiB); the slow one does not read at all.
			for i := range goodClients {
				if !received[i].waitFor(int64(notifies), 10*time.Second) {
					t.Fatalf("client %d got %d of %d notifies", i, received[i].load(), notifies)
				}
			}
		}
	}
	for i := range goodClients {
		if !received[i].waitFor(int64(notifies), 10*time.Second) {
			t.Fatalf("client %d got %d of %d notifies", i, received[i].load(), notifies)
		}
	}
	waitFor(t, "the slow session to close", func() bool {
		mu.Lock()
		defer mu.Unlock()
		_, ok := reasons[slow.LocalAddr().String()]
		return ok
	})
	mu.Lock()
	if err := reasons[slow.LocalAddr().String()]; !errors.Is(err, ErrSlowConsumer) {
		t.Errorf("the slow session closed with %v, want ErrSlowConsumer", err)
	}
	mu.Unlock()
	if room.Len() != goodClients {
		t.Errorf("the room has %d sessions", room.Len())
	}
	for i, c := range goods {
		e.echo(c, fmt.Sprint("still served ", i))
	}
	e.checkServes()
}

// TestSlowReaderDiscardable: discardable notifies to a client that does not read are dropped,
// and the session stays open until WriteTimeout.
func TestSlowReaderDiscardable(t *testing.T) {
	checkLeaks(t)
	var sess atomic.Pointer[Session]
	closed := make(chan error, 1)
	e := newEnv(t, func(s *Server) {
		s.MaxQueueBytes = 64 << 10
		s.WriteTimeout = 300 * time.Millisecond
		s.OnConnect = func(s *Session) { sess.Store(s); changes.signal() }
		s.OnDisconnect = func(s *Session, err error) { closed <- err }
	})
	slow := e.rawConn()
	slow.(*net.TCPConn).SetReadBuffer(4096)
	waitFor(t, "the session", func() bool { return sess.Load() != nil })
	h := gsf.NewNotify(gsf.SvcClient, 6)
	h.SetDiscardable(true)
	body := &Echo{Text: strings.Repeat("m", 4<<10)}
	// The kernel's socket buffers take some megabytes before a write blocks: send until the
	// session closes.
	var dropped int
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		err := sess.Load().Send(h, body)
		if errors.Is(err, ErrQueueFull) {
			dropped++
			time.Sleep(100 * time.Microsecond) // the pace of a sender that keeps trying, not a wait for a condition
		} else if err != nil {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("Send: %v", err)
			}
			break
		}
	}
	if dropped == 0 {
		t.Error("no discardable notify was dropped")
	}
	select {
	case err := <-closed:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("closed with %v, want a write timeout", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the session that does not read stays open")
	}
	e.checkServes()
}

// TestConnectionFlood opens many more connections than MaxConns: the extra ones are closed at
// once, the ones being served go on, and the server accepts again once the flood is over.
func TestConnectionFlood(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, func(s *Server) { s.MaxConns = 8 })
	good := e.dial(nil)
	e.echo(good, "before the flood")
	var flood []net.Conn
	for range 60 {
		c, err := net.DialTimeout("tcp", e.addr, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		flood = append(flood, c)
	}
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	// Once the server has accepted all of them, the refused ones are closed (EOF or reset);
	// the others stay open (the read times out).
	waitFor(t, "the server to accept the flood", func() bool { return e.accepted.Load() == 61 })
	var refused atomic.Int32
	var wg sync.WaitGroup
	for _, c := range flood {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(time.Second))
			var b [1]byte
			_, err := c.Read(b[:])
			var ne net.Error
			if !(errors.As(err, &ne) && ne.Timeout()) {
				refused.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := refused.Load(); n != 60-7 {
		t.Errorf("%d connections refused, want %d", n, 60-7)
	}
	if n := e.srv.NumSessions(); n != 8 {
		t.Errorf("%d sessions, want 8", n)
	}
	e.echo(good, "during the flood")
	if !strings.Contains(e.logs.String(), "MaxConns reached") {
		t.Errorf("the refusals are not logged:\n%s", e.logs.String())
	}
	for _, c := range flood {
		c.Close()
	}
	waitFor(t, "the flood to end", func() bool { return e.srv.NumSessions() == 1 })
	e.checkServes()
	e.echo(good, "after the flood")
}

// TestHostileBurst mixes everything at once while clients make calls.
func TestHostileBurst(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, func(s *Server) { s.ReadTimeout = 500 * time.Millisecond })
	valid := frame(t, gsf.NewRequest(gsf.SvcUserServer, msgPanic, 1), nil)
	inputs := [][]byte{
		{0x00},
		{0xff, 0xff, 0xff, 0x7f},
		bytes.Repeat([]byte{0x41}, 300),
		valid[:len(valid)-1],
		append(append([]byte(nil), valid...), valid...),
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", e.addr, 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			c.Write(inputs[i%len(inputs)])
			c.(*net.TCPConn).CloseWrite()
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			var b [256]byte
			for {
				if _, err := c.Read(b[:]); err != nil {
					return
				}
			}
		}()
	}
	c := e.dial(nil)
	for i := range 50 {
		e.echo(c, fmt.Sprint(i))
	}
	wg.Wait()
	e.checkServes()
}

// TestHostileInOrder runs the hostile-peer and limit tests again with the messages of a
// connection handled in order, the default, whose reader loop is its own (readInOrder): the
// tests' server handles them out of order otherwise. (The tests of concurrent handling, which
// block handlers and wait for others to start, do not apply.)
func TestHostileInOrder(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"Garbage", TestGarbage}, {"OversizeFrame", TestOversizeFrame}, {"CutFrame", TestCutFrame},
		{"SlowReader", TestSlowReader}, {"SlowReaderDiscardable", TestSlowReaderDiscardable},
		{"ConnectionFlood", TestConnectionFlood}, {"HostileBurst", TestHostileBurst},
		{"HandlerTimeout", TestHandlerTimeout}, {"PartialFrameBudget", TestPartialFrameBudget},
		{"KeptHandlerContext", TestKeptHandlerContext}, {"ReadTimeoutAfterFrame", TestReadTimeoutAfterFrame},
		{"IdleAndReadTimeouts", TestIdleAndReadTimeouts}, {"ShutdownTimeoutAndClose", TestShutdownTimeoutAndClose},
		{"PerIPAndAcceptRate", TestPerIPAndAcceptRate}, {"ProtocolErrorLogThrottled", TestProtocolErrorLogThrottled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			envInOrder = true
			defer func() { envInOrder = false }()
			tt.f(t)
		})
	}
}
