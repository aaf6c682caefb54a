package capture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/gopacket/gopacket/reassembly"
)

// Format is a capture file format.
type Format uint8

// The capture file formats that ReadStreams reads.
const (
	FormatUnknown Format = iota
	FormatPcap           // libpcap's format (tcpdump -w), microsecond or nanosecond timestamps
	FormatPcapNG         // pcapng (dumpcap, Wireshark)
)

// String returns "pcap", "pcapng" or "unknown".
func (f Format) String() string {
	switch f {
	case FormatPcap:
		return "pcap"
	case FormatPcapNG:
		return "pcapng"
	}
	return "unknown"
}

// DetectFormat tells the format of a capture from its first 4 bytes (its magic number).
func DetectFormat(b []byte) Format {
	if len(b) < 4 {
		return FormatUnknown
	}
	switch [4]byte(b[:4]) {
	case [4]byte{0xd4, 0xc3, 0xb2, 0xa1}, [4]byte{0xa1, 0xb2, 0xc3, 0xd4}, // microseconds
		[4]byte{0x4d, 0x3c, 0xb2, 0xa1}, [4]byte{0xa1, 0xb2, 0x3c, 0x4d}: // nanoseconds
		return FormatPcap
	case [4]byte{0x0a, 0x0d, 0x0d, 0x0a}: // section header block
		return FormatPcapNG
	}
	return FormatUnknown
}

// ErrUnknownFormat is returned for input that is neither pcap nor pcapng.
var ErrUnknownFormat = errors.New("capture: not a pcap or pcapng file")

// Error is an error reading a capture: the packet record that failed (counted from 1; 0 for
// the file header) and the byte of the file where it starts: the file header at 0, a packet
// record right after the last packet read (in a pcapng file, that may be another block, such as
// an interface description, read on the way to the packet).
type Error struct {
	Packet int
	Offset int64
	Err    error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Packet == 0 {
		return fmt.Sprintf("capture: file header (byte %d): %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("capture: packet %d (record at byte %d): %v", e.Packet, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Options configures ReadStreams and ReadDatagrams; nil or the zero value means every default.
type Options struct {
	// Ports keeps only the TCP connections with one of these ports on either side; empty keeps
	// every TCP connection.
	Ports []uint16
	// MaxBufferedBytes bounds the out-of-order data held while waiting for missing segments,
	// over all connections: the out-of-order window. Data waits in pages of 2 KiB (one page
	// per segment at least, so MaxBufferedBytes/2048 segments may wait). When it is reached,
	// the connection that needs more stops waiting: the data it holds is delivered and the
	// hole before it reported as an EventGap with its offset and size (a segment of the hole
	// that arrives later is counted in Stats.LateSegments). 0 means DefaultMaxBufferedBytes
	// (64 MiB: 32 768 segments), NoLimit none (the whole capture may wait in memory).
	MaxBufferedBytes int
	// ReorderTimeout is the capture time after which out-of-order data stops waiting for the
	// segments before it, as when MaxBufferedBytes is reached. 0 means
	// DefaultReorderTimeout.
	//
	// A DatagramReader holds IP fragments within the same bounds: MaxBufferedBytes in all
	// (each fragment costs its captured bytes plus 96), and ReorderTimeout after a datagram's
	// first fragment.
	ReorderTimeout time.Duration
	// MaxFlows bounds the UDP flows a DatagramReader tracks (about 150 bytes each); beyond
	// it the flow seen least recently is forgotten. 0 means DefaultMaxFlows, NoLimit none.
	MaxFlows int
}

// Defaults of Options.
const (
	// DefaultMaxBufferedBytes is the default of Options.MaxBufferedBytes.
	DefaultMaxBufferedBytes = 64 << 20
	// DefaultReorderTimeout is the default of Options.ReorderTimeout.
	DefaultReorderTimeout = 10 * time.Second
	// pageBytes is what one page of out-of-order data costs (gopacket's 1 900-byte page and its
	// bookkeeping).
	pageBytes = 2048
)

// Stats counts what ReadStreams or a DatagramReader read.
type Stats struct {
	Format  Format
	Packets int // packet records
	TCP     int // TCP segments that passed the port filter (ReadStreams)
	UDP     int // UDP datagrams that passed the port filter (DatagramReader)
	Skipped int // packets that are not TCP (UDP) over IPv4/IPv6, do not decode, or are filtered out
	Conns   int // connections that carried data (ReadStreams)
	Flows   int // UDP flows (DatagramReader)
	// Truncated counts the TCP segments (UDP datagrams) that the capture cut short with its
	// snaplen, and MissingBytes the payload bytes of them that it did not keep (as their IP
	// and TCP or UDP headers give the payload's length).
	Truncated    int
	MissingBytes int64
	// LateSegments counts the TCP segments that arrived after the reassembly had stopped
	// waiting for them (Options.MaxBufferedBytes or ReorderTimeout): their bytes were reported
	// in an EventGap already, and LateBytes counts them.
	LateSegments int
	LateBytes    int64
	// Snaplen is the capture's snapshot length (pcap; for pcapng the first interface's), 0
	// when unknown.
	Snaplen int
	// Fragments counts the IP fragments of UDP datagrams (DatagramReader): a datagram that
	// came in n fragments is returned once, with the fragment that completed it. LostFragments
	// counts the fragments whose datagram never completed: one missing by ReorderTimeout or
	// at the end of the capture, fragments that overlap or cannot be (past 65 535 bytes, a
	// length not a multiple of 8), or the oldest dropped for MaxBufferedBytes.
	Fragments     int
	LostFragments int
}

// openCapture reads the file header of a pcap or pcapng capture from br and returns its packet
// source and the link type of its packets.
func openCapture(br *bufio.Reader) (packetSource, func(gopacket.CaptureInfo) layers.LinkType, Format, error) {
	magic, err := br.Peek(4)
	if err != nil {
		if len(magic) == 0 && err == io.EOF {
			return nil, nil, FormatUnknown, &Error{Err: fmt.Errorf("%w: empty input", ErrUnknownFormat)}
		}
		return nil, nil, FormatUnknown, &Error{Offset: int64(len(magic)), Err: ErrUnknownFormat}
	}
	format := DetectFormat(magic)
	switch format {
	case FormatPcap:
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return nil, nil, format, &Error{Err: err}
		}
		lt := pr.LinkType()
		return pr, func(gopacket.CaptureInfo) layers.LinkType { return lt }, format, nil
	case FormatPcapNG:
		nr, err := pcapgo.NewNgReader(br, pcapgo.NgReaderOptions{WantMixedLinkType: true, SkipUnknownVersion: true})
		if err != nil {
			return nil, nil, format, &Error{Err: err}
		}
		return nr, func(ci gopacket.CaptureInfo) layers.LinkType {
			if len(ci.AncillaryData) > 0 {
				if lt, ok := ci.AncillaryData[0].(layers.LinkType); ok {
					return lt
				}
			}
			return nr.LinkType()
		}, format, nil
	}
	return nil, nil, format, &Error{Err: fmt.Errorf("%w (magic % x)", ErrUnknownFormat, magic)}
}

// missingPayload returns the bytes of a segment's payload that the capture did not keep: the
// payload's length as the IP and TCP headers give it, less the bytes captured.
func missingPayload(nl gopacket.Layer, tcp *layers.TCP) int {
	var ipPayload int
	switch ip := nl.(type) {
	case *layers.IPv4:
		ipPayload = int(ip.Length) - int(ip.IHL)*4
	case *layers.IPv6:
		ipPayload = int(ip.Length)
	default:
		return 0
	}
	return max(ipPayload-int(tcp.DataOffset)*4-len(tcp.Payload), 0)
}

// snaplen returns the snapshot length of a capture: pcap's file header, pcapng's first
// interface; 0 when unknown.
func snaplen(src packetSource) int {
	switch r := src.(type) {
	case *pcapgo.Reader:
		return int(r.Snaplen())
	case *pcapgo.NgReader:
		if r.NInterfaces() > 0 {
			if i, err := r.Interface(0); err == nil {
				return int(i.SnapLength)
			}
		}
	}
	return 0
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// packetSource is what pcapgo's two readers have in common.
type packetSource interface {
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// ReadStreams reads a pcap or pcapng capture (told apart by the magic number), reassembles
// its TCP connections and reports them to h, in the order of the capture: per direction in
// stream order, retransmitted bytes once, out-of-order segments put back in order, holes
// reported as EventGap. Every connection gets an EventClose, also when the capture ends before
// the connection does. A capture cut short (truncated by a killed tcpdump, or damaged) is
// reported as an *Error after the events of what could be read. opts nil means every default.
func ReadStreams(r io.Reader, o *Options, h Handler) (Stats, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	var st Stats
	cr := &countingReader{r: r}
	// pcapgo's readers take br as their own buffered reader (bufio.NewReader returns a
	// *bufio.Reader of the default size as it is), so the bytes they consumed are the bytes
	// read from r less those still buffered.
	br := bufio.NewReader(cr)
	consumed := func() int64 { return cr.n - int64(br.Buffered()) }
	src, linkType, format, err := openCapture(br)
	st.Format = format
	if err != nil {
		return st, err
	}
	st.Snaplen = snaplen(src)

	a := newAssembly(opts, h)
	a.st = &st
	var readErr error
	for {
		start := consumed()
		data, ci, err := src.ReadPacketData()
		if err != nil {
			if err != io.EOF {
				readErr = &Error{Packet: st.Packets + 1, Offset: start, Err: err}
			}
			break
		}
		st.Packets++
		if !a.packet(data, ci, linkType(ci)) {
			st.Skipped++
			continue
		}
		st.TCP++
	}
	a.asm.FlushAll()
	st.Conns = int(a.nextID)
	return st, readErr
}

// assembly feeds TCP segments to gopacket's reassembly and turns its callbacks into events.
type assembly struct {
	st        *Stats
	cut       int // payload bytes the snaplen cut off the segment being assembled
	opts      Options
	h         Handler
	asm       *reassembly.Assembler
	nextID    uint64
	lastFlush time.Time
	ev        Event // reused for every event
	dec       fastDecoder
}

func newAssembly(opts Options, h Handler) *assembly {
	if opts.MaxBufferedBytes == 0 {
		opts.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	if opts.ReorderTimeout <= 0 {
		opts.ReorderTimeout = DefaultReorderTimeout
	}
	a := &assembly{opts: opts, h: h}
	a.asm = reassembly.NewAssembler(reassembly.NewStreamPool(a))
	if opts.MaxBufferedBytes > 0 {
		// One connection may take the whole window: a capture is usually one game session.
		pages := max(opts.MaxBufferedBytes/pageBytes, 1)
		a.asm.MaxBufferedPagesTotal = pages
		a.asm.MaxBufferedPagesPerConnection = pages
	}
	return a
}

// assemblerContext carries a packet's capture info into the reassembly.
type assemblerContext gopacket.CaptureInfo

func (c *assemblerContext) GetCaptureInfo() gopacket.CaptureInfo { return gopacket.CaptureInfo(*c) }

// packet decodes one link-layer packet and feeds its TCP segment to the assembler. It reports
// whether the packet was a TCP segment that passed the filter.
func (a *assembly) packet(data []byte, ci gopacket.CaptureInfo, lt layers.LinkType) bool {
	nf, tcp, ok := a.dec.decode(data, lt)
	if !ok && a.dec.wasUDP {
		return false
	}
	var nl gopacket.Layer
	if ok {
		nl = a.dec.network()
	} else {
		p := gopacket.NewPacket(data, lt, gopacket.DecodeOptions{NoCopy: true, Lazy: true})
		nl = p.NetworkLayer()
		tcp, _ = p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if nl == nil || tcp == nil {
			return false
		}
		nf = p.NetworkLayer().NetworkFlow()
	}
	if len(a.opts.Ports) > 0 && !slices.Contains(a.opts.Ports, uint16(tcp.SrcPort)) && !slices.Contains(a.opts.Ports, uint16(tcp.DstPort)) {
		return false
	}
	a.cut = 0
	if ci.CaptureLength < ci.Length {
		a.cut = missingPayload(nl, tcp)
		a.st.Truncated++
		a.st.MissingBytes += int64(a.cut)
	}
	ctx := assemblerContext(ci)
	a.asm.AssembleWithContext(nf, tcp, &ctx)
	if ts := ci.Timestamp; ts.Sub(a.lastFlush) >= a.opts.ReorderTimeout/2 {
		// Stop waiting for segments that did not come; never close: a quiet connection may go
		// on.
		if !a.lastFlush.IsZero() {
			a.asm.FlushWithOptions(reassembly.FlushOptions{T: ts.Add(-a.opts.ReorderTimeout)})
		}
		a.lastFlush = ts
	}
	return true
}

// New implements reassembly.StreamFactory.
func (a *assembly) New(netFlow, tcpFlow gopacket.Flow, tcp *layers.TCP, ac reassembly.AssemblerContext) reassembly.Stream {
	src := addrPort(netFlow.Src(), tcpFlow.Src())
	dst := addrPort(netFlow.Dst(), tcpFlow.Dst())
	s := &stream{a: a, conn: &Conn{}, openTime: ac.GetCaptureInfo().Timestamp}
	switch {
	case tcp.SYN && !tcp.ACK:
		s.conn.Client, s.conn.Server = src, dst
	case tcp.SYN && tcp.ACK:
		s.conn.Client, s.conn.Server, s.firstIsServer = dst, src, true
	default:
		s.conn.RolesGuessed = true
		srvIsSrc := src.Port() < dst.Port()
		if len(a.opts.Ports) > 0 {
			if slices.Contains(a.opts.Ports, src.Port()) != slices.Contains(a.opts.Ports, dst.Port()) {
				srvIsSrc = slices.Contains(a.opts.Ports, src.Port())
			}
		}
		if srvIsSrc {
			s.conn.Client, s.conn.Server, s.firstIsServer = dst, src, true
		} else {
			s.conn.Client, s.conn.Server = src, dst
		}
	}
	return s
}

// open reports the connection when it first carries data (or a hole): segments without
// payload after a connection's end (a last ACK) are not a connection.
func (s *stream) open() {
	if s.opened {
		return
	}
	s.opened = true
	s.a.nextID++
	s.conn.ID = s.a.nextID
	s.a.emit(Event{Kind: EventOpen, Conn: s.conn, Time: s.openTime})
}

func addrPort(ep, port gopacket.Endpoint) netip.AddrPort {
	addr, _ := netip.AddrFromSlice(ep.Raw())
	var p uint16
	if raw := port.Raw(); len(raw) == 2 {
		p = uint16(raw[0])<<8 | uint16(raw[1])
	}
	return netip.AddrPortFrom(addr.Unmap(), p)
}

func (a *assembly) emit(ev Event) {
	a.ev = ev
	a.h(&a.ev)
	a.ev = Event{}
}

// stream is one connection in the reassembly.
type stream struct {
	a             *assembly
	conn          *Conn
	firstIsServer bool     // the first packet seen came from the server
	off           [2]int64 // stream offsets per Direction
	started       [2]bool
	ended         [2]bool
	last          time.Time
	openTime      time.Time
	opened        bool
	midStream     [2]bool   // the direction started without a SYN in the capture
	holes         [2][]hole // the last maxHoles holes reported per direction
	synSeen       [2]bool   // the direction's SYN is in the capture
	cutEnd        [2]int64  // stream offset where the payload of the last segment cut by the snaplen ends
}

// hole is a range of stream offsets reported missing.
type hole struct{ start, end int64 }

// maxHoles bounds the holes a direction remembers to recognize late segments.
const maxHoles = 64

// addHole remembers a hole reported in direction d.
func (s *stream) addHole(d Direction, start, n int64) {
	if n <= 0 {
		return
	}
	if len(s.holes[d]) == maxHoles {
		s.holes[d] = append(s.holes[d][:0], s.holes[d][1:]...)
	}
	s.holes[d] = append(s.holes[d], hole{start, start + n})
}

// lateBytes returns how many bytes of [start, end) lie in holes of direction d.
func (s *stream) lateBytes(d Direction, start, end int64) int64 {
	var n int64
	for _, h := range s.holes[d] {
		if lo, hi := max(start, h.start), min(end, h.end); hi > lo {
			n += hi - lo
		}
	}
	return n
}

// Accept implements reassembly.Stream: every segment is taken (the port filter ran before).
// The first segment of a direction that is not a SYN starts the direction there: the capture
// began after the connection did (or lost its SYN), and the segments before it are lost. So
// the data is reported in the order of the capture, not held back until the end.
func (s *stream) Accept(tcp *layers.TCP, ci gopacket.CaptureInfo, dir reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, ac reassembly.AssemblerContext) bool {
	if ci.Timestamp.After(s.last) {
		s.last = ci.Timestamp
	}
	d := s.dir(dir)
	if tcp.SYN {
		s.synSeen[d] = true
	}
	if s.a.cut > 0 {
		// The snaplen cut this segment: its payload ends cut bytes after what is captured.
		// A later segment makes the reassembly report the hole; at the end of the stream,
		// endCut does.
		segOff := s.off[d]
		if nextSeq != -1 {
			segOff += int64(nextSeq.Difference(reassembly.Sequence(tcp.Seq)))
		}
		s.cutEnd[d] = max(s.cutEnd[d], segOff+int64(len(tcp.Payload)+s.a.cut))
	}
	if n := len(tcp.Payload); n > 0 && nextSeq != -1 && len(s.holes[d]) > 0 {
		// A segment before the reassembly's next byte: a retransmission of data delivered,
		// or data of a hole reported already (the window gave up on it): late.
		if segOff := s.off[d] + int64(nextSeq.Difference(reassembly.Sequence(tcp.Seq))); segOff < s.off[d] {
			if late := s.lateBytes(d, segOff, segOff+int64(n)); late > 0 {
				s.a.st.LateSegments++
				s.a.st.LateBytes += late
			}
		}
	}
	if nextSeq == -1 && !tcp.SYN && len(tcp.Payload) > 0 {
		*start = true
		s.midStream[s.dir(dir)] = true
	}
	return true
}

func (s *stream) dir(d reassembly.TCPFlowDirection) Direction {
	c2s := d == reassembly.TCPDirClientToServer
	if s.firstIsServer {
		c2s = !c2s
	}
	if c2s {
		return ClientToServer
	}
	return ServerToClient
}

// ReassembledSG implements reassembly.Stream.
func (s *stream) ReassembledSG(sg reassembly.ScatterGather, ac reassembly.AssemblerContext) {
	fd, _, end, skip := sg.Info()
	d := s.dir(fd)
	n, _ := sg.Lengths()
	t := sg.CaptureInfo(max(n-1, 0)).Timestamp
	if t.IsZero() {
		t = s.last
	}
	if n == 0 && !end && skip == 0 {
		return
	}
	s.open()
	if !s.started[d] {
		s.started[d] = true
		switch {
		case s.midStream[d] || skip < 0 || (skip != 0 && !s.synSeen[d]):
			// No SYN in the capture for this direction: it starts mid-stream.
			s.a.emit(Event{Kind: EventGap, Conn: s.conn, Dir: d, Time: t, Lost: -1})
		case skip > 0:
			// The SYN is there: the first bytes are lost (or gave up on: the out-of-order
			// window was full), and how many is known.
			s.a.emit(Event{Kind: EventGap, Conn: s.conn, Dir: d, Time: t, Offset: 0, Lost: int64(skip)})
			s.addHole(d, 0, int64(skip))
			s.off[d] += int64(skip)
		}
	} else if skip != 0 {
		s.a.emit(Event{Kind: EventGap, Conn: s.conn, Dir: d, Time: t, Offset: s.off[d], Lost: int64(skip)})
		if skip > 0 {
			s.addHole(d, s.off[d], int64(skip))
			s.off[d] += int64(skip)
		}
	}
	if n > 0 {
		data := sg.Fetch(n)
		s.a.emit(Event{Kind: EventData, Conn: s.conn, Dir: d, Time: t, Offset: s.off[d], Data: data})
		s.off[d] += int64(n)
	}
	if end && !s.ended[d] {
		s.ended[d] = true
		s.endCut(d, t)
		s.a.emit(Event{Kind: EventEnd, Conn: s.conn, Dir: d, Time: t, Offset: s.off[d]})
	}
}

// endCut reports, at the end of direction d, the payload that the snaplen cut off its last
// segments and that no later segment made the reassembly report.
func (s *stream) endCut(d Direction, t time.Time) {
	if lost := s.cutEnd[d] - s.off[d]; lost > 0 && s.started[d] {
		s.a.emit(Event{Kind: EventGap, Conn: s.conn, Dir: d, Time: t, Offset: s.off[d], Lost: lost})
		s.addHole(d, s.off[d], lost)
		s.off[d] += lost
	}
}

// ReassemblyComplete implements reassembly.Stream.
func (s *stream) ReassemblyComplete(ac reassembly.AssemblerContext) bool {
	if !s.opened {
		return true
	}
	for d := range s.ended {
		if !s.ended[d] {
			s.ended[d] = true
			s.endCut(Direction(d), s.last)
			s.a.emit(Event{Kind: EventEnd, Conn: s.conn, Dir: Direction(d), Time: s.last, Offset: s.off[d]})
		}
	}
	s.a.emit(Event{Kind: EventClose, Conn: s.conn, Time: s.last})
	return true
}
