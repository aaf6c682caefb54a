package enet

import "github.com/gamewire/gamewire/enet/protocol"

// bandwidthThrottle is enet_host_bandwidth_throttle: once a second it shares the host's
// outgoing bandwidth among its peers by their packet throttle limits and, after peers came or
// went, tells every peer the incoming bandwidth it may use (BANDWIDTH_LIMIT).
func (h *Host) bandwidthThrottle() {
	now := h.now
	elapsed := now - h.bwEpoch
	if elapsed < bandwidthThrottleInterval {
		return
	}
	h.bwEpoch = now
	remaining := uint32(h.connected)
	if remaining == 0 {
		return
	}
	dataTotal, bandwidth := ^uint32(0), ^uint32(0)
	needsAdjustment := h.bwLimitedPeers > 0
	live := func(p *Peer) bool {
		return p != nil && (p.state == stateConnected || p.state == stateDisconnectLater)
	}
	if h.o.outBW != 0 {
		dataTotal = 0
		bandwidth = h.o.outBW * elapsed / 1000
		for _, p := range h.peers {
			if live(p) {
				dataTotal += p.outgoingDataTotal
			}
		}
	}
	var throttle uint32
	for remaining > 0 && needsAdjustment {
		needsAdjustment = false
		if dataTotal <= bandwidth {
			throttle = packetThrottleScale
		} else {
			throttle = bandwidth * packetThrottleScale / dataTotal
		}
		for _, p := range h.peers {
			if !live(p) || p.incomingBandwidth == 0 || p.outBWEpoch == now {
				continue
			}
			peerBW := p.incomingBandwidth * elapsed / 1000
			if throttle*p.outgoingDataTotal/packetThrottleScale <= peerBW {
				continue
			}
			p.throttleLimit = peerBW * packetThrottleScale / p.outgoingDataTotal
			if p.throttleLimit == 0 {
				p.throttleLimit = 1
			}
			p.packetThrottle = min(p.packetThrottle, p.throttleLimit)
			p.outBWEpoch = now
			p.incomingDataTotal = 0
			p.outgoingDataTotal = 0
			needsAdjustment = true
			remaining--
			bandwidth -= peerBW
			dataTotal -= peerBW
		}
	}
	if remaining > 0 {
		if dataTotal <= bandwidth {
			throttle = packetThrottleScale
		} else {
			throttle = bandwidth * packetThrottleScale / dataTotal
		}
		for _, p := range h.peers {
			if !live(p) || p.outBWEpoch == now {
				continue
			}
			p.throttleLimit = throttle
			p.packetThrottle = min(p.packetThrottle, p.throttleLimit)
			p.incomingDataTotal = 0
			p.outgoingDataTotal = 0
		}
	}
	if !h.recalcBW {
		return
	}
	h.recalcBW = false
	remaining = uint32(h.connected)
	bandwidth = h.o.inBW
	needsAdjustment = true
	var limit uint32
	if bandwidth != 0 {
		for remaining > 0 && needsAdjustment {
			needsAdjustment = false
			limit = bandwidth / remaining
			for _, p := range h.peers {
				if !live(p) || p.inBWEpoch == now {
					continue
				}
				if p.outgoingBandwidth > 0 && p.outgoingBandwidth >= limit {
					continue
				}
				p.inBWEpoch = now
				needsAdjustment = true
				remaining--
				bandwidth -= p.outgoingBandwidth
			}
		}
	}
	for _, p := range h.peers {
		if !live(p) {
			continue
		}
		c := protocol.Command{Number: protocol.CmdBandwidthLimit, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF,
			OutgoingBandwidth: h.o.outBW, IncomingBandwidth: limit}
		if p.inBWEpoch == now {
			c.IncomingBandwidth = p.outgoingBandwidth
		}
		p.queueOutgoing(&c, nil, 0, 0)
	}
}
