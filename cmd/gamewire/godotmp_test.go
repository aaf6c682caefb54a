package main

import (
	"bytes"
	"context"
	"github.com/gamewire/gamewire/explain"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot/multiplayer"
)

// "godot mp serve --trace" serves the lobby; a Go client joins and chats; "godot mp decode" and
// "godot mp explain" read the trace back.
func TestGodotMPServeTraceDecode(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	m := startMPServe(t, "godot", "mp", "serve", "--addr", "127.0.0.1:0", "--trace", trace)
	lobbyChat(t, func(o *multiplayer.ClientOptions) (*multiplayer.Client, error) {
		return multiplayer.Dial(context.Background(), "ws://"+m.addr, o)
	}, "hello")
	m.stop(t)

	var dec, errb bytes.Buffer
	if st := run([]string{"godot", "mp", "decode", trace}, nil, &dec, &errb); st != 0 {
		t.Fatalf("decode exit %d: %s", st, errb.String())
	}
	for _, want := range []string{
		`{"dir":"id","peer":`, `"packet":{"command":"SIMPLIFY_PATH","checksum":"`, `"path":"Lobby"}`,
		`"packet":{"command":"REMOTE_CALL","path":"Lobby","method_id":0,"args":[{"type":"String","value":"gopher"}]}`,
		`{"type":"String","value":"hello"}`,
	} {
		if !strings.Contains(dec.String(), want) {
			t.Errorf("decode output lacks %s:\n%s", want, dec.String())
		}
	}
	var ex bytes.Buffer
	if st := run([]string{"godot", "mp", "explain", trace}, nil, &ex, &errb); st != 0 {
		t.Fatalf("explain exit %d: %s", st, errb.String())
	}
	for _, want := range []string{"packet 2 (in, peer", "peer-id message", "SIMPLIFY_PATH", `node path: "Lobby"`, "argument count: 1"} {
		if !strings.Contains(ex.String(), want) {
			t.Errorf("explain output lacks %q:\n%s", want, ex.String())
		}
	}
	// --json: one frame a line, the trace's direction and peer in its context.
	ex.Reset()
	if st := run([]string{"godot", "mp", "explain", "--json", trace}, nil, &ex, &errb); st != 0 {
		t.Fatalf("explain --json exit %d: %s", st, errb.String())
	}
	frames := jsonLines[explain.Frame](t, ex.String())
	if len(frames) < 3 || frames[0].Context["dir"] != "id" || frames[1].Context["peer"] == "" || frames[1].Index != 1 || frames[1].Format != "multiplayer" {
		t.Errorf("explain --json:\n%s", ex.String())
	}
}

func TestGodotMPExplainHex(t *testing.T) {
	var out, errb bytes.Buffer
	st := run([]string{"godot", "mp", "explain"}, strings.NewReader("04 00 02000000 05000000 00000000 02000000 5000 0203"), &out, &errb)
	if st != 0 || !strings.Contains(out.String(), "SPAWN") || !strings.Contains(out.String(), `node name: "P"`) {
		t.Fatalf("exit %d\n%s%s", st, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if st := run([]string{"godot", "mp", "decode"}, strings.NewReader("0001"), &out, &errb); st != 1 || !strings.Contains(errb.String(), "too short") {
		t.Fatalf("malformed: exit %d %s", st, errb.String())
	}
	if st := run([]string{"godot", "mp", "nope"}, nil, &out, &errb); st != 2 {
		t.Fatalf("unknown verb: exit %d", st)
	}
}

// TestGodotMPServeENet: "godot mp serve --transport enet" serves the lobby to a Go client over
// ENet, as a Godot 4 client with an ENetMultiplayerPeer connects.
func TestGodotMPServeENet(t *testing.T) {
	m := startMPServe(t, "godot", "mp", "serve", "--transport", "enet", "--godot", "4", "--addr", "127.0.0.1:0")
	lobbyChat(t, func(o *multiplayer.ClientOptions) (*multiplayer.Client, error) {
		return multiplayer.DialENet(context.Background(), m.addr, o)
	}, "hello over ENet")
	m.stop(t)
	if !strings.Contains(m.out.String(), "enet://127.0.0.1:") {
		t.Errorf("output: %s", m.out.String())
	}
}

// mpServe is "gamewire godot mp serve …" running in this process (startMPServe).
type mpServe struct {
	addr      string       // where it listens, as mpServeStarted got it
	out, logs lockedBuffer // its standard output and error
	cancel    context.CancelFunc
	code      chan int
}

// startMPServe runs "gamewire <args>" (a godot mp serve command) in this process and waits until
// it listens; stop ends it as Ctrl-C would.
func startMPServe(t *testing.T, args ...string) *mpServe {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	old, oldStarted := serveContext, mpServeStarted
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	addrs := make(chan string, 1)
	mpServeStarted = func(a string) { addrs <- a }
	t.Cleanup(func() { cancel(); serveContext, mpServeStarted = old, oldStarted })
	m := &mpServe{cancel: cancel, code: make(chan int, 1)}
	go func() { m.code <- run(args, strings.NewReader(""), &m.out, &m.logs) }()
	select {
	case m.addr = <-addrs:
	case <-time.After(10 * time.Second):
		t.Fatalf("not started: %s", m.logs.String())
	}
	return m
}

// stop ends the server as Ctrl-C would and fails t unless it exits with status 0.
func (m *mpServe) stop(t *testing.T) {
	t.Helper()
	m.cancel()
	if st := <-m.code; st != 0 {
		t.Fatalf("exit %d: %s", st, m.logs.String())
	}
}

// lobbyChat joins the lobby as "gopher" with a Go client that dial connects, says text and waits
// until the lobby says it back.
func lobbyChat(t *testing.T, dial func(*multiplayer.ClientOptions) (*multiplayer.Client, error), text string) {
	t.Helper()
	said := make(chan string, 4)
	node := multiplayer.MustNode("Lobby",
		multiplayer.RPC{Name: "join", Mode: multiplayer.ModeAnyPeer}, multiplayer.RPC{Name: "say", Mode: multiplayer.ModeAnyPeer},
		multiplayer.RPC{Name: "welcome"}, multiplayer.RPC{Name: "joined"}, multiplayer.RPC{Name: "left"},
		multiplayer.RPC{Name: "said", Handler: func(p *multiplayer.Peer, id int32, name, text string) { said <- name + ": " + text }})
	c, err := dial(&multiplayer.ClientOptions{Nodes: []*multiplayer.Node{node}})
	if err != nil {
		t.Fatal(err)
	}
	<-c.Connected()
	c.RPCID(1, node, "join", "gopher")
	c.RPCID(1, node, "say", text)
	select {
	case s := <-said:
		if s != "gopher: "+text {
			t.Fatal(s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no chat")
	}
	c.Close(context.Background())
}
