package multiplayer

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/internal/harness/cenet"
)

// needCClient builds testdata/enetmp.c against C ENet (libenet-dev), or skips the test (fails
// it under CI=true) when gcc or libenet-dev are missing.
func needCClient(t *testing.T) string {
	t.Helper()
	return cenet.Build(t, "testdata/enetmp.c")
}

// cClient is a running testdata/enetmp.
type cClient struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

func startCClient(t *testing.T, addr string, id uint32) *cClient {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(needCClient(t), host, port, fmt.Sprint(id), "255")
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
	c := &cClient{cmd: cmd, in: in, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<18)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		fmt.Fprintln(in, "quit")
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	if l := c.next(t); l != "connected" {
		t.Fatalf("C client: %q", l)
	}
	return c
}

func (c *cClient) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			t.Fatal("the C client ended")
		}
		return l
	case <-time.After(5 * time.Second):
		t.Fatal("the C client received nothing")
		return ""
	}
}

func (c *cClient) send(ch, flags int, pkt []byte) {
	fmt.Fprintf(c.in, "send %d %d %s\n", ch, flags, hex.EncodeToString(pkt))
}

// recvLine is what the C client prints for a packet: channel, C ENet's flags and the bytes.
func recvLine(ch, flags int, pkt []byte) string {
	return fmt.Sprintf("recv %d %d %s", ch, flags, hex.EncodeToString(pkt))
}

// TestENetCClients (issue 23 §3): two C ENet 1.3.17 clients that speak ENetMultiplayerPeer's
// channel map against the Go server: each is told of the other with ADD_PEER (reliable, channel
// 0), one calls the server by path (reliable, channel 0) and gets CONFIRM_PATH, relays a RAW
// packet to the other unreliably on channel 1 (it arrives as the server received it: RELAY from
// the sender, unsequenced, channel 1), and the server calls an unreliable RPC on it (channel 1,
// unsequenced). Bytes, channels and flags are asserted.
func TestENetCClients(t *testing.T) {
	const idA, idB = 1001, 1002
	called := make(chan string, 2)
	n := MustNode("Main",
		RPC{Name: "hello", Mode: ModeAnyPeer, Handler: func(p *Peer, s string) { called <- fmt.Sprint(p.ID(), " ", s) }},
		RPC{Name: "tick", Transfer: TransferUnreliable},
	)
	connected := make(chan int32, 2)
	s := &Server{Nodes: []*Node{n}, OnConnect: func(p *Peer) { connected <- p.ID() },
		OnError: func(p *Peer, err error) { t.Errorf("peer %d: %v", p.ID(), err) }}
	addr := enetServer(t, s)
	const reliable, unsequenced = 1, 2

	a := startCClient(t, addr, idA)
	wait(t, connected)
	b := startCClient(t, addr, idB)
	wait(t, connected)
	if l, want := a.next(t), recvLine(0, reliable, AppendSys(nil, SysAddPeer, idB, nil)); l != want {
		t.Fatalf("A: %s, want %s", l, want)
	}
	if l, want := b.next(t), recvLine(0, reliable, AppendSys(nil, SysAddPeer, idA, nil)); l != want {
		t.Fatalf("B: %s, want %s", l, want)
	}

	a.send(0, reliable, AppendSimplifyPath(nil, n.checksum, 1, "Main"))
	a.send(0, reliable, mustRC(AppendRemoteCall(nil, 1, false, 0, "", []any{"from C"})))
	if l, want := a.next(t), recvLine(0, reliable, AppendConfirmPath(nil, true, 1)); l != want {
		t.Fatalf("A: %s, want %s", l, want)
	}
	if got := wait(t, called); got != fmt.Sprint(idA, " from C") {
		t.Fatal(got)
	}

	a.send(1, unsequenced, AppendSys(nil, SysRelay, idB, AppendRaw(nil, []byte("hi B"))))
	if l, want := b.next(t), recvLine(1, unsequenced, AppendSys(nil, SysRelay, idA, AppendRaw(nil, []byte("hi B")))); l != want {
		t.Fatalf("B: %s, want %s", l, want)
	}

	if err := s.RPCID(idA, n, "tick"); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for range 2 { // SIMPLIFY_PATH (reliable) and the call (unreliable) may come in either order
		lines = append(lines, a.next(t))
	}
	want := []string{
		recvLine(0, reliable, AppendSimplifyPath(nil, n.checksum, 1, "Main")),
		recvLine(1, unsequenced, mustRC(AppendRemoteCall(nil, 0, true, 1, "Main", nil))), // by path: not confirmed yet
	}
	for _, w := range want {
		if !strings.Contains(strings.Join(lines, "\n"), w) {
			t.Errorf("A got\n%s\nwant a line\n%s", strings.Join(lines, "\n"), w)
		}
	}
}
