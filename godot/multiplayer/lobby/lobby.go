// Package lobby is a small lobby and chat server for Godot 4 clients, built on package
// multiplayer: the example that the README shows, and what `gamewire godot mp serve` runs.
//
// The Godot side is godot/lobby.tscn and godot/lobby.gd in this directory: a scene whose root
// node "Lobby" connects with a WebSocketMultiplayerPeer, calls join(name) and say(text) on the
// server, and receives welcome, joined, left and said.
package lobby

import (
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
)

// MaxText bounds a name or a chat line, in bytes.
const MaxText = 200

// Lobby is the chat room: who is in it, by peer id.
type Lobby struct {
	mu    sync.Mutex
	names map[int32]string
	chat  map[int32]*chatBudget
	node  *multiplayer.Node
	srv   *multiplayer.Server
	log   *slog.Logger
}

// Chat limits: every line is sent to every player, so one player's flood would fill the queues
// of players on slow links. A player may say SayPerSecond lines a second on average, SayBurst
// at once; more are refused (and logged within the server's log budget).
const (
	SayPerSecond = 5
	SayBurst     = 20
)

// chatBudget is a player's token bucket of lines.
type chatBudget struct {
	tokens float64
	last   time.Time
}

// take spends a line at now, if there is one.
func (b *chatBudget) take(now time.Time) bool {
	if !b.last.IsZero() {
		b.tokens = min(SayBurst, b.tokens+now.Sub(b.last).Seconds()*SayPerSecond)
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// New returns a Lobby and the multiplayer.Server that serves it; mount the server (an
// http.Handler) where the clients' URL points. logger may be nil.
func New(logger *slog.Logger) (*Lobby, *multiplayer.Server) {
	if logger == nil {
		logger = slog.Default()
	}
	l := &Lobby{names: map[int32]string{}, chat: map[int32]*chatBudget{}, log: logger}
	l.node = multiplayer.MustNode("Lobby",
		multiplayer.RPC{Name: "join", Mode: multiplayer.ModeAnyPeer, Handler: l.join},
		multiplayer.RPC{Name: "say", Mode: multiplayer.ModeAnyPeer, Handler: l.say},
		multiplayer.RPC{Name: "welcome"},
		multiplayer.RPC{Name: "joined"},
		multiplayer.RPC{Name: "left"},
		multiplayer.RPC{Name: "said"},
	)
	l.srv = &multiplayer.Server{
		Nodes:          []*multiplayer.Node{l.node},
		OriginPatterns: []string{"*"}, // web exports connect from their page's origin
		OnDisconnect:   l.leave,
		// Refused packets and the errors of join and say are logged by the server, within a
		// budget that the bytes received pay for: a client-authority synchronizer aimed at the
		// lobby (SYNC ~56 times a second) must not make the log grow faster than the input.
		Logger: logger,
	}
	return l, l.srv
}

// Node returns the declaration of the "Lobby" node, for Go clients.
func (l *Lobby) Node() *multiplayer.Node { return l.node }

// Names returns the players' names by peer id.
func (l *Lobby) Names() map[int32]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[int32]string, len(l.names))
	for id, n := range l.names {
		out[id] = n
	}
	return out
}

func clean(s string) string {
	if len(s) > MaxText {
		s = s[:MaxText]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// welcomeBytes bounds the encoded size of the welcome's Dictionary: the call, with its
// header, the node path and the peer id, must stay under a Godot client's 65 535-byte inbound
// buffer, which ~300 players with long names would pass.
const welcomeBytes = 60000

// entryBytes is the encoded size of one player in the Dictionary: an int key (8 bytes) and a
// String (4 + 4 + the name padded to 4).
func entryBytes(name string) int { return 8 + 8 + (len(name)+3)&^3 }

func (l *Lobby) join(p *multiplayer.Peer, name string) error {
	name = clean(name)
	if name == "" {
		return fmt.Errorf("lobby: peer %d joined without a name", p.ID())
	}
	l.mu.Lock()
	_, again := l.names[p.ID()]
	l.names[p.ID()] = name
	ids := make([]int, 0, len(l.names))
	for id := range l.names {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	// The welcome carries the players that fit, the newcomer first; the others follow as
	// joined calls to the newcomer alone, which the client handles the same way.
	players := godot.NewDictionary(int(p.ID()), name)
	size := 8 + entryBytes(name)
	var rest []int
	for _, id := range ids {
		if int32(id) == p.ID() {
			continue
		}
		if n := entryBytes(l.names[int32(id)]); size+n <= welcomeBytes && rest == nil {
			players.Set(id, l.names[int32(id)])
			size += n
		} else {
			rest = append(rest, id)
		}
	}
	restNames := make([]string, len(rest))
	for i, id := range rest {
		restNames[i] = l.names[int32(id)]
	}
	l.mu.Unlock()
	if again {
		return fmt.Errorf("lobby: peer %d joined twice", p.ID())
	}
	l.log.Info("lobby: join", "peer", p.ID(), "name", name, "players", len(ids))
	if err := p.RPC(l.node, "welcome", p.ID(), players); err != nil {
		l.log.Error("lobby: cannot welcome a player", "peer", p.ID(), "err", err)
		return err
	}
	for i, id := range rest {
		if err := p.RPC(l.node, "joined", int32(id), restNames[i]); err != nil {
			l.log.Error("lobby: cannot tell a player who is there", "peer", p.ID(), "err", err)
			return err
		}
	}
	return l.srv.RPCID(-p.ID(), l.node, "joined", p.ID(), name)
}

func (l *Lobby) say(p *multiplayer.Peer, text string) error {
	l.mu.Lock()
	name, ok := l.names[p.ID()]
	b := l.chat[p.ID()]
	if ok && b == nil {
		b = &chatBudget{tokens: SayBurst}
		l.chat[p.ID()] = b
	}
	allowed := ok && b.take(time.Now())
	l.mu.Unlock()
	if !ok {
		return fmt.Errorf("lobby: peer %d spoke before joining", p.ID())
	}
	if !allowed {
		return fmt.Errorf("lobby: peer %d says more than %d lines a second", p.ID(), SayPerSecond)
	}
	return l.srv.RPC(l.node, "said", p.ID(), name, clean(text))
}

func (l *Lobby) leave(p *multiplayer.Peer) {
	l.mu.Lock()
	_, ok := l.names[p.ID()]
	delete(l.names, p.ID())
	delete(l.chat, p.ID())
	l.mu.Unlock()
	if ok {
		l.srv.RPC(l.node, "left", p.ID())
	}
}
