// Package lobby is a small lobby and chat server for Godot 3 clients over ENet, built on package
// multiplayer3: what `gamewire godot mp serve --godot 3 --transport enet` runs. It is the Godot 3
// twin of godot/multiplayer/lobby (Godot 4, WebSocket) and speaks the same lobby.
//
// The Godot side is godot/lobby.tscn and godot/lobby.gd in this directory: a Godot 3 scene whose
// root node "Lobby" connects with a NetworkedMultiplayerENet, calls join(name) and say(text) on
// the server, and receives welcome, joined, left and said.
package lobby

import (
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer3"
)

// MaxText bounds a name or a chat line, in bytes.
const MaxText = 200

// Lobby is the chat room: who is in it, by peer id.
type Lobby struct {
	sayLog multiplayer3.LogLimiter
	mu     sync.Mutex
	names  map[int32]string
	node   *multiplayer3.Node
	srv    *multiplayer3.Server
	log    *slog.Logger
}

// New returns a Lobby and the multiplayer3.Server that serves it (call its ListenAndServe or
// Serve). logger may be nil. Joins and departures are logged at Info (one line per connection);
// chat lines and refused packets at Debug and at most once per second each (with a count), so
// that what a peer sends cannot make the log grow faster than its packets.
func New(logger *slog.Logger) (*Lobby, *multiplayer3.Server) {
	if logger == nil {
		logger = slog.Default()
	}
	l := &Lobby{names: map[int32]string{}, log: logger}
	l.node = Node(l.join, l.say)
	l.srv = &multiplayer3.Server{
		Nodes:        []*multiplayer3.Node{l.node},
		OnDisconnect: l.leave,
		Logger:       logger, // which logs refused packets at Debug, at most once per second
	}
	return l, l.srv
}

// Node declares the "Lobby" node as lobby.gd has it: join and say are remote (any client may
// call them on the server), welcome, joined, left and said puppet (only the server may call
// them on a client). Go clients pass their handlers for said and the others with
// multiplayer3.NewNode; join and say may be nil there.
func Node(join func(*multiplayer3.Peer, string) error, say func(*multiplayer3.Peer, string) error) *multiplayer3.Node {
	var jh, sh any
	if join != nil {
		jh = join
	}
	if say != nil {
		sh = say
	}
	return multiplayer3.MustNode("Lobby",
		multiplayer3.RPC{Name: "join", Mode: multiplayer3.ModeRemote, Handler: jh},
		multiplayer3.RPC{Name: "say", Mode: multiplayer3.ModeRemote, Handler: sh},
		multiplayer3.RPC{Name: "welcome", Mode: multiplayer3.ModePuppet},
		multiplayer3.RPC{Name: "joined", Mode: multiplayer3.ModePuppet},
		multiplayer3.RPC{Name: "left", Mode: multiplayer3.ModePuppet},
		multiplayer3.RPC{Name: "said", Mode: multiplayer3.ModePuppet},
	)
}

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

func (l *Lobby) join(p *multiplayer3.Peer, name string) error {
	name = clean(name)
	if name == "" {
		return fmt.Errorf("lobby: peer %d joined without a name", p.ID())
	}
	l.mu.Lock()
	_, again := l.names[p.ID()]
	l.names[p.ID()] = name
	players := godot.NewDictionary()
	ids := make([]int, 0, len(l.names))
	for id := range l.names {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	for _, id := range ids {
		players.Set(id, l.names[int32(id)])
	}
	l.mu.Unlock()
	if again {
		return fmt.Errorf("lobby: peer %d joined twice", p.ID())
	}
	l.log.Info("lobby: join", "peer", p.ID(), "name", name)
	if err := p.RPC(l.node, "welcome", p.ID(), players); err != nil {
		return err
	}
	return l.srv.RPCID(-p.ID(), l.node, "joined", p.ID(), name)
}

func (l *Lobby) say(p *multiplayer3.Peer, text string) error {
	l.mu.Lock()
	name, ok := l.names[p.ID()]
	l.mu.Unlock()
	if !ok {
		return fmt.Errorf("lobby: peer %d spoke before joining", p.ID())
	}
	text = clean(text)
	l.sayLog.Log(l.log, slog.LevelDebug, "lobby: say", "peer", p.ID(), "name", name, "text", text)
	return l.srv.RPC(l.node, "said", p.ID(), name, text)
}

func (l *Lobby) leave(p *multiplayer3.Peer) {
	l.mu.Lock()
	_, ok := l.names[p.ID()]
	delete(l.names, p.ID())
	l.mu.Unlock()
	if ok {
		l.log.Info("lobby: left", "peer", p.ID())
		l.srv.RPC(l.node, "left", p.ID())
	}
}
