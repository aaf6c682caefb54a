package enet

import (
	"encoding/binary"

	"github.com/gamewire/gamewire/enet/protocol"
)

// datagram is the datagram being built for one peer (host->packetSize, commandCount, …).
type datagram struct {
	size, cmds, bufs int
	flags            uint16
	cont             bool
}

// flushPeer sends what is due for p: acknowledgements, resends after timeouts, queued
// commands, a ping — as many datagrams as it takes (enet_protocol_send_outgoing_commands for
// one peer) — and then hands Receive the packets those acknowledgements were for.
func (h *Host) flushPeer(p *Peer, checkTimeouts bool) {
	h.flushPeerCommands(p, checkTimeouts)
	p.release()
}

func (h *Host) flushPeerCommands(p *Peer, checkTimeouts bool) {
	for pass := 0; pass < 1<<16; pass++ {
		if p.state == stateDisconnected || p.state == stateZombie {
			return
		}
		d := datagram{size: headerSizeForAccounting, bufs: 1}
		h.body = h.body[:0]
		zombie := false
		if len(p.acks) > 0 {
			zombie = h.sendAcks(p, &d)
		}
		if checkTimeouts && len(p.sentReliable) > 0 && !timeLess(h.now, p.nextTimeout) {
			if h.checkTimeouts(p) {
				return
			}
		}
		canPing := true
		if len(p.outgoing) > 0 {
			canPing = h.checkOutgoing(p, &d)
		}
		if canPing && len(p.sentReliable) == 0 && p.state == stateConnected &&
			timeDiff(h.now, p.lastReceiveTime) >= p.pingInterval && int(p.mtu)-d.size >= 4 {
			p.ping()
			h.checkOutgoing(p, &d)
		}
		if d.cmds == 0 {
			if zombie {
				h.finish(p, &DisconnectError{Data: p.eventData})
			}
			return
		}
		h.sendDatagram(p, &d)
		if zombie {
			h.finish(p, &DisconnectError{Data: p.eventData})
			return
		}
		if p.state == stateDisconnectLater && !p.hasOutgoing() {
			h.disconnect(p, p.eventData)
		}
		if !d.cont {
			return
		}
	}
}

// sendAcks is enet_protocol_send_acknowledgements. It reports whether an acknowledged
// DISCONNECT makes the peer a zombie once the datagram is sent.
func (h *Host) sendAcks(p *Peer, d *datagram) bool {
	zombie := false
	i := 0
	for ; i < len(p.acks); i++ {
		if d.cmds >= maxDatagramCommands || d.bufs >= maxDatagramBuffers || int(p.mtu)-d.size < 8 {
			d.cont = true
			break
		}
		a := p.acks[i]
		c := &h.cmdScratch
		*c = protocol.Command{Number: protocol.CmdAcknowledge, ChannelID: a.channelID, ReliableSeq: a.seq,
			ReceivedReliableSeq: a.seq, ReceivedSentTime: a.sentTime}
		h.body = protocol.AppendCommandHeader(h.body, c, 0)
		d.size += 8
		d.cmds++
		d.bufs++
		if a.number == protocol.CmdDisconnect {
			zombie = true
		}
	}
	n := copy(p.acks, p.acks[i:])
	p.acks = p.acks[:n]
	return zombie
}

// checkTimeouts is enet_protocol_check_timeouts: commands not acknowledged within their
// round-trip timeout go back to the front of the queue with the timeout doubled, and a peer
// that stays silent too long is dropped. It reports whether the peer was dropped.
func (h *Host) checkTimeouts(p *Peer) bool {
	var resend []*outCmd
	for j := 0; j < len(p.sentReliable); {
		oc := p.sentReliable[j]
		if timeDiff(h.now, oc.sentTime) < oc.rttTimeout {
			j++
			continue
		}
		if p.earliestTimeout == 0 || timeLess(oc.sentTime, p.earliestTimeout) {
			p.earliestTimeout = oc.sentTime
		}
		if p.earliestTimeout != 0 {
			el := timeDiff(h.now, p.earliestTimeout)
			shift := min(uint32(oc.sendAttempts)-1, 31)
			if el >= p.timeoutMax || (uint32(1)<<shift >= p.timeoutLimit && el >= p.timeoutMin) {
				h.notifyDisconnect(p, &DisconnectError{Timeout: true})
				return true
			}
		}
		p.packetsLost++
		oc.rttTimeout *= 2
		if oc.data != nil {
			p.reliableInTransit -= oc.fragLen
		}
		p.sentReliable = append(p.sentReliable[:j], p.sentReliable[j+1:]...)
		resend = append(resend, oc)
		if j == 0 && len(p.sentReliable) > 0 {
			f := p.sentReliable[0]
			p.nextTimeout = f.sentTime + f.rttTimeout
		}
	}
	if len(resend) > 0 {
		p.outgoing = append(resend, p.outgoing...)
	}
	return false
}

// checkOutgoing is enet_protocol_check_outgoing_commands: queued commands into the datagram,
// within the reliable windows, the throttled window and the MTU. It reports whether a ping
// could go with them.
func (h *Host) checkOutgoing(p *Peer, d *datagram) bool {
	windowWrap, windowExceeded, canPing := false, false, true
	for i := 0; i < len(p.outgoing); {
		oc := p.outgoing[i]
		reliable := oc.cmd.Flags&protocol.FlagAcknowledge != 0
		var ch *channel
		var rw uint16
		if reliable {
			if int(oc.cmd.ChannelID) < len(p.channels) {
				ch = &p.channels[oc.cmd.ChannelID]
			}
			rw = oc.reliableSeq / reliableWindowSize
			if ch != nil {
				if windowWrap {
					i++
					continue
				}
				mask := uint32(1)<<(freeReliableWindows+2) - 1
				if oc.sendAttempts < 1 && oc.reliableSeq%reliableWindowSize == 0 &&
					(ch.reliableWindows[(rw+reliableWindows-1)%reliableWindows] >= reliableWindowSize ||
						uint32(ch.usedReliableWindows)&(mask<<rw|mask>>(reliableWindows-rw)) != 0) {
					windowWrap = true
					i++
					continue
				}
			}
			if oc.data != nil {
				if !windowExceeded {
					ws := p.packetThrottle * p.windowSize / packetThrottleScale
					if p.reliableInTransit+oc.fragLen > max(ws, p.mtu) {
						windowExceeded = true
					}
				}
				if windowExceeded {
					i++
					continue
				}
			}
			canPing = false
		}
		size := protocol.CommandSize(oc.cmd.Number)
		if d.cmds >= maxDatagramCommands || d.bufs+1 >= maxDatagramBuffers || int(p.mtu)-d.size < size ||
			(oc.data != nil && uint16(int(p.mtu)-d.size) < uint16(size+int(oc.fragLen))) {
			d.cont = true
			break
		}
		if reliable {
			if ch != nil && oc.sendAttempts < 1 {
				ch.usedReliableWindows |= 1 << rw
				ch.reliableWindows[rw]++
			}
			oc.sendAttempts++
			if oc.rttTimeout == 0 {
				oc.rttTimeout = p.rtt + 4*p.rttVar
			}
			if len(p.sentReliable) == 0 {
				p.nextTimeout = h.now + oc.rttTimeout
			}
			p.outgoing = removeAt(p.outgoing, i)
			p.sentReliable = append(p.sentReliable, oc)
			oc.sentTime = h.now
			d.flags |= protocol.HeaderFlagSentTime
			p.reliableInTransit += oc.fragLen
		} else {
			if oc.data != nil && oc.fragOffset == 0 {
				p.throttleCounter = (p.throttleCounter + packetThrottleCounter) % packetThrottleScale
				if p.throttleCounter > p.packetThrottle {
					rs, us := oc.reliableSeq, oc.unreliableSeq
					for {
						p.queued -= int(oc.fragLen)
						p.outgoing = removeAt(p.outgoing, i)
						h.freeOutCmd(oc) // dropped by the throttle
						if i >= len(p.outgoing) {
							break
						}
						oc = p.outgoing[i]
						if oc.reliableSeq != rs || oc.unreliableSeq != us {
							break
						}
					}
					continue
				}
			}
			p.outgoing = removeAt(p.outgoing, i)
			if oc.data != nil {
				p.queued -= int(oc.fragLen)
			}
		}
		h.body = protocol.AppendCommandHeader(h.body, &oc.cmd, int(oc.fragLen))
		d.size += size
		d.cmds++
		d.bufs++
		if oc.data != nil {
			h.body = append(h.body, oc.data[oc.fragOffset:oc.fragOffset+oc.fragLen]...)
			d.size += int(oc.fragLen)
			d.bufs++
		}
		if !reliable {
			h.freeOutCmd(oc) // sent once and forgotten
		}
		p.packetsSent++
	}
	if p.state == stateDisconnectLater && !p.hasOutgoing() {
		h.disconnect(p, p.eventData)
	}
	return canPing
}

func removeAt(s []*outCmd, i int) []*outCmd {
	if len(s) == 1 {
		s[0] = nil
		return s[:0] // keep the array for the next command
	}
	if i == 0 && len(s) > 16 {
		// A long queue drops its head without moving the rest (the array's room for new
		// commands shrinks until it grows again); a short one moves, so that the array
		// keeps its room and a steady flow appends without allocating.
		s[0] = nil
		return s[1:]
	}
	copy(s[i:], s[i+1:])
	s[len(s)-1] = nil
	return s[:len(s)-1]
}

// sendDatagram puts the header on h.body (compressed, with the checksum) and sends it.
func (h *Host) sendDatagram(p *Peer, d *datagram) {
	flags := d.flags
	hdr := protocol.Header{PeerID: p.outgoingPeerID, HasSentTime: flags&protocol.HeaderFlagSentTime != 0,
		SentTime: uint16(h.now)}
	if p.outgoingPeerID < protocol.MaximumPeerID {
		hdr.SessionID = p.outgoingSessionID
	}
	body := h.body
	if h.o.comp != nil {
		h.zbuf = h.o.comp.Compress(h.zbuf[:0], body)
		if len(h.zbuf) > 0 && len(h.zbuf) < len(body) {
			hdr.Compressed = true
		}
	}
	b := protocol.AppendHeader(h.out[:0], &hdr, h.o.checksum)
	hl := len(b)
	if h.o.checksum {
		// The checksum covers the uncompressed datagram with the connect id in its place.
		b = append(b, body...)
		id := uint32(0)
		if p.outgoingPeerID < protocol.MaximumPeerID {
			id = p.connectID
		}
		sum := protocol.Checksum(b, hl, id)
		binary.BigEndian.PutUint32(b[hl-4:], sum)
		if hdr.Compressed {
			b = append(b[:hl], h.zbuf...)
		}
	} else if hdr.Compressed {
		b = append(b, h.zbuf...)
	} else {
		b = append(b, body...)
	}
	h.out = b
	if hdr.Compressed {
		h.stats.CompressedSent++
	}
	p.lastSendTime = h.now
	if p.inbound && !p.proven {
		if p.hoOut+len(b) > p.hoIn {
			// Over the budget of an unproven peer: the datagram is not sent, as if lost (its
			// reliable commands are resent later, when the peer has sent more).
			h.stats.DatagramsWithheld++
			return
		}
		p.hoOut += len(b)
	}
	h.write(p, b)
}
