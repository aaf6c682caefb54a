package natscluster_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/gsfnet/natscluster"
)

// Message types of the test nodes (USER_SERVER numbers the reference does not route).
const (
	msgLogin     int32 = 2000 // Login: bind the user key, join the group if any
	msgJoin      int32 = 2001 // Room: join a room
	msgLeave     int32 = 2002 // Room: leave a room
	msgSay       int32 = 2003 // Say: notify a room, everywhere
	msgWhisper   int32 = 2004 // Say: notify a user, wherever
	msgChatEvent int32 = 2100 // notify to clients: Say
)

type Login struct{ User string }
type Room struct{ Name string }
type Say struct {
	Room string // or the user key, for msgWhisper
	Text string
}
type Count struct{ N int32 }

// Short timings, so that the whole test stays within seconds.
const (
	hb   = 50 * time.Millisecond
	dead = 500 * time.Millisecond
)

// testNode is one gsfnet server with a natscluster node.
type testNode struct {
	id     string
	srv    *gsfnet.Server
	node   *natscluster.Node
	nc     *nats.Conn
	addr   string
	served chan error

	mu     sync.Mutex
	events []natscluster.Event
}

// startNode starts a node with the test's short heartbeats and the package's other defaults;
// set, if given, may change its options.
func startNode(t *testing.T, url, id string, set ...func(*natscluster.Options)) *testNode {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond), nats.Name(id),
		nats.ConnectHandler(func(*nats.Conn) { changes.fire() }), nats.ReconnectHandler(func(*nats.Conn) { changes.fire() }),
		nats.DisconnectErrHandler(func(*nats.Conn, error) { changes.fire() }), nats.ClosedHandler(func(*nats.Conn) { changes.fire() }))
	if err != nil {
		t.Fatal(err)
	}
	tn := &testNode{id: id, nc: nc, served: make(chan error, 1)}
	opts := &natscluster.Options{
		Node: id, HeartbeatInterval: hb, DeadAfter: dead, RequestTimeout: time.Second,
		Logger: slog.New(signalHandler{slog.NewTextHandler(io.Discard, nil)}),
		OnEvent: func(e natscluster.Event) {
			tn.mu.Lock()
			tn.events = append(tn.events, e)
			tn.mu.Unlock()
			changes.fire()
		},
	}
	for _, f := range set {
		f(opts)
	}
	tn.node, err = natscluster.New(nc, opts)
	if err != nil {
		t.Fatal(err)
	}
	mux := gsfnet.NewMux()
	srvp := &tn.srv
	gsfnet.Handle(mux, gsf.SvcUserServer, msgLogin, func(ctx context.Context, s *gsfnet.Session, req *Login) (*Count, error) {
		s.SetUser(req.User)
		return &Count{}, nil
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, msgJoin, func(ctx context.Context, s *gsfnet.Session, req *Room) (*Count, error) {
		(*srvp).Group(req.Name).Add(s)
		return &Count{}, nil
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, msgLeave, func(ctx context.Context, s *gsfnet.Session, req *Room) (*Count, error) {
		(*srvp).Group(req.Name).Remove(s)
		return &Count{}, nil
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, msgSay, func(ctx context.Context, s *gsfnet.Session, req *Say) (*Count, error) {
		n, err := (*srvp).Group(req.Room).Notify(gsf.SvcClient, msgChatEvent, req)
		if errors.Is(err, natscluster.ErrDisconnected) {
			return &Count{N: -int32(n)}, nil // the test's sign for "reached this node only"
		}
		return &Count{N: int32(n)}, err
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, msgWhisper, func(ctx context.Context, s *gsfnet.Session, req *Say) (*Count, error) {
		n, err := (*srvp).NotifyUser(req.Room, gsf.SvcClient, msgChatEvent, req)
		return &Count{N: int32(n)}, err
	})
	tn.srv = &gsfnet.Server{Handler: mux, Cluster: tn.node, IdleTimeout: -1}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tn.addr = l.Addr().String()
	go func() { tn.served <- tn.srv.Serve(l) }()
	t.Cleanup(func() { tn.stop(t) })
	return tn
}

// stop shuts the node down in order: server, cluster node, NATS connection.
func (tn *testNode) stop(t *testing.T) {
	if tn.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = tn.srv.Shutdown(ctx)
	<-tn.served
	_ = tn.node.Close()
	tn.nc.Close()
	tn.srv = nil
}

// crash ends a node as a crash would: its NATS connection and its clients' connections drop,
// and it says no goodbye.
func (tn *testNode) crash(t *testing.T) {
	tn.nc.Close() // first, so that nothing more reaches the cluster
	_ = tn.srv.Close()
	<-tn.served
	_ = tn.node.Close()
	tn.srv = nil
}

func (tn *testNode) eventsOf(kind natscluster.EventKind) []natscluster.Event {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	var out []natscluster.Event
	for _, e := range tn.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// player is a client of one node that records the chat notifies it gets.
type player struct {
	name string
	c    *gsfnet.Client
	got  chan Say
}

func connect(t *testing.T, tn *testNode, user string) *player {
	t.Helper()
	p := &player{name: user, got: make(chan Say, 1000)}
	c, err := gsfnet.Dial(context.Background(), tn.addr, &gsfnet.ClientOptions{NotifyHandler: func(m *gsf.Message) {
		if m.Header.MsgType != msgChatEvent {
			return
		}
		var s Say
		if err := m.DecodeBody(&s); err != nil {
			t.Errorf("%s: decode notify: %v", user, err)
			return
		}
		p.got <- s
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	p.c = c
	if user != "" {
		p.call(t, msgLogin, &Login{User: user})
	}
	return p
}

func (p *player) call(t *testing.T, msgType int32, req any) int32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var resp Count
	if err := p.c.Call(ctx, gsf.SvcUserServer, msgType, req, &resp); err != nil {
		t.Fatalf("%s: call %d: %v", p.name, msgType, err)
	}
	return resp.N
}

// expect waits for the chat notifies with the given texts, in any order, and then checks that
// no other arrives within a short while.
func (p *player) expect(t *testing.T, texts ...string) {
	t.Helper()
	var got []string
	deadline := time.After(3 * time.Second)
	for len(got) < len(texts) {
		select {
		case s := <-p.got:
			got = append(got, s.Text)
		case <-deadline:
			t.Fatalf("%s got %q, want %q", p.name, got, texts)
		}
	}
	select {
	case s := <-p.got:
		got = append(got, s.Text)
	case <-time.After(60 * time.Millisecond):
	}
	sort.Strings(got)
	want := slices.Clone(texts)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s got %q, want %q (each exactly once)", p.name, got, want)
	}
}

// changes is signalled whenever something a test waits for may have changed: a presence event
// of any test node, a change of a NATS connection's status, a log record of a node.
var changes signal

// signal wakes every waiter at each fire.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel that is closed at the next fire.
func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *signal) fire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// signalHandler is a slog.Handler that discards records and fires changes.
type signalHandler struct{ slog.Handler }

func (h signalHandler) Handle(ctx context.Context, r slog.Record) error {
	changes.fire()
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

// eventually checks f after every change (presence event, connection status, log record)
// until it returns "" or 5 s are up.
func eventually(t *testing.T, what string, f func() string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		changed := changes.wait()
		msg := f()
		if msg == "" {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%s: %s", what, msg)
		}
	}
}

func users(locs []natscluster.Location) string {
	var s []string
	for _, l := range locs {
		s = append(s, l.Node+"/"+l.User)
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}

// allSee waits until every node's directory lists these members of the group.
func allSee(t *testing.T, nodes []*testNode, group, want string) {
	t.Helper()
	eventually(t, "group "+group, func() string {
		for _, tn := range nodes {
			if got := users(tn.node.GroupMembers(group)); got != want {
				return fmt.Sprintf("node %s sees %q, want %q", tn.id, got, want)
			}
		}
		return ""
	})
}

func syncAll(t *testing.T, nodes ...*testNode) {
	t.Helper()
	for _, tn := range nodes {
		if err := tn.node.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// checkGoroutines waits for the goroutines to end. A goroutine's end is no event a test can
// wait for, so this one polls: every 10 ms, for at most 5 s, allowing 2 goroutines of slack
// (the runtime's and the testing package's own come and go).
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for n := runtime.NumGoroutine(); n > before+2; n = runtime.NumGoroutine() {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, %d before\n%s", n, before, buf)
		}
		time.Sleep(10 * time.Millisecond) // polling: see above
	}
}

// TestCluster runs three nodes on one embedded NATS server with players on each: group
// fan-out, notifies to users on other nodes, presence, remote joins, a node crash.
func TestCluster(t *testing.T) {
	before := runtime.NumGoroutine()
	ns := natscluster.StartNATS(t, -1)
	url := ns.ClientURL()
	a, b, c := startNode(t, url, "a"), startNode(t, url, "b"), startNode(t, url, "c")
	nodes := []*testNode{a, b, c}
	eventually(t, "nodes", func() string {
		for _, tn := range nodes {
			if got := strings.Join(tn.node.Nodes(), ","); got != "a,b,c" {
				return tn.id + " knows " + got
			}
		}
		return ""
	})

	ann, bob, cat, dan := connect(t, a, "ann"), connect(t, b, "bob"), connect(t, c, "cat"), connect(t, c, "dan")
	for _, p := range []*player{ann, bob, cat} {
		p.call(t, msgJoin, &Room{Name: "lobby"})
	}
	syncAll(t, nodes...)
	allSee(t, nodes, "lobby", "a/ann,b/bob,c/cat")

	t.Run("presence", func(t *testing.T) {
		eventually(t, "users", func() string {
			for _, tn := range nodes {
				if got := strings.Join(tn.node.Users(), ","); got != "ann,bob,cat,dan" {
					return tn.id + " sees " + got
				}
			}
			return ""
		})
		if got := a.node.Online("dan"); len(got) != 1 || got[0].Node != "c" {
			t.Fatalf("a: Online(dan) = %v", got)
		}
		if got := a.node.Online("nobody"); len(got) != 0 {
			t.Fatalf("a: Online(nobody) = %v", got)
		}
		// Every node heard of every login, with the node it happened on.
		eventually(t, "online events", func() string {
			for _, tn := range nodes {
				var seen []string
				for _, e := range tn.eventsOf(natscluster.Online) {
					seen = append(seen, e.Node+"/"+e.User)
				}
				sort.Strings(seen)
				if got := strings.Join(seen, ","); got != "a/ann,b/bob,c/cat,c/dan" {
					return tn.id + " saw " + got
				}
			}
			return ""
		})
	})

	t.Run("group fan-out", func(t *testing.T) {
		// A member on b says something: every member on every node gets it once, dan (not a
		// member) nothing.
		if n := bob.call(t, msgSay, &Say{Room: "lobby", Text: "hi from b"}); n != 1 {
			t.Fatalf("local count %d, want 1 (bob himself, on b)", n)
		}
		ann.expect(t, "hi from b")
		bob.expect(t, "hi from b")
		cat.expect(t, "hi from b")
		dan.expect(t)
		// A node without members of the group sends to it too.
		if n := dan.call(t, msgSay, &Say{Room: "lobby", Text: "from outside"}); n != 1 {
			t.Fatalf("local count %d, want 1 (cat on c)", n)
		}
		ann.expect(t, "from outside")
		bob.expect(t, "from outside")
		cat.expect(t, "from outside")
		dan.expect(t)
	})

	t.Run("user notify", func(t *testing.T) {
		if n := ann.call(t, msgWhisper, &Say{Room: "dan", Text: "psst"}); n != 1 {
			t.Fatalf("count %d, want 1", n)
		}
		dan.expect(t, "psst")
		cat.expect(t)
		ann.expect(t)
		if n := ann.call(t, msgWhisper, &Say{Room: "nobody", Text: "lost"}); n != 0 {
			t.Fatalf("count %d for an unknown user, want 0", n)
		}
	})

	t.Run("second session of a user", func(t *testing.T) {
		ann2 := connect(t, b, "ann")
		syncAll(t, nodes...)
		eventually(t, "ann twice", func() string {
			if got := users(c.node.Online("ann")); got != "a/ann,b/ann" {
				return "c sees " + got
			}
			return ""
		})
		if n := dan.call(t, msgWhisper, &Say{Room: "ann", Text: "both"}); n != 2 {
			t.Fatalf("count %d, want 2", n)
		}
		ann.expect(t, "both")
		ann2.expect(t, "both")
		_ = ann2.c.Close()
		eventually(t, "ann once", func() string {
			if got := users(c.node.Online("ann")); got != "a/ann" {
				return "c sees " + got
			}
			return ""
		})
	})

	t.Run("remote join and leave", func(t *testing.T) {
		// Node a puts dan (on c) into the lobby and takes him out again.
		n, err := a.node.JoinUser(context.Background(), "lobby", "dan")
		if err != nil || n != 1 {
			t.Fatalf("JoinUser = %d, %v", n, err)
		}
		syncAll(t, nodes...)
		allSee(t, nodes, "lobby", "a/ann,b/bob,c/cat,c/dan")
		ann.call(t, msgSay, &Say{Room: "lobby", Text: "welcome dan"})
		for _, p := range []*player{ann, bob, cat, dan} {
			p.expect(t, "welcome dan")
		}
		if n, err := b.node.LeaveUser(context.Background(), "lobby", "dan"); err != nil || n != 1 {
			t.Fatalf("LeaveUser = %d, %v", n, err)
		}
		syncAll(t, nodes...)
		allSee(t, nodes, "lobby", "a/ann,b/bob,c/cat")
	})

	t.Run("node crash", func(t *testing.T) {
		b.crash(t)
		start := time.Now()
		eventually(t, "b gone", func() string {
			for _, tn := range []*testNode{a, c} {
				if got := strings.Join(tn.node.Nodes(), ","); got != "a,c" {
					return tn.id + " knows " + got
				}
				if got := users(tn.node.GroupMembers("lobby")); got != "a/ann,c/cat" {
					return tn.id + " sees lobby " + got
				}
				if got := tn.node.Online("bob"); len(got) != 0 {
					return fmt.Sprintf("%s sees bob on %v", tn.id, got)
				}
			}
			return ""
		})
		if took := time.Since(start); took > dead+3*hb+time.Second {
			t.Errorf("crash detected after %v, want about DeadAfter (%v)", took, dead)
		}
		// (On a loaded machine a heartbeat of c may come late and a drop c for a moment; only
		// b's departure is certain.)
		// The directory changes before the events are dispatched: wait for the NodeDown.
		downB := 0
		eventually(t, "NodeDown b", func() string {
			downB = 0
			for _, e := range a.eventsOf(natscluster.NodeDown) {
				if e.Node == "b" {
					downB++
				}
			}
			if downB == 0 {
				return "no NodeDown event for b"
			}
			return ""
		})
		if downB != 1 {
			t.Errorf("a saw b go down %d times, want 1", downB)
		}
		// The others go on as before.
		ann.call(t, msgSay, &Say{Room: "lobby", Text: "still here"})
		ann.expect(t, "still here")
		cat.expect(t, "still here")
	})

	a.stop(t)
	c.stop(t)
	ns.Shutdown()
	checkGoroutines(t, before)
}

// TestNATSRestart stops the NATS server and starts it again on the same port: the nodes
// reconnect, resubscribe and learn each other's state again; what is sent during the outage is
// lost, as the documentation says.
func TestNATSRestart(t *testing.T) {
	ns := natscluster.StartNATS(t, -1)
	port := ns.Addr().(*net.TCPAddr).Port
	url := ns.ClientURL()
	a, b := startNode(t, url, "a"), startNode(t, url, "b")
	ann, bob := connect(t, a, "ann"), connect(t, b, "bob")
	ann.call(t, msgJoin, &Room{Name: "r"})
	bob.call(t, msgJoin, &Room{Name: "r"})
	syncAll(t, a, b)
	allSee(t, []*testNode{a, b}, "r", "a/ann,b/bob")

	ns.Shutdown()
	ns.WaitForShutdown()
	eventually(t, "disconnected", func() string {
		if a.nc.IsConnected() || b.nc.IsConnected() {
			return "still connected"
		}
		return ""
	})
	// During the outage, each node still serves its own players.
	if n := ann.call(t, msgSay, &Say{Room: "r", Text: "during outage"}); n != -1 {
		t.Fatalf("notify during the outage: count %d, want -1 (ErrDisconnected, ann reached)", n)
	}
	ann.expect(t, "during outage")
	// The nodes drop each other after DeadAfter without heartbeats (NodeDown events).
	eventually(t, "peers dropped", func() string {
		if got := strings.Join(a.node.Nodes(), ","); got != "a" {
			return "a knows " + got
		}
		return ""
	})
	bob.expect(t) // lost: core NATS keeps nothing for an absent node

	ns2 := natscluster.StartNATS(t, port)
	_ = ns2
	eventually(t, "reconnected", func() string {
		if !a.nc.IsConnected() || !b.nc.IsConnected() {
			return "not connected"
		}
		return ""
	})
	allSee(t, []*testNode{a, b}, "r", "a/ann,b/bob")
	ann.call(t, msgSay, &Say{Room: "r", Text: "after restart"})
	ann.expect(t, "after restart")
	bob.expect(t, "after restart")
	if n := bob.call(t, msgWhisper, &Say{Room: "ann", Text: "hello again"}); n != 1 {
		t.Fatalf("count %d, want 1", n)
	}
	ann.expect(t, "hello again")
}

// TestMembershipRace joins and leaves one session from two nodes at once, many times: the owner
// of the session orders the changes, and every node ends up agreeing with it, and a group
// notify reaches the session exactly when the owner says it is a member.
func TestMembershipRace(t *testing.T) {
	ns := natscluster.StartNATS(t, -1)
	url := ns.ClientURL()
	a, b, c := startNode(t, url, "a"), startNode(t, url, "b"), startNode(t, url, "c")
	nodes := []*testNode{a, b, c}
	eve := connect(t, c, "eve")
	syncAll(t, nodes...)
	eventually(t, "eve known", func() string {
		if len(a.node.Online("eve")) != 1 || len(b.node.Online("eve")) != 1 {
			return "not yet"
		}
		return ""
	})
	ctx := context.Background()
	for round := range 20 {
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := a.node.JoinUser(ctx, "race", "eve"); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := b.node.LeaveUser(ctx, "race", "eve"); err != nil {
				t.Error(err)
			}
		}()
		wg.Wait()
		syncAll(t, nodes...)
		// The truth: c's own gsfnet group.
		member := c.srv.Group("race").Len() == 1
		want := ""
		if member {
			want = "c/eve"
		}
		allSee(t, nodes, "race", want)
		text := fmt.Sprintf("round %d", round)
		n, err := a.srv.Group("race").Notify(gsf.SvcClient, msgChatEvent, &Say{Room: "race", Text: text})
		if err != nil || n != 0 {
			t.Fatalf("Notify from a: %d, %v", n, err)
		}
		if member {
			eve.expect(t, text)
		} else {
			eve.expect(t)
		}
	}
}

// TestSingleNodeUnchanged: the same handlers without a Cluster work within the one server.
func TestSingleNodeUnchanged(t *testing.T) {
	srv := &gsfnet.Server{}
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, gsf.SvcUserServer, msgLogin, func(ctx context.Context, s *gsfnet.Session, req *Login) (*Count, error) {
		s.SetUser(req.User)
		srv.Group("all").Add(s)
		return &Count{}, nil
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, msgWhisper, func(ctx context.Context, s *gsfnet.Session, req *Say) (*Count, error) {
		n, err := srv.NotifyUser(req.Room, gsf.SvcClient, msgChatEvent, req)
		return &Count{N: int32(n)}, err
	})
	srv.Handler = mux
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	tn := &testNode{addr: l.Addr().String()}
	x, y := connect(t, tn, "x"), connect(t, tn, "y")
	if n := x.call(t, msgWhisper, &Say{Room: "y", Text: "hi"}); n != 1 {
		t.Fatalf("count %d", n)
	}
	y.expect(t, "hi")
	if n, _ := srv.Group("all").Notify(gsf.SvcClient, msgChatEvent, &Say{Text: "all"}); n != 2 {
		t.Fatalf("group count %d", n)
	}
	x.expect(t, "all")
	y.expect(t, "all")
	if got := srv.UserSessions("x"); len(got) != 1 || got[0].User() != "x" {
		t.Fatalf("UserSessions(x) = %v", got)
	}
}
