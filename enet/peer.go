package enet

import (
	"context"
	"fmt"
	"net"

	"github.com/gamewire/gamewire/enet/protocol"
)

// Constants of enet.h that shape the protocol's behaviour.
const (
	defaultRoundTripTime    = 500
	defaultPacketThrottle   = 32
	packetThrottleScale     = 32
	packetThrottleCounter   = 7
	packetThrottleAccel     = 2
	packetThrottleDecel     = 2
	packetThrottleInterval  = 5000
	windowSizeScale         = 64 * 1024
	unsequencedWindowSize   = 1024
	freeUnsequencedWindows  = 32
	reliableWindows         = 16
	reliableWindowSize      = 0x1000
	freeReliableWindows     = 8
	inCmdOverhead           = 96 // bytes charged per held incoming command besides its data
	maxDatagramCommands     = protocol.MaximumPacketCmds
	maxDatagramBuffers      = 1 + 2*protocol.MaximumPacketCmds
	headerSizeForAccounting = 4 // sizeof (ENetProtocolHeader), as C ENet counts a datagram
)

type peerState uint8

const (
	stateDisconnected peerState = iota
	stateConnecting
	stateAckConnect
	stateConnected
	stateDisconnectLater
	stateDisconnecting
	stateAckDisconnect
	stateZombie
)

// Peer is a connection to a remote ENet host. Its methods are safe for concurrent use.
type Peer struct {
	h                 *Host
	id                uint16
	outgoingPeerID    uint16
	incomingSessionID uint8
	outgoingSessionID uint8
	key               addrKey
	addr              net.Addr
	state             peerState
	dirty             bool
	connectID         uint32
	connectData       uint32
	eventData         uint32
	mtu               uint32
	windowSize        uint32
	channels          []channel
	incomingBandwidth uint32
	outgoingBandwidth uint32
	inBWEpoch         uint32
	outBWEpoch        uint32
	incomingDataTotal uint32
	outgoingDataTotal uint32
	handshakeStart    uint32
	// An inbound peer (one that connected to this host) is not proven until it acknowledges
	// something the host sent: until then the host sends it at most as many bytes as it
	// received from it (hoIn, hoOut), so a spoofed source address gains no amplification.
	inbound, proven      bool
	hoIn, hoOut          int
	lastSendTime         uint32
	lastReceiveTime      uint32
	nextTimeout          uint32
	earliestTimeout      uint32
	packetsSent          uint32
	packetsLost          uint32
	packetThrottle       uint32
	throttleLimit        uint32
	throttleCounter      uint32
	throttleEpoch        uint32
	throttleInterval     uint32
	throttleAcceleration uint32
	throttleDeceleration uint32
	pingInterval         uint32
	timeoutLimit         uint32
	timeoutMin           uint32
	timeoutMax           uint32
	lastRTT              uint32
	lowestRTT            uint32
	lastRTTVar           uint32
	highestRTTVar        uint32
	rtt                  uint32
	rttVar               uint32
	reliableInTransit    uint32
	outgoingReliableSeq  uint16
	inUnseqGroup         uint16
	outUnseqGroup        uint16
	unseqWindow          [unsequencedWindowSize / 32]uint32
	outgoing             []*outCmd
	sentReliable         []*outCmd
	acks                 []ack
	queued               int // bytes of packets waiting to be sent or acknowledged
	waiting              int // bytes charged to the buffer budget: reassembly, undelivered

	recvQ     []Packet // Receive takes recvQ[recvHead:]
	recvHead  int
	held      []Packet // delivered, waiting for their acknowledgements to be sent
	recvCh    chan struct{}
	connected chan struct{}
	done      chan struct{}
	err       error
}

type channel struct {
	outRelSeq, outUnrelSeq uint16
	usedReliableWindows    uint16
	reliableWindows        [reliableWindows]uint16
	inRelSeq, inUnrelSeq   uint16
	inReliable             map[uint16]*inCmd
	inUnreliable           []*inCmd
}

// outCmd is a command waiting to be sent or acknowledged.
type outCmd struct {
	cmd                        protocol.Command
	reliableSeq, unreliableSeq uint16
	sendAttempts               uint16
	sentTime, rttTimeout       uint32
	queueTime                  uint32
	data                       []byte    // the whole packet, nil for a protocol command
	refs                       *sendRefs // the fragments sharing data, nil when not fragmented
	fragOffset, fragLen        uint32
}

// inCmd is a packet received and not yet delivered: out of order, or being reassembled.
type inCmd struct {
	number           protocol.CommandNumber
	relSeq, unrelSeq uint16
	flags            Flags
	data             []byte
	fragCount        uint32
	fragRemaining    uint32
	fragments        []uint32
	cost             int
}

type ack struct {
	number    protocol.CommandNumber
	channelID uint8
	seq       uint16
	sentTime  uint16
}

func (h *Host) newPeer(id uint16, k addrKey, addr net.Addr) *Peer {
	p := &Peer{h: h, id: id, key: k, addr: addr,
		recvCh: make(chan struct{}, 1), connected: make(chan struct{}), done: make(chan struct{})}
	if addr == nil {
		if k.s == "" {
			p.addr = net.UDPAddrFromAddrPort(k.ap)
		}
	}
	s := h.sessions[id]
	p.incomingSessionID, p.outgoingSessionID = uint8(s>>8), uint8(s)
	p.reset()
	h.peers[id] = p
	h.ipCount(k, 1)
	return p
}

// reset is enet_peer_reset's state without its queues.
func (p *Peer) reset() {
	p.outgoingPeerID = protocol.MaximumPeerID
	p.mtu = p.h.o.mtu
	p.windowSize = protocol.MaximumWindowSize
	p.packetThrottle = defaultPacketThrottle
	p.throttleLimit = packetThrottleScale
	p.throttleAcceleration = packetThrottleAccel
	p.throttleDeceleration = packetThrottleDecel
	p.throttleInterval = packetThrottleInterval
	p.pingInterval = p.h.o.pingInterval
	p.timeoutLimit = p.h.o.timeoutLimit
	p.timeoutMin = p.h.o.timeoutMin
	p.timeoutMax = p.h.o.timeoutMax
	p.lastRTT = defaultRoundTripTime
	p.lowestRTT = defaultRoundTripTime
	p.rtt = defaultRoundTripTime
}

// ID returns the peer's id on this host (its incoming peer id, 0–4094).
func (p *Peer) ID() uint16 { return p.id }

// RemoteAddr returns the remote host's address.
func (p *Peer) RemoteAddr() net.Addr { return p.addr }

// ConnectData returns the data of the peer's CONNECT command (for a peer from Accept; 0 for one
// from Connect).
func (p *Peer) ConnectData() uint32 { return p.connectData }

// Host returns the host the peer belongs to.
func (p *Peer) Host() *Host { return p.h }

// Channels returns the number of channels of the connection (0 once it is gone).
func (p *Peer) Channels() int {
	p.h.mu.Lock()
	defer p.h.mu.Unlock()
	return len(p.channels)
}

// RoundTripTime returns the peer's mean round trip time and its variance in milliseconds, as
// C ENet keeps them.
func (p *Peer) RoundTripTime() (mean, variance uint32) {
	p.h.mu.Lock()
	defer p.h.mu.Unlock()
	return p.rtt, p.rttVar
}

// Done is closed when the peer is gone.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Err returns why the peer is gone (a *DisconnectError), nil while it is connected.
func (p *Peer) Err() error {
	p.h.mu.Lock()
	defer p.h.mu.Unlock()
	return p.err
}

func (p *Peer) doneErrForConnect() error {
	p.h.mu.Lock()
	defer p.h.mu.Unlock()
	if de, ok := p.err.(*DisconnectError); ok && de.Timeout {
		return ErrTimeout
	}
	if de, ok := p.err.(*DisconnectError); ok && !de.Local {
		return fmt.Errorf("%w (data %d)", ErrRefused, de.Data)
	}
	return p.err
}

// Send queues data for the peer on channel with flags (see [Flags]); the host sends it at
// once. A packet larger than the MTU allows is sent in fragments.
func (p *Peer) Send(ch uint8, data []byte, flags Flags) error {
	h := p.h
	h.mu.Lock()
	idle := len(p.outgoing) == 0 && !p.dirty
	err := p.send(ch, data, flags)
	wake := false
	if err == nil {
		if idle {
			// Nothing was waiting: send now, from this goroutine (a lone packet's latency).
			// While packets wait, the service goroutine sends them together.
			h.now = h.clock()
			h.flushPeer(p, false)
		}
		if len(p.outgoing) > 0 {
			h.markDirty(p)
			wake = true
		}
		// Packets that this flush released go to the handler from the service goroutine,
		// not from the caller's.
		wake = wake || h.handlersDue()
	}
	h.mu.Unlock()
	if wake {
		h.signalWake()
	}
	return err
}

func (p *Peer) send(chID uint8, data []byte, flags Flags) error {
	h := p.h
	if p.state != stateConnected {
		if p.err != nil {
			return fmt.Errorf("%w: %w", ErrNotConnected, p.err)
		}
		return ErrNotConnected
	}
	if int(chID) >= len(p.channels) {
		return fmt.Errorf("enet: channel %d of %d: %w", chID, len(p.channels), ErrChannel)
	}
	if len(data) > h.o.maxMessage {
		return fmt.Errorf("enet: %d bytes (MaxMessageBytes %d): %w", len(data), h.o.maxMessage, ErrTooLarge)
	}
	if p.queued+len(data) > h.o.maxQueue {
		return fmt.Errorf("enet: %d %s queued and %d to send exceed MaxQueueBytes %d: %w", p.queued, bytesWord(p.queued), len(data), h.o.maxQueue, ErrQueueFull)
	}
	ch := &p.channels[chID]
	fragLen := p.mtu - 4 - uint32(protocol.CommandSize(protocol.CmdSendFragment))
	if h.o.checksum {
		fragLen -= 4
	}
	n := uint32(len(data))
	if n > fragLen {
		count := (n + fragLen - 1) / fragLen
		if count > protocol.MaximumFragmentCount {
			return fmt.Errorf("enet: %d fragments: %w", count, ErrTooLarge)
		}
		d := h.pool.get(len(data))
		copy(d, data)
		refs := h.pool.newRefs(int(count))
		var c protocol.Command
		if flags&(Reliable|UnreliableFragment) == UnreliableFragment && ch.outUnrelSeq < 0xFFFF {
			c.Number = protocol.CmdSendUnreliableFragment
			c.StartSeq = ch.outUnrelSeq + 1
		} else {
			c.Number = protocol.CmdSendFragment
			c.Flags = protocol.FlagAcknowledge
			c.StartSeq = ch.outRelSeq + 1
		}
		c.ChannelID = chID
		c.FragmentCount = count
		c.TotalLength = n
		var num, off uint32
		for ; off < n; num, off = num+1, off+fragLen {
			l := min(fragLen, n-off)
			c.FragmentNumber = num
			c.FragmentOffset = off
			p.queueOutgoing(&c, d, off, l).refs = refs
		}
		return nil
	}
	c := protocol.Command{ChannelID: chID}
	switch {
	case flags&(Reliable|Unsequenced) == Unsequenced:
		c.Number, c.Flags = protocol.CmdSendUnsequenced, protocol.FlagUnsequenced
	case flags&Reliable != 0 || ch.outUnrelSeq == 0xFFFF:
		c.Number, c.Flags = protocol.CmdSendReliable, protocol.FlagAcknowledge
	default:
		c.Number = protocol.CmdSendUnreliable
	}
	d := h.pool.get(len(data))
	copy(d, data)
	p.queueOutgoing(&c, d, 0, n)
	return nil
}

// queueOutgoing is enet_peer_queue_outgoing_command with enet_peer_setup_outgoing_command. It
// returns the command queued.
func (p *Peer) queueOutgoing(c *protocol.Command, data []byte, off, length uint32) *outCmd {
	h := p.h
	oc := h.newOutCmd()
	*oc = outCmd{cmd: *c, data: data, fragOffset: off, fragLen: length}
	p.outgoingDataTotal += uint32(protocol.CommandSize(c.Number)) + length
	if c.ChannelID == 0xFF {
		p.outgoingReliableSeq++
		oc.reliableSeq = p.outgoingReliableSeq
	} else {
		ch := &p.channels[c.ChannelID]
		switch {
		case c.Flags&protocol.FlagAcknowledge != 0:
			ch.outRelSeq++
			ch.outUnrelSeq = 0
			oc.reliableSeq = ch.outRelSeq
		case c.Flags&protocol.FlagUnsequenced != 0:
			p.outUnseqGroup++
		default:
			if off == 0 {
				ch.outUnrelSeq++
			}
			oc.reliableSeq = ch.outRelSeq
			oc.unreliableSeq = ch.outUnrelSeq
		}
	}
	oc.cmd.ReliableSeq = oc.reliableSeq
	h.totalQueued++
	oc.queueTime = h.totalQueued
	switch c.Number {
	case protocol.CmdSendUnreliable:
		oc.cmd.UnreliableSeq = oc.unreliableSeq
	case protocol.CmdSendUnsequenced:
		oc.cmd.UnsequencedGroup = p.outUnseqGroup
	}
	if data != nil {
		p.queued += int(length)
	}
	p.outgoing = append(p.outgoing, oc)
	return oc
}

// Receive returns the next packet from the peer, waiting for one until ctx ends. Once the peer
// is gone and its packets are taken, it returns a *DisconnectError (errors.Is ErrDisconnected).
//
// The packet's Data is the caller's: the host never uses it again. That costs an allocation per
// packet; [Peer.ReceiveInto] copies the packet into the caller's buffer instead and allocates
// nothing.
func (p *Peer) Receive(ctx context.Context) (Packet, error) {
	h := p.h
	for {
		h.mu.Lock()
		if p.recvHead < len(p.recvQ) {
			pk := p.pop()
			h.mu.Unlock()
			return pk, nil
		}
		if err := p.waitLocked(ctx); err != nil {
			return Packet{}, err
		}
	}
}

// ReceiveInto copies the next packet from the peer into buf, waiting for one until ctx ends,
// and returns its length, channel and flags. It is [Peer.Receive] without the allocation: the
// packet's bytes go back to the host's buffer pool once copied, and buf stays the caller's (the
// host keeps no reference to it).
//
// When the packet is longer than buf, ReceiveInto returns its length and an error wrapping
// ErrShortBuffer, and the packet stays first in line: the caller may call again with a buffer
// of at least n bytes (a peer's packets are at most HostOptions.MaxMessageBytes long). Once the
// peer is gone and its packets are taken, it returns a *DisconnectError.
func (p *Peer) ReceiveInto(ctx context.Context, buf []byte) (n int, channel uint8, flags Flags, err error) {
	h := p.h
	for {
		h.mu.Lock()
		if p.recvHead < len(p.recvQ) {
			q := &p.recvQ[p.recvHead]
			n, channel, flags = len(q.Data), q.Channel, q.Flags
			if n > len(buf) {
				h.mu.Unlock()
				return n, channel, flags, fmt.Errorf("enet: packet of %d bytes, buffer of %d: %w", n, len(buf), ErrShortBuffer)
			}
			pk := p.pop()
			if n <= maxPoolBuffer {
				// Small enough to copy under the lock, and to go back to the pool.
				copy(buf, pk.Data)
				h.pool.put(pk.Data)
				h.mu.Unlock()
				return n, channel, flags, nil
			}
			h.mu.Unlock()
			copy(buf, pk.Data)
			return n, channel, flags, nil
		}
		if err := p.waitLocked(ctx); err != nil {
			return 0, 0, 0, err
		}
	}
}

// pop takes the first packet of the receive queue (the host's mutex held) and frees its share
// of the buffer budget.
func (p *Peer) pop() Packet {
	pk := p.recvQ[p.recvHead]
	p.recvQ[p.recvHead] = Packet{}
	p.recvHead++
	if p.recvHead == len(p.recvQ) {
		p.recvQ, p.recvHead = p.recvQ[:0], 0
	}
	p.uncharge(len(pk.Data))
	return pk
}

// uncharge frees the buffer budget of a delivered packet of n bytes once it is taken (the
// host's mutex held); a peer that is gone has given its charges back already.
func (p *Peer) uncharge(n int) {
	if p.state != stateDisconnected {
		c := n + inCmdOverhead
		p.waiting -= c
		p.h.buffered -= c
	}
}

// waitLocked unlocks the host's mutex (held, with no packet queued) and waits for a packet, the
// peer's end or ctx's. It returns why the peer is gone once it is, or ctx's error.
func (p *Peer) waitLocked(ctx context.Context) error {
	err := p.err
	p.h.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case <-p.recvCh:
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// deliver hands a packet to Receive once the acknowledgements queued with it are sent (see
// release): as with C ENet, whose application gets a packet only after enet_host_service has
// acknowledged it, a reply never travels in the acknowledgement's datagram.
func (p *Peer) deliver(ch uint8, data []byte, flags Flags) {
	p.held = append(p.held, Packet{Channel: ch, Data: data, Flags: flags})
}

// release makes the held packets available to Receive, or queues them for the handler.
func (p *Peer) release() {
	if len(p.held) == 0 {
		return
	}
	if h := p.h; h.handler != nil {
		for _, pk := range p.held {
			h.handQ = append(h.handQ, handled{p, pk})
		}
		clear(p.held)
		p.held = p.held[:0]
		return
	}
	p.recvQ = append(p.recvQ, p.held...)
	clear(p.held)
	p.held = p.held[:0]
	select {
	case p.recvCh <- struct{}{}:
	default:
	}
}

// Disconnect asks the peer to disconnect: the queues are dropped, a DISCONNECT is sent and
// the peer is gone once it is acknowledged (or times out). data travels in the DISCONNECT.
func (p *Peer) Disconnect(data uint32) error {
	h := p.h
	h.mu.Lock()
	h.now = h.clock()
	h.disconnect(p, data)
	h.mu.Unlock()
	h.signalWake()
	return nil
}

// DisconnectLater disconnects the peer once everything queued for it is sent and acknowledged.
func (p *Peer) DisconnectLater(data uint32) error {
	h := p.h
	h.mu.Lock()
	h.now = h.clock()
	h.disconnectLater(p, data)
	h.mu.Unlock()
	h.signalWake()
	return nil
}

// DisconnectNow drops the peer at once, sending one unacknowledged DISCONNECT.
func (p *Peer) DisconnectNow(data uint32) {
	h := p.h
	h.mu.Lock()
	h.now = h.clock()
	h.disconnectNow(p, data)
	wake := h.handlersDue()
	h.mu.Unlock()
	if wake {
		h.signalWake() // the packets it released go to the handler
	}
}

// Close disconnects the peer after what is queued is sent (DisconnectLater(0)) and waits until
// it is gone, at most the peer timeout. A peer made by Dial closes its host too.
func (p *Peer) Close() error {
	p.DisconnectLater(0)
	h := p.h
	<-p.done
	h.mu.Lock()
	own := h.peerOnly == p
	h.mu.Unlock()
	if own {
		return h.Close()
	}
	return nil
}

func (h *Host) disconnectLater(p *Peer, data uint32) {
	if (p.state == stateConnected || p.state == stateDisconnectLater) && p.hasOutgoing() {
		p.state = stateDisconnectLater
		p.eventData = data
		return
	}
	h.disconnect(p, data)
}

func (p *Peer) hasOutgoing() bool {
	return len(p.outgoing) > 0 || len(p.sentReliable) > 0
}

// disconnect is enet_peer_disconnect.
func (h *Host) disconnect(p *Peer, data uint32) {
	switch p.state {
	case stateDisconnecting, stateDisconnected, stateAckDisconnect, stateZombie:
		return
	}
	h.resetQueues(p)
	c := protocol.Command{Number: protocol.CmdDisconnect, ChannelID: 0xFF, Data: data}
	if p.state == stateConnected || p.state == stateDisconnectLater {
		c.Flags = protocol.FlagAcknowledge
	} else {
		c.Flags = protocol.FlagUnsequenced
	}
	p.queueOutgoing(&c, nil, 0, 0)
	if p.state == stateConnected || p.state == stateDisconnectLater {
		h.onDisconnect(p)
		p.state = stateDisconnecting
		p.eventData = data
		h.markDirty(p)
		return
	}
	h.flushPeer(p, false)
	h.finish(p, &DisconnectError{Data: data, Local: true})
}

// disconnectNow is enet_peer_disconnect_now.
func (h *Host) disconnectNow(p *Peer, data uint32) {
	if p.state == stateDisconnected {
		return
	}
	if p.state != stateZombie && p.state != stateDisconnecting {
		h.resetQueues(p)
		c := protocol.Command{Number: protocol.CmdDisconnect, Flags: protocol.FlagUnsequenced, ChannelID: 0xFF, Data: data}
		p.queueOutgoing(&c, nil, 0, 0)
		h.flushPeer(p, false)
	}
	h.finish(p, &DisconnectError{Data: data, Local: true})
}

// resetQueues is enet_peer_reset_queues: every queue and channel dropped.
func (h *Host) resetQueues(p *Peer) {
	p.outgoing = nil
	p.sentReliable = nil
	p.acks = nil
	p.queued = 0
	for i := range p.channels {
		p.channels[i].inReliable = nil
		p.channels[i].inUnreliable = nil
	}
	p.channels = nil
	h.buffered -= p.waiting
	p.waiting = 0
	p.recvQ, p.recvHead = nil, 0
	p.held = nil
}

func (h *Host) onConnect(p *Peer) {
	if p.state != stateConnected && p.state != stateDisconnectLater {
		if p.incomingBandwidth != 0 {
			h.bwLimitedPeers++
		}
		h.connected++
	}
}

func (h *Host) onDisconnect(p *Peer) {
	if p.state == stateConnected || p.state == stateDisconnectLater {
		if p.incomingBandwidth != 0 {
			h.bwLimitedPeers--
		}
		h.connected--
	}
}

// finish makes the peer gone: its slot is freed, Receive returns err once the packets
// delivered before are taken. A nil err forgets a half-open peer.
func (h *Host) finish(p *Peer, err error) {
	if p.state == stateDisconnected && h.peers[p.id] != p {
		return
	}
	h.onDisconnect(p)
	if p.state != stateConnecting && p.state != stateAckConnect || err != nil {
		h.recalcBW = true
	}
	h.sessions[p.id] = uint16(p.incomingSessionID)<<8 | uint16(p.outgoingSessionID)
	p.release()
	recv, head := p.recvQ, p.recvHead
	h.resetQueues(p)
	p.recvQ, p.recvHead = recv, head
	p.state = stateDisconnected
	if h.peers[p.id] == p {
		h.peers[p.id] = nil
		h.ipCount(p.key, -1)
	}
	if err == nil {
		err = &DisconnectError{Local: true}
	}
	p.err = err
	close(p.done)
}

// notifyConnect is enet_protocol_notify_connect: the handshake is complete.
func (h *Host) notifyConnect(p *Peer) {
	h.recalcBW = true
	client := p.state == stateConnecting
	h.onConnect(p)
	p.state = stateConnected
	if client {
		close(p.connected)
		return
	}
	close(p.connected)
	h.acceptQ = append(h.acceptQ, p)
	h.signalAccept()
}

// notifyDisconnect is enet_protocol_notify_disconnect for a peer that timed out or whose
// DISCONNECT was acknowledged.
func (h *Host) notifyDisconnect(p *Peer, err error) {
	if p.state == stateAckConnect {
		h.finish(p, nil)
		return
	}
	h.finish(p, err)
}

// throttle is enet_peer_throttle.
func (p *Peer) throttle(rtt uint32) {
	switch {
	case p.lastRTT <= p.lastRTTVar:
		p.packetThrottle = p.throttleLimit
	case rtt <= p.lastRTT:
		p.packetThrottle += p.throttleAcceleration
		if p.packetThrottle > p.throttleLimit {
			p.packetThrottle = p.throttleLimit
		}
	case rtt > p.lastRTT+2*p.lastRTTVar:
		if p.packetThrottle > p.throttleDeceleration {
			p.packetThrottle -= p.throttleDeceleration
		} else {
			p.packetThrottle = 0
		}
	}
}

// ConfigureThrottle sets the packet throttle's interval (ms), acceleration and deceleration
// and tells the remote host (THROTTLE_CONFIGURE), as enet_peer_throttle_configure.
func (p *Peer) ConfigureThrottle(interval, acceleration, deceleration uint32) error {
	h := p.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.state != stateConnected {
		return ErrNotConnected
	}
	p.throttleInterval, p.throttleAcceleration, p.throttleDeceleration = interval, acceleration, deceleration
	c := protocol.Command{Number: protocol.CmdThrottleConfigure, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF,
		ThrottleInterval: interval, ThrottleAcceleration: acceleration, ThrottleDeceleration: deceleration}
	p.queueOutgoing(&c, nil, 0, 0)
	h.markDirty(p)
	h.signalWake()
	return nil
}

// Ping queues a PING, as enet_peer_ping (hosts ping quiet peers by themselves).
func (p *Peer) Ping() {
	h := p.h
	h.mu.Lock()
	p.ping()
	h.markDirty(p)
	h.mu.Unlock()
	h.signalWake()
}

func (p *Peer) ping() {
	if p.state != stateConnected {
		return
	}
	c := protocol.Command{Number: protocol.CmdPing, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF}
	p.queueOutgoing(&c, nil, 0, 0)
}

// newOutCmd takes a command from the host's free list (commands come back there once sent
// unreliably or acknowledged), so that sending allocates no command in steady state.
func (h *Host) newOutCmd() *outCmd {
	if n := len(h.freeCmds); n > 0 {
		oc := h.freeCmds[n-1]
		h.freeCmds = h.freeCmds[:n-1]
		return oc
	}
	return new(outCmd)
}

// freeOutCmd returns a command no list refers to any more, and its packet's buffer once no
// other fragment needs it.
func (h *Host) freeOutCmd(oc *outCmd) {
	if oc.data != nil {
		h.pool.done(oc.data, oc.refs)
	}
	if len(h.freeCmds) < 4096 {
		*oc = outCmd{}
		h.freeCmds = append(h.freeCmds, oc)
	}
}

func clampWindow(w uint32) uint32 {
	return min(max(w, protocol.MinimumWindowSize), protocol.MaximumWindowSize)
}

// Time comparisons of C ENet (ENET_TIME_LESS, ENET_TIME_DIFFERENCE) on a wrapping clock.
const timeOverflow = 86400000

func timeLess(a, b uint32) bool { return a-b >= timeOverflow }

func timeDiff(a, b uint32) uint32 {
	if a-b >= timeOverflow {
		return b - a
	}
	return a - b
}

// bytesWord is "byte" for 1 and "bytes" otherwise.
func bytesWord(n int) string {
	if n == 1 {
		return "byte"
	}
	return "bytes"
}
