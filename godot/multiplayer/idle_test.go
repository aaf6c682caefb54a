package multiplayer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// upgradeRaw opens a TCP connection from local (nil for any) to the server at url, completes
// the WebSocket upgrade by hand and returns the connection, positioned after the response
// headers, for tests that send frames no well-behaved client sends.
func upgradeRaw(t testing.TB, url string, local net.Addr) (net.Conn, *bufio.Reader, error) {
	t.Helper()
	host := strings.TrimPrefix(url, "ws://")
	host, path, _ := strings.Cut(host, "/")
	d := net.Dialer{LocalAddr: local, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", host)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(c, "GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", path, host)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		c.Close()
		return nil, nil, fmt.Errorf("status %s", resp.Status)
	}
	return c, br, nil
}

// frame returns a masked client frame.
func frame(fin bool, opcode byte, payload []byte) []byte {
	b0 := opcode
	if fin {
		b0 |= 0x80
	}
	if len(payload) > 125 {
		panic("test frames are small")
	}
	f := []byte{b0, 0x80 | byte(len(payload)), 1, 2, 3, 4}
	for i, c := range payload {
		f = append(f, c^f[2+i%4])
	}
	return f
}

// closedWithin reports whether the server closes c (a read returns an error, EOF or reset)
// within d; it discards what the server sends.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestIdleConnsPerIP (issue 21 item 2): 4 200 upgraded connections from one address that never
// send do not keep a peer from another address out.
func TestIdleConnsPerIP(t *testing.T) {
	s := &Server{}
	url := testServer(t, s)
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}
	var held, refused atomic.Int64
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range 16 {
		wg.Go(func() {
			for range work {
				c, _, err := upgradeRaw(t, url, local)
				if err != nil {
					refused.Add(1)
					continue
				}
				held.Add(1)
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		})
	}
	for range 4200 {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	if held.Load() != DefaultMaxConnsPerIP {
		t.Errorf("%d connections from one address held, %d refused; want %d held", held.Load(), refused.Load(), DefaultMaxConnsPerIP)
	}
	other := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: other}).DialContext}}
	c, err := Dial(ctx, url, &ClientOptions{HTTPClient: hc})
	if err != nil {
		t.Fatalf("a peer from 127.0.0.2 is locked out: %v", err)
	}
	c.Close(ctx)
}

// TestPingTimeout (issue 21 item 2): an upgraded connection that does not answer pings is
// closed after PingInterval + PingTimeout; a client that answers stays.
func TestPingTimeout(t *testing.T) {
	gone := make(chan int32, 2)
	s := &Server{PingInterval: 100 * time.Millisecond, PingTimeout: 100 * time.Millisecond,
		OnDisconnect: func(p *Peer) { gone <- p.ID() }}
	url := testServer(t, s)
	c, _, err := upgradeRaw(t, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	good := dial(t, url, nil) // answers pings: coder/websocket does, as wslay and browsers do
	if !closedWithin(c, 5*time.Second) {
		t.Fatal("a connection that answers no ping is still open after 5 s")
	}
	wait(t, gone)
	select {
	case <-good.Done():
		t.Fatal("the client that answers pings was dropped")
	case <-time.After(500 * time.Millisecond): // five more ping rounds
	}
}

// TestHandshakeTimeout (issue 21 item 2): Serve closes a TCP connection that has not sent its
// upgrade request within HandshakeTimeout.
func TestHandshakeTimeout(t *testing.T) {
	s := &Server{HandshakeTimeout: 200 * time.Millisecond}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\n") // and nothing more
	if !closedWithin(c, 5*time.Second) {
		t.Fatal("a connection without an upgrade request is still open after 5 s")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrServerClosed) {
		t.Fatal(err)
	}
}

// TestFragmentDeadline (issue 21 item 4): a message whose fragments trickle in (one empty
// continuation frame every 50 ms) is cut off at ReadTimeout.
func TestFragmentDeadline(t *testing.T) {
	s := &Server{ReadTimeout: 300 * time.Millisecond, PingInterval: NoLimit}
	url := testServer(t, s)
	c, _, err := upgradeRaw(t, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	closed := make(chan bool, 1)
	go func() { closed <- closedWithin(c, 5*time.Second) }()
	c.Write(frame(false, 2, []byte{byte(CmdRaw)}))
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case ok := <-closed:
			if !ok {
				t.Fatal("a message still unfinished after 5 s is still being read")
			}
			return
		case <-tick.C:
			c.Write(frame(false, 0, nil))
		}
	}
}

// TestFragmentBudget (issue 21 item 4): endless empty continuation frames sent as fast as
// possible are cut off by the message's byte budget, long before ReadTimeout.
func TestFragmentBudget(t *testing.T) {
	s := &Server{ReadTimeout: time.Minute, PingInterval: NoLimit}
	url := testServer(t, s)
	c, _, err := upgradeRaw(t, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(frame(false, 2, []byte{byte(CmdRaw)}))
	empty := make([]byte, 0, 6*1024)
	for range 1024 {
		empty = append(empty, frame(false, 0, nil)...)
	}
	sent := 0
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	for sent < 64<<20 {
		n, err := c.Write(empty)
		sent += n
		if err != nil {
			break
		}
	}
	if sent >= 64<<20 {
		t.Fatalf("%d bytes of empty continuation frames accepted", sent)
	}
	if !closedWithin(c, 5*time.Second) {
		t.Fatal("still open")
	}
	t.Logf("closed after %d bytes of empty continuation frames", sent)
}

// TestAcceptRate (issue 21 item 3): upgrades beyond AcceptRate wait for their turn; none is
// lost.
func TestAcceptRate(t *testing.T) {
	const rate, burst, peers = 20, 5, 15
	s := &Server{AcceptRate: rate, AcceptBurst: burst}
	url := testServer(t, s)
	start := time.Now()
	for range peers {
		dial(t, url, nil)
	}
	if min := time.Duration(peers-burst) * time.Second / rate; time.Since(start) < min*9/10 {
		t.Fatalf("%d upgrades in %v; the rate allows them in %v at the earliest", peers, time.Since(start), min)
	}
	if n := len(s.Peers()); n != peers {
		t.Fatalf("%d peers", n)
	}
}

// TestVarServerConnsPerIP: a VarServer bounds the connections from one address too.
func TestVarServerConnsPerIP(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	s := &VarServer{MaxConnsPerIP: 2, Handler: func(ctx context.Context, c *VarConn) { <-hold }}
	hs := httptest.NewServer(s)
	defer hs.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}
	for i := range 3 {
		c, _, err := upgradeRaw(t, url, local)
		if i < 2 {
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			defer c.Close()
		} else if err == nil {
			c.Close()
			t.Fatal("a third connection from one address was accepted")
		}
	}
	c, _, err := upgradeRaw(t, url, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)})
	if err != nil {
		t.Fatalf("another address: %v", err)
	}
	c.Close()
}

// TestClientPingTimeout: a Go client leaves a server that stops answering pings (it upgraded
// and then read nothing) after PingInterval + PingTimeout.
func TestClientPingTimeout(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		var id [4]byte
		id[0] = 5
		c.Write(ctx, websocket.MessageBinary, id[:]) // the peer id, then silence
		<-hold
	}))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), &ClientOptions{PingInterval: 100 * time.Millisecond, PingTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("the client still waits on a server that answers no ping")
	}
}
