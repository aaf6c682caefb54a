package capture

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Flow is the UDP traffic between two endpoints, both directions: one game session over a
// datagram protocol (ENet, …).
type Flow struct {
	// ID numbers the flows of one capture from 1, in the order they appear.
	ID uint64
	// Client is the sender of the flow's first datagram, Server the other side; when exactly
	// one side is on a port of Options.Ports, that side is the server.
	Client, Server netip.AddrPort
	// Datagrams and Bytes count the flow's datagrams so far and their UDP payload bytes on
	// the wire (Datagram.Length).
	Datagrams int
	Bytes     int64
}

// Src returns the sender of direction d.
func (f *Flow) Src(d Direction) netip.AddrPort {
	if d == ServerToClient {
		return f.Server
	}
	return f.Client
}

// Dst returns the receiver of direction d.
func (f *Flow) Dst(d Direction) netip.AddrPort {
	if d == ServerToClient {
		return f.Client
	}
	return f.Server
}

// String returns "#ID client ⇄ server".
func (f *Flow) String() string {
	return fmt.Sprintf("#%d %s ⇄ %s", f.ID, f.Client, f.Server)
}

// Datagram is one UDP datagram of a capture.
type Datagram struct {
	// Packet is the packet record that carried it, counted from 1 over the whole capture.
	Packet int
	// Time is the datagram's capture time.
	Time time.Time
	// Flow is the flow it belongs to, Dir its direction in the flow (ClientToServer: from
	// Flow.Client), Src and Dst its endpoints.
	Flow     *Flow
	Dir      Direction
	Src, Dst netip.AddrPort
	// Data is the UDP payload as captured; it is valid until the next call of Next. A
	// capture with a small snaplen keeps only the first bytes: then len(Data) < Length.
	Data []byte
	// Length is the UDP payload's length on the wire, from the UDP header.
	Length int
	// Fragments is how many IP fragments carried the datagram, 0 when it was not fragmented.
	// A fragmented datagram is returned when its fragments are all there: Packet and Time
	// are those of the fragment that completed it.
	Fragments int
}

// Missing returns the payload bytes the capture did not keep (cut by its snaplen), 0 when
// Data is whole.
func (d *Datagram) Missing() int { return max(d.Length-len(d.Data), 0) }

// DatagramReader reads the UDP datagrams of a pcap or pcapng capture one by one: IPv4 and
// IPv6 over Ethernet (with VLAN tags), Linux cooked capture (tcpdump -i any), loopback (BSD
// null) and raw IP link types. Datagrams that travelled in IP fragments (IPv4, and IPv6 with
// the fragment header right after the fixed one) are reassembled and returned once, whole.
// Everything else (TCP, ARP, fragments of other protocols, …) is counted in Stats.Skipped.
// Create it with [ReadDatagrams].
//
// Memory: one packet record, plus about 150 bytes per flow (a capture of n bytes holds at
// most n/50 flows, as a datagram takes at least 50 bytes of it: the bound is proportional to
// the input); Options.MaxFlows bounds the flows tracked, after which the flow seen least
// recently is forgotten (a later datagram of it starts a new flow with a new ID). Fragments
// waiting for the rest of their datagram cost their captured bytes plus 96 bytes each, at most
// Options.MaxBufferedBytes in all (the oldest incomplete datagram is dropped to make room),
// plus one 64 KiB reassembly buffer; an incomplete datagram is dropped ReorderTimeout of
// capture time after its first fragment. Dropped fragments are counted in
// Stats.LostFragments.
type DatagramReader struct {
	opts     Options
	r        io.Reader
	started  bool
	src      packetSource
	linkType func(gopacket.CaptureInfo) layers.LinkType
	consumed func() int64
	st       Stats
	err      error
	dec      fastDecoder
	flows    map[flowKey]*flowEntry
	lru      flowEntry // sentinel of the list of flows, most recently seen first
	nextID   uint64
	d        Datagram
	frag     *defrag // created at the first IP fragment
}

// What a packet of a capture was to a DatagramReader.
type packetKind int

const (
	packetSkipped  packetKind = iota // not a UDP datagram, or filtered out
	packetDatagram                   // a UDP datagram, or the fragment that completed one
	packetHeld                       // an IP fragment held for reassembly
)

// DefaultMaxFlows is the default of Options.MaxFlows.
const DefaultMaxFlows = 1 << 16

type flowKey struct{ a, b netip.AddrPort } // a < b

type flowEntry struct {
	key        flowKey
	flow       *Flow
	prev, next *flowEntry
}

// ReadDatagrams returns a reader of the UDP datagrams of the capture r (pcap or pcapng, told
// apart by the magic number). opts nil means every default; of Options, Ports (keep the
// datagrams with one of these ports on either side), MaxFlows, and for IP fragments
// MaxBufferedBytes and ReorderTimeout apply. Errors of the file
// itself (not a capture, a record cut short) come from Next as an *Error.
//
//	dr := capture.ReadDatagrams(f, nil)
//	for d, err := range dr.All() {
//		if err != nil { … }
//		fmt.Println(d.Time, d.Flow.ID, d.Dir, len(d.Data)) // d.Data: one ENet datagram, …
//	}
func ReadDatagrams(r io.Reader, opts *Options) *DatagramReader {
	dr := &DatagramReader{r: r, flows: make(map[flowKey]*flowEntry)}
	if opts != nil {
		dr.opts = *opts
	}
	dr.lru.next, dr.lru.prev = &dr.lru, &dr.lru
	return dr
}

// Stats returns what the reader has read so far: Packets, UDP (the datagrams returned),
// Skipped, Flows, Snaplen, Truncated and MissingBytes (datagrams cut by the snaplen), and
// Fragments and LostFragments (IP fragments, and those whose datagram never completed).
func (dr *DatagramReader) Stats() Stats { return dr.st }

// Next returns the next UDP datagram, or io.EOF after the last one. After an error other
// than io.EOF (an *Error) it returns that error again. The Datagram and its Data are valid
// until the next call.
func (dr *DatagramReader) Next() (*Datagram, error) {
	if dr.err != nil {
		return nil, dr.err
	}
	if !dr.started {
		dr.started = true
		if err := dr.open(); err != nil {
			dr.err = err
			return nil, err
		}
	}
	for {
		start := dr.consumed()
		data, ci, err := dr.src.ReadPacketData()
		if err != nil {
			if err != io.EOF {
				err = &Error{Packet: dr.st.Packets + 1, Offset: start, Err: err}
			}
			if dr.frag != nil {
				dr.st.LostFragments = dr.frag.lost + dr.frag.pending() // never completed
			}
			dr.err = err
			return nil, err
		}
		dr.st.Packets++
		switch dr.datagram(data, ci, dr.linkType(ci)) {
		case packetDatagram:
			dr.st.UDP++
			return &dr.d, nil
		case packetSkipped:
			dr.st.Skipped++
		}
	}
}

// All returns the datagrams as a sequence; a failure is its last pair, with a nil Datagram.
func (dr *DatagramReader) All() iter.Seq2[*Datagram, error] {
	return func(yield func(*Datagram, error) bool) {
		for {
			d, err := dr.Next()
			if err == io.EOF {
				return
			}
			if !yield(d, err) || err != nil {
				return
			}
		}
	}
}

func (dr *DatagramReader) open() error {
	cr := &countingReader{r: dr.r}
	br := bufio.NewReader(cr)
	dr.consumed = func() int64 { return cr.n - int64(br.Buffered()) }
	src, lt, format, err := openCapture(br)
	dr.st.Format = format
	if err != nil {
		return err
	}
	dr.src, dr.linkType = src, lt
	dr.st.Snaplen = snaplen(src)
	return nil
}

// datagram decodes one packet into dr.d; it reports whether it was a UDP datagram that passed
// the port filter, a fragment held for reassembly, or neither.
func (dr *DatagramReader) datagram(data []byte, ci gopacket.CaptureInfo, lt layers.LinkType) packetKind {
	src, dst, udp, ok := dr.dec.decodeUDP(data, lt)
	fragments := 0
	if !ok {
		if f, isFrag := dr.dec.ipFragment(); isFrag {
			dr.st.Fragments++
			if dr.frag == nil {
				dr.frag = newDefrag(dr.opts)
			}
			r, done := dr.frag.add(f, ci.Timestamp, dr.st.Packets)
			dr.st.LostFragments = dr.frag.lost
			if !done {
				return packetHeld
			}
			if len(r.payload) < 8 {
				return packetSkipped // the snaplen cut the UDP header: no ports to tell
			}
			udp = &dr.dec.udp
			*udp = layers.UDP{SrcPort: layers.UDPPort(binary.BigEndian.Uint16(r.payload)),
				DstPort: layers.UDPPort(binary.BigEndian.Uint16(r.payload[2:])), Length: binary.BigEndian.Uint16(r.payload[4:])}
			if int(udp.Length) > r.length || udp.Length < 8 {
				udp.Length = uint16(r.length) // a header that lies: the fragments tell
			}
			udp.Payload = r.payload[8:min(len(r.payload), int(udp.Length))]
			src, dst = netip.AddrPortFrom(f.key.src.Unmap(), uint16(udp.SrcPort)), netip.AddrPortFrom(f.key.dst.Unmap(), uint16(udp.DstPort))
			fragments, ok = r.fragments, true
			// The capture cut the datagram when it kept less than the UDP length.
			ci.CaptureLength, ci.Length = len(udp.Payload), int(udp.Length)-8
		}
	}
	if !ok && !dr.dec.known(lt) {
		// A link type the fast path does not know (raw IP as link type 101, …): gopacket's
		// own decoding.
		p := gopacket.NewPacket(data, lt, gopacket.DecodeOptions{NoCopy: true, Lazy: true})
		nl := p.NetworkLayer()
		udp, _ = p.Layer(layers.LayerTypeUDP).(*layers.UDP)
		if nl == nil || udp == nil {
			return packetSkipped
		}
		sa, _ := netip.AddrFromSlice(nl.NetworkFlow().Src().Raw())
		da, _ := netip.AddrFromSlice(nl.NetworkFlow().Dst().Raw())
		src, dst = netip.AddrPortFrom(sa.Unmap(), uint16(udp.SrcPort)), netip.AddrPortFrom(da.Unmap(), uint16(udp.DstPort))
		ok = true
	}
	if !ok {
		return packetSkipped
	}
	if ps := dr.opts.Ports; len(ps) > 0 && !slices.Contains(ps, src.Port()) && !slices.Contains(ps, dst.Port()) {
		return packetSkipped
	}
	length := len(udp.Payload)
	if udp.Length >= 8 {
		length = int(udp.Length) - 8
	}
	if ci.CaptureLength < ci.Length && length < len(udp.Payload) {
		length = len(udp.Payload) // a header that lies: take what is there
	}
	f, dir := dr.flow(src, dst)
	f.Datagrams++
	f.Bytes += int64(length)
	dr.d = Datagram{Packet: dr.st.Packets, Time: ci.Timestamp, Flow: f, Dir: dir, Src: src, Dst: dst,
		Data: udp.Payload, Length: length, Fragments: fragments}
	if ci.CaptureLength < ci.Length {
		dr.st.Truncated++
		dr.st.MissingBytes += int64(dr.d.Missing())
	}
	return packetDatagram
}

// flow returns the flow of a datagram from src to dst, and its direction.
func (dr *DatagramReader) flow(src, dst netip.AddrPort) (*Flow, Direction) {
	k := flowKey{src, dst}
	if k.b.Compare(k.a) < 0 {
		k.a, k.b = k.b, k.a
	}
	e := dr.flows[k]
	if e == nil {
		max := dr.opts.MaxFlows
		if max == 0 {
			max = DefaultMaxFlows
		}
		if max > 0 && len(dr.flows) >= max {
			old := dr.lru.prev
			dr.unlink(old)
			delete(dr.flows, old.key)
		}
		dr.nextID++
		dr.st.Flows++
		f := &Flow{ID: dr.nextID, Client: src, Server: dst}
		if ps := dr.opts.Ports; len(ps) > 0 && slices.Contains(ps, src.Port()) && !slices.Contains(ps, dst.Port()) {
			f.Client, f.Server = dst, src
		}
		e = &flowEntry{key: k, flow: f}
		dr.flows[k] = e
	} else {
		dr.unlink(e)
	}
	// Most recently seen first.
	e.next, e.prev = dr.lru.next, &dr.lru
	dr.lru.next.prev = e
	dr.lru.next = e
	if src == e.flow.Client {
		return e.flow, ClientToServer
	}
	return e.flow, ServerToClient
}

func (dr *DatagramReader) unlink(e *flowEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}
