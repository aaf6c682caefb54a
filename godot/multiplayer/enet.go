package multiplayer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/gamewire/gamewire/enet"
)

// Godot 4's ENetMultiplayerPeer (modules/enet/enet_multiplayer_peer.cpp, 4.6) maps the
// transfer modes and channels of SceneMultiplayer onto ENet channels and flags:
//
//   - reliable: channel SYSCH_RELIABLE (0), ENET_PACKET_FLAG_RELIABLE;
//   - unreliable: channel SYSCH_UNRELIABLE (1), UNSEQUENCED | UNRELIABLE_FRAGMENT;
//   - unreliable ordered: channel 1, UNRELIABLE_FRAGMENT;
//   - a transfer channel c > 0 goes on ENet channel SYSCH_MAX + c - 1 (2 + c - 1), with the
//     mode's flags.
//
// A packet carries the SceneMultiplayer bytes as they are (no header); the client's peer id is
// the CONNECT command's data, and the server refuses ids below 2 and ids in use. A received
// packet's mode comes from its flags (reliable, else unsequenced: unreliable, else unreliable
// ordered) and its channel is 0 for ENet channels 0 and 1, else ENet channel - 2 + 1.
const (
	enetSysReliable   = 0
	enetSysUnreliable = 1
	enetSysMax        = 2
)

// packetMode is how a packet travels: SceneMultiplayer's transfer mode and channel. The zero
// value is reliable on channel 0, how every packet but RPCs and relayed ones goes.
type packetMode struct {
	transfer TransferMode
	channel  int
}

// modeSender is a transport that carries transfer modes and channels (ENet); WebSocket carries
// everything reliably and in order, and does not.
type modeSender interface {
	sendMode(pkt []byte, m packetMode) bool
}

// enetChannel returns the ENet channel and flags of a packet mode.
func enetChannel(m packetMode) (uint8, enet.Flags) {
	ch, fl := uint8(enetSysReliable), enet.Reliable
	switch m.transfer {
	case TransferUnreliable:
		ch, fl = enetSysUnreliable, enet.Unsequenced|enet.UnreliableFragment
	case TransferUnreliableOrdered:
		ch, fl = enetSysUnreliable, enet.UnreliableFragment
	}
	if m.channel > 0 {
		ch = uint8(min(enetSysMax+m.channel-1, 254))
	}
	return ch, fl
}

// enetMode returns the packet mode of a received ENet packet.
func enetMode(p enet.Packet) packetMode {
	m := packetMode{transfer: TransferUnreliableOrdered}
	switch {
	case p.Flags&enet.Reliable != 0:
		m.transfer = TransferReliable
	case p.Flags&enet.Unsequenced != 0:
		m.transfer = TransferUnreliable
	}
	if p.Channel >= enetSysMax {
		m.channel = int(p.Channel) - enetSysMax + 1
	}
	return m
}

// enetTransport sends a peer's packets over an ENet peer. ENet queues them itself (bounded by
// the host's MaxQueueBytes: a peer over it is dropped, as a WebSocket peer whose queue is full).
type enetTransport struct {
	p         *enet.Peer
	closeOnce sync.Once
	closed    chan struct{}
}

func newENetTransport(p *enet.Peer) *enetTransport {
	return &enetTransport{p: p, closed: make(chan struct{})}
}

func (t *enetTransport) sendMode(pkt []byte, m packetMode) bool {
	select {
	case <-t.closed:
		return false
	default:
	}
	ch, fl := enetChannel(m)
	if err := t.p.Send(ch, pkt, fl); err != nil {
		if errors.Is(err, enet.ErrQueueFull) {
			t.close(-1, "")
		}
		return false
	}
	return true
}

func (t *enetTransport) send(pkt []byte) bool     { return t.sendMode(pkt, packetMode{}) }
func (t *enetTransport) sendLazy(pkt []byte) bool { return t.send(pkt) }
func (t *enetTransport) sendWait(pkt []byte, stop <-chan struct{}) bool {
	return t.send(pkt)
}
func (t *enetTransport) stopped() <-chan struct{} { return t.closed }

// close disconnects the peer: after what is queued for a code ≥ 0 (enet_peer_disconnect), at
// once otherwise.
func (t *enetTransport) close(code int, why string) {
	t.closeOnce.Do(func() {
		close(t.closed)
		if code < 0 {
			t.p.DisconnectNow(0)
			return
		}
		t.p.Disconnect(0)
	})
}

// An ENet peer's packets are read with an enet.PacketReader (enet.Peer.ReceiveInto into one
// reused buffer: no allocation per packet, as Receive makes) on the goroutine that handles
// them, so the peer's packets wait in the ENet host's queue while the handlers and the per-peer
// budget hold that goroutine, within the host's MaxBufferedBytes (a packet that does not fit is
// not acknowledged, and the peer resends it). Between packets a peer holds the reader's 2 KiB,
// or at most 64 KiB after longer packets. The scene keeps no packet's bytes (as with the
// WebSocket transport, whose frame reader reuses its buffer too):
// TestENetHandlersKeepNoPacketBytes.

// ServeENet serves Godot 4 clients with an ENetMultiplayerPeer on the ENet host h until
// Shutdown or Close, which close h; then it returns ErrServerClosed. Every feature of the
// WebSocket server works the same way: RPCs, relay, authentication, the lobby. Create h with as
// many channels as the clients ask for (Godot's default is 255, the host's default too).
//
// What differs from WebSocket: ENet's host bounds the peers (MaxConns, MaxConnsPerIP, its
// queues and buffers), the per-peer budget (PeerBytesPerSecond) slows a peer by not taking its
// packets, which ENet then stops acknowledging, and relayed packets keep the transfer mode and
// channel they came with.
func (s *Server) ServeENet(h *enet.Host) error {
	if err := s.init(); err != nil {
		h.Close()
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		h.Close()
		return ErrServerClosed
	}
	s.enetHosts = append(s.enetHosts, h)
	s.mu.Unlock()
	for {
		ep, err := h.Accept(ctx)
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing || errors.Is(err, enet.ErrClosed) {
				return ErrServerClosed
			}
			return err
		}
		s.acceptENet(ep)
	}
}

// acceptENet admits an ENet peer whose CONNECT data is its id, as _parse_server_event does.
func (s *Server) acceptENet(ep *enet.Peer) {
	id := int32(ep.ConnectData())
	s.mu.Lock()
	_, used := s.conns[id]
	if id < 2 || used || s.closing || len(s.conns) >= limit(s.MaxConns, DefaultMaxConns) {
		s.mu.Unlock()
		// The engine resets such a peer without a word; ENet's DISCONNECT says so sooner.
		s.sc.log.Debug("multiplayer: ENet peer refused", "remote", ep.RemoteAddr(), "id", id)
		ep.DisconnectNow(0)
		return
	}
	s.conns[id] = nil
	s.wg.Add(1)
	s.mu.Unlock()
	go s.serveENet(ep, id)
}

func (s *Server) serveENet(ep *enet.Peer, id int32) {
	defer s.wg.Done()
	sc := s.sc
	tr := newENetTransport(ep)
	p := sc.newPeer(id, tr)
	sc.mu.Lock()
	after := sc.addPeer(p)
	pending := p.pending
	sc.mu.Unlock()
	s.mu.Lock()
	s.conns[id] = &serverConn{peer: p, tr: tr, closeNow: func() { ep.DisconnectNow(0) }}
	closing := s.closing
	s.mu.Unlock()
	if closing {
		tr.close(0, "")
	}
	sc.log.Debug("multiplayer: ENet peer connected", "peer", id, "remote", ep.RemoteAddr())
	if pending && s.OnAuthenticating != nil {
		s.OnAuthenticating(p)
	}
	if after != nil {
		after()
	}
	b := newBudget(rateLimit(s.PeerBytesPerSecond, DefaultPeerBytesPerSecond), rateLimit(s.PeerBurstBytes, DefaultPeerBurstBytes))
	var timer *time.Timer
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-tr.closed:
			cancel()
		case <-ep.Done():
		}
	}()
	r := enet.PacketReader{Peer: ep}
	for {
		pkt, err := r.ReadPacket(ctx)
		if err != nil {
			break
		}
		before := sc.queued.Load()
		p.inMode = enetMode(pkt)
		sc.receive(p, pkt.Data)
		cost := max(len(pkt.Data), messageCost) + int(sc.queued.Load()-before)
		if d := b.take(time.Now(), cost); d > 0 {
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			select {
			case <-timer.C:
			case <-tr.closed:
			}
		}
	}
	cancel()
	tr.close(-1, "")
	sc.removePeer(p)
	s.mu.Lock()
	delete(s.conns, id)
	s.mu.Unlock()
	sc.log.Debug("multiplayer: ENet peer disconnected", "peer", id)
}

// DialENet connects to a Godot 4 server with an ENetMultiplayerPeer (or a Server's
// ServeENet) at addr (host:port) as a Godot client's create_client does: it picks a random id,
// sends it as the CONNECT data, and asks for 255 channels (SYSCH_MAX + the custom channels in
// opts.ENetChannels, if set). It returns once ENet is connected; use Connected to wait for
// authentication to finish. opts.ENet, if set, configures the client's ENet host.
func DialENet(ctx context.Context, addr string, opts *ClientOptions) (*Client, error) {
	if opts == nil {
		opts = &ClientOptions{}
	}
	id := int32(0)
	for id < 2 { // generate_unique_id: 31 random bits, not 0 or 1
		id = int32(rand.Uint32() & 0x7fffffff)
	}
	dopts := &enet.DialOptions{Channels: 255, Data: uint32(id)}
	if opts.ENet != nil {
		dopts.HostOptions = *opts.ENet
	}
	if opts.ENetChannels > 0 {
		dopts.Channels = opts.ENetChannels + enetSysMax
	}
	ep, err := enet.Dial(ctx, "udp", addr, dopts)
	if err != nil {
		return nil, fmt.Errorf("multiplayer: ENet dial %s: %w", addr, err)
	}
	tr := newENetTransport(ep)
	c, err := newClient(id, tr, opts)
	if err != nil {
		ep.DisconnectNow(0)
		return nil, err
	}
	c.closeNow = func() { ep.DisconnectNow(0) }
	go c.run(func() {
		r := enet.PacketReader{Peer: ep}
		for {
			pkt, err := r.ReadPacket(context.Background())
			if err != nil {
				return
			}
			c.server.inMode = enetMode(pkt)
			c.sc.receive(c.server, pkt.Data)
		}
	}, func() {
		tr.close(-1, "")
		if h := ep.Host(); h != nil {
			h.Close()
		}
	})
	return c, nil
}

// sendUnreliable sends pkt as sendCommand does, unreliably: SYNC, which SceneReplicationInterface
// sends with TRANSFER_MODE_UNRELIABLE on channel 0 (_send_raw with p_reliable false); over ENet
// that is channel 1, unsequenced. sc.mu is held.
func (sc *scene) sendUnreliable(to int32, pkt []byte) {
	sc.mode = packetMode{transfer: TransferUnreliable}
	sc.sendCommand(to, pkt)
	sc.mode = packetMode{}
}
