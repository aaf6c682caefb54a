package gsftap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
)

// realCapture is tcpdump's capture of "gamewire serve" answering two "gamewire call" runs on
// loopback (made by the cmd/gamewire capture test's procedure).
const realCapture = "../../capture/testdata/serve-call.pcap"

func printCapture(t *testing.T, file string, all, asJSON bool) (string, *Printer, *Tap) {
	t.Helper()
	f, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	pr := &Printer{W: &out, JSON: asJSON, Location: time.UTC}
	tap := New(func(r *Record) {
		if err := pr.Print(r); err != nil {
			t.Fatal(err)
		}
	})
	tap.All = all
	if _, err := capture.ReadStreams(bytes.NewReader(f), nil, tap.Handle); err != nil {
		t.Fatal(err)
	}
	return out.String(), pr, tap
}

func TestTapRealCapture(t *testing.T) {
	out, pr, _ := printCapture(t, realCapture, false, false)
	if pr.Frames != 4 || pr.Problems != 0 {
		t.Errorf("%d frames, %d problems:\n%s", pr.Frames, pr.Problems, out)
	}
	for _, want := range []string{
		" #1 client→server 127.0.0.1:58832 → 127.0.0.1:40661 frame 1, bytes 0–21\n  15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00\n",
		"    msgType        566 (GET_CLIENT_VERSION_INFO)\n",
		" #1 server→client 127.0.0.1:40661 → 127.0.0.1:58832 frame 1, bytes 0–21\n  15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00\n",
		" #2 client→server 127.0.0.1:58848 → 127.0.0.1:40661 frame 1, bytes 0–12\n  0c 20 c2 78 5e 18 12 00 70 69 6e 67 00\n",
		" #2 server→client 127.0.0.1:40661 → 127.0.0.1:58848 frame 1, bytes 0–12\n",
		"19:02:52.532982 #1 client→server",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}

	// JSON Lines: one object per line, the frames with their explanation.
	out, _, _ = printCapture(t, realCapture, false, true)
	var frames int
	for line := range strings.Lines(out) {
		var jr JSONRecord
		if err := json.Unmarshal([]byte(line), &jr); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if jr.Kind == RecordFrame {
			frames++
			if jr.Frame == nil || jr.Frame.Format != "gsf" || len(jr.Frame.Fields) == 0 || jr.Dir == nil || jr.Offset == nil || jr.Time.IsZero() || jr.Conn == 0 ||
				jr.Frame.Bit != 8**jr.Offset || jr.Frame.Context["src"] != jr.Src {
				t.Errorf("frame record lacks fields: %s", line)
			}
			if *jr.Dir == capture.ServerToClient && !strings.HasPrefix(jr.Frame.Summary, "response ") {
				t.Errorf("server→client frame is a %s", jr.Frame.Summary)
			}
		}
	}
	if frames != 4 {
		t.Errorf("%d frame records", frames)
	}
}

// runProxy runs a capture.Proxy with a Tap in front of upstream and returns its address and
// a stop function that waits until n connections have closed by themselves (their last
// records printed), stops the proxy and returns the records it printed (text, and counts).
func runProxy(t *testing.T, upstream string, maxFrame int) (string, func(n int) (string, *Printer)) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	pr := &Printer{W: &out, Location: time.UTC}
	tap := New(func(r *Record) {
		if err := pr.Print(r); err != nil {
			t.Error(err)
		}
	})
	tap.All, tap.MaxMessageBytes = true, maxFrame
	closed := make(chan struct{}, 1000)
	p := &capture.Proxy{Upstream: upstream, Handler: func(ev *capture.Event) {
		tap.Handle(ev)
		if ev.Kind == capture.EventClose {
			closed <- struct{}{}
		}
	}}
	done := make(chan error, 1)
	go func() { done <- p.Serve(l) }()
	t.Cleanup(func() { p.Close() })
	return l.Addr().String(), func(n int) (string, *Printer) {
		for range n {
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("a connection did not close")
			}
		}
		p.Close()
		if err := <-done; !errors.Is(err, capture.ErrServerClosed) {
			t.Error(err)
		}
		return out.String(), pr
	}
}

// recordingListener records the bytes of every connection it accepts.
type recordingListener struct {
	net.Listener
	mu    sync.Mutex
	conns []*recordingConn
}

type recordingConn struct {
	net.Conn
	mu      sync.Mutex
	in, out bytes.Buffer
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.in.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

func (c *recordingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	c.out.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

func (l *recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	rc := &recordingConn{Conn: c}
	l.mu.Lock()
	l.conns = append(l.conns, rc)
	l.mu.Unlock()
	return rc, nil
}

// echoBody is the body of SYNC_SERVER/ECHO in both directions, as in gamewire serve.
type echoBody struct{ Text string }

// TestProxyDemoServer: gsfnet clients call the demo server through the proxy, with pipelined
// calls (several frames per read); each side gets exactly the bytes the other sent, and
// every request and response is printed.
func TestProxyDemoServer(t *testing.T) {
	sl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rl := &recordingListener{Listener: sl}
	// An echo server, as the demo server's SYNC_SERVER/ECHO.
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, 19, 23, func(ctx context.Context, s *gsfnet.Session, req *echoBody) (*echoBody, error) { return req, nil })
	srv := &gsfnet.Server{Addr: sl.Addr().String(), Handler: mux, Logger: slog.New(slog.DiscardHandler)}
	go srv.Serve(rl)
	t.Cleanup(func() { srv.Close() })
	addr, stop := runProxy(t, sl.Addr().String(), 0)

	const clients, calls = 3, 40
	var clientConns []*recordingConn
	for range clients {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		rc := &recordingConn{Conn: nc}
		clientConns = append(clientConns, rc)
		c := gsfnet.NewClient(rc, nil)
		var wg sync.WaitGroup
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				var resp echoBody
				if err := c.Call(ctx, 19, 23, &echoBody{Text: strings.Repeat("x", i)}, &resp); err != nil || resp.Text != strings.Repeat("x", i) {
					t.Errorf("call %d: %v %q", i, err, resp.Text)
				}
			}()
		}
		wg.Wait()
		c.Close()
	}
	// The proxy closes each connection once both sides have ended: the client closed, the
	// proxy passed the end on, and the server closed its side in turn.
	out, pr := stop(clients)
	if pr.Frames != 2*clients*calls || pr.Problems != 0 {
		t.Errorf("%d frames, %d problems", pr.Frames, pr.Problems)
	}
	if got := strings.Count(out, "(length "); got != 2*clients*calls {
		t.Errorf("%d frames described", got)
	}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	// Clients may send the same bytes, so a client's connection is the server's connection that
	// received what it sent and sent what it received.
	for i, cc := range clientConns {
		cc.mu.Lock()
		received, mirrored := false, false
		for _, sc := range rl.conns {
			sc.mu.Lock()
			if bytes.Equal(sc.in.Bytes(), cc.out.Bytes()) {
				received = true
				mirrored = mirrored || bytes.Equal(sc.out.Bytes(), cc.in.Bytes())
			}
			sc.mu.Unlock()
		}
		switch {
		case !received || cc.out.Len() == 0:
			t.Errorf("client %d: the server did not receive the %d bytes it sent", i, cc.out.Len())
		case !mirrored:
			t.Errorf("client %d: received %d bytes, not what the server sent", i, cc.in.Len())
		}
		cc.mu.Unlock()
	}
}

// sink is an upstream that answers nothing and returns the first 1 MiB it received and the
// number of bytes.
func sink(t *testing.T) (string, func() ([]byte, int64)) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	type result struct {
		b []byte
		n int64
	}
	got := make(chan result, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		var head bytes.Buffer
		n, _ := io.Copy(io.MultiWriter(&limitWriter{w: &head, n: 1 << 20}), c)
		c.Close()
		got <- result{head.Bytes(), n}
	}()
	return l.Addr().String(), func() ([]byte, int64) {
		select {
		case r := <-got:
			return r.b, r.n
		case <-time.After(20 * time.Second):
			t.Fatal("the upstream got no end of stream")
			return nil, 0
		}
	}
}

// limitWriter keeps the first n bytes written to it and discards the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if k := min(l.n, len(p)); k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// TestProxyGarbage: a client sends garbage, a malformed frame and real frames; everything is
// forwarded as it is, the problems are reported with their offsets, and the frames after
// them are found again.
func TestProxyGarbage(t *testing.T) {
	up, received := sink(t)
	addr, stop := runProxy(t, up, 0)
	req := []byte("\x15\x20\xc2\x5c\x04\x6d\x0c\x0c\x18\x41\x6d\x61\x7a\x69\x6e\x67\x57\x6f\x72\x6c\x64\x00")
	bad := bytes.Clone(req)
	bad[len(bad)-1] = 0xff
	sent := bytes.Join([][]byte{bad, []byte("GET / HTTP/1.1\r\n\r\n"), req, {0x00}, req, req[:10]}, nil)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(sent); i += 5 {
		if _, err := c.Write(sent[i:min(i+5, len(sent))]); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // a slow peer: the 5-byte pieces arrive (most likely) as reads of their own
	}
	c.(*net.TCPConn).CloseWrite()
	if got, _ := received(); !bytes.Equal(got, sent) {
		t.Fatalf("the upstream received %x\nthe client sent        %x", got, sent)
	}
	c.Close()
	out, pr := stop(1)
	if pr.Frames != 2 {
		t.Errorf("%d frames:\n%s", pr.Frames, out)
	}
	for _, want := range []string{
		"problem at byte 0 (1 bytes): gsf: frame at byte 0 (length 21): frame does not end with the 0x00 terminator",
		"problem at byte 1 (39 bytes): gsf: frame at byte 1: " + gsf.ErrResync.Error(),
		"frame 1, bytes 40–61 (resynchronized here)",
		"problem at byte 62 (1 bytes): gsf: frame at byte 62 (length 0): empty frame",
		"frame 2, bytes 63–84 (resynchronized here)",
		"problem at byte 85 (10 bytes): gsf: frame at byte 85 (length 21): unexpected EOF",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// TestProxyEndlessFrame: a client announces the largest frame and sends 64 MiB of it; the
// proxy forwards every byte, reports the frame once, and allocates far less than it forwards.
func TestProxyEndlessFrame(t *testing.T) {
	up, received := sink(t)
	addr, stop := runProxy(t, up, 0)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	const total = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	go func() {
		c.Write([]byte{0xff, 0xff, 0xff, 0x7f})
		chunk := bytes.Repeat([]byte{0xab}, 64<<10)
		for n := 4; n < total; n += len(chunk) {
			if _, err := c.Write(chunk[:min(len(chunk), total-n)]); err != nil {
				return
			}
		}
		c.(*net.TCPConn).CloseWrite()
	}()
	_, n := received()
	runtime.ReadMemStats(&after)
	c.Close()
	if n != total {
		t.Fatalf("the upstream received %d bytes, want %d", n, total)
	}
	// The sink keeps 1 MiB; the proxy and the Tap must not allocate for the frame.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("allocated %d MiB to forward %d MiB", alloc>>20, total>>20)
	}
	out, pr := stop(1)
	if pr.Problems != 1 || pr.Frames != 0 || !strings.Contains(out, "frame too large: 268435455 bytes") {
		t.Errorf("%d problems, %d frames:\n%s", pr.Problems, pr.Frames, out)
	}
}
