package enet

import "math/bits"

// Packet buffers. A host copies every packet it sends (Send's copy, which the host owns until the
// packet is acknowledged or sent unreliably) and every packet it receives (out of the socket's
// read buffer) into a buffer of its own. Those buffers come from the host's pool and go back to
// it once the host is done with them, so that a steady flow of packets allocates nothing:
//
//   - a sent packet's buffer goes back when its last command (its last fragment) is
//     acknowledged, or sent when it is unreliable;
//   - a received packet's buffer goes back when [Peer.ReceiveInto] has copied it out;
//     [Peer.Receive] hands it to the caller instead, who owns it from then on.
//
// The pool holds buffers of power-of-two sizes from minPoolBuffer to maxPoolBuffer bytes, and
// at most maxPoolBytes (4 MiB) of free buffers in all: a buffer that would go over is left to the
// garbage collector. The buffers in use are bounded by the host's other limits (MaxQueueBytes
// per peer for what is sent, MaxBufferedBytes for what is received), so a hostile peer can make
// the pool hold no more than maxPoolBytes, whatever it sends.
const (
	minPoolBuffer = 64
	maxPoolBuffer = 64 << 10
	poolClasses   = 11      // 64 B … 64 KiB
	maxPoolBytes  = 4 << 20 // the most bytes of free packet buffers a host keeps for reuse
)

// bufPool is a host's free packet buffers by size class; the host's mutex guards it.
type bufPool struct {
	free  [poolClasses][][]byte
	bytes int
	// refs are free fragment reference counts (see sendRefs).
	refs []*sendRefs
}

// sendRefs counts the fragments of one sent packet that still need its buffer.
type sendRefs struct{ n int }

// poolClass returns the class of a buffer of n bytes (the smallest that holds n), or -1 when n
// is over maxPoolBuffer.
func poolClass(n int) int {
	if n <= minPoolBuffer {
		return 0
	}
	if n > maxPoolBuffer {
		return -1
	}
	return bits.Len(uint(n-1)) - 6
}

// get returns a buffer of length n, from the pool when it has one.
func (bp *bufPool) get(n int) []byte {
	c := poolClass(n)
	if c < 0 {
		return make([]byte, n)
	}
	if l := len(bp.free[c]); l > 0 {
		b := bp.free[c][l-1]
		bp.free[c][l-1] = nil
		bp.free[c] = bp.free[c][:l-1]
		bp.bytes -= cap(b)
		return b[:n]
	}
	return make([]byte, n, minPoolBuffer<<c)
}

// put gives b back to the pool: nothing may use it afterwards. Buffers the pool did not make
// (whose capacity is not a class size) and buffers over maxPoolBytes are dropped.
func (bp *bufPool) put(b []byte) {
	c := poolClass(cap(b))
	if c < 0 || cap(b) != minPoolBuffer<<c || bp.bytes+cap(b) > maxPoolBytes {
		return
	}
	bp.bytes += cap(b)
	bp.free[c] = append(bp.free[c], b[:0])
}

// newRefs returns a fragment count of n.
func (bp *bufPool) newRefs(n int) *sendRefs {
	if l := len(bp.refs); l > 0 {
		r := bp.refs[l-1]
		bp.refs[l-1] = nil
		bp.refs = bp.refs[:l-1]
		r.n = n
		return r
	}
	return &sendRefs{n: n}
}

// done releases one command's hold on a sent packet's buffer: the buffer goes back to the pool
// with the last one.
func (bp *bufPool) done(data []byte, r *sendRefs) {
	if r != nil {
		r.n--
		if r.n > 0 {
			return
		}
		if len(bp.refs) < 1024 {
			bp.refs = append(bp.refs, r)
		}
	}
	bp.put(data)
}
