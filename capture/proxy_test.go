package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// startProxy runs a Proxy to upstream on a free loopback port and returns its address, the
// events it reported (per connection and direction, the bytes) and a stop function.
func startProxy(t *testing.T, upstream string) (string, *tapped, func() error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tp := &tapped{data: map[string]*bytes.Buffer{}}
	p := &Proxy{Upstream: upstream, Handler: tp.handle}
	done := make(chan error, 1)
	go func() { done <- p.Serve(l) }()
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		if err := p.Close(); err != nil {
			return err
		}
		select {
		case err := <-done:
			if !errors.Is(err, ErrServerClosed) {
				return fmt.Errorf("Serve returned %v, want ErrServerClosed", err)
			}
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("Serve does not return")
		}
	}
	t.Cleanup(func() { _ = stop() })
	return l.Addr().String(), tp, stop
}

type tapped struct {
	mu     sync.Mutex
	data   map[string]*bytes.Buffer
	opens  int
	closes []error
	busy   bool
}

func (tp *tapped) handle(ev *Event) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if tp.busy {
		panic("concurrent Handler calls")
	}
	tp.busy = true
	defer func() { tp.busy = false }()
	switch ev.Kind {
	case EventOpen:
		tp.opens++
	case EventClose:
		tp.closes = append(tp.closes, ev.Err)
	case EventData:
		key := fmt.Sprintf("%d %s", ev.Conn.ID, ev.Dir)
		if tp.data[key] == nil {
			tp.data[key] = new(bytes.Buffer)
		}
		if int64(tp.data[key].Len()) != ev.Offset {
			panic("offset")
		}
		tp.data[key].Write(ev.Data)
	}
}

// echoUpstream answers every connection with a greeting and then its input reversed in
// blocks, so that both directions carry different bytes; it records what it received.
func echoUpstream(t *testing.T) (string, func(i int) []byte) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var mu sync.Mutex
	var got [][]byte
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			got = append(got, nil)
			i := len(got) - 1
			mu.Unlock()
			go func() {
				defer c.Close()
				c.Write([]byte("hello\x00"))
				buf := make([]byte, 1000)
				for {
					n, err := c.Read(buf)
					mu.Lock()
					got[i] = append(got[i], buf[:n]...)
					mu.Unlock()
					out := bytes.Clone(buf[:n])
					for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
						out[a], out[b] = out[b], out[a]
					}
					if _, werr := c.Write(out); werr != nil || err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String(), func(i int) []byte {
		mu.Lock()
		defer mu.Unlock()
		return got[i]
	}
}

// TestProxyForwardsUnchanged: many clients at once through the proxy; each side receives
// exactly what the other sent, and the Handler saw the same bytes.
func TestProxyForwardsUnchanged(t *testing.T) {
	up, _ := echoUpstream(t)
	addr, tp, stop := startProxy(t, up)
	const clients = 20
	var wg sync.WaitGroup
	sent := make([][]byte, clients)
	received := make([][]byte, clients)
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			data := testPayload(20000+i*100, uint64(i))
			sent[i] = data
			go func() {
				// Writes of every size, so that reads split and join them.
				for off, n := 0, 1; off < len(data); off, n = off+n, n%700+1 {
					if _, err := c.Write(data[off:min(off+n, len(data))]); err != nil {
						return
					}
				}
				c.(*net.TCPConn).CloseWrite()
			}()
			received[i], err = io.ReadAll(c)
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if tp.opens != clients || len(tp.closes) != clients {
		t.Fatalf("%d opens, %d closes", tp.opens, len(tp.closes))
	}
	// Match each client with its connection by the bytes the tap saw.
	for i := range clients {
		found := false
		for id := 1; id <= clients; id++ {
			c2s := tp.data[fmt.Sprintf("%d %s", id, ClientToServer)]
			if c2s == nil || !bytes.Equal(c2s.Bytes(), sent[i]) {
				continue
			}
			found = true
			s2c := tp.data[fmt.Sprintf("%d %s", id, ServerToClient)]
			if s2c == nil || !bytes.Equal(s2c.Bytes(), received[i]) {
				t.Errorf("client %d: the tap saw other server bytes than the client received", i)
			}
		}
		if !found {
			t.Errorf("client %d: the tap did not see its bytes", i)
		}
		// The upstream's answer: the greeting and the input reversed block by block, as
		// many bytes as were sent.
		if len(received[i]) != len("hello\x00")+len(sent[i]) || !bytes.HasPrefix(received[i], []byte("hello\x00")) {
			t.Errorf("client %d: received %d bytes, sent %d", i, len(received[i]), len(sent[i]))
		}
	}
}

// TestProxyUpstreamDown: a client whose upstream cannot be reached is closed, and the
// Handler hears why.
func TestProxyUpstreamDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	addr, tp, stop := startProxy(t, dead)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("read %d, %v", n, err)
	}
	c.Close()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if len(tp.closes) != 1 || tp.closes[0] == nil {
		t.Fatalf("closes %v", tp.closes)
	}
}

// TestProxyStop: Close closes the connections in flight, reports their last events before it
// returns, and Serve returns ErrServerClosed.
func TestProxyStop(t *testing.T) {
	up, _ := echoUpstream(t)
	addr, tp, stop := startProxy(t, up)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.ReadFull(c, make([]byte, 6)); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("the connection is still open")
	}
	if tp.opens != 1 || len(tp.closes) != 1 || tp.closes[0] != nil {
		t.Fatalf("opens %d, closes %v", tp.opens, tp.closes)
	}
}
