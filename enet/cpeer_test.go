package enet

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/internal/harness/cenet"
)

func TestMain(m *testing.M) {
	code := m.Run()
	cenet.RemoveAll()
	os.Exit(code)
}

// needCPeer returns the path of the C peer (testdata/cpeer.c over Debian's libenet-dev 1.3.17),
// built once per test run, or skips the test (fails it under CI=true) when gcc or libenet-dev
// are missing.
func needCPeer(t testing.TB) string {
	t.Helper()
	return cenet.Build(t, "testdata/cpeer.c")
}

// cpeer is a running C ENet peer.
type cpeer struct {
	t     testing.TB
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

func startCPeer(t testing.TB, args ...string) *cpeer {
	t.Helper()
	path := needCPeer(t)
	cmd := exec.Command(path, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &cpeer{t: t, cmd: cmd, in: in, lines: make(chan string, 100000)}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			c.lines <- s.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return c
}

func (c *cpeer) do(format string, args ...any) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.in, format+"\n", args...); err != nil {
		c.t.Fatalf("C peer: %v", err)
	}
}

// expect returns the next line that starts with prefix, skipping "sent" lines, and fails on any
// other line.
func (c *cpeer) expect(prefix string) string {
	c.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("C peer exited while waiting for %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
			if l == "sent" {
				continue
			}
			c.t.Fatalf("C peer: got %q, want %q…", l, prefix)
		case <-timeout:
			c.t.Fatalf("C peer: no %q within 20 s", prefix)
		}
	}
}

func (c *cpeer) kill() {
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

func fnvHash(b []byte) string {
	h := fnv.New32a()
	h.Write(b)
	return fmt.Sprintf("%08x", h.Sum32())
}

// cases are the packets every real-peer test sends: every kind on every channel, fragments of
// several hundred KB, unreliable fragments, an empty packet.
var cases = []struct {
	ch    uint8
	n     int
	flags Flags
}{
	{0, 12, Reliable}, {1, 12, Reliable}, {2, 12, Reliable}, {3, 12, Reliable},
	{0, 40, 0}, {1, 40, 0}, {2, 40, 0}, {3, 40, 0},
	{0, 33, Unsequenced}, {1, 33, Unsequenced}, {2, 33, Unsequenced}, {3, 33, Unsequenced},
	{0, 0, Reliable}, {1, 1372, Reliable}, {2, 1373, Reliable},
	{3, 400_000, Reliable}, {0, 250_001, Reliable},
	{1, 6000, UnreliableFragment}, {2, 20_000, UnreliableFragment},
	{3, 3000, 0}, // unreliable but too large: sent as reliable fragments, as C ENet does
}

func caseFlagsReceived(f Flags, n, mtu int) Flags {
	if n > mtu-28 && f&UnreliableFragment == 0 {
		return Reliable // fragments of a packet without UnreliableFragment are reliable
	}
	return f
}

// TestCClientGoServer: C ENet connects to a Go host and sends every kind of packet; the Go host
// echoes each; both sides see the same bytes, channel and flags; the C client disconnects.
func TestCClientGoServer(t *testing.T) {
	needCPeer(t)
	ctx := testCtx(t)
	srv, err := Listen("udp4", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	port := srv.LocalAddr().(interface{ String() string }).String()
	_, portStr, _ := strings.Cut(port, ":")
	c := startCPeer(t, "client", "127.0.0.1", portStr, "-channels", "4", "-data", "12648430")
	p, err := srv.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.expect("connect")
	if p.ConnectData() != 12648430 || p.Channels() != 4 {
		t.Fatalf("connect data %d, channels %d", p.ConnectData(), p.Channels())
	}
	for i, k := range cases {
		c.do("send %d %d %d %d", k.ch, k.flags, k.n, i)
		pk, err := p.Receive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := payload(k.n, i)
		wf := caseFlagsReceived(k.flags, k.n, DefaultMTU)
		if pk.Channel != k.ch || pk.Flags != wf || fnvHash(pk.Data) != fnvHash(want) {
			t.Fatalf("case %d: Go got ch %d %v %d bytes, want ch %d %v %d bytes", i, pk.Channel, pk.Flags, len(pk.Data), k.ch, wf, k.n)
		}
		if err := p.Send(pk.Channel, pk.Data, pk.Flags); err != nil {
			t.Fatal(err)
		}
		got := c.expect("recv")
		if w := fmt.Sprintf("recv %d %d %d %s", k.ch, wf, k.n, fnvHash(want)); got != w {
			t.Fatalf("case %d: C got %q, want %q", i, got, w)
		}
	}
	c.do("disconnect 77")
	c.expect("disconnect 0")
	_, err = p.Receive(ctx)
	var de *DisconnectError
	if !asErr(err, &de) || de.Data != 77 || de.Local {
		t.Fatalf("Go peer after C disconnect: %v", err)
	}
}

// TestGoClientCServer: a Go client connects to C ENet and sends every kind of packet; the C host
// echoes each; the Go client disconnects.
func TestGoClientCServer(t *testing.T) {
	ctx := testCtx(t)
	c := startCPeer(t, "server", "0", "-echo", "-channels", "4")
	port := strings.TrimPrefix(c.expect("listening"), "listening ")
	p, err := Dial(ctx, "udp", "127.0.0.1:"+port, &DialOptions{Channels: 4, Data: 0xBEEF})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.expect("connect"); !strings.HasSuffix(got, fmt.Sprint(0xBEEF)) {
		t.Fatalf("C server: %q", got)
	}
	for i, k := range cases {
		want := payload(k.n, i)
		if err := p.Send(k.ch, want, k.flags); err != nil {
			t.Fatal(err)
		}
		wf := caseFlagsReceived(k.flags, k.n, DefaultMTU)
		if got, w := c.expect("recv"), fmt.Sprintf("recv %d %d %d %s", k.ch, wf, k.n, fnvHash(want)); got != w {
			t.Fatalf("case %d: C got %q, want %q", i, got, w)
		}
		pk, err := p.Receive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if pk.Channel != k.ch || pk.Flags != wf || fnvHash(pk.Data) != fnvHash(want) {
			t.Fatalf("case %d: Go got ch %d %v %d bytes, want ch %d %v %d bytes", i, pk.Channel, pk.Flags, len(pk.Data), k.ch, wf, k.n)
		}
	}
	if err := p.Disconnect(99); err != nil {
		t.Fatal(err)
	}
	c.expect("disconnect 99")
	select {
	case <-p.Done():
	case <-ctx.Done():
		t.Fatal("Go peer not gone after its DISCONNECT was acknowledged")
	}
	p.Host().Close()
}

// TestCServerDisconnectsGoClient: the C host disconnects the Go client (graceful, and at once).
func TestCServerDisconnectsGoClient(t *testing.T) {
	ctx := testCtx(t)
	for _, how := range []string{"disconnect", "later", "now"} {
		c := startCPeer(t, "server", "0", "-channels", "2")
		port := strings.TrimPrefix(c.expect("listening"), "listening ")
		p, err := Dial(ctx, "udp", "127.0.0.1:"+port, &DialOptions{Channels: 2})
		if err != nil {
			t.Fatal(err)
		}
		c.expect("connect")
		c.do("send 1 1 5000 3")
		c.do("%s 42", how)
		pk, err := p.Receive(ctx)
		if how != "now" && how != "disconnect" {
			if err != nil || len(pk.Data) != 5000 {
				t.Fatalf("%s: want the packet sent before the disconnect: %v", how, err)
			}
			pk, err = p.Receive(ctx)
		}
		for err == nil && len(pk.Data) == 5000 {
			pk, err = p.Receive(ctx)
		}
		var de *DisconnectError
		if !asErr(err, &de) || de.Data != 42 {
			t.Fatalf("%s: Go client got %v", how, err)
		}
		if how != "now" {
			c.expect("disconnect 0") // C ENet reports its own disconnect with data 0
		}
		p.Host().Close()
	}
}

// TestGoServerDisconnectsCClient: the Go host disconnects a C client (graceful, later, at once).
func TestGoServerDisconnectsCClient(t *testing.T) {
	ctx := testCtx(t)
	srv, err := Listen("udp4", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, port, _ := strings.Cut(srv.LocalAddr().String(), ":")
	for _, how := range []string{"disconnect", "later", "now"} {
		c := startCPeer(t, "client", "127.0.0.1", port, "-channels", "2")
		p, err := srv.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c.expect("connect")
		if err := p.Send(1, payload(5000, 1), Reliable); err != nil {
			t.Fatal(err)
		}
		switch how {
		case "disconnect":
			c.expect("recv")
			p.Disconnect(43)
		case "later":
			p.DisconnectLater(43)
			c.expect("recv 1 1 5000")
		case "now":
			c.expect("recv")
			p.DisconnectNow(43)
		}
		c.expect("disconnect 43")
		<-p.Done()
	}
}

// TestTimeoutBothWays: a peer that vanishes is dropped after the timeout, on both sides.
func TestTimeoutBothWays(t *testing.T) {
	ctx := testCtx(t)
	opts := &HostOptions{MinimumTimeout: 300 * time.Millisecond, MaximumTimeout: 1500 * time.Millisecond, PingInterval: 100 * time.Millisecond}
	srv, err := Listen("udp4", "127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, port, _ := strings.Cut(srv.LocalAddr().String(), ":")
	c := startCPeer(t, "client", "127.0.0.1", port, "-channels", "1")
	p, err := srv.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.expect("connect")
	c.kill()
	start := time.Now()
	_, err = p.Receive(ctx)
	if !isErr(err, ErrTimeout) || !isErr(err, ErrDisconnected) {
		t.Fatalf("Go server after the C client died: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("timeout after %v", d)
	}

	c2 := startCPeer(t, "server", "0", "-channels", "1", "-timeout", "4", "200", "1000")
	port2 := strings.TrimPrefix(c2.expect("listening"), "listening ")
	q, err := Dial(ctx, "udp", "127.0.0.1:"+port2, &DialOptions{HostOptions: *opts, Channels: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Host().Close()
	c2.expect("connect")
	c2.kill()
	_, err = q.Receive(ctx)
	if !isErr(err, ErrTimeout) {
		t.Fatalf("Go client after the C server died: %v", err)
	}
}

// TestConnectTimeout: connecting to a port nobody answers on times out with ErrTimeout.
func TestConnectTimeout(t *testing.T) {
	ctx := testCtx(t)
	l, err := Listen("udp4", "127.0.0.1:0", nil) // a host that is closed at once: its port is dead
	if err != nil {
		t.Fatal(err)
	}
	addr := l.LocalAddr().String()
	l.Close()
	_, err = Dial(ctx, "udp", addr, &DialOptions{HostOptions: HostOptions{MinimumTimeout: 200 * time.Millisecond, MaximumTimeout: 800 * time.Millisecond}})
	if !isErr(err, ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
	ctx2, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = Dial(ctx2, "udp", addr, nil)
	if !isErr(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's error", err)
	}
}
