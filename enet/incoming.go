package enet

import (
	"errors"
	"net"
	"slices"

	"github.com/gamewire/gamewire/enet/protocol"
)

// errCommand stops the handling of a datagram at a command, as C ENet's commandError: what came
// before stands, the rest is ignored.
var errCommand = errors.New("enet: command refused")

// handleDatagram is enet_protocol_handle_incoming_commands. It returns the peer the datagram
// was for, if any.
func (h *Host) handleDatagram(b []byte, addr net.Addr) *Peer {
	hdr, hl, err := protocol.ConsumeHeader(b, h.o.checksum)
	if err != nil {
		h.stats.DatagramsDropped++
		return nil
	}
	var p *Peer
	if hdr.PeerID != protocol.MaximumPeerID {
		if int(hdr.PeerID) >= len(h.peers) {
			h.stats.DatagramsDropped++
			return nil
		}
		p = h.peers[hdr.PeerID]
		if p == nil || p.state == stateDisconnected || p.state == stateZombie || p.key != h.recvAddr ||
			(p.outgoingPeerID < protocol.MaximumPeerID && hdr.SessionID != p.incomingSessionID) {
			h.stats.DatagramsDropped++
			return nil
		}
	}
	if hdr.Compressed {
		if h.o.comp == nil {
			h.stats.DatagramsDropped++
			return nil
		}
		out, err := h.o.comp.Decompress(append(h.zbuf[:0], b[:hl]...), b[hl:], protocol.MaximumMTU-hl)
		if err != nil || len(out) <= hl {
			h.stats.DatagramsDropped++
			return nil
		}
		h.zbuf = out
		b = out
		h.stats.CompressedReceived++
	}
	if h.o.checksum {
		id := uint32(0)
		if p != nil {
			id = p.connectID
		}
		if protocol.Checksum(b, hl, id) != hdr.Checksum {
			h.stats.DatagramsDropped++
			return nil
		}
	}
	if p != nil {
		p.incomingDataTotal += uint32(len(b))
		if p.inbound && !p.proven {
			p.hoIn += len(b)
		}
	}
	h.recvLen = len(b)
	off := hl
	for off < len(b) {
		c, n, err := protocol.ConsumeCommand(b[off:], off)
		if err != nil {
			break
		}
		off += n
		if p == nil && c.Number != protocol.CmdConnect {
			break
		}
		if c.Number != protocol.CmdConnect && p != nil && p.state == stateDisconnected {
			break
		}
		if p != nil && p.state == stateAckConnect && c.Number != protocol.CmdAcknowledge && c.Number != protocol.CmdConnect {
			// The peer sends on its new connection, so it has the VERIFY_CONNECT, whose
			// acknowledgement was lost: it is connected (C ENet would wait for a resent
			// VERIFY_CONNECT to be acknowledged).
			h.removeSentReliable(p, 1, 0xFF)
			h.notifyConnect(p)
		}
		var herr error
		switch c.Number {
		case protocol.CmdAcknowledge:
			herr = h.handleAck(p, &c)
		case protocol.CmdConnect:
			if p != nil {
				herr = errCommand
				break
			}
			p = h.handleConnect(&c, addr)
			if p == nil {
				herr = errCommand
			}
		case protocol.CmdVerifyConnect:
			herr = h.handleVerifyConnect(p, &c)
		case protocol.CmdDisconnect:
			herr = h.handleDisconnect(p, &c)
		case protocol.CmdPing:
			if p.state != stateConnected && p.state != stateDisconnectLater {
				herr = errCommand
			}
		case protocol.CmdSendReliable, protocol.CmdSendUnreliable, protocol.CmdSendUnsequenced:
			herr = h.handleSend(p, &c)
		case protocol.CmdSendFragment:
			herr = h.handleFragment(p, &c)
		case protocol.CmdSendUnreliableFragment:
			herr = h.handleUnreliableFragment(p, &c)
		case protocol.CmdBandwidthLimit:
			herr = h.handleBandwidthLimit(p, &c)
		case protocol.CmdThrottleConfigure:
			if p.state != stateConnected && p.state != stateDisconnectLater {
				herr = errCommand
				break
			}
			p.throttleInterval, p.throttleAcceleration, p.throttleDeceleration =
				c.ThrottleInterval, c.ThrottleAcceleration, c.ThrottleDeceleration
		default:
			herr = errCommand
		}
		if herr != nil {
			break
		}
		if p != nil && c.Flags&protocol.FlagAcknowledge != 0 {
			if !hdr.HasSentTime {
				break
			}
			switch p.state {
			case stateDisconnecting, stateAckConnect, stateDisconnected, stateZombie:
			case stateAckDisconnect:
				if c.Number == protocol.CmdDisconnect {
					h.queueAck(p, &c, hdr.SentTime)
				}
			default:
				h.queueAck(p, &c, hdr.SentTime)
			}
		}
	}
	return p
}

// queueAck is enet_peer_queue_acknowledgement.
func (h *Host) queueAck(p *Peer, c *protocol.Command, sentTime uint16) {
	if int(c.ChannelID) < len(p.channels) {
		ch := &p.channels[c.ChannelID]
		rw := c.ReliableSeq / reliableWindowSize
		cw := ch.inRelSeq / reliableWindowSize
		if c.ReliableSeq < ch.inRelSeq {
			rw += reliableWindows
		}
		if rw >= cw+freeReliableWindows-1 && rw <= cw+freeReliableWindows {
			return
		}
	}
	p.outgoingDataTotal += 8
	p.acks = append(p.acks, ack{number: c.Number, channelID: c.ChannelID, seq: c.ReliableSeq, sentTime: sentTime})
}

// handleConnect is enet_protocol_handle_connect, with one difference: a CONNECT again from a
// peer that is still waiting for the VERIFY_CONNECT gets it again (C ENet resends it on a
// timer instead, which would let a spoofed CONNECT make the host send more than it received).
func (h *Host) handleConnect(c *protocol.Command, addr net.Addr) *Peer {
	channels := c.ChannelCount
	if channels < protocol.MinimumChannelCount || channels > protocol.MaximumChannelCount {
		return nil
	}
	free := -1
	for i, q := range h.peers {
		if q == nil {
			if free < 0 {
				free = i
			}
			continue
		}
		if q.key == h.recvAddr && q.connectID == c.ConnectID && q.state != stateConnecting {
			if q.state == stateAckConnect {
				// The VERIFY_CONNECT was lost: send it once more, now (the CONNECT pays for it).
				q.hoIn += h.recvLen
				for _, oc := range q.sentReliable {
					if oc.cmd.Number == protocol.CmdVerifyConnect {
						q.sentReliable = slices.DeleteFunc(q.sentReliable, func(x *outCmd) bool { return x == oc })
						q.outgoing = append([]*outCmd{oc}, q.outgoing...)
						return q
					}
				}
			}
			return nil
		}
	}
	if free < 0 || h.ipCount(h.recvAddr, 0) >= h.o.maxConnsPerIP {
		return nil
	}
	if int(channels) > h.o.channels {
		channels = uint32(h.o.channels)
	}
	p := h.newPeer(uint16(free), h.recvAddr, addr)
	p.channels = make([]channel, channels)
	p.state = stateAckConnect
	p.handshakeStart = h.now
	p.hoIn = h.recvLen
	p.inbound = true
	p.connectID = c.ConnectID
	p.outgoingPeerID = c.OutgoingPeerID
	p.incomingBandwidth = c.IncomingBandwidth
	p.outgoingBandwidth = c.OutgoingBandwidth
	p.throttleInterval = c.ThrottleInterval
	p.throttleAcceleration = c.ThrottleAcceleration
	p.throttleDeceleration = c.ThrottleDeceleration
	p.connectData = c.Data
	p.eventData = c.Data

	in := c.IncomingSessionID
	if in == 0xFF {
		in = p.outgoingSessionID
	}
	in = (in + 1) & 3
	if in == p.outgoingSessionID {
		in = (in + 1) & 3
	}
	p.outgoingSessionID = in
	out := c.OutgoingSessionID
	if out == 0xFF {
		out = p.incomingSessionID
	}
	out = (out + 1) & 3
	if out == p.incomingSessionID {
		out = (out + 1) & 3
	}
	p.incomingSessionID = out

	mtu := min(max(c.MTU, protocol.MinimumMTU), protocol.MaximumMTU)
	if mtu < p.mtu {
		p.mtu = mtu
	}
	o := &h.o
	switch {
	case o.outBW == 0 && p.incomingBandwidth == 0:
		p.windowSize = protocol.MaximumWindowSize
	case o.outBW == 0 || p.incomingBandwidth == 0:
		p.windowSize = max(o.outBW, p.incomingBandwidth) / windowSizeScale * protocol.MinimumWindowSize
	default:
		p.windowSize = min(o.outBW, p.incomingBandwidth) / windowSizeScale * protocol.MinimumWindowSize
	}
	p.windowSize = clampWindow(p.windowSize)
	var ws uint32
	if o.inBW == 0 {
		ws = protocol.MaximumWindowSize
	} else {
		ws = o.inBW / windowSizeScale * protocol.MinimumWindowSize
	}
	ws = clampWindow(min(ws, c.WindowSize))

	v := protocol.Command{Number: protocol.CmdVerifyConnect, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF,
		OutgoingPeerID: p.id, IncomingSessionID: in, OutgoingSessionID: out, MTU: p.mtu, WindowSize: ws,
		ChannelCount: channels, IncomingBandwidth: o.inBW, OutgoingBandwidth: o.outBW,
		ThrottleInterval: p.throttleInterval, ThrottleAcceleration: p.throttleAcceleration,
		ThrottleDeceleration: p.throttleDeceleration, ConnectID: p.connectID}
	p.queueOutgoing(&v, nil, 0, 0)
	return p
}

// handleVerifyConnect is enet_protocol_handle_verify_connect.
func (h *Host) handleVerifyConnect(p *Peer, c *protocol.Command) error {
	if p.state != stateConnecting {
		return nil
	}
	if c.ChannelCount < protocol.MinimumChannelCount || c.ChannelCount > protocol.MaximumChannelCount ||
		c.ThrottleInterval != p.throttleInterval || c.ThrottleAcceleration != p.throttleAcceleration ||
		c.ThrottleDeceleration != p.throttleDeceleration || c.ConnectID != p.connectID {
		h.finish(p, &DisconnectError{})
		return errCommand
	}
	h.removeSentReliable(p, 1, 0xFF)
	if int(c.ChannelCount) < len(p.channels) {
		p.channels = p.channels[:c.ChannelCount]
	}
	p.outgoingPeerID = c.OutgoingPeerID
	p.incomingSessionID = c.IncomingSessionID
	p.outgoingSessionID = c.OutgoingSessionID
	mtu := min(max(c.MTU, protocol.MinimumMTU), protocol.MaximumMTU)
	if mtu < p.mtu {
		p.mtu = mtu
	}
	ws := clampWindow(c.WindowSize)
	if ws < p.windowSize {
		p.windowSize = ws
	}
	p.incomingBandwidth = c.IncomingBandwidth
	p.outgoingBandwidth = c.OutgoingBandwidth
	h.notifyConnect(p)
	return nil
}

// handleDisconnect is enet_protocol_handle_disconnect.
func (h *Host) handleDisconnect(p *Peer, c *protocol.Command) error {
	switch p.state {
	case stateDisconnected, stateZombie, stateAckDisconnect:
		return nil
	}
	err := &DisconnectError{Data: c.Data}
	switch p.state {
	case stateDisconnecting, stateConnecting:
		h.resetQueues(p)
		h.finish(p, err)
	case stateAckConnect:
		h.finish(p, nil)
	default: // connected, disconnect later
		p.release()
		recv, head := p.recvQ, p.recvHead
		h.resetQueues(p)
		p.recvQ, p.recvHead = recv, head
		if c.Flags&protocol.FlagAcknowledge != 0 {
			h.onDisconnect(p)
			p.state = stateAckDisconnect
			p.eventData = c.Data
		} else {
			h.finish(p, err)
		}
	}
	return nil
}

// handleAck is enet_protocol_handle_acknowledge.
func (h *Host) handleAck(p *Peer, c *protocol.Command) error {
	if p.state == stateDisconnected || p.state == stateZombie {
		return nil
	}
	now := h.now
	rst := uint32(c.ReceivedSentTime) | now&0xFFFF0000
	if rst&0x8000 > now&0x8000 {
		rst -= 0x10000
	}
	if timeLess(now, rst) {
		return nil
	}
	rtt := max(timeDiff(now, rst), 1)
	if p.lastReceiveTime > 0 {
		p.throttle(rtt)
		p.rttVar -= p.rttVar / 4
		if rtt >= p.rtt {
			diff := rtt - p.rtt
			p.rttVar += diff / 4
			p.rtt += diff / 8
		} else {
			diff := p.rtt - rtt
			p.rttVar += diff / 4
			p.rtt -= diff / 8
		}
	} else {
		p.rtt = rtt
		p.rttVar = (rtt + 1) / 2
	}
	p.lowestRTT = min(p.lowestRTT, p.rtt)
	p.highestRTTVar = max(p.highestRTTVar, p.rttVar)
	if p.throttleEpoch == 0 || timeDiff(now, p.throttleEpoch) >= p.throttleInterval {
		p.lastRTT = p.lowestRTT
		p.lastRTTVar = max(p.highestRTTVar, 1)
		p.lowestRTT = p.rtt
		p.highestRTTVar = p.rttVar
		p.throttleEpoch = now
	}
	p.lastReceiveTime = max(now, 1)
	p.earliestTimeout = 0
	num := h.removeSentReliable(p, c.ReceivedReliableSeq, c.ChannelID)
	if num != protocol.CmdNone {
		p.proven = true
	}
	switch p.state {
	case stateAckConnect:
		if num != protocol.CmdVerifyConnect {
			return errCommand
		}
		h.notifyConnect(p)
	case stateDisconnecting:
		if num != protocol.CmdDisconnect {
			return errCommand
		}
		h.notifyDisconnect(p, &DisconnectError{Data: p.eventData, Local: true})
	case stateDisconnectLater:
		if !p.hasOutgoing() {
			h.disconnect(p, p.eventData)
		}
	}
	return nil
}

// removeSentReliable is enet_protocol_remove_sent_reliable_command.
func (h *Host) removeSentReliable(p *Peer, seq uint16, chID uint8) protocol.CommandNumber {
	var oc *outCmd
	wasSent := true
	for i, x := range p.sentReliable {
		if x.reliableSeq == seq && x.cmd.ChannelID == chID {
			oc = x
			p.sentReliable = append(p.sentReliable[:i], p.sentReliable[i+1:]...)
			break
		}
	}
	if oc == nil {
		for i, x := range p.outgoing {
			if x.cmd.Flags&protocol.FlagAcknowledge == 0 {
				continue
			}
			if x.sendAttempts < 1 {
				break
			}
			if x.reliableSeq == seq && x.cmd.ChannelID == chID {
				oc = x
				p.outgoing = append(p.outgoing[:i], p.outgoing[i+1:]...)
				break
			}
		}
		wasSent = false
	}
	if oc == nil {
		return protocol.CmdNone
	}
	if int(chID) < len(p.channels) {
		ch := &p.channels[chID]
		rw := seq / reliableWindowSize
		if ch.reliableWindows[rw] > 0 {
			ch.reliableWindows[rw]--
			if ch.reliableWindows[rw] == 0 {
				ch.usedReliableWindows &^= 1 << rw
			}
		}
	}
	if oc.data != nil {
		if wasSent {
			p.reliableInTransit -= oc.fragLen
		}
		p.queued -= int(oc.fragLen)
	}
	if len(p.sentReliable) > 0 {
		f := p.sentReliable[0]
		p.nextTimeout = f.sentTime + f.rttTimeout
	}
	num := oc.cmd.Number
	h.freeOutCmd(oc)
	return num
}

// handleBandwidthLimit is enet_protocol_handle_bandwidth_limit.
func (h *Host) handleBandwidthLimit(p *Peer, c *protocol.Command) error {
	if p.state != stateConnected && p.state != stateDisconnectLater {
		return errCommand
	}
	if p.incomingBandwidth != 0 {
		h.bwLimitedPeers--
	}
	p.incomingBandwidth = c.IncomingBandwidth
	p.outgoingBandwidth = c.OutgoingBandwidth
	if p.incomingBandwidth != 0 {
		h.bwLimitedPeers++
	}
	o := h.o.outBW
	switch {
	case p.incomingBandwidth == 0 && o == 0:
		p.windowSize = protocol.MaximumWindowSize
	case p.incomingBandwidth == 0 || o == 0:
		p.windowSize = max(p.incomingBandwidth, o) / windowSizeScale * protocol.MinimumWindowSize
	default:
		p.windowSize = min(p.incomingBandwidth, o) / windowSizeScale * protocol.MinimumWindowSize
	}
	p.windowSize = clampWindow(p.windowSize)
	return nil
}

// inWindow reports whether reliable sequence number seq is in the channel's receive window
// (the check of enet_peer_queue_incoming_command).
func (ch *channel) inWindow(seq uint16) bool {
	rw := seq / reliableWindowSize
	cw := ch.inRelSeq / reliableWindowSize
	if seq < ch.inRelSeq {
		rw += reliableWindows
	}
	return rw >= cw && rw < cw+freeReliableWindows-1
}

// charge takes n bytes of the buffer budgets, or reports that they are spent.
func (h *Host) charge(p *Peer, n int) bool {
	if p.waiting+n > h.o.peerBudget || h.buffered+n > h.o.maxBuffered {
		return false
	}
	p.waiting += n
	h.buffered += n
	return true
}

func (h *Host) release(p *Peer, n int) {
	p.waiting -= n
	h.buffered -= n
}

// deliverCharged hands a held packet to Receive; its charge moves to the delivered packet, and
// the command goes back to the host's free list.
func (h *Host) deliverCharged(p *Peer, ch uint8, ic *inCmd) {
	d := len(ic.data) + inCmdOverhead
	if d != ic.cost {
		h.release(p, ic.cost-d)
	}
	p.deliver(ch, ic.data, ic.flags)
	h.freeInCmd(ic)
}

// newInCmd takes a held command from the host's free list, so that packets received out of
// order or in fragments allocate no command in steady state.
func (h *Host) newInCmd() *inCmd {
	if n := len(h.freeIn); n > 0 {
		ic := h.freeIn[n-1]
		h.freeIn[n-1] = nil
		h.freeIn = h.freeIn[:n-1]
		return ic
	}
	return new(inCmd)
}

// freeInCmd returns a delivered command: at most 1024 are kept, each with a fragment bitmap of
// at most 2048 fragments (256 bytes).
func (h *Host) freeInCmd(ic *inCmd) {
	if len(h.freeIn) >= 1024 {
		return
	}
	frags := ic.fragments
	if cap(frags) > 64 {
		frags = nil
	}
	*ic = inCmd{fragments: frags[:0]}
	h.freeIn = append(h.freeIn, ic)
}

// handleSend handles SEND_RELIABLE, SEND_UNRELIABLE and SEND_UNSEQUENCED.
func (h *Host) handleSend(p *Peer, c *protocol.Command) error {
	if int(c.ChannelID) >= len(p.channels) || (p.state != stateConnected && p.state != stateDisconnectLater) {
		return errCommand
	}
	if len(c.Payload) > h.o.maxMessage {
		return errCommand
	}
	if p.state == stateDisconnectLater {
		return nil
	}
	ch := &p.channels[c.ChannelID]
	switch c.Number {
	case protocol.CmdSendUnsequenced:
		group := uint32(c.UnsequencedGroup)
		index := group % unsequencedWindowSize
		if group < uint32(p.inUnseqGroup) {
			group += 0x10000
		}
		if group >= uint32(p.inUnseqGroup)+freeUnsequencedWindows*unsequencedWindowSize {
			return nil
		}
		group &= 0xFFFF
		if uint16(group-index) != p.inUnseqGroup {
			p.inUnseqGroup = uint16(group - index)
			p.unseqWindow = [len(p.unseqWindow)]uint32{}
		} else if p.unseqWindow[index/32]&(1<<(index%32)) != 0 {
			return nil
		}
		cost := len(c.Payload) + inCmdOverhead
		if !h.charge(p, cost) {
			return errCommand
		}
		p.unseqWindow[index/32] |= 1 << (index % 32)
		p.deliver(c.ChannelID, h.copyPayload(c.Payload), Unsequenced)
		return nil
	case protocol.CmdSendReliable:
		seq := c.ReliableSeq
		if !ch.inWindow(seq) || seq == ch.inRelSeq {
			return nil
		}
		if _, dup := ch.inReliable[seq]; dup {
			return nil
		}
		cost := len(c.Payload) + inCmdOverhead
		if !h.charge(p, cost) {
			return errCommand
		}
		data := h.copyPayload(c.Payload)
		if seq == ch.inRelSeq+1 && len(ch.inReliable) == 0 {
			ch.inRelSeq = seq
			p.deliver(c.ChannelID, data, Reliable)
			ch.inUnrelSeq = 0
			if len(ch.inUnreliable) > 0 {
				h.dispatchUnreliable(p, c.ChannelID)
			}
			return nil
		}
		if ch.inReliable == nil {
			ch.inReliable = map[uint16]*inCmd{}
		}
		ic := h.newInCmd()
		ic.number, ic.relSeq, ic.flags, ic.data, ic.cost = c.Number, seq, Reliable, data, cost
		ch.inReliable[seq] = ic
		h.dispatchReliable(p, c.ChannelID)
		return nil
	default: // unreliable
		seq, useq := c.ReliableSeq, c.UnreliableSeq
		if !ch.inWindow(seq) {
			return nil
		}
		if seq == ch.inRelSeq && useq <= ch.inUnrelSeq {
			return nil
		}
		cost := len(c.Payload) + inCmdOverhead
		if !h.charge(p, cost) {
			return errCommand
		}
		data := h.copyPayload(c.Payload)
		if seq == ch.inRelSeq {
			ch.inUnrelSeq = useq
			p.deliver(c.ChannelID, data, 0)
			if len(ch.inUnreliable) > 0 {
				h.dispatchUnreliable(p, c.ChannelID)
			}
			return nil
		}
		for _, x := range ch.inUnreliable {
			if x.relSeq == seq && x.unrelSeq == useq {
				h.release(p, cost)
				return nil
			}
		}
		ic := h.newInCmd()
		ic.number, ic.relSeq, ic.unrelSeq, ic.data, ic.cost = c.Number, seq, useq, data, cost
		ch.inUnreliable = append(ch.inUnreliable, ic)
		return nil
	}
}

// dispatchReliable delivers the reliable packets that are next in order.
func (h *Host) dispatchReliable(p *Peer, chID uint8) {
	ch := &p.channels[chID]
	advanced := false
	for {
		next := ch.inRelSeq + 1
		ic := ch.inReliable[next]
		if ic == nil || ic.fragRemaining > 0 {
			break
		}
		delete(ch.inReliable, next)
		ch.inRelSeq = next
		if ic.fragCount > 0 {
			ch.inRelSeq += uint16(ic.fragCount - 1)
			// Commands inside the fragments' range can never be delivered: drop them.
			if ic.fragCount > 1 {
				if int(ic.fragCount) < len(ch.inReliable) {
					for s := next + 1; s != ch.inRelSeq+1; s++ {
						if x := ch.inReliable[s]; x != nil {
							h.release(p, x.cost)
							delete(ch.inReliable, s)
						}
					}
				} else {
					for s, x := range ch.inReliable {
						if s-next < uint16(ic.fragCount) {
							h.release(p, x.cost)
							delete(ch.inReliable, s)
						}
					}
				}
			}
		}
		h.deliverCharged(p, chID, ic)
		advanced = true
	}
	if advanced {
		ch.inUnrelSeq = 0
		if len(ch.inUnreliable) > 0 {
			h.dispatchUnreliable(p, chID)
		}
	}
}

// dispatchUnreliable delivers the held unreliable packets of the current reliable sequence
// number in order and drops those that can no longer be delivered.
func (h *Host) dispatchUnreliable(p *Peer, chID uint8) {
	ch := &p.channels[chID]
	ready := h.ready[:0]
	defer func() { clear(ready); h.ready = ready[:0] }()
	keep := ch.inUnreliable[:0]
	for _, ic := range ch.inUnreliable {
		switch {
		case ic.relSeq == ch.inRelSeq:
			if ic.fragRemaining == 0 {
				ready = append(ready, ic)
				continue
			}
			if ic.unrelSeq > ch.inUnrelSeq {
				keep = append(keep, ic)
				continue
			}
		case ch.inWindow(ic.relSeq):
			keep = append(keep, ic)
			continue
		}
		h.release(p, ic.cost)
	}
	clear(ch.inUnreliable[len(keep):])
	ch.inUnreliable = keep
	slices.SortFunc(ready, func(a, b *inCmd) int { return int(a.unrelSeq) - int(b.unrelSeq) })
	for _, ic := range ready {
		if ic.unrelSeq <= ch.inUnrelSeq {
			h.release(p, ic.cost)
			continue
		}
		ch.inUnrelSeq = ic.unrelSeq
		h.deliverCharged(p, chID, ic)
	}
	if len(ready) > 0 {
		keep = ch.inUnreliable[:0]
		for _, ic := range ch.inUnreliable {
			if ic.relSeq == ch.inRelSeq && ic.unrelSeq <= ch.inUnrelSeq {
				h.release(p, ic.cost)
				continue
			}
			keep = append(keep, ic)
		}
		clear(ch.inUnreliable[len(keep):])
		ch.inUnreliable = keep
	}

}

// fragmentValid is the check both fragment commands make.
func (h *Host) fragmentValid(c *protocol.Command) bool {
	n := uint32(len(c.Payload))
	return n > 0 && c.FragmentCount <= protocol.MaximumFragmentCount && c.FragmentNumber < c.FragmentCount &&
		c.TotalLength <= uint32(h.o.maxMessage) && c.TotalLength >= c.FragmentCount &&
		c.FragmentOffset < c.TotalLength && n <= c.TotalLength-c.FragmentOffset
}

// copyPayload copies a received packet out of the socket's buffer into a buffer of the host's
// pool.
func (h *Host) copyPayload(b []byte) []byte {
	d := h.pool.get(len(b))
	copy(d, b)
	return d
}

func (h *Host) newFragments(c *protocol.Command, flags Flags, cost int) *inCmd {
	// The buffer is cleared: fragments need not cover it (a hostile peer's overlap), and what
	// they leave must not be another packet's bytes.
	data := h.pool.get(int(c.TotalLength))
	clear(data)
	ic := h.newInCmd()
	words := int(c.FragmentCount+31) / 32
	frags := ic.fragments[:0]
	if cap(frags) < words {
		frags = make([]uint32, words)
	} else {
		frags = frags[:words]
		clear(frags)
	}
	ic.number, ic.flags, ic.data, ic.fragCount, ic.fragRemaining, ic.fragments, ic.cost =
		c.Number, flags, data, c.FragmentCount, c.FragmentCount, frags, cost
	return ic
}

func fragmentCost(c *protocol.Command) int {
	return int(c.TotalLength) + int(c.FragmentCount+31)/32*4 + inCmdOverhead
}

// addFragment copies a fragment into its packet; it reports whether the packet is complete.
func addFragment(ic *inCmd, c *protocol.Command) bool {
	n := c.FragmentNumber
	if ic.fragments[n/32]&(1<<(n%32)) != 0 {
		return false
	}
	ic.fragRemaining--
	ic.fragments[n/32] |= 1 << (n % 32)
	copy(ic.data[c.FragmentOffset:], c.Payload)
	return ic.fragRemaining == 0
}

// handleFragment is enet_protocol_handle_send_fragment.
func (h *Host) handleFragment(p *Peer, c *protocol.Command) error {
	if int(c.ChannelID) >= len(p.channels) || (p.state != stateConnected && p.state != stateDisconnectLater) {
		return errCommand
	}
	if len(c.Payload) == 0 || len(c.Payload) > h.o.maxMessage {
		return errCommand
	}
	ch := &p.channels[c.ChannelID]
	start := c.StartSeq
	sw := start / reliableWindowSize
	cw := ch.inRelSeq / reliableWindowSize
	if start < ch.inRelSeq {
		sw += reliableWindows
	}
	if sw < cw || sw >= cw+freeReliableWindows-1 {
		return nil
	}
	if !h.fragmentValid(c) {
		return errCommand
	}
	if p.state == stateDisconnectLater {
		return errCommand
	}
	ic := ch.inReliable[start]
	if ic != nil {
		if ic.number != protocol.CmdSendFragment || uint32(len(ic.data)) != c.TotalLength || ic.fragCount != c.FragmentCount {
			return errCommand
		}
	} else {
		if start == ch.inRelSeq {
			return errCommand
		}
		cost := fragmentCost(c)
		if !h.charge(p, cost) {
			return errCommand
		}
		ic = h.newFragments(c, Reliable, cost)
		ic.relSeq = start
		if ch.inReliable == nil {
			ch.inReliable = map[uint16]*inCmd{}
		}
		ch.inReliable[start] = ic
	}
	if addFragment(ic, c) {
		h.dispatchReliable(p, c.ChannelID)
	}
	return nil
}

// handleUnreliableFragment is enet_protocol_handle_send_unreliable_fragment.
func (h *Host) handleUnreliableFragment(p *Peer, c *protocol.Command) error {
	if int(c.ChannelID) >= len(p.channels) || (p.state != stateConnected && p.state != stateDisconnectLater) {
		return errCommand
	}
	if len(c.Payload) == 0 || len(c.Payload) > h.o.maxMessage {
		return errCommand
	}
	ch := &p.channels[c.ChannelID]
	seq, start := c.ReliableSeq, c.StartSeq
	if !ch.inWindow(seq) {
		return nil
	}
	if seq == ch.inRelSeq && start <= ch.inUnrelSeq {
		return nil
	}
	if !h.fragmentValid(c) {
		return errCommand
	}
	if p.state == stateDisconnectLater {
		return errCommand
	}
	var ic *inCmd
	for _, x := range ch.inUnreliable {
		if x.relSeq == seq && x.unrelSeq == start {
			if x.number != protocol.CmdSendUnreliableFragment || uint32(len(x.data)) != c.TotalLength || x.fragCount != c.FragmentCount {
				return errCommand
			}
			ic = x
			break
		}
	}
	if ic == nil {
		cost := fragmentCost(c)
		if !h.charge(p, cost) {
			return errCommand
		}
		ic = h.newFragments(c, UnreliableFragment, cost)
		ic.relSeq, ic.unrelSeq = seq, start
		ch.inUnreliable = append(ch.inUnreliable, ic)
	}
	if addFragment(ic, c) {
		h.dispatchUnreliable(p, c.ChannelID)
	}
	return nil
}
