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
	// MaxBufferedPages bounds the out-of-order data held while waiting for missing segments,
	// in pages of about 1.9 KB, over all connections (a quarter of it per connection). When it
	// is reached the oldest data is delivered and the hole reported as an EventGap. 0 means
	// 16384 (about 30 MB).
	MaxBufferedPages int
	// FlushAfter is the capture time after which out-of-order data stops waiting for the
	// segments before it. 0 means 2 seconds.
	FlushAfter time.Duration
}

// Stats counts what ReadStreams read.
type Stats struct {
	Format  Format
	Packets int // packet records
	TCP     int // TCP segments that passed the port filter
	Skipped int // packets that are not TCP over IPv4/IPv6, do not decode, or are filtered out
	Conns   int // connections that carried data
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
	magic, err := br.Peek(4)
	if err != nil {
		if len(magic) == 0 && err == io.EOF {
			return st, &Error{Err: fmt.Errorf("%w: empty input", ErrUnknownFormat)}
		}
		return st, &Error{Offset: int64(len(magic)), Err: ErrUnknownFormat}
	}
	st.Format = DetectFormat(magic)
	var src packetSource
	var linkType func(gopacket.CaptureInfo) layers.LinkType
	switch st.Format {
	case FormatPcap:
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return st, &Error{Err: err}
		}
		lt := pr.LinkType()
		linkType = func(gopacket.CaptureInfo) layers.LinkType { return lt }
		src = pr
	case FormatPcapNG:
		nr, err := pcapgo.NewNgReader(br, pcapgo.NgReaderOptions{WantMixedLinkType: true, SkipUnknownVersion: true})
		if err != nil {
			return st, &Error{Err: err}
		}
		linkType = func(ci gopacket.CaptureInfo) layers.LinkType {
			if len(ci.AncillaryData) > 0 {
				if lt, ok := ci.AncillaryData[0].(layers.LinkType); ok {
					return lt
				}
			}
			return nr.LinkType()
		}
		src = nr
	default:
		return st, &Error{Err: fmt.Errorf("%w (magic % x)", ErrUnknownFormat, magic)}
	}

	a := newAssembly(opts, h)
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
	opts      Options
	h         Handler
	asm       *reassembly.Assembler
	nextID    uint64
	lastFlush time.Time
	ev        Event // reused for every event
	dec       fastDecoder
}

func newAssembly(opts Options, h Handler) *assembly {
	if opts.MaxBufferedPages <= 0 {
		opts.MaxBufferedPages = 16384
	}
	if opts.FlushAfter <= 0 {
		opts.FlushAfter = 2 * time.Second
	}
	a := &assembly{opts: opts, h: h}
	a.asm = reassembly.NewAssembler(reassembly.NewStreamPool(a))
	a.asm.MaxBufferedPagesTotal = opts.MaxBufferedPages
	a.asm.MaxBufferedPagesPerConnection = max(opts.MaxBufferedPages/4, 1)
	return a
}

// assemblerContext carries a packet's capture info into the reassembly.
type assemblerContext gopacket.CaptureInfo

func (c *assemblerContext) GetCaptureInfo() gopacket.CaptureInfo { return gopacket.CaptureInfo(*c) }

// packet decodes one link-layer packet and feeds its TCP segment to the assembler. It reports
// whether the packet was a TCP segment that passed the filter.
func (a *assembly) packet(data []byte, ci gopacket.CaptureInfo, lt layers.LinkType) bool {
	nf, tcp, ok := a.dec.decode(data, lt)
	if !ok {
		p := gopacket.NewPacket(data, lt, gopacket.DecodeOptions{NoCopy: true, Lazy: true})
		nl := p.NetworkLayer()
		tcp, _ = p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if nl == nil || tcp == nil {
			return false
		}
		nf = nl.NetworkFlow()
	}
	if len(a.opts.Ports) > 0 && !slices.Contains(a.opts.Ports, uint16(tcp.SrcPort)) && !slices.Contains(a.opts.Ports, uint16(tcp.DstPort)) {
		return false
	}
	ctx := assemblerContext(ci)
	a.asm.AssembleWithContext(nf, tcp, &ctx)
	if ts := ci.Timestamp; ts.Sub(a.lastFlush) >= a.opts.FlushAfter/2 {
		// Stop waiting for segments that did not come; never close: a quiet connection may go
		// on.
		if !a.lastFlush.IsZero() {
			a.asm.FlushWithOptions(reassembly.FlushOptions{T: ts.Add(-a.opts.FlushAfter)})
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
	midStream     [2]bool // the direction started without a SYN in the capture
}

// Accept implements reassembly.Stream: every segment is taken (the port filter ran before).
// The first segment of a direction that is not a SYN starts the direction there: the capture
// began after the connection did (or lost its SYN), and the segments before it are lost. So
// the data is reported in the order of the capture, not held back until the end.
func (s *stream) Accept(tcp *layers.TCP, ci gopacket.CaptureInfo, dir reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, ac reassembly.AssemblerContext) bool {
	if ci.Timestamp.After(s.last) {
		s.last = ci.Timestamp
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
		if skip != 0 || s.midStream[d] {
			// No SYN in the capture for this direction: it starts mid-stream.
			s.a.emit(Event{Kind: EventGap, Conn: s.conn, Dir: d, Time: t, Lost: -1})
		}
	} else if skip != 0 {
		s.a.emit(Event{Kind: EventGap, Conn: s.conn, Dir: d, Time: t, Offset: s.off[d], Lost: int64(skip)})
		if skip > 0 {
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
		s.a.emit(Event{Kind: EventEnd, Conn: s.conn, Dir: d, Time: t, Offset: s.off[d]})
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
			s.a.emit(Event{Kind: EventEnd, Conn: s.conn, Dir: Direction(d), Time: s.last, Offset: s.off[d]})
		}
	}
	s.a.emit(Event{Kind: EventClose, Conn: s.conn, Time: s.last})
	return true
}
