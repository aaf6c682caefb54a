package multiplayer

import (
	"sync/atomic"
	"time"
)

// Defaults of the per-peer budgets.
const (
	// DefaultPeerBytesPerSecond is the rate at which one peer may cost the server bytes: what it
	// sends plus what the server queues for others while handling it (relay fan-out, the
	// broadcasts its calls make), each message counted at least messageCost bytes.
	DefaultPeerBytesPerSecond = 1 << 20
	// DefaultPeerBurstBytes is how much of that a peer may spend at once.
	DefaultPeerBurstBytes = 256 << 10
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

// charger charges each message a server peer sends, with the fan-out it causes, to the peer's
// budget and makes the peer's read loop wait when the budget is spent.
type charger struct {
	b      *budget
	queued *atomic.Int64 // the scene's bytes queued so far, for all peers
	timer  *time.Timer
}

// handle runs fn for msg and waits as long as the peer's budget requires, or until stop is
// closed. It reports whether the connection is still to be read.
func (c *charger) handle(msg []byte, fn func([]byte), stop <-chan struct{}) bool {
	before := c.queued.Load()
	fn(msg)
	cost := max(len(msg), messageCost) + int(c.queued.Load()-before)
	d := c.b.take(time.Now(), cost)
	if d <= 0 {
		return true
	}
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-c.timer.C:
		return true
	case <-stop:
		c.timer.Stop()
		return false
	}
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
