package multiplayer3

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/godot"
)

// delivery is how a packet travels: ENet's reliable, unreliable (sequenced) or unsequenced
// packets.
type delivery uint8

const (
	reliable delivery = iota
	unreliable
	unsequenced
)

func (d delivery) flags() enet.Flags {
	switch d {
	case reliable:
		return enet.Reliable
	case unsequenced:
		return enet.Unsequenced
	}
	return 0
}

func deliveryOf(f enet.Flags) delivery {
	switch {
	case f&enet.Reliable != 0:
		return reliable
	case f&enet.Unsequenced != 0:
		return unsequenced
	}
	return unreliable
}

// link is one ENet peer: on the server a client, on a client the server.
type link interface {
	send(channel uint8, data []byte, d delivery) error
}

// enetLink is a link over package enet.
type enetLink struct{ p *enet.Peer }

func (l enetLink) send(ch uint8, data []byte, d delivery) error { return l.p.Send(ch, data, d.flags()) }

// Limits of what one peer may make the other keep: the paths it announces with SIMPLIFY_PATH.
// The worst case is maxPaths × (maxPathBytes + about 100 bytes of map overhead), 296 KiB per
// peer.
const (
	maxPaths     = 256
	maxPathBytes = 1024
	// maxAnnounced bounds the peers a server may announce to a client (ADD_PEER): a Godot
	// server holds at most 4095 clients.
	maxAnnounced = 4095
)

// hooks are the user's callbacks, shared by Server and Client.
type hooks struct {
	onConnect    func(p *Peer)
	onDisconnect func(p *Peer)
	onBytes      func(p *Peer, data []byte)
	onError      func(p *Peer, err error)
	trace        func(dir string, peer int32, channel uint8, pkt []byte)
	log          *slog.Logger
}

// scene is MultiplayerAPI and NetworkedMultiplayerENet's state and packet logic, shared by the
// server (self = 1) and the client. One mutex guards all of it; handlers run without it.
type scene struct {
	hooks
	self       int32
	relay      bool
	refusedLog LogLimiter
	nodes      map[string]*Node
	dec        godot.DecodeMode // the arguments' decoder
	decode     DecodeMode
	local      *Peer // this peer, the sender of local calls

	mu        sync.Mutex
	peers     map[int32]*Peer // connected_peers / peer_map
	lastCache uint32          // last_send_cache_id (the first id is 1)
	sent      map[string]*sentPath
	server    *Peer // on a client: the server
	closed    bool
	// Scratch buffers of sendRPC and put (enet.Peer.Send copies what it sends).
	bufPkt, bufFull, bufSend []byte
}

// maxScratch bounds the scratch buffers a scene keeps between sends.
const maxScratch = 64 << 10

// keep returns b for reuse, or nil when it has grown past maxScratch.
func keep(b []byte) []byte {
	if cap(b) > maxScratch {
		return nil
	}
	return b[:0]
}

type sentPath struct {
	id        uint32
	confirmed map[int32]bool
}

func newScene(self int32, relay bool, nodes []*Node, h hooks, dec DecodeOptions) (*scene, error) {
	mode, err := dec.DecodeMode()
	if err != nil {
		return nil, err
	}
	sc := &scene{hooks: h, self: self, relay: relay, nodes: map[string]*Node{}, dec: mode.godot(), decode: mode,
		peers: map[int32]*Peer{}, lastCache: 1, sent: map[string]*sentPath{}}
	for _, n := range nodes {
		if _, dup := sc.nodes[n.path]; dup {
			return nil, fmt.Errorf("multiplayer3: node %q declared twice", n.path)
		}
		sc.nodes[n.path] = n
	}
	if sc.log == nil {
		sc.log = slog.New(slog.DiscardHandler)
	}
	sc.local = sc.newPeer(self, nil)
	return sc, nil
}

// Peer is a peer as seen from a Server or a Client: on the server a connected client, on a
// client the server (id 1) or another client the server announced. Its methods may be called
// from any goroutine.
type Peer struct {
	id     int32
	sc     *scene
	link   link // nil for this peer and for a client's view of the other clients
	ctx    context.Context
	cancel context.CancelFunc

	paths map[uint32]string // guarded by sc.mu: this peer's path cache (path_get_cache)
	// in is the packet from this peer being processed, kept to parse the next into: only one
	// goroutine processes a peer's packets (the server's for that client, the client's read
	// loop for every peer it hears from).
	in Packet
	// callIn holds the handler's arguments of a call from this peer (its receiver and up to
	// seven parameters), for the same goroutine.
	callIn [8]reflect.Value
}

// ID returns the peer's unique id (1 for the server).
func (p *Peer) ID() int32 { return p.id }

// Context returns a context that is done once the peer has disconnected (or, for the peer a
// handler sees as the caller of a local call, once the server or client has closed): handlers
// that do slow work for a peer stop when it is gone.
func (p *Peer) Context() context.Context {
	if p.ctx == nil {
		return context.Background()
	}
	return p.ctx
}

// String returns "peer ID".
func (p *Peer) String() string { return fmt.Sprintf("peer %d", p.id) }

// RPC calls the named function of node n on this peer (rpc_id).
func (p *Peer) RPC(n *Node, method string, args ...any) error {
	return p.sc.rpc(p.id, n, method, false, false, args)
}

// RSet sets the named property of node n on this peer (rset_id).
func (p *Peer) RSet(n *Node, property string, value any) error {
	return p.sc.rpc(p.id, n, property, true, false, []any{value})
}

// SendBytes sends this peer a RAW packet (send_bytes), reliably.
func (p *Peer) SendBytes(data []byte) error { return p.sc.sendBytes(p.id, data, reliable) }

func (sc *scene) newPeer(id int32, l link) *Peer {
	ctx, cancel := context.WithCancel(context.Background())
	return &Peer{id: id, sc: sc, link: l, paths: map[uint32]string{}, ctx: ctx, cancel: cancel}
}

func (sc *scene) report(p *Peer, err error) {
	sc.refusedLog.Log(sc.log, slog.LevelDebug, "multiplayer3: packet refused", "peer", p.ID(), "err", err)
	if sc.onError != nil {
		sc.onError(p, err)
	}
}

// ---------------------------------------------------------------------------------------------
// the transport: NetworkedMultiplayerENet

// channelFor returns put_packet's channel and ENet flags for a transfer mode (always_ordered
// off: unreliable packets are unsequenced).
func channelFor(d delivery) uint8 {
	if d == reliable {
		return ChannelReliable
	}
	return ChannelUnreliable
}

func (sc *scene) sendLink(l link, to int32, ch uint8, pkt []byte, d delivery) {
	if l == nil {
		return
	}
	if sc.trace != nil {
		sc.trace("out", to, ch, pkt)
	}
	if err := l.send(ch, pkt, d); err != nil {
		sc.log.Debug("multiplayer3: send failed", "peer", to, "err", err)
	}
}

// put sends a MultiplayerAPI packet to target as put_packet does; sc.mu must be held. The server
// sends to target > 0, to every client for 0, and to all but -target for target < 0; a client
// sends everything to the server, which relays.
func (sc *scene) put(target int32, pkt []byte, d delivery) error {
	if target != 0 {
		if _, ok := sc.peers[abs(target)]; !ok {
			return fmt.Errorf("multiplayer3: %w: %d", ErrUnknownPeer, target)
		}
	}
	data := AppendHeader(sc.bufSend[:0], sc.self, target)
	data = append(data, pkt...)
	defer func() { sc.bufSend = keep(data) }()
	ch := channelFor(d)
	if sc.server != nil {
		sc.sendLink(sc.server.link, target, ch, data, d)
		return nil
	}
	switch {
	case target > 0:
		sc.sendLink(sc.peers[target].link, target, ch, data, d)
	default:
		for _, id := range sc.sortedPeers() {
			if id != -target {
				sc.sendLink(sc.peers[id].link, id, ch, data, d)
			}
		}
	}
	return nil
}

func abs(id int32) int32 {
	if id < 0 {
		return -id
	}
	return id
}

func (sc *scene) sortedPeers() []int32 {
	ids := make([]int32, 0, len(sc.peers))
	for id := range sc.peers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// addPeer admits a connected peer (the CONNECT event on the server, ADD_PEER on a client). As
// in the engine, OnConnect runs first (what it sends goes out before the notices), then a server
// with relay tells the new peer about the others and the others about it.
func (sc *scene) addPeer(p *Peer) {
	sc.mu.Lock()
	sc.peers[p.id] = p
	sc.mu.Unlock()
	sc.log.Debug("multiplayer3: peer connected", "peer", p.id)
	if sc.onConnect != nil {
		sc.onConnect(p)
	}
	if sc.self != ServerID || !sc.relay {
		return
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.peers[p.id] != p {
		return // gone already
	}
	for _, id := range sc.sortedPeers() {
		if id == p.id {
			continue
		}
		q := sc.peers[id]
		sc.sendLink(p.link, p.id, ChannelSys, AppendSys(nil, SysAddPeer, id), reliable)
		sc.sendLink(q.link, id, ChannelSys, AppendSys(nil, SysAddPeer, p.id), reliable)
	}
}

// removePeer forgets a peer (the DISCONNECT event, REMOVE_PEER) and, on a server with relay,
// tells the others.
func (sc *scene) removePeer(p *Peer) {
	sc.mu.Lock()
	if sc.peers[p.id] != p {
		sc.mu.Unlock()
		return
	}
	delete(sc.peers, p.id)
	for _, sp := range sc.sent {
		delete(sp.confirmed, p.id)
	}
	if sc.self == ServerID && sc.relay {
		for _, id := range sc.sortedPeers() {
			sc.sendLink(sc.peers[id].link, id, ChannelSys, AppendSys(nil, SysRemovePeer, p.id), reliable)
		}
	}
	sc.mu.Unlock()
	p.cancel()
	sc.log.Debug("multiplayer3: peer disconnected", "peer", p.id)
	if sc.onDisconnect != nil {
		sc.onDisconnect(p)
	}
}

// receive handles one ENet packet from the peer at the other end of l: from a client on the
// server, from the server on a client.
func (sc *scene) receive(from *Peer, ch uint8, data []byte, d delivery) {
	if sc.trace != nil {
		sc.trace("in", from.id, ch, data)
	}
	if err := sc.receive1(from, ch, data, d); err != nil {
		sc.report(from, err)
	}
}

func (sc *scene) receive1(from *Peer, ch uint8, data []byte, d delivery) error {
	if ch == ChannelSys {
		if sc.self == ServerID {
			return perr(CmdSys, 0, ErrBadPacket, "a client sent a SYS message")
		}
		msg, id, err := ParseSys(data)
		if err != nil {
			return err
		}
		if id < 2 {
			return perr(CmdSys, 4, ErrBadPacket, "%s of peer %d", msg, id)
		}
		sc.mu.Lock()
		q := sc.peers[id]
		sc.mu.Unlock()
		if msg == SysAddPeer {
			if q == nil {
				sc.mu.Lock()
				n := len(sc.peers)
				sc.mu.Unlock()
				if n > maxAnnounced {
					return perr(CmdSys, 0, ErrTooLarge, "more than %d peers announced", maxAnnounced)
				}
				sc.addPeer(sc.newPeer(id, nil))
			}
		} else if q != nil {
			sc.removePeer(q)
		}
		return nil
	}
	src, target, pkt, err := ParseHeader(data)
	if err != nil {
		return err
	}
	if sc.self != ServerID {
		// The server says who sent it; a packet from a peer not announced (relay off, or a
		// reordering) still runs, as in the engine.
		sc.mu.Lock()
		p := sc.peers[src]
		if p == nil {
			p = sc.newPeer(src, nil)
		}
		sc.mu.Unlock()
		return sc.process(p, pkt)
	}
	if src != from.id {
		return perr(CmdNone, 0, ErrSpoofed, "peer %d sent a packet from %d", from.id, src)
	}
	switch {
	case target == ServerID:
		return sc.process(from, pkt)
	case !sc.relay:
		return perr(CmdNone, 4, ErrUnknownPeer, "packet for %d, and the server does not relay", target)
	case target == 0:
		sc.forward(from.id, 0, ch, data, d)
		return sc.process(from, pkt)
	case target < 0:
		sc.forward(from.id, -target, ch, data, d)
		if -target != ServerID {
			return sc.process(from, pkt)
		}
		return nil
	}
	sc.mu.Lock()
	q := sc.peers[target]
	if q != nil {
		sc.sendLink(q.link, target, ch, data, d)
	}
	sc.mu.Unlock()
	if q == nil {
		return perr(CmdNone, 4, ErrUnknownPeer, "packet for peer %d", target)
	}
	return nil
}

// forward relays a client's packet, as it is, to every other client but except.
func (sc *scene) forward(src, except int32, ch uint8, data []byte, d delivery) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, id := range sc.sortedPeers() {
		if id != src && id != except {
			sc.sendLink(sc.peers[id].link, id, ch, data, d)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// MultiplayerAPI

// process runs one MultiplayerAPI packet from peer from (_process_packet).
func (sc *scene) process(from *Peer, pkt []byte) error {
	if len(pkt) == 0 {
		return perr(CmdNone, 0, ErrTruncated, "empty packet")
	}
	p := &from.in
	// The packet's slices point into the receive buffer: none outlives the call.
	defer func() { *p = Packet{} }()
	if err := sc.decode.parseInto(p, pkt); err != nil {
		return err
	}
	switch p.Command {
	case CmdSimplifyPath:
		if len(p.Path) > maxPathBytes {
			return perr(p.Command, 5, ErrTooLarge, "path of %d bytes", len(p.Path))
		}
		sc.mu.Lock()
		if _, ok := from.paths[p.CacheID]; !ok && len(from.paths) >= maxPaths {
			sc.mu.Unlock()
			return perr(p.Command, 1, ErrTooLarge, "more than %d cached paths", maxPaths)
		}
		from.paths[p.CacheID] = p.Path
		confirm, _ := AppendConfirmPath(nil, p.Path)
		err := sc.put(from.id, confirm, reliable)
		sc.mu.Unlock()
		return err
	case CmdConfirmPath:
		sc.mu.Lock()
		defer sc.mu.Unlock()
		sp := sc.sent[p.Path]
		if sp == nil {
			return perr(p.Command, 1, ErrUnknownPath, "%q", p.Path)
		}
		if _, ok := sp.confirmed[from.id]; !ok {
			return perr(p.Command, 1, ErrUnknownPath, "%q was not sent to peer %d", p.Path, from.id)
		}
		sp.confirmed[from.id] = true
		return nil
	case CmdRaw:
		if sc.onBytes != nil {
			sc.onBytes(from, append([]byte(nil), p.Data...))
		}
		return nil
	}
	// REMOTE_CALL, REMOTE_SET
	path := p.Path
	if p.PathOffset == 0 {
		sc.mu.Lock()
		cached, ok := from.paths[p.CacheID]
		sc.mu.Unlock()
		if !ok {
			return perr(p.Command, 1, ErrUnknownNode, "peer %d never announced path cache id %d", from.id, p.CacheID)
		}
		path = cached
	}
	n := sc.nodes[path]
	if n == nil {
		return perr(p.Command, 1, ErrUnknownNode, "%q", path)
	}
	set := p.Command == CmdRemoteSet
	m := n.lookup(p.Name, set)
	mode := ModeDisabled
	if m != nil {
		mode = m.Mode
	}
	if !mode.canCall(sc.self, n.master, from.id) {
		return perr(p.Command, 5, ErrNotAllowed, "%s on %s from %d: mode %s, master %d", p.Name, path, from.id, mode, n.master)
	}
	if err := m.callWith(from.callIn[:], from, p.Args, sc.dec); err != nil {
		e := perr(p.Command, p.ArgsOffset, ErrArgs, "%s.%s", path, p.Name)
		if errors.Is(err, ErrHandlerPanic) || !errors.Is(err, ErrArgs) {
			e.Err = err
		}
		e.Cause = err
		return e
	}
	return nil
}

// rpc calls (or, with set, sets) name on node n of peer to, as rpcp / rsetp do: to > 0 is one
// peer, 0 every peer, -id every peer but id. A sync mode also runs the handler here.
func (sc *scene) rpc(to int32, n *Node, name string, set, unrel bool, args []any) error {
	if sc.nodes[n.path] == nil {
		return fmt.Errorf("multiplayer3: node %q is not one of this peer's nodes", n.path)
	}
	if len(args) > 255 {
		return fmt.Errorf("multiplayer3: %d arguments, the engine's limit is 255", len(args))
	}
	m := n.lookup(name, set)
	mode := ModeDisabled
	if m != nil {
		mode = m.Mode
	}
	skip := to == sc.self
	var local bool
	if to == 0 || to == sc.self || (to < 0 && to != -sc.self) {
		var skipRemote bool
		local, skipRemote = mode.callLocal(n.master == sc.self)
		skip = skip || skipRemote
	}
	if !skip {
		if err := sc.sendRPC(to, n, name, set, unrel, args); err != nil {
			return err
		}
	}
	if local && m != nil {
		if err := m.callValues(sc.local, args, sc.dec); err != nil {
			return err
		}
	}
	if skip && !local {
		return fmt.Errorf("multiplayer3: %s on yourself is not allowed by its mode (%s)", name, mode)
	}
	return nil
}

// sendRPC is _send_rpc: peers that have not confirmed the node's path get a SIMPLIFY_PATH
// (once) and the call with the full path, the others the call with the cache id.
func (sc *scene) sendRPC(to int32, n *Node, name string, set, unrel bool, args []any) error {
	cmd := CmdRemoteCall
	if set {
		cmd = CmdRemoteSet
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		return ErrClosed
	}
	if to != 0 {
		if _, ok := sc.peers[abs(to)]; !ok {
			if to == sc.self {
				return fmt.Errorf("multiplayer3: %s to yourself (%d)", name, to)
			}
			return fmt.Errorf("multiplayer3: %w: %d", ErrUnknownPeer, to)
		}
	}
	sp := sc.sent[n.path]
	if sp == nil {
		sp = &sentPath{id: sc.lastCache, confirmed: map[int32]bool{}}
		sc.lastCache++
		sc.sent[n.path] = sp
	}
	pkt, err := appendCall(sc.bufPkt[:0], cmd, Target{CacheID: sp.id}, name, args)
	if err != nil {
		return err
	}
	defer func() { sc.bufPkt = keep(pkt) }()
	d := reliable
	if unrel {
		d = unsequenced
	}
	var one [1]int32
	var targets []int32
	if to > 0 {
		one[0] = to
		targets = one[:]
	} else {
		targets = sc.targets(to)
	}
	all := true
	for _, id := range targets {
		confirmed, ok := sp.confirmed[id]
		if !ok {
			simplify, _ := AppendSimplifyPath(nil, sp.id, n.path)
			if err := sc.put(id, simplify, reliable); err != nil {
				return err
			}
			sp.confirmed[id] = false
		}
		all = all && confirmed
	}
	if all {
		return sc.put(to, pkt, d)
	}
	full, err := appendCall(sc.bufFull[:0], cmd, Target{Path: n.path}, name, args)
	if err != nil {
		return err
	}
	defer func() { sc.bufFull = keep(full) }()
	for _, id := range targets {
		p := pkt
		if !sp.confirmed[id] {
			p = full
		}
		if err := sc.put(id, p, d); err != nil {
			return err
		}
	}
	return nil
}

// targets returns the connected peers a call to to reaches, in ascending order.
func (sc *scene) targets(to int32) []int32 {
	var ids []int32
	for _, id := range sc.sortedPeers() {
		if (to < 0 && id == -to) || (to > 0 && id != to) {
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// sendBytes is send_bytes: a RAW packet to peer to (0 every peer, -id all but id).
func (sc *scene) sendBytes(to int32, data []byte, d delivery) error {
	if len(data) == 0 {
		return errors.New("multiplayer3: SendBytes of an empty packet")
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		return ErrClosed
	}
	return sc.put(to, AppendRaw(nil, data), d)
}
