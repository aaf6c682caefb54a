//go:build unix

package natscluster_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/gsfnet/natscluster"
)

// startNATSProcess runs the real nats-server binary as a child process on a free loopback
// port and returns its URL and process. It skips without nats-server (fails under CI=true).
func startNATSProcess(t *testing.T) (string, *os.Process) {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nats-server is not installed (apt-get install nats-server)")
		}
		t.Skip("nats-server is not installed: skipping the stalled-server test (apt-get install nats-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	var logMu sync.Mutex
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			logMu.Lock()
			log.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if !said && strings.Contains(sc.Text(), "Server is ready") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
	})
	select {
	case ok := <-ready:
		if !ok {
			logMu.Lock()
			defer logMu.Unlock()
			t.Fatalf("nats-server did not start:\n%s", log.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nats-server did not say it is ready in 10 s")
	}
	return fmt.Sprintf("nats://127.0.0.1:%d", port), cmd.Process
}

// stamped is a chat notify a player got, with when.
type stamped struct {
	text string
	at   time.Time
}

// TestStalledNATS stops the real nats-server with SIGSTOP (its connections stay open: nothing
// fails, the bytes just wait) for 3 s while a player on node a says something to a room every
// millisecond. Once the node has noticed the stall (within StallTimeout and a ping interval),
// every notify returns ErrDisconnected; and after SIGCONT, the player on node b gets none of
// the notifies that were held up: nothing is delivered later than DeliveryTimeout.
func TestStalledNATS(t *testing.T) {
	url, proc := startNATSProcess(t)
	// Short timings, so that the test notices the stall soon; only this test's nodes have them
	// (a loaded machine can make an ordinary ping slower than 200 ms).
	short := func(o *natscluster.Options) { o.StallTimeout, o.DeliveryTimeout = stallTimeout, deliveryTimeout }
	a, b := startNode(t, url, "a", short), startNode(t, url, "b", short)
	ann := connect(t, a, "ann")
	var mu sync.Mutex
	var got []stamped
	arrived := make(chan string, 100000)
	bob, err := gsfnet.Dial(context.Background(), b.addr, &gsfnet.ClientOptions{NotifyHandler: func(m *gsf.Message) {
		var s Say
		if m.Header.MsgType != msgChatEvent || m.DecodeBody(&s) != nil {
			return
		}
		mu.Lock()
		got = append(got, stamped{s.Text, time.Now()})
		mu.Unlock()
		arrived <- s.Text
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close()
	call := func(c *gsfnet.Client, msgType int32, req any) int32 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var resp Count
		if err := c.Call(ctx, gsf.SvcUserServer, msgType, req, &resp); err != nil {
			t.Fatalf("call %d: %v", msgType, err)
		}
		return resp.N
	}
	call(bob, msgLogin, &Login{User: "bob"})
	ann.call(t, msgJoin, &Room{Name: "r"})
	call(bob, msgJoin, &Room{Name: "r"})
	syncAll(t, a, b)
	allSee(t, []*testNode{a, b}, "r", "a/ann,b/bob")
	ann.call(t, msgSay, &Say{Room: "r", Text: "before"})
	if txt := <-arrived; txt != "before" {
		t.Fatalf("bob got %q", txt)
	}

	const stall = 3 * time.Second
	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	var ok, disconnected, okAfterDetect int
	detectBy := stopped.Add(stallTimeout + stallTimeout/2 + 100*time.Millisecond)
	for time.Since(stopped) < stall {
		sent := time.Now()
		n := ann.call(t, msgSay, &Say{Room: "r", Text: strconv.FormatInt(sent.UnixNano(), 10)})
		<-ann.got // ann is in the room too
		switch {
		case n < 0:
			disconnected++
		case sent.After(detectBy):
			okAfterDetect++
		default:
			ok++
		}
		time.Sleep(time.Millisecond) // the pace of a chatty game, not a wait for a condition
	}
	if err := proc.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	if disconnected == 0 || okAfterDetect > 0 {
		t.Errorf("during the stall: %d notifies OK before the stall was noticed, %d OK after %v, %d ErrDisconnected",
			ok, okAfterDetect, detectBy.Sub(stopped), disconnected)
	}
	// After SIGCONT: the connection works again, and what was held up arrives (or not) first.
	eventually(t, "notify after the stall", func() string {
		if n := ann.call(t, msgSay, &Say{Room: "r", Text: "after"}); n < 1 {
			return fmt.Sprintf("count %d", n)
		}
		return ""
	})
	for txt := range arrived {
		if txt == "after" {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	late := 0
	var worst time.Duration
	for _, s := range got {
		ns, err := strconv.ParseInt(s.text, 10, 64)
		if err != nil {
			continue // before, after
		}
		if d := s.at.Sub(time.Unix(0, ns)); d > deliveryTimeout {
			late++
			worst = max(worst, d)
		}
	}
	if late > 0 {
		t.Errorf("%d notifies delivered late (worst %v after they were sent; DeliveryTimeout %v)", late, worst, deliveryTimeout)
	}
	t.Logf("stall of %v: %d notifies OK before it was noticed, %d ErrDisconnected; %d delivered to bob in all, %d late; resumed in %v",
		stall, ok, disconnected, len(got), late, time.Since(resumed).Round(time.Millisecond))
}

// The stall timings of the test nodes.
const (
	stallTimeout    = 200 * time.Millisecond
	deliveryTimeout = 500 * time.Millisecond
)
