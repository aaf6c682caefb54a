package multiplayer

import (
	"fmt"
	"strings"
)

// AddNode declares a node while the server runs, as a node added to the clients' tree (a
// player's node named by its peer id). Peers may then call its RPCs and the server call them on
// the peers.
func (s *Server) AddNode(n *Node) error {
	if err := s.usable(); err != nil {
		return err
	}
	sc := s.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.nodes[n.path] != nil {
		return fmt.Errorf("multiplayer: node %q declared twice", n.path)
	}
	sc.nodes[n.path] = n
	return nil
}

// RemoveNode removes the node at path (relative to /root), as a node leaving the tree: its path
// cache id is released (a node added again at the path gets a new one), and the peers' cache
// ids for it no longer resolve. It reports whether there was such a node.
func (s *Server) RemoveNode(path string) bool {
	if s.usable() != nil {
		return false
	}
	sc := s.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	n := sc.nodes[path]
	if n == nil {
		return false
	}
	sc.removeNodeLocked(n)
	return true
}

// Methods returns the names of the node's RPC methods in table order: the index of a script
// method is its id on the wire.
func (n *Node) Methods() []string {
	names := make([]string, len(n.methods))
	for i, m := range n.methods {
		names[i] = m.Name
	}
	return names
}

// Node returns the declared node at path (relative to /root), a node instantiated from a
// template that matches path, or nil.
func (s *Server) Node(path string) *Node {
	if s.init() != nil {
		return nil
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	return s.sc.nodeLocked(path)
}

// AddTemplate declares every node whose path matches pattern at once: pattern is a path
// relative to /root in which a segment "*" or "<name>" (any text in angle brackets) matches any
// one node name, as "World/Players/<id>" matches the node of every player named by peer id.
// A path that matches no declared node takes the first matching template's RPCs. Template
// nodes are not stored: they cost nothing until a peer names them.
func (s *Server) AddTemplate(pattern string, rpcs ...RPC) error {
	proto, err := NewNode(pattern, rpcs...)
	if err != nil {
		return err
	}
	if err := s.usable(); err != nil {
		return err
	}
	sc := s.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.templates = append(sc.templates, &template{segs: strings.Split(pattern, "/"), proto: proto})
	return nil
}

type template struct {
	segs  []string
	proto *Node
}

func (t *template) match(path string) bool {
	i := 0
	for seg := range strings.SplitSeq(path, "/") {
		if i >= len(t.segs) {
			return false
		}
		p := t.segs[i]
		wild := p == "*" || (len(p) >= 2 && p[0] == '<' && p[len(p)-1] == '>')
		if !wild && p != seg || seg == "" {
			return false
		}
		i++
	}
	return i == len(t.segs)
}

// nodeLocked returns the node at path: a declared one, or one from a template; sc.mu is held.
func (sc *scene) nodeLocked(path string) *Node {
	if n := sc.nodes[path]; n != nil {
		return n
	}
	for _, t := range sc.templates {
		if t.match(path) {
			c := *t.proto
			c.path = path
			return &c
		}
	}
	return nil
}

// removeNodeLocked is a node leaving the tree; sc.mu is held.
func (sc *scene) removeNodeLocked(n *Node) {
	if sc.nodes[n.path] == n {
		delete(sc.nodes, n.path)
	}
	if id, ok := sc.cacheIDs[n.path]; ok {
		delete(sc.cacheIDs, n.path)
		for _, p := range sc.peers {
			delete(p.sent, id)
		}
	}
	for _, p := range sc.peers {
		for id, m := range p.remote {
			if m == n {
				delete(p.remote, id)
			}
		}
	}
}

// makeObjectCache is SceneCacheInterface::make_object_cache: the node's cache id, allocated the
// first time; sc.mu is held.
func (sc *scene) makeObjectCache(n *Node) uint32 {
	id, ok := sc.cacheIDs[n.path]
	if !ok {
		sc.nextCache++
		id = sc.nextCache
		sc.cacheIDs[n.path] = id
	}
	return id
}

// sendObjectCache is SceneCacheInterface::send_object_cache for one peer: it sends the node's
// SIMPLIFY_PATH to p if p has not had it, and reports the cache id and whether p confirmed it;
// sc.mu is held.
func (sc *scene) sendObjectCache(p *Peer, n *Node) (uint32, bool) {
	id := sc.makeObjectCache(n)
	if p == nil {
		return id, false
	}
	confirmed, sent := p.sent[id]
	if !sent {
		p.sent[id] = false
		mode := sc.mode
		sc.mode = packetMode{} // SIMPLIFY_PATH goes reliable, whatever is being sent
		sc.sendCommand(p.id, AppendSimplifyPath(nil, n.checksum, id, n.path))
		sc.mode = mode
	}
	return id, confirmed
}
