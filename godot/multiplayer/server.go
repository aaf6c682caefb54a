package multiplayer

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/gamewire/gamewire/enet"
)

// Defaults of the Server's and Client's limits.
const (
	// DefaultMaxMessageBytes is the largest message a Godot 4 WebSocket peer sends or accepts with
	// its default buffers (inbound_buffer_size = outbound_buffer_size = 65535).
	DefaultMaxMessageBytes = 65535
	// DefaultMaxConns bounds the connections (upgraded or being authenticated).
	DefaultMaxConns = 4096
	// DefaultMaxConnsPerIP bounds the connections from one source address.
	DefaultMaxConnsPerIP = 64
	// DefaultAcceptRate and DefaultAcceptBurst bound the upgrades per second.
	DefaultAcceptRate  = 200
	DefaultAcceptBurst = 200
	// DefaultAuthTimeout is SceneMultiplayer's default auth_timeout.
	DefaultAuthTimeout = 3 * time.Second
	// DefaultMaxQueuePackets is the per-peer outgoing queue, in packets (the engine's
	// max_queued_packets).
	DefaultMaxQueuePackets = 4096
	// DefaultMaxQueueBytes bounds the bytes in a peer's outgoing queue (a Godot server's
	// outbound_buffer_size is 64 KiB).
	DefaultMaxQueueBytes = 1 << 20
	// DefaultWriteTimeout bounds the time one message may take to write.
	DefaultWriteTimeout = 10 * time.Second
	// DefaultReadTimeout bounds the time one message may take to arrive, first frame to last.
	DefaultReadTimeout = 10 * time.Second
	// DefaultHandshakeTimeout bounds the upgrade request's headers.
	DefaultHandshakeTimeout = 5 * time.Second
	// DefaultPingInterval and DefaultPingTimeout are the liveness check's.
	DefaultPingInterval = 15 * time.Second
	DefaultPingTimeout  = 10 * time.Second
)

// NoLimit, as the value of a limit or timeout, means none.
const NoLimit = -1

// ErrServerClosed is returned by the Server's Serve, ListenAndServe, RPC and SendBytes methods
// after Shutdown or Close, and by a second Shutdown.
var ErrServerClosed = errors.New("multiplayer: server closed")

// Server is a Godot 4 multiplayer server: the peer 1 that Godot clients with a
// WebSocketMultiplayerPeer and the default SceneMultiplayer connect to. It serves as
// net/http.Server does (ListenAndServe, Serve, Shutdown, Close), and it is also an http.Handler
// that can be mounted at the path the clients' URL names on another server. Set its fields
// before the first request and do not change them afterwards; the zero value (with Nodes) is
// ready to use. For every limit 0 means its default and NoLimit none; any other negative value
// is taken as NoLimit.
//
// Memory: an idle peer costs the server about 5–12 KB (one goroutine; its writer runs only
// while there is something to write, and its buffers are released when idle). The worst case
// per peer is MaxQueueBytes + 2 × MaxMessageBytes + 77 KiB (its queue full, a message being
// read, a 64 KiB batch being written, the goroutines), 1.2 MiB with the defaults: 4.8 GiB for
// MaxConns (4096) peers that all stop reading while the server sends to them. Lower
// MaxQueueBytes or MaxConns to lower it.
//
// The WebSocket opening handshake is github.com/coder/websocket's; the frames that follow are
// read and written by the package on the upgraded connection (RFC 6455: pings are answered,
// the Close handshake is completed, a protocol violation is answered with Close 1002).
//
// Callbacks and RPC handlers run on the goroutine that reads the calling peer's connection:
// calls from one peer run in order, calls from different peers concurrently.
type Server struct {
	// Addr is the TCP address ListenAndServe listens on; "" means ":8910".
	Addr string

	// Nodes are the nodes whose RPCs the clients call and the server calls on them.
	Nodes []*Node

	// OriginPatterns lists the host patterns of the Origin headers accepted besides the
	// server's own host (see github.com/coder/websocket AcceptOptions.OriginPatterns). Native
	// clients send no Origin; a web export's browser sends its page's origin, which must be
	// allowed here (for example "*" or "game.example.com").
	OriginPatterns []string

	// Subprotocols are the WebSocket subprotocols the server speaks, in order of preference. A
	// Godot client that sets supported_protocols requires the response to name exactly one of
	// them; one that sets none (the default) requires none, which is what an empty list gives.
	Subprotocols []string

	// NoRelay turns server_relay off: peers are not announced to each other and RELAY packets
	// are refused.
	NoRelay bool

	// Encoding: allow_object_decoding, and the double-precision form of real_t types.
	Encoding Encoding

	// Spawners are the spawners whose authority is the server (more can be added with
	// AddSpawner); Replication holds the replication tick and packet sizes (see Spawn and
	// AddSynchronizer).
	Spawners    []*Spawner
	Replication Replication
	// Synchronizers are synchronizers outside spawned scenes, with path-based net ids (more
	// can be added with AddSynchronizer); Synchronizer returns their state.
	Synchronizers []*SyncConfig

	// Auth, when set, is the auth_callback: every new peer must authenticate before it is
	// connected. It receives the data a peer sends with send_auth; call Peer.SendAuth to answer
	// and Peer.CompleteAuth to accept.
	Auth func(p *Peer, data []byte)
	// AuthTimeout is auth_timeout: a peer that has not completed authentication by then is
	// disconnected (WebSocket Close 1000). 0 means DefaultAuthTimeout; NoLimit disables it.
	AuthTimeout time.Duration
	// OnAuthenticating is called when a peer connects and begins authentication
	// (peer_authenticating).
	OnAuthenticating func(p *Peer)
	// OnAuthFailed is called when a peer's authentication times out
	// (peer_authentication_failed).
	OnAuthFailed func(p *Peer)

	// OnConnect and OnDisconnect report admitted peers (peer_connected, peer_disconnected).
	OnConnect    func(p *Peer)
	OnDisconnect func(p *Peer)
	// OnBytes receives RAW packets (peer_packet), sent with send_bytes.
	OnBytes func(p *Peer, data []byte)
	// OnError receives every packet the server refuses, as a *PacketError (the engine logs
	// these). A bad packet never ends the connection.
	OnError func(p *Peer, err error)
	// Trace, if set, is called with every packet received ("in") and sent ("out"), and with
	// the 4-byte peer-id message that opens each connection ("id"). It must not keep pkt. See
	// TraceWriter for a JSON Lines log.
	Trace func(dir string, peer int32, pkt []byte)

	// MaxMessageBytes bounds a received message (a longer one closes the connection with 1009,
	// as the engine does) and a sent one (a call or SendBytes that would exceed it fails with
	// ErrTooLarge, since a Godot client would close the connection). 0 means
	// DefaultMaxMessageBytes.
	MaxMessageBytes int
	// MaxConns bounds the connections (admitted, authenticating or upgrading); more are
	// refused with 503. 0 means DefaultMaxConns.
	MaxConns int
	// MaxConnsPerIP bounds the connections from one source IP address; more are refused with
	// 503, so that one host cannot take every slot of MaxConns. 0 means DefaultMaxConnsPerIP.
	MaxConnsPerIP int
	// AcceptRate bounds the upgrades per second, with bursts of AcceptBurst: every admission
	// costs each connected peer an ADD_PEER (and every departure a DEL_PEER), so the rate
	// bounds that work per second. An upgrade over the rate waits for its turn, up to a
	// second; longer, it is refused with 503. 0 means DefaultAcceptRate (200) and
	// DefaultAcceptBurst (200); AcceptRate NoLimit sets none.
	AcceptRate  int
	AcceptBurst int
	// MaxQueuePackets bounds each peer's outgoing queue in packets; a peer whose queue is full is
	// dropped (it does not read, so no Close handshake is attempted). 0 means DefaultMaxQueuePackets.
	MaxQueuePackets int
	// MaxQueueBytes bounds the bytes in each peer's outgoing queue, with the same effect. 0 means
	// DefaultMaxQueueBytes.
	MaxQueueBytes int
	// PeerBytesPerSecond and PeerBurstBytes are each peer's budget: the bytes it sends plus the
	// bytes the server queues for other peers while handling them (relay fan-out, broadcasts
	// made by its calls), each message counted as at least 64 bytes, may average
	// PeerBytesPerSecond with bursts of PeerBurstBytes. A peer over its budget is not read until
	// it is back within it, so TCP slows it down; it is not dropped. 0 means
	// DefaultPeerBytesPerSecond (4 MiB/s) and DefaultPeerBurstBytes (1 MiB): a peer making
	// 1 KiB round trips (a call and its answer) gets ~2 000 a second.
	PeerBytesPerSecond int
	PeerBurstBytes     int
	// ReadTimeout bounds the time a message takes to arrive once it has begun (from the first
	// read that has to wait for the rest of it: a message that arrives whole costs no
	// deadline), and MaxMessageBytes × 2 + 1 KiB the bytes on the wire from its first frame to
	// its last (frame headers, empty continuation frames, control frames); past either the
	// connection is dropped. 0 means DefaultReadTimeout.
	ReadTimeout time.Duration
	// HandshakeTimeout bounds the time from accepting a TCP connection to the end of the
	// upgrade request's headers, when the Server serves with Serve or ListenAndServe (mounted on
	// another http.Server, that server's ReadHeaderTimeout does this). The first message a peer
	// must send is bounded by AuthTimeout when Auth is set; without Auth a Godot client sends
	// nothing until the game calls, so there is no first-message deadline. 0 means
	// DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// PingInterval is the time between WebSocket pings to each peer, and PingTimeout the time
	// a pong may take: a peer that does not answer (a dead or stalled connection) is dropped.
	// Godot's WebSocketPeer and browsers answer pings by themselves. 0 means
	// DefaultPingInterval / DefaultPingTimeout; PingInterval NoLimit sends no pings.
	PingInterval time.Duration
	PingTimeout  time.Duration
	// WriteTimeout bounds the write of one message. 0 means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// NewPeerID returns the id for the peer connecting with r; it must be ≥ 2 and unused, or 0
	// for a random one. nil means random 31-bit ids, as the engine's generate_unique_id.
	NewPeerID func(r *http.Request) int32

	// Logger receives the server's logs. nil means slog.Default().
	Logger *slog.Logger

	once      sync.Once
	initErr   error
	sc        *scene
	mu        sync.Mutex
	conns     map[int32]*serverConn // every connection, admitted or not
	perIP     map[string]int        // connections by source IP
	accepts   *budget               // AcceptRate, guarded by mu
	closing   bool
	wg        sync.WaitGroup
	hs        []*http.Server   // the servers Serve runs
	onPong    func(peer int32) // tests: a peer answered a ping
	enetHosts []*enet.Host     // the hosts ServeENet serves
}

type serverConn struct {
	peer     *Peer
	tr       transport
	closeNow func() // drops the connection at once
}

func (s *Server) init() error {
	s.once.Do(func() {
		logger := s.Logger
		if logger == nil {
			logger = slog.Default()
		}
		h := hooks{auth: s.Auth, onConnect: s.OnConnect, onDisconnect: s.OnDisconnect, onAuthFail: s.OnAuthFailed,
			onBytes: s.OnBytes, onError: s.OnError, trace: s.Trace, log: logger}
		s.sc, s.initErr = newScene(1, !s.NoRelay, s.Nodes, h, timeout(s.AuthTimeout, DefaultAuthTimeout), s.Encoding)
		if s.sc != nil {
			s.sc.maxPacket = limit(s.MaxMessageBytes, DefaultMaxMessageBytes)
		}
		s.conns = map[int32]*serverConn{}
		s.perIP = map[string]int{}
		s.accepts = newBudget(rateLimit(s.AcceptRate, DefaultAcceptRate), rateLimit(s.AcceptBurst, DefaultAcceptBurst))
		if s.initErr == nil {
			s.initErr = s.initReplication()
		}
	})
	return s.initErr
}

// timeout returns a timeout's value: d for 0, none (0) for a negative v.
func timeout(v, d time.Duration) time.Duration {
	switch {
	case v == 0:
		return d
	case v < 0:
		return 0
	}
	return v
}

// limit returns a limit's value: d for 0, unbounded (the largest int) for a negative v.
func limit(v, d int) int {
	switch {
	case v == 0:
		return d
	case v < 0:
		return int(^uint(0) >> 1)
	}
	return v
}

// rateLimit returns a rate's value: d for 0, 0 (none) for a negative v.
func rateLimit(v, d int) int {
	switch {
	case v == 0:
		return d
	case v < 0:
		return 0
	}
	return v
}

// remoteIP is the host part of r.RemoteAddr.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ListenAndServe listens on s.Addr (":8910" if empty) and serves, as Serve does.
func (s *Server) ListenAndServe() error {
	if err := s.usable(); err != nil {
		return err
	}
	addr := s.Addr
	if addr == "" {
		addr = ":8910"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Serve accepts HTTP connections on l and serves WebSocket upgrades on every path, until
// Shutdown or Close; then it returns ErrServerClosed. It closes l.
func (s *Server) Serve(l net.Listener) error {
	if err := s.init(); err != nil {
		l.Close()
		return err
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: timeout(s.HandshakeTimeout, DefaultHandshakeTimeout), ErrorLog: slog.NewLogLogger(s.sc.log.Handler(), slog.LevelDebug)}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.hs = append(s.hs, hs)
	s.mu.Unlock()
	err := hs.Serve(l)
	if errors.Is(err, http.ErrServerClosed) {
		return ErrServerClosed
	}
	return err
}

// Close closes the listeners of Serve and drops every connection at once, without a Close
// handshake, and waits for the peers' goroutines to end.
func (s *Server) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Shutdown(ctx)
	if errors.Is(err, context.Canceled) || errors.Is(err, ErrServerClosed) {
		return nil
	}
	return err
}

// ServeHTTP upgrades the request to a WebSocket and serves the peer, on a goroutine of its
// own, until it disconnects.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := s.init(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	if len(s.conns) >= limit(s.MaxConns, DefaultMaxConns) {
		s.mu.Unlock()
		http.Error(w, "too many peers", http.StatusServiceUnavailable)
		return
	}
	ip := remoteIP(r)
	if s.perIP[ip] >= limit(s.MaxConnsPerIP, DefaultMaxConnsPerIP) {
		s.mu.Unlock()
		http.Error(w, "too many connections from your address", http.StatusServiceUnavailable)
		return
	}
	if wait := s.accepts.take(time.Now(), 1); wait > time.Second {
		s.accepts.take(time.Now(), -1) // give the turn back
		s.mu.Unlock()
		http.Error(w, "too many connections, try again", http.StatusServiceUnavailable)
		return
	} else if wait > 0 {
		s.mu.Unlock()
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			s.mu.Lock()
			s.accepts.take(time.Now(), -1)
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		if s.perIP[ip] >= limit(s.MaxConnsPerIP, DefaultMaxConnsPerIP) || len(s.conns) >= limit(s.MaxConns, DefaultMaxConns) {
			s.mu.Unlock()
			http.Error(w, "too many peers", http.StatusServiceUnavailable)
			return
		}
	}
	s.perIP[ip]++
	id := s.newID(r)
	s.conns[id] = nil // reserve the id
	s.wg.Add(1)
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		delete(s.conns, id)
		if s.perIP[ip]--; s.perIP[ip] <= 0 {
			delete(s.perIP, ip)
		}
		s.mu.Unlock()
	}

	maxMsg := limit(s.MaxMessageBytes, DefaultMaxMessageBytes)
	hw := &hijackWriter{ResponseWriter: w}
	c, err := websocket.Accept(hw, r, &websocket.AcceptOptions{OriginPatterns: s.OriginPatterns, Subprotocols: s.Subprotocols})
	if err != nil {
		release()
		s.wg.Done()
		s.sc.log.Debug("multiplayer: upgrade refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	pc := &peerConn{Conn: hw.conn, readTimeout: timeout(s.ReadTimeout, DefaultReadTimeout),
		msgBudget: min(int64(maxMsg), 1<<40)*2 + 1024,
		b:         newBudget(rateLimit(s.PeerBytesPerSecond, DefaultPeerBytesPerSecond), rateLimit(s.PeerBurstBytes, DefaultPeerBurstBytes))}
	tr := newWSTransport(c, hw.conn, hw.ahead, pc, wsOptions{maxMessage: maxMsg,
		maxPackets: limit(s.MaxQueuePackets, DefaultMaxQueuePackets), maxBytes: limit(s.MaxQueueBytes, DefaultMaxQueueBytes),
		writeTimeout: timeout(s.WriteTimeout, DefaultWriteTimeout),
		pingInterval: timeout(s.PingInterval, DefaultPingInterval), pingTimeout: timeout(s.PingTimeout, DefaultPingTimeout)})
	if s.onPong != nil {
		tr.onPong = func() { s.onPong(id) }
	}
	pc.stop = tr.closed
	// The peer is served on a goroutine of its own: returning lets net/http's connection
	// goroutine end and free the request, its buffers and its stack.
	go s.serve(tr, pc, id, r.RemoteAddr, release)
}

// serve serves an upgraded peer until it disconnects.
func (s *Server) serve(tr *wsTransport, pc *peerConn, id int32, remote string, release func()) {
	defer s.wg.Done()
	tr.startPing()
	sc := s.sc
	p := sc.newPeer(id, tr)

	// The first message is the peer's id; nothing may precede it.
	var idMsg [4]byte
	binary.LittleEndian.PutUint32(idMsg[:], uint32(id))
	sc.mu.Lock()
	if sc.trace != nil {
		sc.trace("id", id, idMsg[:])
	}
	tr.send(idMsg[:])
	after := sc.addPeer(p)
	pending := p.pending
	sc.mu.Unlock()
	s.mu.Lock()
	s.conns[id] = &serverConn{peer: p, tr: tr, closeNow: tr.closeNow}
	closing := s.closing
	s.mu.Unlock()
	if closing {
		tr.close(int(websocket.StatusGoingAway), "server shutting down")
	}
	sc.log.Debug("multiplayer: peer connected", "peer", id, "remote", remote)
	if pending && s.OnAuthenticating != nil {
		s.OnAuthenticating(p)
	}
	if after != nil {
		after()
	}

	// The engine does not look at the text/binary flag; neither does the server.
	// What a handler sends this peer is written by this goroutine once the message is handled
	// (before the budget's wait), not handed to the writer goroutine.
	receive := func(msg []byte) {
		tr.hold()
		sc.receive(p, msg)
		tr.release()
	}
	tr.readLoop(func(msg []byte) bool { return sc.handleCharged(pc, msg, receive) })
	tr.close(-1, "")
	<-tr.done
	sc.removePeer(p)
	release()
	sc.log.Debug("multiplayer: peer disconnected", "peer", id)
}

func (s *Server) newID(r *http.Request) int32 {
	if s.NewPeerID != nil {
		if id := s.NewPeerID(r); id != 0 {
			if _, used := s.conns[id]; id < 2 || used {
				panic(fmt.Sprintf("multiplayer: NewPeerID returned %d, which is < 2 or in use", id))
			}
			return id
		}
	}
	for {
		id := int32(rand.Uint32() & 0x7fffffff)
		if _, used := s.conns[id]; id >= 2 && !used {
			return id
		}
	}
}

// Peer returns the connected (admitted) peer with the id, or nil.
func (s *Server) Peer(id int32) *Peer {
	if s.init() != nil {
		return nil
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	return s.sc.peers[id]
}

// Peers returns the ids of the connected (admitted) peers.
func (s *Server) Peers() []int32 {
	if s.init() != nil {
		return nil
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	ids := make([]int32, 0, len(s.sc.peers))
	for id := range s.sc.peers {
		ids = append(ids, id)
	}
	return ids
}

// RPC calls the named method of node n on every connected peer (Node.rpc): each peer gets the
// node's SIMPLIFY_PATH first, then calls by path until it confirms, then by cache id. A
// call_local method also runs here, with the caller peer id 1.
func (s *Server) RPC(n *Node, method string, args ...any) error {
	return s.RPCID(0, n, method, args...)
}

// RPCID calls the named method of node n as Node.rpc_id(id, …) does: id > 0 is one peer, 0 all
// peers, and id < 0 all peers but -id.
func (s *Server) RPCID(id int32, n *Node, method string, args ...any) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.sc.rpc(id, n, method, args)
}

// usable reports ErrServerClosed after Shutdown.
func (s *Server) usable() error {
	if err := s.init(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return ErrServerClosed
	}
	return nil
}

// RPCPeers calls the named method of node n on each of the peers in ids.
func (s *Server) RPCPeers(ids []int32, n *Node, method string, args ...any) error {
	var errs []error
	for _, id := range ids {
		errs = append(errs, s.RPCID(id, n, method, args...))
	}
	return errors.Join(errs...)
}

// SendBytes sends a RAW packet (send_bytes) to peer id, or to all peers for 0, or all but -id.
func (s *Server) SendBytes(id int32, data []byte) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.sc.sendBytes(id, data)
}

// Disconnect closes peer id's connection with Close 1000, as disconnect_peer does.
func (s *Server) Disconnect(id int32) error {
	if err := s.init(); err != nil {
		return err
	}
	s.mu.Lock()
	c := s.conns[id]
	s.mu.Unlock()
	if c == nil {
		return fmt.Errorf("multiplayer: %w: %d", ErrUnknownPeer, id)
	}
	c.tr.close(1000, "")
	return nil
}

// Shutdown closes the listeners of Serve and every connection with Close 1001 (going away),
// refuses new ones, and waits until the peers' goroutines have ended or ctx is done; then it
// drops what is left and returns ctx's error. It does not close an http.Server the handler is
// mounted on.
func (s *Server) Shutdown(ctx context.Context) error {
	if err := s.init(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.closing = true
	for _, hs := range s.hs {
		hs.Close() // the listeners; upgraded connections are hijacked and closed below
	}
	hosts := s.enetHosts
	conns := make([]*serverConn, 0, len(s.conns))
	for _, c := range s.conns {
		if c != nil {
			conns = append(conns, c)
		}
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.tr.close(int(websocket.StatusGoingAway), "server shutting down")
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		for _, h := range hosts {
			h.Close()
		}
		return nil
	case <-ctx.Done():
		for _, c := range conns {
			c.closeNow()
		}
		<-done
		for _, h := range hosts {
			h.Close()
		}
		return ctx.Err()
	}
}
