package enet

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/gamewire/gamewire/enet/protocol"
)

// serviceInterval is how often a host looks at its peers for resends, pings, timeouts and the
// bandwidth throttle (C ENet does it whenever the application calls enet_host_service).
const serviceInterval = 10 * time.Millisecond

// bandwidthThrottleInterval is ENET_HOST_BANDWIDTH_THROTTLE_INTERVAL in milliseconds.
const bandwidthThrottleInterval = 1000

// Host is an ENet host: one socket, its peers, and the goroutines that read the socket and
// service the peers. Its methods are safe for concurrent use.
type Host struct {
	conn     net.PacketConn
	udp      *net.UDPConn // conn, when it is one (allocation-free addresses)
	o        options
	log      *slog.Logger
	start    time.Time
	base     uint32
	peerOnly *Peer // the peer of a host made by Dial, closed with it

	mu             sync.Mutex
	now            uint32
	peers          []*Peer // by incoming peer id; nil is a free slot
	sessions       []uint16
	perIP          map[netip.Addr]int
	perIPString    map[string]int
	connected      int
	bwLimitedPeers int
	recalcBW       bool
	bwEpoch        uint32
	totalQueued    uint32
	buffered       int
	dirty          []*Peer
	acceptQ        []*Peer
	acceptCh       chan struct{}
	wake           chan struct{}
	closed         bool
	done           chan struct{}
	loops          sync.WaitGroup
	body           []byte
	out            []byte
	zbuf           []byte
	seed           [8]byte
	rnd            uint32
	recvAddr       addrKey
	recvLen        int
	freeCmds       []*outCmd
	freeIn         []*inCmd
	ready          []*inCmd // dispatchUnreliable's scratch
	pool           bufPool
	rawRead        func() bool // the Linux read loop (rawread_linux.go), nil elsewhere
	wbatch         *writeBatch // the datagrams of the flush under way (Linux)
	sendBatch      func()      // sends wbatch
	batching       bool        // write adds to wbatch
	handler        Handler
	handQ          []handled // released packets waiting for the handler
	handSpare      []handled
	handling       bool // a goroutine is calling the handler
	cmdScratch     protocol.Command
	stats          Stats
}

// Stats are a host's counters.
type Stats struct {
	// DatagramsSent, BytesSent, DatagramsReceived and BytesReceived count the socket's traffic.
	DatagramsSent, BytesSent, DatagramsReceived, BytesReceived uint64
	// DatagramsDropped counts datagrams received and ignored (malformed, unknown peer, wrong
	// session, bad checksum, over a limit).
	DatagramsDropped uint64
	// DatagramsWithheld counts datagrams not sent to a peer that has not proven its address
	// (acknowledged something), because the host would have sent it more than it received.
	DatagramsWithheld uint64
	// CompressedSent and CompressedReceived count the datagrams sent and received compressed.
	CompressedSent, CompressedReceived uint64
}

// options are HostOptions with the defaults applied.
type options struct {
	channels                int
	maxConns, maxConnsPerIP int
	maxMessage, maxBuffered int
	peerBudget, maxQueue    int
	inBW, outBW             uint32
	mtu                     uint32
	checksum                bool
	comp                    Compressor
	pingInterval            uint32
	timeoutMin, timeoutMax  uint32
	timeoutLimit            uint32
	handshake               uint32
}

func ms(d time.Duration) uint32 { return uint32(d / time.Millisecond) }

func resolve(o *HostOptions) (options, error) {
	var z HostOptions
	if o == nil {
		o = &z
	}
	r := options{
		channels: o.Channels, maxConns: o.MaxConns, maxConnsPerIP: o.MaxConnsPerIP,
		maxMessage: o.MaxMessageBytes, maxBuffered: o.MaxBufferedBytes, maxQueue: o.MaxQueueBytes,
		inBW: o.IncomingBandwidth, outBW: o.OutgoingBandwidth, checksum: o.Checksum, comp: o.Compressor,
		pingInterval: ms(o.PingInterval), timeoutMin: ms(o.MinimumTimeout), timeoutMax: ms(o.MaximumTimeout),
		timeoutLimit: uint32(o.TimeoutLimit), handshake: ms(o.HandshakeTimeout),
	}
	bad := func(name string, v int) error {
		return fmt.Errorf("enet: HostOptions.%s = %d: %w", name, v, protocol.ErrRange)
	}
	switch {
	case r.channels == 0:
		r.channels = protocol.MaximumChannelCount
	case r.channels < 1 || r.channels > protocol.MaximumChannelCount:
		return r, bad("Channels", o.Channels)
	}
	switch {
	case r.maxConns == 0 || r.maxConns == NoLimit:
		r.maxConns = DefaultMaxConns
	case r.maxConns < 1 || r.maxConns > DefaultMaxConns:
		return r, bad("MaxConns", o.MaxConns)
	}
	switch {
	case r.maxConnsPerIP == 0:
		r.maxConnsPerIP = DefaultMaxConnsPerIP
	case r.maxConnsPerIP == NoLimit:
		r.maxConnsPerIP = DefaultMaxConns
	case r.maxConnsPerIP < 0:
		return r, bad("MaxConnsPerIP", o.MaxConnsPerIP)
	}
	switch {
	case r.maxMessage == 0:
		r.maxMessage = DefaultMaxMessageBytes
	case r.maxMessage == NoLimit:
		r.maxMessage = 1 << 30
	case r.maxMessage < 0 || r.maxMessage > 1<<30:
		return r, bad("MaxMessageBytes", o.MaxMessageBytes)
	}
	switch {
	case r.maxBuffered == 0:
		r.maxBuffered = DefaultMaxBufferedBytes
	case r.maxBuffered == NoLimit:
		r.maxBuffered = math.MaxInt >> 1
	case r.maxBuffered < 0:
		return r, bad("MaxBufferedBytes", o.MaxBufferedBytes)
	}
	r.peerBudget = max(r.maxBuffered/4, r.maxMessage+r.maxMessage/8+4096)
	switch {
	case r.maxQueue == 0:
		r.maxQueue = DefaultMaxQueueBytes
	case r.maxQueue == NoLimit:
		r.maxQueue = math.MaxInt >> 1
	case r.maxQueue < 0:
		return r, bad("MaxQueueBytes", o.MaxQueueBytes)
	}
	switch {
	case o.MTU == 0:
		r.mtu = DefaultMTU
	case o.MTU < protocol.MinimumMTU || o.MTU > protocol.MaximumMTU:
		return r, bad("MTU", o.MTU)
	default:
		r.mtu = uint32(o.MTU)
	}
	if r.pingInterval == 0 {
		r.pingInterval = ms(DefaultPingInterval)
	}
	if r.timeoutMin == 0 {
		r.timeoutMin = ms(DefaultMinimumTimeout)
	}
	if r.timeoutMax == 0 {
		r.timeoutMax = ms(DefaultMaximumTimeout)
	}
	if r.timeoutLimit == 0 {
		r.timeoutLimit = DefaultTimeoutLimit
	}
	if r.handshake == 0 {
		r.handshake = ms(DefaultHandshakeTimeout)
	}
	return r, nil
}

// Listen makes a host on a new UDP socket bound to addr ("udp", "udp4" or "udp6").
func Listen(network, addr string, opts *HostOptions) (*Host, error) {
	c, err := net.ListenPacket(network, addr)
	if err != nil {
		return nil, fmt.Errorf("enet: %w", err)
	}
	h, err := NewHost(c, opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	return h, nil
}

// NewHost makes a host on conn, which it owns from now on: Close closes it.
func NewHost(conn net.PacketConn, opts *HostOptions) (*Host, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	h := &Host{
		conn: conn, o: o, start: time.Now(),
		peers:       make([]*Peer, o.maxConns),
		sessions:    make([]uint16, o.maxConns),
		perIP:       map[netip.Addr]int{},
		perIPString: map[string]int{},
		acceptCh:    make(chan struct{}, 1),
		wake:        make(chan struct{}, 1),
		done:        make(chan struct{}),
	}
	h.udp, _ = conn.(*net.UDPConn)
	h.initRawRead()
	h.base = uint32(h.start.UnixMilli())
	for i := range h.sessions {
		h.sessions[i] = 0xFFFF
	}
	h.log = slog.New(slog.DiscardHandler)
	if opts != nil && opts.Logger != nil {
		h.log = opts.Logger
	}
	if opts != nil {
		h.handler = opts.Handler
	}
	rand.Read(h.seed[:])
	h.rnd = binary.LittleEndian.Uint32(h.seed[:])
	h.now = h.clock()
	h.loops.Add(2)
	go h.readLoop()
	go h.serviceLoop()
	return h, nil
}

// clock is the host's time in milliseconds: the wall clock's, as C ENet's enet_time_get, moved on
// by the monotonic clock; never 0 (C ENet uses 0 for "not set").
func (h *Host) clock() uint32 {
	t := h.base + uint32(time.Since(h.start)/time.Millisecond)
	if t == 0 {
		t = 1
	}
	return t
}

// random is enet_host_random's role: connect ids. Any 32 bits will do.
func (h *Host) random() uint32 {
	h.rnd = h.rnd*1664525 + 1013904223
	x := h.rnd ^ binary.LittleEndian.Uint32(h.seed[4:])
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	return x
}

// LocalAddr returns the socket's address.
func (h *Host) LocalAddr() net.Addr { return h.conn.LocalAddr() }

// Stats returns the host's counters.
func (h *Host) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stats
}

// Accept waits for a peer to connect (its VERIFY_CONNECT acknowledged) and returns it.
func (h *Host) Accept(ctx context.Context) (*Peer, error) {
	for {
		h.mu.Lock()
		if len(h.acceptQ) > 0 {
			p := h.acceptQ[0]
			h.acceptQ[0] = nil
			h.acceptQ = h.acceptQ[1:]
			if len(h.acceptQ) > 0 {
				h.signalAccept()
			}
			h.mu.Unlock()
			return p, nil
		}
		closed := h.closed
		h.mu.Unlock()
		if closed {
			return nil, ErrClosed
		}
		select {
		case <-h.acceptCh:
		case <-h.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (h *Host) signalAccept() {
	select {
	case h.acceptCh <- struct{}{}:
	default:
	}
}

func (h *Host) signalWake() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// Connect connects to the ENet host at addr (a UDP address), asking for channels channels
// (1–255; 0 means 1) and sending data in the CONNECT command, and waits until the remote host
// verifies the connection, ctx ends, or the attempt times out.
func (h *Host) Connect(ctx context.Context, addr string, channels int, data uint32) (*Peer, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("enet: %w", err)
	}
	return h.ConnectAddr(ctx, ua, channels, data)
}

// ConnectAddr is Connect to a net.Addr (of the host's PacketConn's kind).
func (h *Host) ConnectAddr(ctx context.Context, addr net.Addr, channels int, data uint32) (*Peer, error) {
	if channels < protocol.MinimumChannelCount {
		channels = protocol.MinimumChannelCount
	} else if channels > protocol.MaximumChannelCount {
		channels = protocol.MaximumChannelCount
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	h.now = h.clock()
	id := -1
	for i, p := range h.peers {
		if p == nil {
			id = i
			break
		}
	}
	if id < 0 {
		h.mu.Unlock()
		return nil, ErrTooManyPeers
	}
	p := h.newPeer(uint16(id), keyOf(addr), addr)
	p.state = stateConnecting
	p.channels = make([]channel, channels)
	p.connectID = h.random()
	if h.o.outBW == 0 {
		p.windowSize = protocol.MaximumWindowSize
	} else {
		p.windowSize = clampWindow(h.o.outBW / windowSizeScale * protocol.MinimumWindowSize)
	}
	c := protocol.Command{
		Number: protocol.CmdConnect, Flags: protocol.FlagAcknowledge, ChannelID: 0xFF,
		OutgoingPeerID: p.id, IncomingSessionID: p.incomingSessionID, OutgoingSessionID: p.outgoingSessionID,
		MTU: p.mtu, WindowSize: p.windowSize, ChannelCount: uint32(channels),
		IncomingBandwidth: h.o.inBW, OutgoingBandwidth: h.o.outBW,
		ThrottleInterval: p.throttleInterval, ThrottleAcceleration: p.throttleAcceleration,
		ThrottleDeceleration: p.throttleDeceleration, ConnectID: p.connectID, Data: data,
	}
	p.queueOutgoing(&c, nil, 0, 0)
	h.markDirty(p)
	h.mu.Unlock()
	h.signalWake()
	select {
	case <-p.connected:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("enet: connect to %v: %w", addr, p.doneErrForConnect())
	case <-ctx.Done():
		p.DisconnectNow(0)
		return nil, ctx.Err()
	case <-h.done:
		return nil, ErrClosed
	}
}

// Dial makes a host of its own on a new UDP socket (network "udp", "udp4" or "udp6") and
// connects to addr. Closing the peer closes that host.
func Dial(ctx context.Context, network, addr string, opts *DialOptions) (*Peer, error) {
	var d DialOptions
	if opts != nil {
		d = *opts
	}
	ho := d.HostOptions
	if ho.MaxConns == 0 {
		ho.MaxConns = 1
	}
	ua, err := net.ResolveUDPAddr(network, addr)
	if err != nil {
		return nil, fmt.Errorf("enet: %w", err)
	}
	local := ":0"
	if ua.IP.To4() != nil && network == "udp" {
		network = "udp4"
	}
	h, err := Listen(network, local, &ho)
	if err != nil {
		return nil, err
	}
	p, err := h.ConnectAddr(ctx, ua, d.Channels, d.Data)
	if err != nil {
		h.Close()
		return nil, err
	}
	h.mu.Lock()
	h.peerOnly = p
	h.mu.Unlock()
	return p, nil
}

// Close disconnects every peer at once (a DISCONNECT each, not acknowledged), closes the
// socket and stops the host's goroutines.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.now = h.clock()
	for _, p := range h.peers {
		if p != nil {
			h.disconnectNow(p, 0)
		}
	}
	h.closed = true
	close(h.done)
	h.mu.Unlock()
	err := h.conn.Close()
	h.loops.Wait()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("enet: %w", err)
	}
	return nil
}

// Shutdown disconnects every peer gracefully (after what is queued for it is sent), waits until
// they are gone or ctx ends, and closes the host.
func (h *Host) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	h.now = h.clock()
	var ps []*Peer
	for _, p := range h.peers {
		if p != nil {
			ps = append(ps, p)
			h.disconnectLater(p, 0)
		}
	}
	h.mu.Unlock()
	h.signalWake()
	var err error
	for _, p := range ps {
		select {
		case <-p.done:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			break
		}
	}
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	return err
}

// maxReadBurst is the most datagrams the read loop handles before it sends what they call for
// (acknowledgements, packets the acknowledgements of which freed the window), as C ENet's
// enet_protocol_receive_incoming_commands reads at most 256 datagrams per call.
const maxReadBurst = 256

// readLoop reads datagrams and handles them. On Linux, with a UDP socket, it reads until the
// socket has no datagram left and then sends what they call for itself, from this goroutine:
// acknowledgements for everything read since the last time in one datagram per peer, as C
// ENet's enet_host_service does (rawread_linux.go). Elsewhere it hands that to the service
// goroutine, which it wakes.
func (h *Host) readLoop() {
	defer h.loops.Done()
	if h.rawRead != nil && h.rawRead() {
		return
	}
	buf := make([]byte, 65536)
	for {
		var n int
		var key addrKey
		var addr net.Addr
		var err error
		if h.udp != nil {
			var ap netip.AddrPort
			n, ap, err = h.udp.ReadFromUDPAddrPort(buf)
			key = addrKey{ap: netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())}
		} else {
			n, addr, err = h.conn.ReadFrom(buf)
			if addr != nil {
				key = keyOf(addr)
			}
		}
		if err != nil {
			if h.readError(err) {
				return
			}
			continue
		}
		closed, dirty := h.received(buf[:n], key, addr)
		if closed {
			return
		}
		if dirty {
			h.signalWake()
		}
	}
}

// readError reports whether a read error ends the read loop (the host is closed).
func (h *Host) readError(err error) bool {
	if errors.Is(err, net.ErrClosed) {
		return true
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return true
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		// A UDP socket reports an ICMP port unreachable as a read error: go on.
		h.log.Debug("enet: read", "err", err)
	}
	return false
}

// received handles one datagram from key (addr, when not a UDP socket's). It reports whether the
// host is closed, and whether peers wait for a flush.
func (h *Host) received(b []byte, key addrKey, addr net.Addr) (closed, dirty bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return true, false
	}
	h.now = h.clock()
	h.stats.DatagramsReceived++
	h.stats.BytesReceived += uint64(len(b))
	h.recvAddr = key
	p := h.handleDatagram(b, addr)
	if p != nil && p.state != stateDisconnected &&
		(len(p.acks) > 0 || len(p.held) > 0 || len(p.outgoing) > 0) {
		// The acknowledgements wait for the flush after the datagrams that came together,
		// as C ENet acknowledges what one enet_host_service call received in one datagram;
		// the packets they are for reach Receive after them.
		h.markDirty(p)
	}
	return false, len(h.dirty) > 0
}

// dropped counts a datagram of n bytes read and dropped before it was looked at (cut to the
// read buffer's size).
func (h *Host) dropped(n int) {
	h.mu.Lock()
	h.stats.DatagramsReceived++
	h.stats.BytesReceived += uint64(n)
	h.stats.DatagramsDropped++
	h.mu.Unlock()
}

// flushReceived sends what the datagrams read since the last flush call for and hands their
// packets to the handler (from the read loop, the mutex not held).
func (h *Host) flushReceived() {
	h.mu.Lock()
	h.flushDirty()
	handle := h.handlersDue()
	h.mu.Unlock()
	if handle {
		h.runHandlers()
	}
}

// serviceLoop resends, pings, times out and throttles, and sends what Send queued.
func (h *Host) serviceLoop() {
	defer h.loops.Done()
	t := time.NewTicker(serviceInterval)
	defer t.Stop()
	for {
		all := false
		select {
		case <-h.done:
			return
		case <-h.wake:
		case <-t.C:
			all = true
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return
		}
		h.now = h.clock()
		if all {
			if timeDiff(h.now, h.bwEpoch) >= bandwidthThrottleInterval {
				h.bandwidthThrottle()
			}
			for _, p := range h.peers {
				if p == nil {
					continue
				}
				if p.state == stateAckConnect && timeDiff(h.now, p.handshakeStart) >= h.o.handshake {
					// A half-open peer that never acknowledged VERIFY_CONNECT: forget it
					// without a word (C ENet would resend; see the package comment).
					h.finish(p, nil)
					continue
				}
				h.flushPeer(p, true)
			}
		}
		h.flushDirty()
		handle := h.handlersDue()
		h.mu.Unlock()
		if handle {
			h.runHandlers()
		}
	}
}

// handled is a packet for the handler and its peer.
type handled struct {
	p  *Peer
	pk Packet
}

// handlersDue reports whether packets wait for the handler and no goroutine is calling it (the
// host's mutex held).
func (h *Host) handlersDue() bool { return len(h.handQ) > 0 && !h.handling }

// runHandlers hands the released packets to the handler, one call at a time: a goroutine that
// finds another calling it leaves its packets to that one, which takes them before it stops.
// The caller is one of the host's goroutines and does not hold the mutex.
func (h *Host) runHandlers() {
	h.mu.Lock()
	if !h.handlersDue() {
		h.mu.Unlock()
		return
	}
	h.handling = true
	for len(h.handQ) > 0 && !h.closed {
		q := h.handQ
		h.handQ = h.handSpare[:0]
		// The answers to several packets go out with one sendmmsg(2) after the calls.
		batch := h.sendBatch != nil && len(q) > 1
		h.batching = h.batching || batch
		h.mu.Unlock()
		for _, x := range q {
			h.handler.HandlePacket(x.p, x.pk)
		}
		h.mu.Lock()
		if batch && h.batching {
			h.sendBatch()
			h.batching = false
		}
		for i, x := range q {
			x.p.uncharge(len(x.pk.Data))
			h.pool.put(x.pk.Data)
			q[i] = handled{}
		}
		h.handSpare = q[:0]
	}
	h.handling = false
	h.mu.Unlock()
}

// flushDirty sends what is due for the peers marked dirty (the host's mutex held). A peer that
// a flush marks again (a DISCONNECT queued) is flushed in the same call.
func (h *Host) flushDirty() {
	if h.sendBatch != nil && len(h.dirty) > 1 && !h.batching {
		// Datagrams to several peers: one sendmmsg(2) for all of them.
		h.batching = true
		defer func() {
			h.sendBatch()
			h.batching = false
		}()
	}
	i := 0
	for ; i < len(h.dirty) && i < 2*len(h.peers)+16; i++ {
		p := h.dirty[i]
		h.dirty[i] = nil
		p.dirty = false
		if p.state != stateDisconnected {
			h.flushPeer(p, true)
		}
	}
	n := copy(h.dirty, h.dirty[i:])
	clear(h.dirty[n:])
	h.dirty = h.dirty[:n]
}

func (h *Host) markDirty(p *Peer) {
	if !p.dirty {
		p.dirty = true
		h.dirty = append(h.dirty, p)
	}
}

// Flush sends what is queued for every peer now, without waiting for the host's service
// goroutine.
func (h *Host) Flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.now = h.clock()
	for _, p := range h.peers {
		if p != nil {
			h.flushPeer(p, false)
		}
	}
	if h.handlersDue() {
		h.signalWake() // the service goroutine calls the handler
	}
}

// addrKey identifies a remote address: ap for UDP sockets, s for other PacketConns.
type addrKey struct {
	ap netip.AddrPort
	s  string
}

func keyOf(a net.Addr) addrKey {
	if ua, ok := a.(*net.UDPAddr); ok {
		ap := ua.AddrPort()
		return addrKey{ap: netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())}
	}
	return addrKey{s: a.String()}
}

func (h *Host) ipCount(k addrKey, d int) int {
	if k.s == "" {
		ip := k.ap.Addr()
		n := h.perIP[ip] + d
		if n <= 0 {
			delete(h.perIP, ip)
		} else if d != 0 {
			h.perIP[ip] = n
		}
		return n
	}
	ip := k.s
	if host, _, err := net.SplitHostPort(k.s); err == nil {
		ip = host
	}
	n := h.perIPString[ip] + d
	if n <= 0 {
		delete(h.perIPString, ip)
	} else if d != 0 {
		h.perIPString[ip] = n
	}
	return n
}

// write sends one datagram to p.
func (h *Host) write(p *Peer, b []byte) {
	if h.batchWrite(p, b) {
		return
	}
	var err error
	if h.udp != nil && p.key.s == "" {
		_, err = h.udp.WriteToUDPAddrPort(b, p.key.ap)
	} else {
		_, err = h.conn.WriteTo(b, p.addr)
	}
	if err != nil {
		h.log.Debug("enet: write", "peer", p.id, "err", err)
		return
	}
	h.stats.DatagramsSent++
	h.stats.BytesSent += uint64(len(b))
}
