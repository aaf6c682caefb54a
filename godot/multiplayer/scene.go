package multiplayer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gamewire/gamewire/godot"
)

// transport sends whole packets to the other end of one WebSocket connection, in order.
type transport interface {
	send(pkt []byte) bool       // queue pkt; false if the queue is full (the peer is then closed)
	sendLazy(pkt []byte) bool   // as send, but pkt may wait a few ms to share a write with others
	close(code int, why string) // queue a Close frame after the queued packets
	// sendWait queues pkt once the queue is under half its limits, waiting for that until
	// the transport closes or stop is closed; false if pkt was not queued.
	sendWait(pkt []byte, stop <-chan struct{}) bool
	stopped() <-chan struct{} // closed once close has been called
}

// hooks are the user's callbacks, shared by Server and Client.
type hooks struct {
	auth         func(p *Peer, data []byte)
	onConnect    func(p *Peer)
	onDisconnect func(p *Peer)
	onAuthFail   func(p *Peer)
	onBytes      func(p *Peer, data []byte)
	onError      func(p *Peer, err error)
	trace        func(dir string, peer int32, pkt []byte)
	log          *slog.Logger
}

// scene is SceneMultiplayer's state and packet logic, shared by the server (self = 1) and the
// client. One mutex guards all of it; handlers run without it.
type scene struct {
	hooks
	self        int32
	relay       bool
	encoding    Encoding
	dec         godot.DecodeMode
	nodes       map[string]*Node
	authTimeout time.Duration
	maxPacket   int // the largest message sent (the other end's inbound buffer)

	mu        sync.Mutex
	nextCache uint32            // the path cache's id counter (the first id is 1)
	cacheIDs  map[string]uint32 // node path → our cache id, kept for all peers
	peers     map[int32]*Peer   // admitted peers ("connected_peers")
	server    *Peer             // on a client: peer 1's transport
	repl      *replicator       // on a server that replicates: spawns and synchronizers
	templates []*template       // node templates (AddTemplate)

	queued   atomic.Int64 // bytes queued for all peers so far (charged to the peer being handled)
	refusals *refusalLog  // logs refused packets within a budget the input pays for
	mode     packetMode   // the transfer mode and channel of what is being sent (guarded by mu)
	scratch  []byte       // a packet being built for transports that copy it (guarded by mu)
}

// maxScratch bounds the scratch buffer a scene keeps.
const maxScratch = 16 << 10

// copyingTransport is a transport whose send, sendLazy and sendWait copy the packet before they
// return, so that the caller may build the next one in the same buffer.
type copyingTransport interface {
	transport
	copiesPackets()
}

func newScene(self int32, relay bool, nodes []*Node, h hooks, authTimeout time.Duration, enc Encoding) (*scene, error) {
	sc := &scene{hooks: h, self: self, relay: relay, nodes: map[string]*Node{}, authTimeout: authTimeout,
		cacheIDs: map[string]uint32{}, peers: map[int32]*Peer{}, encoding: enc, dec: enc.decOptions(), refusals: newRefusalLog()}
	for _, n := range nodes {
		if _, dup := sc.nodes[n.path]; dup {
			return nil, fmt.Errorf("multiplayer: node %q declared twice", n.path)
		}
		sc.nodes[n.path] = n
	}
	if sc.log == nil {
		sc.log = slog.New(slog.DiscardHandler)
	}
	sc.maxPacket = DefaultMaxMessageBytes
	return sc, nil
}

// Peer is a remote peer as seen from a Server or a Client: on the server, a connected client; on
// a client, the server (id 1) or another client the server announced. Its methods may be called
// from any goroutine.
type Peer struct {
	id int32
	sc *scene
	tr transport // nil for a client's relayed peers

	// guarded by sc.mu
	sent        map[uint32]bool  // our cache id → confirmed by this peer
	remote      map[uint32]*Node // this peer's cache id → node
	pending     bool             // authenticating
	authLocal   bool
	authRemote  bool
	admitted    bool
	gone        bool
	authFailed  bool // peer_authentication_failed was reported
	authTimer   *time.Timer
	connectedAt time.Time
	inMode      packetMode // how the packet being handled came (ENet); its reader's only
}

// ID returns the peer's unique id (1 for the server).
func (p *Peer) ID() int32 { return p.id }

func (p *Peer) String() string { return fmt.Sprintf("peer %d", p.id) }

func (sc *scene) newPeer(id int32, tr transport) *Peer {
	return &Peer{id: id, sc: sc, tr: tr, sent: map[uint32]bool{}, remote: map[uint32]*Node{}, connectedAt: time.Now()}
}

func (sc *scene) report(p *Peer, err error) {
	var pe *PacketError
	if errors.As(err, &pe) && p != nil && pe.Peer == 0 {
		pe.Peer = p.id
	}
	sc.refusals.refused(sc.log, slog.LevelInfo, p.ID(), err)
	if sc.onError != nil {
		sc.onError(p, err)
	}
}

// transportFor returns where a packet for peer id goes directly (without relay wrapping).
func (sc *scene) transportFor(id int32) transport {
	if sc.server != nil { // client: everything goes to the server
		return sc.server.tr
	}
	if p := sc.peers[id]; p != nil {
		return p.tr
	}
	return nil
}

func (sc *scene) write(tr transport, to int32, pkt []byte) {
	if tr == nil {
		return
	}
	if sc.trace != nil {
		sc.trace("out", to, pkt)
	}
	sc.queued.Add(int64(max(len(pkt), messageCost)))
	if ms, ok := tr.(modeSender); ok {
		ms.sendMode(pkt, sc.mode)
		return
	}
	tr.send(pkt)
}

// sendCommand routes pkt as SceneMultiplayer::send_command does; sc.mu must be held. On a client
// with relay, everything not for peer 1 is wrapped in SYS RELAY to the server; otherwise to > 0
// is one peer, 0 all admitted peers, and to < 0 all but -to.
func (sc *scene) sendCommand(to int32, pkt []byte) {
	if sc.relay && sc.self != 1 && to != 1 {
		sc.write(sc.server.tr, 1, AppendSys(make([]byte, 0, len(pkt)+6), SysRelay, to, pkt))
		return
	}
	if to > 0 {
		if to == 1 && sc.server != nil {
			sc.write(sc.server.tr, 1, pkt)
			return
		}
		if p := sc.peers[to]; p != nil {
			sc.write(sc.transportFor(to), to, pkt)
		}
		return
	}
	for id := range sc.peers {
		if id != -to {
			sc.write(sc.transportFor(id), id, pkt)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// admission and authentication

// addPeer handles a new transport peer (_add_peer): with an auth callback the peer waits in the
// pending state, else it is admitted at once. Callbacks run after sc.mu is released.
func (sc *scene) addPeer(p *Peer) (after func()) {
	if sc.auth != nil {
		p.pending = true
		if sc.authTimeout > 0 {
			p.authTimer = time.AfterFunc(sc.authTimeout, func() { sc.authExpired(p) })
		}
		return nil
	}
	return sc.admit(p)
}

// admit makes p a connected peer (_admit_peer); sc.mu must be held. On a server with relay it
// announces p to the others and them to p.
func (sc *scene) admit(p *Peer) (after func()) {
	if p.authTimer != nil {
		p.authTimer.Stop()
	}
	p.pending = false
	p.admitted = true
	if sc.relay && sc.self == 1 {
		sc.announce(p)
	}
	sc.peers[p.id] = p
	if sc.repl != nil {
		sc.repl.onPeerAdd(p.id)
	}
	if sc.onConnect == nil {
		return nil
	}
	return func() { sc.onConnect(p) }
}

// removePeer forgets p (_del_peer) and, on a server with relay, tells the others.
func (sc *scene) removePeer(p *Peer) {
	sc.mu.Lock()
	if p.gone {
		sc.mu.Unlock()
		return
	}
	p.gone = true
	if p.authTimer != nil {
		p.authTimer.Stop()
	}
	wasAdmitted := p.admitted
	// A peer that leaves while authenticating fails authentication (_del_peer).
	authFail := p.pending && !p.authFailed
	p.authFailed = p.authFailed || authFail
	if wasAdmitted {
		delete(sc.peers, p.id)
		if sc.relay && sc.self == 1 {
			sc.notify(AppendSys(nil, SysDelPeer, p.id, nil))
		}
		if sc.repl != nil {
			sc.repl.onPeerRemove(p.id)
		}
	}
	sc.mu.Unlock()
	if wasAdmitted && sc.onDisconnect != nil {
		sc.onDisconnect(p)
	}
	if authFail && sc.onAuthFail != nil {
		sc.onAuthFail(p)
	}
}

func (sc *scene) authExpired(p *Peer) {
	sc.mu.Lock()
	expired := p.pending && !p.gone && !p.authFailed
	p.authFailed = p.authFailed || expired
	sc.mu.Unlock()
	if !expired {
		return
	}
	sc.log.Info("multiplayer: authentication timed out", "peer", p.id)
	if p.tr != nil {
		p.tr.close(1000, "")
	}
	if sc.onAuthFail != nil {
		sc.onAuthFail(p)
	}
}

// SendAuth sends authentication data to p (SceneMultiplayer.send_auth): 07 00 data. It fails if
// p is not authenticating, or data is empty.
func (p *Peer) SendAuth(data []byte) error {
	if len(data) == 0 {
		return errors.New("multiplayer: SendAuth with empty data")
	}
	sc := p.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if !p.pending || p.authLocal || p.authRemote || p.gone {
		return fmt.Errorf("multiplayer: peer %d is not authenticating", p.id)
	}
	sc.write(p.tr, p.id, AppendAuth(nil, data))
	return nil
}

// CompleteAuth marks p's authentication as complete on this side
// (SceneMultiplayer.complete_auth): it sends 07 00, and admits p once p has completed too.
func (p *Peer) CompleteAuth() error {
	sc := p.sc
	sc.mu.Lock()
	if !p.pending || p.authLocal || p.gone {
		sc.mu.Unlock()
		return fmt.Errorf("multiplayer: peer %d is not authenticating", p.id)
	}
	p.authLocal = true
	sc.write(p.tr, p.id, AppendAuth(nil, nil))
	var after func()
	if p.authRemote {
		after = sc.admit(p)
	}
	sc.mu.Unlock()
	if after != nil {
		after()
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// receiving

// receive processes one packet from the transport peer p (SceneMultiplayer::poll's loop).
func (sc *scene) receive(p *Peer, pkt []byte) {
	if sc.trace != nil {
		sc.trace("in", p.id, pkt)
	}
	sc.refusals.income(len(pkt) + 6) // and the frame header
	if err := sc.receive1(p, pkt); err != nil {
		sc.report(p, err)
	}
}

func (sc *scene) receive1(p *Peer, pkt []byte) error {
	if len(pkt) == 0 {
		return perr(0, 0, ErrTruncated, "empty message")
	}
	cmd := Command(pkt[0] & cmdMask)
	sc.mu.Lock()
	if p.pending {
		if len(pkt) < 2 || cmd != CmdSys || SysCommand(pkt[1]) != SysAuth {
			sc.mu.Unlock()
			return perr(cmd, 0, ErrUnauthenticated, "dropped")
		}
		if len(pkt) > 2 {
			sc.mu.Unlock()
			if sc.auth != nil {
				sc.auth(p, append([]byte(nil), pkt[2:]...))
			}
			return nil
		}
		p.authRemote = true
		var after func()
		if p.authLocal {
			after = sc.admit(p)
		}
		sc.mu.Unlock()
		if after != nil {
			after()
		}
		return nil
	}
	if !p.admitted {
		sc.mu.Unlock()
		return perr(cmd, 0, ErrUnknownPeer, "peer %d not connected", p.id)
	}
	if cmd == CmdSys && len(pkt) >= 2 && SysCommand(pkt[1]) == SysAuth {
		sc.mu.Unlock()
		if len(pkt) == 2 {
			return nil // a late completion notice
		}
		return perr(cmd, 0, ErrBadPacket, "AUTH data after authentication")
	}
	if cmd == CmdSys {
		return sc.processSys(p, pkt) // unlocks
	}
	sc.mu.Unlock()
	return sc.processPacket(p, pkt)
}

// processSys handles ADD_PEER, DEL_PEER and RELAY; sc.mu is held on entry and released.
func (sc *scene) processSys(p *Peer, pkt []byte) error {
	if len(pkt) < sysCmdSize {
		sc.mu.Unlock()
		return perr(CmdSys, len(pkt), ErrTruncated, "%s, need 6", plural(len(pkt), "byte"))
	}
	sub := SysCommand(pkt[1])
	id := int32(binary.LittleEndian.Uint32(pkt[2:]))
	switch sub {
	case SysAddPeer, SysDelPeer:
		if !sc.relay || sc.self == 1 || p.id != 1 {
			sc.mu.Unlock()
			return perr(CmdSys, 1, ErrNotFromServer, "%s", sub)
		}
		if sub == SysAddPeer {
			q := sc.peers[id]
			if q == nil {
				q = sc.newPeer(id, nil)
			}
			after := sc.admit(q)
			sc.mu.Unlock()
			if after != nil {
				after()
			}
			return nil
		}
		q := sc.peers[id]
		sc.mu.Unlock()
		if q != nil {
			sc.removePeer(q)
		}
		return nil
	case SysRelay:
		if len(pkt) < sysCmdSize+1 {
			sc.mu.Unlock()
			return perr(CmdSys, len(pkt), ErrTruncated, "RELAY without a packet")
		}
		inner := pkt[sysCmdSize:]
		if sc.self != 1 { // client: the server forwards another peer's packet
			if p.id != 1 {
				sc.mu.Unlock()
				return perr(CmdSys, 1, ErrNotFromServer, "RELAY")
			}
			src := sc.peers[id]
			if src == nil {
				// The engine does not check the source; it matters only for the path cache.
				src = sc.newPeer(id, nil)
			}
			sc.mu.Unlock()
			return sc.processPacket(src, inner)
		}
		if !sc.relay {
			sc.mu.Unlock()
			return perr(CmdSys, 1, ErrBadPacket, "relay is disabled")
		}
		if id == 1 {
			sc.mu.Unlock()
			return perr(CmdSys, 2, ErrBadPacket, "RELAY to the server itself")
		}
		if id > 0 && sc.peers[id] == nil {
			sc.mu.Unlock()
			return nil // dropped silently, as the engine does since 4.3
		}
		out := AppendSys(make([]byte, 0, len(pkt)), SysRelay, p.id, inner)
		var targets []relayTarget
		for qid, q := range sc.peers {
			if (id > 0 && qid == id) || (id <= 0 && qid != p.id && qid != -id) {
				targets = append(targets, relayTarget{qid, q.tr})
			}
		}
		sc.mu.Unlock()
		sc.relayTo(p, targets, out)
		if id > 0 || id == -1 {
			return nil
		}
		if Command(inner[0]&cmdMask) == CmdSys {
			return nil // the engine's _process_packet ignores SYS
		}
		return sc.processPacket(p, inner)
	}
	sc.mu.Unlock()
	return perr(CmdSys, 1, ErrBadPacket, "unknown SYS command %d", pkt[1])
}

// processPacket handles the path cache, REMOTE_CALL and RAW (_process_packet).
func (sc *scene) processPacket(p *Peer, pkt []byte) error {
	if len(pkt) == 0 {
		return perr(0, 0, ErrTruncated, "")
	}
	switch cmd := Command(pkt[0] & cmdMask); cmd {
	case CmdSimplifyPath:
		return sc.processSimplify(p, pkt)
	case CmdConfirmPath:
		return sc.processConfirm(p, pkt)
	case CmdRemoteCall:
		return sc.processRPC(p, pkt)
	case CmdRaw:
		if len(pkt) < 2 {
			return perr(CmdRaw, 1, ErrTruncated, "no payload")
		}
		if sc.onBytes != nil {
			sc.onBytes(p, append([]byte(nil), pkt[1:]...))
		}
		return nil
	case CmdSys:
		return nil // ignored inside RELAY, as _process_packet does
	default:
		sc.mu.Lock()
		r := sc.repl
		sc.mu.Unlock()
		if r == nil && sc.self == 1 {
			// A server without replication has no synchronizer to apply a SYNC to: the engine
			// skips such entries silently, and refuses SPAWN and DESPAWN.
			r = &replicator{sc: sc}
		}
		if r != nil {
			return r.receive(p, pkt)
		}
		return perr(cmd, 0, ErrReplication, "")
	}
}

func (sc *scene) processSimplify(p *Peer, pkt []byte) error {
	sp, err := ParseSimplifyPath(pkt)
	if err != nil {
		return err
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if !p.admitted || p.gone {
		return perr(CmdSimplifyPath, 0, ErrUnknownPeer, "peer %d not connected", p.id)
	}
	if _, dup := p.remote[sp.CacheID]; dup {
		return perr(CmdSimplifyPath, 34, ErrDuplicateCacheID, "id %d", sp.CacheID)
	}
	n := sc.nodeLocked(sp.Path)
	if n == nil {
		return perr(CmdSimplifyPath, simplifyHead, ErrUnknownNode, "%q", sp.Path)
	}
	if len(p.remote) >= maxCachePerPeer {
		return perr(CmdSimplifyPath, 34, ErrTooLarge, "more than %d cached paths", maxCachePerPeer)
	}
	p.remote[sp.CacheID] = n
	valid := sp.Checksum == n.checksum
	sc.sendCommand(p.id, AppendConfirmPath(nil, valid, sp.CacheID))
	if !valid {
		return perr(CmdSimplifyPath, 1, ErrChecksum, "node %q: theirs %s, ours %s", n.path, sp.Checksum, n.checksum)
	}
	return nil
}

// maxCachePerPeer bounds the path-cache entries one peer can create (the engine has no bound).
const maxCachePerPeer = 4096

func (sc *scene) processConfirm(p *Peer, pkt []byte) error {
	valid, id, err := ParseConfirmPath(pkt)
	if err != nil {
		return err
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	var node string
	for path, cid := range sc.cacheIDs {
		if cid == id {
			node = path
		}
	}
	if node == "" {
		return nil // ignored silently, as the engine does
	}
	if _, ok := p.sent[id]; !ok {
		return perr(CmdConfirmPath, 2, ErrBadPacket, "confirms node %q, which was not sent", node)
	}
	p.sent[id] = true
	if !valid {
		return perr(CmdConfirmPath, 1, ErrChecksum, "node %q", node)
	}
	return nil
}

func (sc *scene) processRPC(p *Peer, pkt []byte) error {
	rc, err := ParseRemoteCall(pkt)
	if err != nil {
		return err
	}
	var n *Node
	if rc.HasPath {
		sc.mu.Lock()
		n = sc.nodeLocked(rc.Path)
		sc.mu.Unlock()
		if n == nil {
			return perr(CmdRemoteCall, int(rc.NodeID&^pathFlag), ErrUnknownNode, "%q", rc.Path)
		}
	} else {
		sc.mu.Lock()
		n = p.remote[rc.NodeID]
		sc.mu.Unlock()
		if n == nil {
			return perr(CmdRemoteCall, 1, ErrUnknownCacheID, "id %d of peer %d", rc.NodeID, p.id)
		}
	}
	m := n.methodByID(rc.MethodID)
	if m == nil {
		return perr(CmdRemoteCall, 1+rc.NodeIDSize, ErrUnknownMethod, "id %d on node %q", rc.MethodID, n.path)
	}
	switch {
	case m.Mode == ModeDisabled, m.Mode == ModeAuthority && p.id != n.authority:
		return perr(CmdRemoteCall, 1+rc.NodeIDSize, ErrNotAllowed,
			"RPC '%s' is not allowed on node /root/%s from: %d. Mode is \"%s\", authority is %d.", m.Name, n.path, p.id, m.Mode, n.authority)
	}
	return m.call(p, &rc, sc.dec)
}

// ---------------------------------------------------------------------------------------------
// sending

// rpc calls method on node as Node.rpc_id(to, …) does: to > 0 is one peer, 0 every peer, and
// to < 0 every peer but -to. call_local methods also run here when the call includes us.
func (sc *scene) rpc(to int32, n *Node, name string, args []any) error {
	m := n.byName[name]
	if m == nil {
		return fmt.Errorf("multiplayer: node %q has no RPC %q", n.path, name)
	}
	local := false
	if to == 0 || to == sc.self || (to < 0 && to != -sc.self) {
		local = m.CallLocal
	}
	if to == sc.self && !local {
		return fmt.Errorf("multiplayer: RPC '%s' on yourself is not allowed by selected mode", name)
	}
	if to != sc.self {
		if err := sc.sendRPC(to, n, m, args); err != nil {
			return err
		}
	}
	if local {
		self := &Peer{id: sc.self, sc: sc}
		pkt, err := sc.encoding.AppendRemoteCall(nil, 0, false, m.id, "", args)
		if err != nil {
			return err
		}
		rc, _ := ParseRemoteCall(pkt)
		return m.call(self, &rc, sc.dec)
	}
	return nil
}

func (sc *scene) sendRPC(to int32, n *Node, m *method, args []any) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if to > 0 && sc.peers[to] == nil {
		return fmt.Errorf("multiplayer: attempt to call RPC with unknown peer ID: %d: %w", to, ErrUnknownPeer)
	}
	id, ok := sc.cacheIDs[n.path]
	if !ok {
		sc.nextCache++
		id = sc.nextCache
		sc.cacheIDs[n.path] = id
	}
	allConfirmed, copied := true, true
	var stack [8]*Peer
	targets := stack[:0]
	add := func(pid int32, q *Peer) {
		if !sc.rpcVisible(n, pid) {
			return
		}
		targets = append(targets, q)
		allConfirmed = allConfirmed && q.sent[id]
		_, ok := sc.transportFor(pid).(copyingTransport)
		copied = copied && ok
	}
	if to > 0 {
		add(to, sc.peers[to]) // one peer: no walk over all of them
	} else {
		for pid, q := range sc.peers {
			if to == 0 || pid != -to {
				add(pid, q)
			}
		}
	}
	// Build the packets first, so that one too large for the other end sends nothing.
	var pkt, wide, pathForm []byte
	var err error
	if allConfirmed {
		var buf []byte
		if copied { // the transports copy what they are sent: build it in the scratch buffer
			buf = sc.scratch[:0]
		}
		pkt, err = sc.encoding.AppendRemoteCall(buf, id, false, m.id, "", args)
		if copied && cap(pkt) <= maxScratch {
			sc.scratch = pkt[:0]
		}
	} else {
		pathForm, err = sc.encoding.AppendRemoteCall(nil, 0, true, m.id, n.path, args)
		if err == nil {
			wide, err = sc.encoding.AppendRemoteCall(nil, id, true, m.id, "", args)
		}
	}
	if err != nil {
		return err
	}
	if err := sc.checkSize(max(len(pkt), len(pathForm)) + sc.relayOverhead(to)); err != nil {
		return err
	}
	// send_object_cache: SIMPLIFY_PATH to every target that has not had it.
	for _, q := range targets {
		if _, sent := q.sent[id]; !sent {
			q.sent[id] = false
			sc.sendCommand(q.id, AppendSimplifyPath(nil, n.checksum, id, n.path))
		}
	}
	sc.mode = packetMode{m.Transfer, m.Channel} // for a transport that carries them (ENet)
	defer func() { sc.mode = packetMode{} }()
	for _, q := range targets {
		switch {
		case allConfirmed:
			// The engine sends the compact form to each target in turn (a client's rpc()
			// reaches the server unwrapped, not as a RELAY to 0).
			sc.sendCommand(q.id, pkt)
		case q.sent[id]:
			sc.sendCommand(q.id, wide)
		default:
			sc.sendCommand(q.id, pathForm)
		}
	}
	return nil
}

// sendBytes sends a RAW packet as SceneMultiplayer.send_bytes does.
func (sc *scene) sendBytes(to int32, data []byte) error {
	if len(data) == 0 {
		return errors.New("multiplayer: trying to send an empty raw packet")
	}
	if err := sc.checkSize(len(data) + 1 + sc.relayOverhead(to)); err != nil {
		return err
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if to > 0 && to != 1 && sc.peers[to] == nil {
		return fmt.Errorf("multiplayer: send_bytes to unknown peer %d: %w", to, ErrUnknownPeer)
	}
	sc.sendCommand(to, AppendRaw(nil, data))
	return nil
}

// RPC calls the named method of node n on this peer (rpc_id(p.ID(), …)).
func (p *Peer) RPC(n *Node, method string, args ...any) error {
	return p.sc.rpc(p.id, n, method, args)
}

// SendBytes sends data to this peer as a RAW packet (send_bytes(data, p.ID())).
func (p *Peer) SendBytes(data []byte) error { return p.sc.sendBytes(p.id, data) }

// relayOverhead is what sendCommand adds to a packet for to: a client's RELAY header.
func (sc *scene) relayOverhead(to int32) int {
	if sc.relay && sc.self != 1 && to != 1 {
		return sysCmdSize
	}
	return 0
}

// checkSize refuses a packet of n bytes that the other end could not receive (a Godot peer
// closes the connection with 1009 on a message larger than its inbound buffer).
func (sc *scene) checkSize(n int) error {
	if n > sc.maxPacket {
		return fmt.Errorf("multiplayer: a packet of %d bytes exceeds the %d-byte limit: %w", n, sc.maxPacket, ErrTooLarge)
	}
	return nil
}
