package multiplayer3

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gamewire/gamewire/godot"
)

// goNode is node.gd (testdata/engine/node.gd) in Go: the same functions, properties and session
// script, on a Server (role "server") or a Client. Its log has node.gd's LOG lines without the
// values (which node.gd prints with var2str).
type goNode struct {
	role   string
	node   *Node
	srv    *Server
	cl     *Client
	mu     sync.Mutex
	lines  []string
	errs   []string
	peers  []int32
	closed chan struct{}
	joined chan struct{} // signalled on every OnConnect
	once   sync.Once
}

var modeNames = []string{"remote", "master", "puppet", "remotesync", "mastersync", "puppetsync"}

func newGoNode(role string) *goNode {
	g := &goNode{role: role, closed: make(chan struct{}), joined: make(chan struct{}, 1)}
	rpcs := []RPC{
		{Name: "t_value", Mode: ModeRemote, Handler: g.tValue},
		{Name: "t_multi", Mode: ModeRemote, Handler: func(p *Peer, a, b, c any) { g.log("CALL t_multi from %d", p.ID()) }},
		{Name: "start", Mode: ModeRemote, Handler: g.start},
		{Name: "done", Mode: ModeRemote, Handler: g.done},
		{Name: "bye", Mode: ModeRemote, Handler: g.bye},
	}
	for i, m := range modeNames {
		mode := Mode(i + 1)
		rpcs = append(rpcs,
			RPC{Name: "m_" + m, Mode: mode, Handler: func(p *Peer) { g.log("CALL m_%s from %d", m, p.ID()) }},
			RPC{Name: "v_" + m, Mode: mode, Property: true, Handler: func(p *Peer, v any) { g.log("SET v_%s from %d", m, p.ID()) }})
	}
	g.node = MustNode("Main", rpcs...)
	return g
}

func (g *goNode) log(format string, args ...any) {
	g.mu.Lock()
	g.lines = append(g.lines, g.role+" "+fmt.Sprintf(format, args...))
	g.mu.Unlock()
}

func (g *goNode) onError(p *Peer, err error) {
	g.mu.Lock()
	g.errs = append(g.errs, fmt.Sprintf("from %d: %v", p.ID(), err))
	g.mu.Unlock()
}

func (g *goNode) onBytes(p *Peer, data []byte) {
	g.log("RAW from %d %s", p.ID(), hex.EncodeToString(data))
}

func (g *goNode) onConnect(p *Peer) {
	g.log("PEER connected %d", p.ID())
	select {
	case g.joined <- struct{}{}:
	default:
	}
	if g.role != "server" {
		return
	}
	g.mu.Lock()
	g.peers = append(g.peers, p.ID())
	start := len(g.peers) == 2
	a, b := int32(0), int32(0)
	if start {
		a, b = g.peers[0], g.peers[1]
	}
	g.mu.Unlock()
	if start {
		g.check(g.srv.RPCID(a, g.node, "start", b))
	}
}

func (g *goNode) onDisconnect(p *Peer) {
	g.log("PEER disconnected %d", p.ID())
	if g.role != "server" {
		g.once.Do(func() { close(g.closed) })
		return
	}
	g.mu.Lock()
	for i, id := range g.peers {
		if id == p.ID() {
			g.peers = append(g.peers[:i], g.peers[i+1:]...)
			break
		}
	}
	empty := len(g.peers) == 0
	g.mu.Unlock()
	if empty {
		g.once.Do(func() { close(g.closed) })
	}
}

func (g *goNode) check(err error) {
	if err != nil {
		g.mu.Lock()
		g.errs = append(g.errs, "send: "+err.Error())
		g.mu.Unlock()
	}
}

// rpcID, rsetID and sendBytes call the Server's or the Client's method.
func (g *goNode) rpcID(id int32, name string, args ...any) {
	if g.srv != nil { // set before serving
		g.check(g.srv.RPCID(id, g.node, name, args...))
	} else {
		g.check(g.client().RPCID(id, g.node, name, args...))
	}
}

func (g *goNode) rsetID(id int32, name string, v any) {
	if g.srv != nil { // set before serving
		g.check(g.srv.RSetID(id, g.node, name, v))
	} else {
		g.check(g.client().RSetID(id, g.node, name, v))
	}
}

func (g *goNode) sendBytes(id int32, b []byte) {
	if g.srv != nil { // set before serving
		g.check(g.srv.SendBytes(id, b))
	} else {
		g.check(g.client().SendBytes(id, b))
	}
}

func (g *goNode) unreliable(id int32, name string, args ...any) {
	if g.srv != nil { // set before serving
		g.check(g.srv.RPCUnreliableID(id, g.node, name, args...))
	} else {
		g.check(g.client().RPCUnreliableID(id, g.node, name, args...))
	}
}

func (g *goNode) tValue(p *Peer, v any) {
	g.log("CALL t_value from %d", p.ID())
	if g.role == "server" {
		g.rpcID(p.ID(), "t_value", v)
	}
}

func (g *goNode) start(p *Peer, other int32) {
	g.log("CALL start from %d", p.ID())
	// The server sends start(B) before it announces B; the engine's client takes both in one
	// frame, the Go client as they arrive: wait for B on another goroutine (this one reads).
	go func() {
		for !slices.Contains(g.client().Peers(), other) {
			select {
			case <-g.joined:
			case <-g.closed:
				return
			}
		}
		g.run(other)
	}()
}

func (g *goNode) run(other int32) {
	for _, v := range sessionValues() {
		if _, ok := v.(anyObjectID); ok {
			v = godot.ObjectID(1234) // an Object by instance id
		}
		g.rpcID(1, "t_value", v)
	}
	g.rpcID(1, "t_multi", 42, "héllo", godot.Vector2{X: 1, Y: 2})
	for _, m := range modeNames {
		g.rpcID(1, "m_"+m)
	}
	for _, m := range modeNames {
		g.rsetID(1, "v_"+m, 5)
	}
	g.sendBytes(1, []byte{1, 2, 3})
	g.unreliable(1, "t_value", 7)
	g.rpcID(other, "t_value", "to the other")
	g.rpcID(0, "m_remote")
	g.rsetID(0, "v_remote", 8)
	g.sendBytes(other, []byte{4, 5})
	g.sendBytes(0, []byte{6})
	g.rpcID(1, "done")
}

func (g *goNode) done(p *Peer) {
	g.log("CALL done from %d", p.ID())
	id := p.ID()
	for _, m := range modeNames {
		g.rpcID(id, "m_"+m)
	}
	for _, m := range modeNames {
		g.rsetID(id, "v_"+m, 6)
	}
	g.sendBytes(id, []byte{9, 8})
	g.unreliable(id, "t_value", godot.Vector2{X: 3, Y: 4})
	time.Sleep(300 * time.Millisecond) // as node.gd: B's CONFIRM_PATH to A must not race A's departure
	g.rpcID(0, "bye")
}

func (g *goNode) bye(p *Peer) {
	g.log("CALL bye from %d", p.ID())
	go g.client().Close()
}

// normalLog returns log lines without values and with peer ids as S (1), A and B.
func normalLog(lines []string, names map[int32]string) []string {
	var out []string
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) >= 5 && (f[1] == "CALL" || f[1] == "SET"):
			f = f[:5]
		case len(f) >= 2 && f[1] == "server": // "client server gone"
			continue
		case len(f) >= 2 && f[1] == "PEER" && f[2] == "disconnected":
			continue // who leaves first after bye() is a race
		}
		for i, w := range f {
			var id int32
			if _, err := fmt.Sscan(w, &id); err == nil && fmt.Sprint(id) == w {
				if n, ok := names[id]; ok {
					f[i] = n
				}
			}
		}
		out = append(out, strings.Join(f, " "))
	}
	return out
}

// setClient and client guard g.cl: handlers may run before Dial has returned.
func (g *goNode) setClient(c *Client) {
	g.mu.Lock()
	g.cl = c
	g.mu.Unlock()
}

func (g *goNode) client() *Client {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cl
}
