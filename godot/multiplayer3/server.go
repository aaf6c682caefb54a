package multiplayer3

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/gamewire/gamewire/enet"
)

// DefaultAddr is the address ListenAndServe listens on when Server.Addr is empty.
const DefaultAddr = ":9999"

// Server is a Godot 3 multiplayer server: the peer 1 that Godot 3 clients with a
// NetworkedMultiplayerENet (create_client) connect to, as they would connect to a Godot server
// made with create_server. Set its fields before Serve and do not change them afterwards; the
// zero value (with Nodes) is ready to use.
//
// As the engine's server it takes each client's id from the ENet CONNECT data and refuses ids
// below 2 and ids in use; it tells the clients about each other (ADD_PEER, REMOVE_PEER) and
// relays their packets unless NoRelay is set; it refuses packets whose source is not their
// sender.
//
// Callbacks and handlers run on the goroutine that reads the calling peer: calls from one peer
// run in order, calls from different peers concurrently. That goroutine reads the peer's packets
// with enet.Peer.ReceiveInto into a buffer of its own (2 KiB, grown for a longer packet and
// dropped after one past 64 KiB): no allocation per packet. While a handler is slow, the peer's
// next packets wait in the ENet host, within HostOptions.MaxBufferedBytes (64 MiB by default,
// a quarter of it for one peer): beyond it ENet stops acknowledging them and the client resends,
// and other peers are not held up (an enet.Handler would run every peer's handlers on the
// host's one goroutine).
type Server struct {
	// Addr is the UDP address ListenAndServe listens on; empty means DefaultAddr.
	Addr string
	// Nodes are the nodes whose functions and properties the clients call and set.
	Nodes []*Node
	// NoRelay turns server_relay off: clients are not told about each other, and packets for
	// other clients are dropped.
	NoRelay bool
	// AllowObjects accepts full objects in arguments (allow_object_decoding).
	AllowObjects bool

	// OnConnect and OnDisconnect report clients (network_peer_connected, _disconnected).
	// OnConnect runs before the client's packets are read and before the other clients hear of
	// it (what it sends goes first, as in the engine); the next client is admitted after it
	// returns, so it must not block.
	OnConnect    func(p *Peer)
	OnDisconnect func(p *Peer)
	// OnBytes receives RAW packets (network_peer_packet), sent with send_bytes.
	OnBytes func(p *Peer, data []byte)
	// OnError receives every packet the server refuses (the engine prints these); a bad
	// packet never ends the connection. The error wraps ErrNotAllowed, ErrUnknownNode, … and,
	// when the packet did not parse, is a *PacketError.
	OnError func(p *Peer, err error)
	// Trace, if set, is called with every ENet packet received ("in") and sent ("out"), header
	// included. It must not keep pkt, and must not call the Server (it may run while the
	// server's state is locked).
	Trace func(dir string, peer int32, channel uint8, pkt []byte)

	// HostOptions configure the ENet host that ListenAndServe makes (Serve takes a host made
	// by the caller). Channels 0 means 3, NetworkedMultiplayerENet's channel_count; the
	// Compressor must be the clients' compression_mode (CompressionMode.Compressor).
	HostOptions enet.HostOptions

	// Logger receives the server's logs. nil means slog.Default().
	Logger *slog.Logger

	once    sync.Once
	initErr error
	sc      *scene
	mu      sync.Mutex
	hosts   map[*enet.Host]bool
	links   map[int32]*enet.Peer
	closing bool
	wg      sync.WaitGroup
	// refusedLog logs refused clients at most once per second.
	refusedLog LogLimiter
}

func (s *Server) init() error {
	s.once.Do(func() {
		logger := s.Logger
		if logger == nil {
			logger = slog.Default()
		}
		h := hooks{onConnect: s.OnConnect, onDisconnect: s.OnDisconnect, onBytes: s.OnBytes, onError: s.OnError, trace: s.Trace, log: logger}
		s.sc, s.initErr = newScene(ServerID, !s.NoRelay, s.Nodes, h, DecodeOptions{AllowObjects: s.AllowObjects})
		s.hosts = map[*enet.Host]bool{}
		s.links = map[int32]*enet.Peer{}
	})
	return s.initErr
}

func (s *Server) hostOptions() *enet.HostOptions {
	o := s.HostOptions
	if o.Channels == 0 {
		o.Channels = Channels
	}
	if o.Logger == nil && s.Logger != nil {
		o.Logger = s.Logger
	}
	return &o
}

// ListenAndServe listens on the UDP address s.Addr and serves Godot 3 clients until Shutdown
// or Close; then it returns ErrServerClosed.
func (s *Server) ListenAndServe() error {
	addr := s.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	h, err := enet.Listen("udp", addr, s.hostOptions())
	if err != nil {
		return err
	}
	return s.Serve(h)
}

// ErrServerClosed is returned by Serve and ListenAndServe after Shutdown or Close.
var ErrServerClosed = errors.New("multiplayer3: server closed")

// Serve accepts the clients of host h and serves them until Shutdown or Close, which close h;
// then it returns ErrServerClosed. h should have 3 channels (HostOptions.Channels), as a Godot
// server's host has.
func (s *Server) Serve(h *enet.Host) error {
	if err := s.init(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		h.Close()
		return ErrServerClosed
	}
	s.hosts[h] = true
	s.mu.Unlock()
	s.sc.log.Info("multiplayer3: serving Godot 3 clients", "addr", h.LocalAddr())
	for {
		p, err := h.Accept(context.Background())
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			delete(s.hosts, h)
			s.mu.Unlock()
			if closing || errors.Is(err, enet.ErrClosed) {
				return ErrServerClosed
			}
			return err
		}
		s.admit(p)
	}
}

// admit checks a new ENet peer's id (its CONNECT data) as the engine does and serves it.
func (s *Server) admit(ep *enet.Peer) {
	id := int32(ep.ConnectData())
	s.mu.Lock()
	_, dup := s.links[id]
	if id < 2 || dup || s.closing {
		s.mu.Unlock()
		// The engine resets such a peer (enet_peer_reset), which sends nothing and leaves the
		// client to time out; a DISCONNECT tells it at once.
		s.refusedLog.Log(s.sc.log, slog.LevelInfo, "multiplayer3: client refused", "id", id, "duplicate", dup, "remote", ep.RemoteAddr())
		ep.DisconnectNow(0)
		return
	}
	s.links[id] = ep
	s.wg.Add(1)
	s.mu.Unlock()
	channels := s.hostOptions().Channels
	p := s.sc.newPeer(id, enetLink{ep})
	s.sc.addPeer(p)
	go func() {
		defer s.wg.Done()
		r := enet.PacketReader{Peer: ep, MaxKeptBytes: maxScratch}
		for {
			pkt, err := r.ReadPacket(context.Background())
			if err != nil {
				break
			}
			if int(pkt.Channel) >= channels {
				s.sc.report(p, perr(CmdNone, 0, ErrBadPacket, "packet on channel %d", pkt.Channel))
				continue
			}
			s.sc.receive(p, pkt.Channel, pkt.Data, deliveryOf(pkt.Flags))
		}
		s.mu.Lock()
		delete(s.links, id)
		s.mu.Unlock()
		s.sc.removePeer(p)
	}()
}

// Peer returns the connected client with the id, or nil.
func (s *Server) Peer(id int32) *Peer {
	if s.init() != nil {
		return nil
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	return s.sc.peers[id]
}

// Peers returns the ids of the connected clients, in ascending order.
func (s *Server) Peers() []int32 {
	if s.init() != nil {
		return nil
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	return s.sc.sortedPeers()
}

// RPC calls the named function of node n on every client (rpc()). A sync mode also runs the
// handler here, with the caller id 1.
func (s *Server) RPC(n *Node, method string, args ...any) error {
	return s.RPCID(0, n, method, args...)
}

// RPCID calls the named function of node n as rpc_id(id, …) does: id > 0 is one client, 0
// all, and id < 0 all but -id.
func (s *Server) RPCID(id int32, n *Node, method string, args ...any) error {
	if err := s.init(); err != nil {
		return err
	}
	return s.sc.rpc(id, n, method, false, false, args)
}

// RPCUnreliableID is RPCID sent unreliably, unsequenced on channel 2 (rpc_unreliable_id).
func (s *Server) RPCUnreliableID(id int32, n *Node, method string, args ...any) error {
	if err := s.init(); err != nil {
		return err
	}
	return s.sc.rpc(id, n, method, false, true, args)
}

// RSetID sets the named property of node n on peer id (0 all, -id all but id), as rset_id.
func (s *Server) RSetID(id int32, n *Node, property string, value any) error {
	if err := s.init(); err != nil {
		return err
	}
	return s.sc.rpc(id, n, property, true, false, []any{value})
}

// SendBytes sends a RAW packet (send_bytes) reliably to client id, or to all for 0, or all but
// -id.
func (s *Server) SendBytes(id int32, data []byte) error {
	if err := s.init(); err != nil {
		return err
	}
	return s.sc.sendBytes(id, data, reliable)
}

// Disconnect disconnects client id as disconnect_peer(id) does: once what is queued for it is
// sent, its ENet peer gets a DISCONNECT, and the others a REMOVE_PEER once it is gone.
func (s *Server) Disconnect(id int32) error {
	s.mu.Lock()
	ep := s.links[id]
	s.mu.Unlock()
	if ep == nil {
		return fmt.Errorf("multiplayer3: %w: %d", ErrUnknownPeer, id)
	}
	return ep.DisconnectLater(0)
}

// Shutdown disconnects every client, stops accepting, and waits until the clients are gone (or
// ctx ends), then closes the hosts. RPCs fail with ErrClosed afterwards.
func (s *Server) Shutdown(ctx context.Context) error {
	if err := s.init(); err != nil {
		return err
	}
	s.mu.Lock()
	s.closing = true
	for _, ep := range s.links {
		ep.Disconnect(ServerID)
	}
	hosts := make([]*enet.Host, 0, len(s.hosts))
	for h := range s.hosts {
		hosts = append(hosts, h)
	}
	s.mu.Unlock()
	s.sc.mu.Lock()
	s.sc.closed = true
	s.sc.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	for _, h := range hosts {
		h.Close()
	}
	s.sc.local.cancel()
	return err
}

// Close closes the hosts at once, dropping the clients without telling them.
func (s *Server) Close() error {
	if err := s.init(); err != nil {
		return err
	}
	s.mu.Lock()
	s.closing = true
	hosts := make([]*enet.Host, 0, len(s.hosts))
	for h := range s.hosts {
		hosts = append(hosts, h)
	}
	s.mu.Unlock()
	s.sc.mu.Lock()
	s.sc.closed = true
	s.sc.mu.Unlock()
	for _, h := range hosts {
		h.Close()
	}
	s.sc.local.cancel()
	return nil
}
