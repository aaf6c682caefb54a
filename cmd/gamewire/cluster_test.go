package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestClusterProcesses is the README's cluster walk-through as a real deployment: Debian's
// nats-server binary in its own process, two "gamewire serve --cluster" processes, a client on
// each, and a room's chat line crossing from one node to the other.
func TestClusterProcesses(t *testing.T) {
	natsBin, err := exec.LookPath("nats-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nats-server is not installed (apt-get install nats-server); CI must run this test")
		}
		t.Skip("nats-server is not installed (apt-get install nats-server); skipping the multi-process cluster test")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gamewire")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	port := freePort(t)
	nats := startProc(ctx, t, "nats", natsBin, "-a", "127.0.0.1", "-p", fmt.Sprint(port))
	nats.waitFor(t, regexp.MustCompile(`Server is ready`))
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)

	listening := regexp.MustCompile(`listening" addr=(\S+)`)
	a := startProc(ctx, t, "node a", bin, "serve", "--addr", "127.0.0.1:0", "--cluster", url, "--node", "a")
	addrA := a.waitFor(t, listening)[1]
	b := startProc(ctx, t, "node b", bin, "serve", "--addr", "127.0.0.1:0", "--cluster", url, "--node", "b")
	addrB := b.waitFor(t, listening)[1]

	// bob on node b joins the lobby and waits for chat lines.
	bob := startProc(ctx, t, "bob", bin, "call", "--addr", addrB, "--class", "SYNC_SERVER", "--type", "BIND_USER_NOTIFY",
		"--values", `["bob","lobby"]`, "--wait", "20s")
	bob.waitFor(t, regexp.MustCompile(`← notify|result|header`))
	// Node a learns of it through NATS.
	a.waitFor(t, regexp.MustCompile(`event=GroupJoin node=b session=\d+ user=bob group=lobby`))

	// ann on node a says something in the lobby: no member on a, bob on b gets it.
	out, errOut, code := runBin(ctx, t, bin, "call", "--addr", addrA, "--class", "SYNC_SERVER", "--type", "CHAT",
		"--values", `["lobby","hello from a"]`)
	if code != 0 {
		t.Fatalf("call CHAT: exit %d\n%s\n%s", code, out, errOut)
	}
	if !regexp.MustCompile(`delivered\s+int32\s+0`).MatchString(out) {
		t.Errorf("node a delivered the line to local sessions; output:\n%s", out)
	}
	// The game's own CLIENT/CHAT notify (the catalog's ChatNotify); ann has no user key.
	bob.waitFor(t, regexp.MustCompile(`ChatNotify[^\n]*\n\s+Msg\s+string\s+"hello from a"`))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func runBin(ctx context.Context, t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// proc is a process whose combined output a test watches.
type proc struct {
	name string
	mu   sync.Mutex
	out  strings.Builder
	wake chan struct{}
}

func startProc(ctx context.Context, t *testing.T, name, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, wake: make(chan struct{}, 1)}
	cmd := exec.CommandContext(ctx, bin, args...)
	r, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.wake <- struct{}{}:
			default:
			}
		}
	}()
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		w.Close()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("output of %s:\n%s", name, p.output())
		}
	})
	return p
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits until the output matches re and returns the submatches.
func (p *proc) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if m := re.FindStringSubmatch(p.output()); m != nil {
			return m
		}
		select {
		case <-p.wake: // output arrived (wake holds one signal, so none is lost)
		case <-deadline:
			t.Fatalf("%s: no %q in its output:\n%s", p.name, re, p.output())
		}
	}
}
