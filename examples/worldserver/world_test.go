package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/gsfnet/natscluster"
	"github.com/gamewire/gamewire/gsf/messages"
)

// gamer is one game client: its user-server and sync-server connections, and the notifies the
// sync server sent it.
type gamer struct {
	t        *testing.T
	name     string
	user     *gsfnet.Client
	sync     *gsfnet.Client
	oid      messages.OID
	notifies chan *gsf.Message
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// join runs a client's first minutes against the world server at addr: version check,
// login, init location loc, and sync-server login with the token.
func join(t *testing.T, addr, name string, loc messages.OID) *gamer {
	t.Helper()
	ctx := ctxT(t)
	g := &gamer{t: t, name: name, notifies: make(chan *gsf.Message, 100)}
	var err error
	if g.user, err = gsfnet.Dial(ctx, addr, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.user.Close() })
	var version messages.GetClientVersionInfoResponse
	if err := g.user.Call(ctx, gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, &messages.GetClientVersionInfoRequest{ClientName: "AmazingWorld"}, &version); err != nil || version.ClientVersionInfo != VersionInfo {
		t.Fatalf("%s: version: %v %q", name, err, version.ClientVersionInfo)
	}
	var login messages.LoginResponse
	req := &messages.LoginRequest{LoginID: name, Password: "pw-" + name, ClientEnvInfo: messages.ClientEnvironmentData{MachineOS: "Windows 7"}}
	if err := g.user.Call(ctx, gsf.SvcUserServer, gsf.MsgLogin, req, &login); err != nil || login.Status != messages.SessionInProgress || login.SessionOID.IsZero() {
		t.Fatalf("%s: login: %v %+v", name, err, login)
	}
	g.oid = login.SessionOID
	var init messages.InitLocationResponse
	if err := g.user.Call(ctx, gsf.SvcUserServer, gsf.MsgInitLocation, &messages.InitLocationRequest{LocOID: loc}, &init); err != nil || init.SyncServerToken == "" {
		t.Fatalf("%s: init location: %v %+v", name, err, init)
	}
	syncAddr := net.JoinHostPort(init.SyncServerIP, fmt.Sprint(init.SyncServerPort))
	g.sync, err = gsfnet.Dial(ctx, syncAddr, &gsfnet.ClientOptions{NotifyHandler: func(m *gsf.Message) {
		g.notifies <- &gsf.Message{Header: m.Header, Body: m.Body.Clone()}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.sync.Close() })
	if err := g.sync.Call(ctx, gsf.SvcSyncServer, gsf.SyncMsgLogin, &messages.SyncLoginRequest{UOID: g.oid, Token: init.SyncServerToken}, nil); err != nil {
		t.Fatalf("%s: sync login: %v", name, err)
	}
	return g
}

// expect waits for the next notify of class and type, skipping others, and decodes it into v.
func (g *gamer) expect(class gsf.ServiceClass, msgType int32, v any) {
	g.t.Helper()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case m := <-g.notifies:
			if m.Header.SvcClass == class && m.Header.MsgType == msgType {
				if err := m.DecodeBody(v); err != nil {
					g.t.Fatalf("%s: %s: %v", g.name, &m.Header, err)
				}
				return
			}
		case <-timeout.C:
			g.t.Fatalf("%s: no %s/%d notify", g.name, class, msgType)
		}
	}
}

// play drives two clients through a world: they see each other arrive, move, beat and chat.
// ada and bob may be on different nodes; sync, if set, waits until the cluster has heard of
// the last sync login.
func play(t *testing.T, addrA, addrB string, sync func()) (ada, bob *gamer) {
	loc := messages.OID{Class: 7, Type: 2, Number: 1001}
	ada = join(t, addrA, "ada", loc)
	if sync != nil {
		sync()
	}
	bob = join(t, addrB, "bob", loc)
	if sync != nil {
		sync()
	}
	var add messages.AddPlayerNotify
	ada.expect(gsf.SvcClient, gsf.ClientMsgAddPlayer, &add)
	if add.POID != bob.oid || add.LOID != loc {
		t.Errorf("ada learned of %v in %v, want bob %v in %v", add.POID, add.LOID, bob.oid, loc)
	}
	if sync == nil {
		// On one node the newcomer learns of those already there at once.
		bob.expect(gsf.SvcClient, gsf.ClientMsgAddPlayer, &add)
		if add.POID != ada.oid {
			t.Errorf("bob learned of %v, want ada %v", add.POID, ada.oid)
		}
	}

	// bob moves: ada sees it.
	step := []messages.Position{{X: 10, Y: 0, Z: 20}, {X: 12, Y: 0, Z: 24}}
	if err := bob.sync.Notify(gsf.SvcSyncServer, gsf.SyncMsgMovePlayer, &messages.MoveNotify{Pos: step, Seq: 3, UID: bob.oid}); err != nil {
		t.Fatal(err)
	}
	var move messages.PlayerMoveNotify
	ada.expect(gsf.SvcClient, gsf.ClientMsgMovePlayer, &move)
	if move.POID != bob.oid || len(move.Pos) != 2 || move.Pos[1] != step[1] || move.Seq != 3 {
		t.Errorf("ada saw the move %+v", move)
	}
	// ada's heartbeat reaches bob.
	if err := ada.sync.Notify(gsf.SvcSyncServer, gsf.SyncMsgHeartbeatNotify, &messages.HeartbeatNotify{POID: ada.oid}); err != nil {
		t.Fatal(err)
	}
	var beat messages.HeartbeatNotify
	bob.expect(gsf.SvcSyncServer, gsf.SyncMsgHeartbeatNotify, &beat)
	if beat.POID != ada.oid {
		t.Errorf("bob got the heartbeat of %v", beat.POID)
	}
	// ada chats: both see it.
	var sent messages.SendMessageResponse
	ctx := ctxT(t)
	if err := ada.user.Call(ctx, gsf.SvcUserServer, gsf.MsgSendMessage, &messages.SendMessageRequest{Message: "hello bob"}, &sent); err != nil || sent.FilteredMessage != "hello bob" {
		t.Fatalf("chat: %v %+v", err, sent)
	}
	for _, g := range []*gamer{ada, bob} {
		var chat messages.ChatNotify
		g.expect(gsf.SvcClient, gsf.ClientMsgChat, &chat)
		if chat.Msg != "hello bob" || chat.SenderID != ada.oid {
			t.Errorf("%s got the chat %+v", g.name, chat)
		}
	}
	return ada, bob
}

// TestWorld drives two clients through one world server, and checks the database.
func TestWorld(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "world.db")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := start(l, dbPath, "", "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ws.close(); err != nil {
			t.Error(err)
		}
	}()
	addr := l.Addr().String()
	ada, bob := play(t, addr, addr, nil)

	// bob leaves: ada is told.
	bob.sync.Close()
	var gone messages.RemovePlayerNotify
	ada.expect(gsf.SvcClient, gsf.ClientMsgRemovePlayer, &gone)
	if gone.POID != bob.oid {
		t.Errorf("ada was told %v left, want bob", gone.POID)
	}

	// A wrong sync token is refused; a wrong password too.
	ctx := ctxT(t)
	c, err := gsfnet.Dial(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var ge *gsfnet.Error
	if err := c.Call(ctx, gsf.SvcSyncServer, gsf.SyncMsgLogin, &messages.SyncLoginRequest{UOID: ada.oid, Token: "forged"}, nil); !errors.As(err, &ge) || ge.AppCode != gsf.AppAuth {
		t.Errorf("a forged token: %v", err)
	}
	var login messages.LoginResponse
	if err := c.Call(ctx, gsf.SvcUserServer, gsf.MsgLogin, &messages.LoginRequest{LoginID: "ada", Password: "guess"}, &login); err != nil || login.Status != messages.SessionIncorrectPassword {
		t.Errorf("a wrong password: %v %q", err, login.Status)
	}

	// The players are in the database, with bob's last position, platform and dates.
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var (
		oid      messages.OID
		platform messages.Platform
		created  messages.UnixTime
		x, z     int32
	)
	if err := db.QueryRow(`SELECT oid, platform, created, x, z FROM players WHERE login = 'bob'`).Scan(&oid, &platform, &created, &x, &z); err != nil {
		t.Fatal(err)
	}
	if oid != bob.oid || platform != messages.PlatformWindows || time.Since(created.Time) > time.Minute || x != 12 || z != 24 {
		t.Errorf("bob in the database: %v %v %v %d %d", oid, platform, created, x, z)
	}
}

// natsServer runs the nats-server binary on a free port until the test ends and returns its
// URL. Without the binary the test is skipped (failed under CI=true).
func natsServer(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nats-server is not installed")
		}
		t.Skip("nats-server is not installed")
	}
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", "-1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// The server logs the address it listens on for clients.
	re := regexp.MustCompile(`Listening for client connections on (\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case addr := <-found:
		return "nats://" + addr
	case <-time.After(20 * time.Second):
		t.Fatal("nats-server did not say where it listens")
	}
	return ""
}

// TestWorldCluster: the same world on two nodes clustered over a real nats-server: ada on one
// node and bob on the other see each other arrive, move, beat and chat.
func TestWorldCluster(t *testing.T) {
	url := natsServer(t)
	dbPath := filepath.Join(t.TempDir(), "world.db")
	var nodes []*worldServer
	var addrs []string
	for _, id := range []string{"a", "b"} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ws, err := start(l, dbPath, url, id, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := ws.close(); err != nil {
				t.Error(err)
			}
		})
		nodes = append(nodes, ws)
		addrs = append(addrs, l.Addr().String())
	}
	sync := func() {
		ctx := ctxT(t)
		for _, ws := range nodes {
			if err := ws.srv.Cluster.(*natscluster.Node).Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	play(t, addrs[0], addrs[1], sync)
}
