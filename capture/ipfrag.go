package capture

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// An IP datagram larger than the path's MTU travels in fragments: a UDP datagram of a Godot
// PacketPeerUDP message up to 65 507 bytes, or of any protocol that sends more than ~1 400
// bytes at once. Only the first fragment has the UDP header; the DatagramReader holds the
// fragments of each IP datagram until they cover it (RFC 791 for IPv4, RFC 8200 §4.5 for
// IPv6) and returns the datagram then.

// ipFragment is one fragment of an IP datagram as the fast decoder found it.
type ipFragment struct {
	key  fragKey
	off  int    // offset of data in the IP payload (the UDP datagram), in bytes
	more bool   // more fragments follow (IPv4 MF, IPv6 M)
	data []byte // the fragment's payload as captured
	wire int    // the fragment's payload length on the wire (len(data) is less when the snaplen cut it)
}

// fragKey identifies the fragments of one IP datagram: its addresses and identification (the
// protocol is UDP for all of them; other protocols' fragments are not held).
type fragKey struct {
	src, dst netip.Addr
	id       uint32
	v6       bool
}

// ipFragment reports whether the packet the decoder decoded last ends in an IP fragment of a
// UDP datagram, and returns it. It is valid until the next packet.
func (d *fastDecoder) ipFragment() (f ipFragment, ok bool) {
	if len(d.decoded) == 0 {
		return f, false
	}
	switch d.decoded[len(d.decoded)-1] {
	case layers.LayerTypeIPv4:
		ip := &d.ip4
		if ip.Protocol != layers.IPProtocolUDP || (ip.Flags&layers.IPv4MoreFragments == 0 && ip.FragOffset == 0) {
			return f, false
		}
		f.key.src, _ = netip.AddrFromSlice(ip.SrcIP)
		f.key.dst, _ = netip.AddrFromSlice(ip.DstIP)
		f.key.id = uint32(ip.Id)
		f.off = int(ip.FragOffset) * 8
		f.more = ip.Flags&layers.IPv4MoreFragments != 0
		f.data = ip.Payload
		f.wire = int(ip.Length) - int(ip.IHL)*4
	case layers.LayerTypeIPv6:
		// The fragment header right after the fixed header (RFC 8200 §4.5): next header,
		// reserved, offset in 8-byte units (13 bits), 2 reserved bits, M; identification.
		ip := &d.ip6
		p := ip.Payload
		if ip.NextHeader != layers.IPProtocolIPv6Fragment || len(p) < 8 || ip.Length < 8 ||
			layers.IPProtocol(p[0]) != layers.IPProtocolUDP {
			return f, false
		}
		f.key.src, _ = netip.AddrFromSlice(ip.SrcIP)
		f.key.dst, _ = netip.AddrFromSlice(ip.DstIP)
		f.key.id = binary.BigEndian.Uint32(p[4:])
		f.key.v6 = true
		fo := binary.BigEndian.Uint16(p[2:])
		f.off = int(fo>>3) * 8
		f.more = fo&1 != 0
		f.data = p[8:]
		f.wire = int(ip.Length) - 8
	default:
		return f, false
	}
	f.wire = max(f.wire, len(f.data))
	return f, true
}

// fragPiece is a fragment held for reassembly.
type fragPiece struct {
	off, wire int
	data      []byte // a copy of what the capture kept of it
	packet    int    // its packet record
}

// fragEntry holds the fragments of one IP datagram that has not been completed yet.
type fragEntry struct {
	key    fragKey
	first  time.Time // capture time of the first fragment that arrived
	total  int       // the datagram's length (the last fragment's end), -1 until it arrived
	pieces []fragPiece
	held   int  // bytes charged to the reader's budget
	gone   bool // dropped or completed: its place in defrag.order is stale
}

// fragPieceCost is what holding a fragment costs besides its bytes: the piece, its share of
// the entry and the map.
const fragPieceCost = 96

// maxIPDatagram is the largest IP payload a fragment may extend to (the 16-bit total length
// of IPv4; IPv6 fragments carry the same limit without jumbograms).
const maxIPDatagram = 1<<16 - 1

// defrag reassembles the IP fragments of UDP datagrams. Memory: the captured bytes of the
// fragments it holds plus fragPieceCost each, at most Options.MaxBufferedBytes in all (the
// oldest incomplete datagrams are dropped to make room), and one reassembly buffer of up to
// 64 KiB. An incomplete datagram is dropped ReorderTimeout of capture time after its first
// fragment.
type defrag struct {
	max     int // NoLimit: none
	timeout time.Duration
	held    int
	entries map[fragKey]*fragEntry
	order   []*fragEntry // by first arrival, oldest first; entries marked gone are skipped
	stale   int          // entries of order marked gone
	buf     []byte
	lost    int // fragments dropped
}

func newDefrag(opts Options) *defrag {
	d := &defrag{max: opts.MaxBufferedBytes, timeout: opts.ReorderTimeout, entries: make(map[fragKey]*fragEntry)}
	if d.max == 0 {
		d.max = DefaultMaxBufferedBytes
	}
	if d.timeout <= 0 {
		d.timeout = DefaultReorderTimeout
	}
	return d
}

// reassembled is a datagram whose fragments are all there.
type reassembled struct {
	payload   []byte // the IP payload (UDP header and data) as far as the capture kept it, from its start
	length    int    // its length on the wire
	fragments int
}

// add takes a fragment captured at time t in packet record packet. When the fragment completes
// its datagram, add returns it (valid until the next call).
func (d *defrag) add(f ipFragment, t time.Time, packet int) (r reassembled, done bool) {
	d.expire(t)
	d.compact()
	end := f.off + f.wire
	if end > maxIPDatagram || (f.more && f.wire%8 != 0) || f.wire == 0 && f.more {
		// Past the largest datagram, or a fragment but the last whose length is not a
		// multiple of 8: no sender makes these, and no receiver would reassemble them.
		d.lost++
		return r, false
	}
	e := d.entries[f.key]
	if e == nil {
		e = d.newEntry(f.key, t)
	}
	if !f.more {
		if e.total >= 0 && e.total != end {
			d.drop(e, 1) // two last fragments that disagree
			return r, false
		}
		e.total = end
	}
	for _, p := range e.pieces {
		if p.off < end && f.off < p.off+p.wire || e.total >= 0 && p.off+p.wire > e.total {
			if p.off == f.off && p.wire == f.wire {
				return r, false // the same fragment twice (a capture on two interfaces, a resend)
			}
			// Overlapping fragments: RFC 8200 and RFC 5722 have the datagram dropped, and so
			// do receivers in practice.
			d.drop(e, 1)
			return r, false
		}
	}
	cost := len(f.data) + fragPieceCost
	if d.max > 0 {
		if cost > d.max {
			d.drop(e, 1)
			return r, false
		}
		for d.held+cost > d.max {
			d.dropOldest(e)
		}
		if e.gone { // its own fragments were the oldest: they made room
			e = d.newEntry(f.key, t)
			if !f.more {
				e.total = end
			}
		}
	}
	e.pieces = append(e.pieces, fragPiece{off: f.off, wire: f.wire, data: slices.Clone(f.data), packet: packet})
	e.held += cost
	d.held += cost
	if e.total < 0 {
		return r, false
	}
	// Complete when the pieces cover [0, total) without a gap.
	slices.SortFunc(e.pieces, func(a, b fragPiece) int { return a.off - b.off })
	at := 0
	for _, p := range e.pieces {
		if p.off != at {
			return r, false
		}
		at += p.wire
	}
	if at != e.total {
		return r, false
	}
	// The captured bytes from the start, up to the first byte the snaplen cut.
	d.buf = d.buf[:0]
	for _, p := range e.pieces {
		d.buf = append(d.buf, p.data...)
		if len(p.data) < p.wire {
			break
		}
	}
	r = reassembled{payload: d.buf, length: e.total, fragments: len(e.pieces)}
	d.remove(e)
	return r, true
}

// newEntry starts holding the fragments of a datagram.
func (d *defrag) newEntry(k fragKey, t time.Time) *fragEntry {
	e := &fragEntry{key: k, first: t, total: -1}
	d.entries[k] = e
	d.order = append(d.order, e)
	return e
}

// expire drops the incomplete datagrams whose first fragment came longer than the timeout
// before t.
func (d *defrag) expire(t time.Time) {
	for len(d.order) > 0 {
		e := d.order[0]
		if !e.gone && t.Sub(e.first) <= d.timeout {
			break
		}
		if !e.gone {
			d.drop(e, 0)
		}
		d.popFront()
	}
}

// popFront removes the first of d.order.
func (d *defrag) popFront() {
	if d.order[0].gone {
		d.stale--
	}
	d.order[0] = nil
	d.order = d.order[1:]
}

// dropOldest drops the oldest incomplete datagram to make room, keeping keep (the one a
// fragment is being added to) unless it is the only one.
func (d *defrag) dropOldest(keep *fragEntry) {
	for len(d.order) > 0 && d.order[0].gone {
		d.popFront()
	}
	for _, e := range d.order {
		if e.gone || e == keep && d.held > keep.held {
			continue
		}
		d.drop(e, 0)
		return
	}
}

// drop forgets an incomplete datagram and counts its fragments, and extra more, as lost.
func (d *defrag) drop(e *fragEntry, extra int) {
	d.lost += len(e.pieces) + extra
	d.remove(e)
}

// remove forgets a datagram. Its place in d.order goes stale until compact or expire removes
// it: d.order stays within about twice the datagrams held (completed datagrams behind an old
// incomplete one do not pile up).
func (d *defrag) remove(e *fragEntry) {
	d.held -= e.held
	delete(d.entries, e.key)
	e.gone, e.pieces, e.held = true, nil, 0
	d.stale++
}

// compact drops the stale places from d.order when they are more than half of it.
func (d *defrag) compact() {
	if d.stale > 64 && d.stale > len(d.order)/2 {
		d.order = slices.DeleteFunc(d.order, func(e *fragEntry) bool { return e.gone })
		d.stale = 0
	}
}

// pending returns the fragments held for datagrams that are not complete.
func (d *defrag) pending() int {
	n := 0
	for _, e := range d.entries {
		n += len(e.pieces)
	}
	return n
}
