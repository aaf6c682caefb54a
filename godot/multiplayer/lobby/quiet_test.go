package lobby_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/lobby"
)

// lockedBuffer is a bytes.Buffer for a logger.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Len()
}

// TestLobbyQuietUnderRefusal (issue 24 item 5, issue 21 item 6): a client-authority
// synchronizer aimed at the server sends SYNC about 56 times a second, which the lobby refuses;
// the lobby's log must not grow faster than what it receives.
func TestLobbyQuietUnderRefusal(t *testing.T) {
	var log lockedBuffer
	_, srv := lobby.New(slog.New(slog.NewTextHandler(&log, nil)))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if _, _, err := c.Read(ctx); err != nil { // the peer id
		t.Fatal(err)
	}
	// SYNC of net id 7, sync_time 0, one 8-byte state: what a synchronizer of the client sends.
	sync := []byte{byte(multiplayer.CmdSync)}
	sync = binary.LittleEndian.AppendUint16(sync, 0)
	sync = binary.LittleEndian.AppendUint32(sync, 0)
	sync = binary.LittleEndian.AppendUint32(sync, 7)
	sync = binary.LittleEndian.AppendUint32(sync, 8)
	sync = append(sync, make([]byte, 8)...)
	in := 0
	for range 56 * 30 { // half a minute of one synchronizer
		if err := c.Write(ctx, websocket.MessageBinary, sync); err != nil {
			t.Fatal(err)
		}
		in += len(sync) + 6
	}
	join, err := multiplayer.AppendRemoteCall(nil, 0, true, 0, "Lobby", []any{"ann"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, websocket.MessageBinary, join); err != nil {
		t.Fatal(err)
	}
	in += len(join) + 6
	if _, _, err := c.Read(ctx); err != nil { // the welcome's SIMPLIFY_PATH: every SYNC was handled
		t.Fatal(err)
	}
	if log.Len() > in+8<<10 {
		t.Fatalf("%d bytes in, %d bytes of log:\n%.2000s", in, log.Len(), log.b.String())
	}
	t.Logf("%d bytes in, %d bytes of log", in, log.Len())
}

// TestLobbyChatLimit: a player's chat flood is cut to SayBurst lines at once and SayPerSecond
// after, so that it cannot fill the other players' queues; the others see no more than that.
func TestLobbyChatLimit(t *testing.T) {
	_, srv := lobby.New(slog.New(slog.DiscardHandler))
	handled := make(chan struct{}) // the flood's last message, a second join, was refused
	srv.OnError = func(p *multiplayer.Peer, err error) {
		if strings.Contains(err.Error(), "joined twice") {
			close(handled)
		}
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	said := make(chan string, 1000)
	node := clientNode(said)
	listener, err := multiplayer.Dial(ctx, url, &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{node}})
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close(ctx)
	<-listener.Connected()
	listener.RPCID(1, node, "join", "listener")
	<-said // welcome
	floodSaid := make(chan string, 1000)
	floodNode := clientNode(floodSaid)
	flood, err := multiplayer.Dial(ctx, url, &multiplayer.ClientOptions{Nodes: []*multiplayer.Node{floodNode}})
	if err != nil {
		t.Fatal(err)
	}
	defer flood.Close(ctx)
	<-flood.Connected()
	flood.RPCID(1, floodNode, "join", "flood")
	<-said // joined flood
	start := time.Now()
	for range 500 {
		flood.RPCID(1, floodNode, "say", "spam")
	}
	flood.RPCID(1, floodNode, "join", "again") // refused: a marker that every say was handled
	select {
	case <-handled:
	case <-ctx.Done():
		t.Fatal("the flood was not handled")
	}
	listener.RPCID(1, node, "say", "done") // after every line of the flood the server sent
	n := 0
	for s := <-said; s != "listener: done"; s = <-said {
		n++
	}
	if max := lobby.SayBurst + int(time.Since(start).Seconds()*lobby.SayPerSecond) + 1; n > max || n < lobby.SayBurst {
		t.Fatalf("the listener got %d lines of the flood; %d to %d allowed", n, lobby.SayBurst, max)
	}
}
