package multiplayer

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Defaults of the Server's and Client's limits.
const (
	// DefaultMaxPacketSize is the largest message a Godot 4 WebSocket peer sends or accepts with
	// its default buffers (inbound_buffer_size = outbound_buffer_size = 65535).
	DefaultMaxPacketSize = 65535
	// DefaultMaxPeers bounds the connected clients.
	DefaultMaxPeers = 4096
	// DefaultAuthTimeout is SceneMultiplayer's default auth_timeout.
	DefaultAuthTimeout = 3 * time.Second
	// DefaultQueueSize is the per-peer outgoing queue, in packets (the engine's
	// max_queued_packets).
	DefaultQueueSize = 4096
	// DefaultQueueBytes bounds the bytes in a peer's outgoing queue.
	DefaultQueueBytes = 4 << 20
	// DefaultWriteTimeout bounds the time one message may take to write.
	DefaultWriteTimeout = 10 * time.Second
)

// ErrServerClosed is returned by the Server's RPC and SendBytes methods after Shutdown, and by
// a second Shutdown.
var ErrServerClosed = errors.New("multiplayer: server closed")

// Server is a Godot 4 multiplayer server: the peer 1 that Godot clients with a
// WebSocketMultiplayerPeer and the default SceneMultiplayer connect to. It is an http.Handler:
// mount it at the path the clients' URL names. Set its fields before the first request and do
// not change them afterwards; the zero value (with Nodes) is ready to use.
//
// Callbacks and RPC handlers run on the goroutine that reads the calling peer's connection:
// calls from one peer run in order, calls from different peers concurrently.
type Server struct {
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

	// Auth, when set, is the auth_callback: every new peer must authenticate before it is
	// connected. It receives the data a peer sends with send_auth; call Peer.SendAuth to answer
	// and Peer.CompleteAuth to accept.
	Auth func(p *Peer, data []byte)
	// AuthTimeout is auth_timeout: a peer that has not completed authentication by then is
	// disconnected (WebSocket Close 1000). 0 means DefaultAuthTimeout; negative disables it.
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

	// MaxPacketSize bounds a received message (a longer one closes the connection with 1009,
	// as the engine does) and a sent one (a call or SendBytes that would exceed it fails with
	// ErrTooLarge, since a Godot client would close the connection). 0 means
	// DefaultMaxPacketSize.
	MaxPacketSize int
	// MaxPeers bounds the connections; more are refused with 503. 0 means DefaultMaxPeers.
	MaxPeers int
	// QueueSize bounds each peer's outgoing queue in packets; a peer whose queue is full is
	// dropped (it does not read, so no Close handshake is attempted). 0 means DefaultQueueSize.
	QueueSize int
	// QueueBytes bounds the bytes in each peer's outgoing queue, with the same effect. 0 means
	// DefaultQueueBytes.
	QueueBytes int
	// WriteTimeout bounds the write of one message. 0 means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// NewPeerID returns the id for the peer connecting with r; it must be ≥ 2 and unused, or 0
	// for a random one. nil means random 31-bit ids, as the engine's generate_unique_id.
	NewPeerID func(r *http.Request) int32

	// Logger receives the server's logs. nil means slog.Default().
	Logger *slog.Logger

	once    sync.Once
	initErr error
	sc      *scene
	mu      sync.Mutex
	conns   map[int32]*serverConn // every connection, admitted or not
	closing bool
	wg      sync.WaitGroup
}

type serverConn struct {
	peer *Peer
	tr   *wsTransport
}

func (s *Server) init() error {
	s.once.Do(func() {
		logger := s.Logger
		if logger == nil {
			logger = slog.Default()
		}
		timeout := s.AuthTimeout
		if timeout == 0 {
			timeout = DefaultAuthTimeout
		}
		h := hooks{auth: s.Auth, onConnect: s.OnConnect, onDisconnect: s.OnDisconnect, onAuthFail: s.OnAuthFailed,
			onBytes: s.OnBytes, onError: s.OnError, trace: s.Trace, log: logger}
		s.sc, s.initErr = newScene(1, !s.NoRelay, s.Nodes, h, max(timeout, 0), s.Encoding)
		if s.sc != nil {
			s.sc.maxPacket = orDefault(s.MaxPacketSize, DefaultMaxPacketSize)
		}
		s.conns = map[int32]*serverConn{}
		if s.initErr == nil {
			s.initErr = s.initReplication()
		}
	})
	return s.initErr
}

func orDefault[T ~int | ~int64](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// ServeHTTP upgrades the request to a WebSocket and serves the peer until it disconnects.
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
	if len(s.conns) >= orDefault(s.MaxPeers, DefaultMaxPeers) {
		s.mu.Unlock()
		http.Error(w, "too many peers", http.StatusServiceUnavailable)
		return
	}
	id := s.newID(r)
	s.conns[id] = nil // reserve the id
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	release := func() {
		s.mu.Lock()
		delete(s.conns, id)
		s.mu.Unlock()
	}

	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.OriginPatterns, Subprotocols: s.Subprotocols})
	if err != nil {
		release()
		s.sc.log.Info("multiplayer: upgrade refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	c.SetReadLimit(int64(orDefault(s.MaxPacketSize, DefaultMaxPacketSize)))
	tr := newWSTransport(c, orDefault(s.QueueSize, DefaultQueueSize), int64(orDefault(s.QueueBytes, DefaultQueueBytes)),
		orDefault(s.WriteTimeout, DefaultWriteTimeout))
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
	s.conns[id] = &serverConn{peer: p, tr: tr}
	closing := s.closing
	s.mu.Unlock()
	if closing {
		tr.close(int(websocket.StatusGoingAway), "server shutting down")
	}
	sc.log.Debug("multiplayer: peer connected", "peer", id, "remote", r.RemoteAddr)
	if pending && s.OnAuthenticating != nil {
		s.OnAuthenticating(p)
	}
	if after != nil {
		after()
	}

	// The engine does not look at the text/binary flag; neither does the server.
	readLoop(c, func(msg []byte) { sc.receive(p, msg) })
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

// Shutdown closes every connection with Close 1001 (going away), refuses new ones, and waits
// until the peers' goroutines have ended or ctx is done; then it drops what is left and returns
// ctx's error. It does not close the http.Server the handler is mounted on.
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
		return nil
	case <-ctx.Done():
		for _, c := range conns {
			c.tr.c.CloseNow()
		}
		<-done
		return ctx.Err()
	}
}
