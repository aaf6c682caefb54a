package multiplayer

import (
	"time"
)

// Defaults of the per-peer budgets.
const (
	// DefaultPeerBytesPerSecond is the rate at which one peer may cost the server bytes: what it
	// sends plus what the server queues for others while handling it (relay fan-out, the
	// broadcasts its calls make), each message counted at least messageCost bytes.
	DefaultPeerBytesPerSecond = 4 << 20
	// DefaultPeerBurstBytes is how much of that a peer may spend at once.
	DefaultPeerBurstBytes = 1 << 20
)

// messageCost is the least a received or relayed message is charged: the frame and the
// system calls around it cost about as much as 64 bytes of payload.
const messageCost = 64

// budget is a token bucket in bytes. A peer that spends more than it has waits (its connection
// is not read meanwhile, so TCP slows it down) instead of costing the other peers.
type budget struct {
	rate   float64 // bytes per second; 0: no limit
	burst  float64
	tokens float64
	last   time.Time
}

func newBudget(rate, burst int) *budget {
	if rate <= 0 {
		return &budget{}
	}
	if burst <= 0 {
		burst = rate
	}
	return &budget{rate: float64(rate), burst: float64(burst), tokens: float64(burst)}
}

// take spends cost bytes at now and returns how long the peer must wait before the next
// message.
func (b *budget) take(now time.Time, cost int) time.Duration {
	if b.rate == 0 {
		return 0
	}
	if !b.last.IsZero() {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	b.tokens -= float64(cost)
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

// handleCharged runs fn for msg and charges the peer's budget with what the server queued
// for all peers meanwhile (the fan-out the message caused) and the message's own handling,
// waiting as long as the budget requires. It reports whether the connection is still to be
// read. pc charges the message's wire bytes as they are read.
func (sc *scene) handleCharged(pc *peerConn, msg []byte, fn func([]byte)) bool {
	before := sc.queued.Load()
	fn(msg)
	if pc == nil {
		return true
	}
	return pc.charge(messageCost + int(sc.queued.Load()-before))
}

// relayTo queues a relayed packet to each of the targets (sc.mu not held), charging the bytes
// to the sender's budget through sc.queued. A target whose queue is half full makes the sender
// wait until it has drained, rather than being dropped when it fills: a peer that reads is never
// dropped because another sends faster than it reads. A target that does not read at all is
// dropped by its WriteTimeout, which ends the wait.
func (sc *scene) relayTo(from *Peer, targets []relayTarget, pkt []byte) {
	var stop <-chan struct{}
	if from.tr != nil {
		stop = from.tr.stopped()
	}
	for _, q := range targets {
		if sc.trace != nil {
			sc.trace("out", q.id, pkt)
		}
		sc.queued.Add(int64(max(len(pkt), messageCost)))
		if ms, ok := q.tr.(modeSender); ok {
			// Relayed as it came, as SceneMultiplayer relays with the packet's mode and channel.
			ms.sendMode(pkt, from.inMode)
			continue
		}
		if !q.tr.sendWait(pkt, stop) {
			select {
			case <-stop:
				return
			default:
			}
		}
	}
}

// relayTarget is a peer a relayed packet goes to.
type relayTarget struct {
	id int32
	tr transport
}

// announce tells the admitted peers about p and p about them (ADD_PEER both ways); sc.mu is
// held. The notice to the others is encoded once, p's list in one allocation, and all are sent
// lazily, so that a burst of admissions costs each peer a few writes rather than one per
// notice: admission is O(peers) in bytes and cheap in CPU.
func (sc *scene) announce(p *Peer) {
	if len(sc.peers) == 0 {
		return
	}
	sc.notify(AppendSys(nil, SysAddPeer, p.id, nil))
	list := make([]byte, 0, sysCmdSize*len(sc.peers))
	for id := range sc.peers {
		start := len(list)
		list = AppendSys(list, SysAddPeer, id, nil)
		sc.writeLazy(p.tr, p.id, list[start:len(list):len(list)])
	}
}

// notify sends pkt lazily to every admitted peer; sc.mu is held.
func (sc *scene) notify(pkt []byte) {
	for id, q := range sc.peers {
		sc.writeLazy(q.tr, id, pkt)
	}
}

// writeLazy is write for notices that may wait a few milliseconds to share a write.
func (sc *scene) writeLazy(tr transport, to int32, pkt []byte) {
	if tr == nil {
		return
	}
	if sc.trace != nil {
		sc.trace("out", to, pkt)
	}
	sc.queued.Add(int64(max(len(pkt), messageCost)))
	tr.sendLazy(pkt)
}
