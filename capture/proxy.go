package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// NoLimit, as the value of a limit (Proxy.MaxConns, Options.MaxBufferedBytes, …), means none.
const NoLimit = -1

// Defaults of the Proxy's fields, used when a field is 0.
const (
	// DefaultMaxConns is the default of Proxy.MaxConns: at most 2 048 file descriptors.
	DefaultMaxConns = 1024
	// DefaultMaxConnsPerIP is the default of Proxy.MaxConnsPerIP.
	DefaultMaxConnsPerIP = 128
	// DefaultIdleTimeout is the default of Proxy.IdleTimeout.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultDialTimeout bounds the dial to the upstream when Proxy.Dial is nil.
	DefaultDialTimeout = 10 * time.Second
	// proxyBufferBytes is the read buffer of each direction of a proxied connection.
	proxyBufferBytes = 32 << 10
)

// Errors of the Proxy.
var (
	// ErrServerClosed is returned by Serve after Shutdown or Close.
	ErrServerClosed = errors.New("capture: proxy closed")
	// ErrIdle is the reason (Event.Err of the EventClose) of a connection closed because no
	// byte passed in either direction for IdleTimeout.
	ErrIdle = errors.New("capture: connection idle for longer than IdleTimeout")
	// ErrTooManyConns is the reason of a connection refused by MaxConns or MaxConnsPerIP; it is
	// logged, and such a connection is not reported to the Handler.
	ErrTooManyConns = errors.New("capture: too many connections")
)

// Proxy is a man-in-the-middle TCP proxy: it accepts connections, dials Upstream for each,
// forwards every byte unchanged in both directions, and reports what passes to Handler as
// events (the same events as ReadStreams). The client side of a Conn is the connecting peer,
// the server side is the upstream. It serves as net/http's Server does: Serve(l), Shutdown(ctx),
// Close. The exported fields are read when Serve starts and must not change afterwards.
//
// Bytes are forwarded before they are reported; a direction reads its next bytes only after
// Handler has returned, so a slow Handler slows the traffic down instead of buffering it.
// Handler calls are serialized in the order the connections asked for them (first come,
// first served), so one connection that pushes bytes as fast as it can gets one call in turn
// with the others and cannot keep them waiting for more than one of its calls each; and a
// direction that fills its whole buffer while a connection that does not had traffic in the
// last 100 ms pauses, after each read, 3 times as long as that read took to pass, times the
// number of directions doing so (at most 10 ms): the heavy streams together take at most a
// quarter of the time they would alone while others are active, and go at full speed alone.
//
// A warning that a client can cause at will (a connection refused, an upstream that cannot be
// reached) is logged at most once per second, with how many times it happened: the log does
// not grow faster than the input.
//
// Memory and descriptors, worst case: MaxConns connections of two descriptors and two
// 32 KiB buffers each (the defaults: 2 048 descriptors and 64 MiB), plus what the Handler
// keeps (see gsftap.Tap.MaxBufferedBytes for the GSF printer's bound). A client that sends
// nothing and receives nothing for IdleTimeout is disconnected.
type Proxy struct {
	// Upstream is the host:port every connection is forwarded to.
	Upstream string
	// Handler receives the events; nil reports nothing. Calls are serialized.
	Handler Handler
	// Dial dials the upstream; nil uses a net.Dialer with DefaultDialTimeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logger logs connections that fail or are refused; nil discards.
	Logger *slog.Logger
	// MaxConns bounds the connections proxied at once; more are accepted and closed at once
	// (logged, not reported). 0 means DefaultMaxConns, NoLimit none; another negative value is
	// taken as NoLimit.
	MaxConns int
	// MaxConnsPerIP bounds the connections proxied at once from one client IP address, as
	// MaxConns does. 0 means DefaultMaxConnsPerIP, NoLimit none.
	MaxConnsPerIP int
	// IdleTimeout closes a connection through which no byte passed, in either direction, for
	// this long (its EventClose says ErrIdle). 0 means DefaultIdleTimeout; a negative value
	// none.
	IdleTimeout time.Duration

	// turn serializes Handler calls first come, first served.
	turn fifoLock

	mu         sync.Mutex // guards the fields below
	nextID     uint64
	conns      map[*proxyConn]struct{}
	perIP      map[netip.Addr]int
	listeners  map[net.Listener]struct{}
	closing    bool
	active     sync.WaitGroup // handle goroutines
	idleCh     chan struct{}  // closed when a connection ends, replaced: Shutdown's wake-up
	refusedLog logLimit       // guarded by mu
	dialLog    logLimit       // guarded by mu
	fair       fairShare
	dialCtx    context.Context
	dialCancel context.CancelFunc // cancels dials in progress at Close
}

type proxyConn struct {
	info             *Conn
	client, upstream net.Conn
	ip               netip.Addr
	last             atomic.Int64 // unix nanoseconds of the last byte that passed
	idle             atomic.Bool  // closed for IdleTimeout
	heavyAt          atomic.Int64 // unix nanoseconds of the last read that filled the buffer
}

func (p *Proxy) limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

// Serve accepts connections on l and proxies them until Shutdown or Close, and returns
// ErrServerClosed then, or the error of l.Accept; l is closed when Serve returns.
func (p *Proxy) Serve(l net.Listener) error {
	p.mu.Lock()
	if p.closing {
		p.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	if p.listeners == nil {
		p.listeners = make(map[net.Listener]struct{})
	}
	p.listeners[l] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.listeners, l)
		p.mu.Unlock()
		l.Close()
	}()
	var tempDelay time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if p.isClosing() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) || isTemporary(err) {
				// As net/http: back off on EMFILE and the like instead of spinning.
				tempDelay = min(max(2*tempDelay, 5*time.Millisecond), time.Second)
				p.logger().Warn("proxy: accept failed, retrying", "err", err, "delay", tempDelay)
				t := time.NewTimer(tempDelay)
				<-t.C
				continue
			}
			return err
		}
		tempDelay = 0
		if !p.admit(c) {
			continue
		}
	}
}

func isTemporary(err error) bool {
	var te interface{ Temporary() bool }
	return errors.As(err, &te) && te.Temporary()
}

func (p *Proxy) isClosing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closing
}

// admit counts c against the limits and starts proxying it, or closes it.
func (p *Proxy) admit(c net.Conn) bool {
	ip := netAddr(c.RemoteAddr()).Addr()
	maxConns, maxPerIP := p.limit(p.MaxConns, DefaultMaxConns), p.limit(p.MaxConnsPerIP, DefaultMaxConnsPerIP)
	p.mu.Lock()
	if p.closing {
		p.mu.Unlock()
		c.Close()
		return false
	}
	var refuse string
	switch {
	case maxConns >= 0 && len(p.conns) >= maxConns:
		refuse = fmt.Sprintf("MaxConns (%d) reached", maxConns)
	case maxPerIP >= 0 && p.perIP[ip] >= maxPerIP:
		refuse = fmt.Sprintf("MaxConnsPerIP (%d) reached for %s", maxPerIP, ip)
	}
	if refuse != "" {
		p.mu.Unlock()
		c.Close()
		p.logLimited(&p.refusedLog, "proxy: connections refused", "client", c.RemoteAddr().String(), "err", fmt.Errorf("%w: %s", ErrTooManyConns, refuse))
		return false
	}
	if p.conns == nil {
		p.conns = make(map[*proxyConn]struct{})
		p.perIP = make(map[netip.Addr]int)
	}
	p.nextID++
	pc := &proxyConn{info: &Conn{ID: p.nextID, Client: netAddr(c.RemoteAddr())}, client: c, ip: ip}
	pc.last.Store(time.Now().UnixNano())
	p.conns[pc] = struct{}{}
	p.perIP[ip]++
	p.active.Add(1)
	p.mu.Unlock()
	go p.handle(pc)
	return true
}

// release forgets pc and wakes Shutdown.
func (p *Proxy) release(pc *proxyConn) {
	p.mu.Lock()
	delete(p.conns, pc)
	if p.perIP[pc.ip]--; p.perIP[pc.ip] <= 0 {
		delete(p.perIP, pc.ip)
	}
	if p.idleCh != nil {
		close(p.idleCh)
		p.idleCh = nil
	}
	p.mu.Unlock()
	p.active.Done()
}

// Close closes the listeners and every connection at once, and returns when the last events
// of the connections have been reported (so it must not be called from the Handler).
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closing = true
	var err error
	for l := range p.listeners {
		if cerr := l.Close(); cerr != nil && err == nil && !errors.Is(cerr, net.ErrClosed) {
			err = cerr
		}
	}
	for c := range p.conns {
		c.closeBoth()
	}
	if p.dialCancel != nil {
		p.dialCancel()
	}
	p.mu.Unlock()
	p.active.Wait()
	return err
}

// Shutdown closes the listeners, then waits for the connections in flight to end by
// themselves; when ctx ends first it closes them (as Close) and returns ctx's error.
func (p *Proxy) Shutdown(ctx context.Context) error {
	p.mu.Lock()
	p.closing = true
	for l := range p.listeners {
		l.Close()
	}
	p.mu.Unlock()
	for {
		p.mu.Lock()
		n := len(p.conns)
		if n == 0 {
			p.mu.Unlock()
			p.active.Wait()
			return nil
		}
		if p.idleCh == nil {
			p.idleCh = make(chan struct{})
		}
		ch := p.idleCh
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			p.Close()
			return ctx.Err()
		}
	}
}

func (c *proxyConn) closeBoth() {
	c.client.Close()
	if c.upstream != nil {
		c.upstream.Close()
	}
}

func (p *Proxy) emit(ev Event) {
	if p.Handler == nil {
		return
	}
	p.turn.Lock()
	defer p.turn.Unlock()
	p.Handler(&ev)
}

// logLimit is one kind of warning that a client can cause at will, logged at most once per
// second with the number of times it happened since the last line: the log does not grow
// faster than the input (a refused connection sends no byte).
type logLimit struct {
	last  time.Time
	count int
}

// logLimited logs msg with args, or counts it when a line of its kind went out less than a
// second ago.
func (p *Proxy) logLimited(l *logLimit, msg string, args ...any) {
	p.mu.Lock()
	l.count++
	now := time.Now()
	if now.Sub(l.last) < time.Second {
		p.mu.Unlock()
		return
	}
	n := l.count
	l.last, l.count = now, 0
	p.mu.Unlock()
	p.logger().Warn(msg, append(args, "times", n)...)
}

func (p *Proxy) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func netAddr(a net.Addr) netip.AddrPort {
	if ta, ok := a.(*net.TCPAddr); ok {
		return netip.AddrPortFrom(ta.AddrPort().Addr().Unmap(), ta.AddrPort().Port())
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap
}

// handle proxies one accepted connection.
func (p *Proxy) handle(pc *proxyConn) {
	defer p.release(pc)
	info, client := pc.info, pc.client
	dial := p.Dial
	if dial == nil {
		d := &net.Dialer{Timeout: DefaultDialTimeout}
		dial = d.DialContext
	}
	up, err := p.dialUp(dial)
	if err != nil {
		info.Server, _ = netip.ParseAddrPort(p.Upstream) // invalid for a host name
		client.Close()
		p.logLimited(&p.dialLog, "proxy: cannot reach the upstream", "conn", info.ID, "client", info.Client, "upstream", p.Upstream, "err", err)
		p.emit(Event{Kind: EventOpen, Conn: info, Time: time.Now()})
		p.emit(Event{Kind: EventClose, Conn: info, Time: time.Now(), Err: err})
		return
	}
	info.Server = netAddr(up.RemoteAddr())
	pc.last.Store(time.Now().UnixNano())
	p.mu.Lock()
	pc.upstream = up
	closing := p.closing
	p.mu.Unlock()
	if closing {
		pc.closeBoth()
	}
	p.emit(Event{Kind: EventOpen, Conn: info, Time: time.Now()})

	idle := p.IdleTimeout
	if idle == 0 {
		idle = DefaultIdleTimeout
	}
	errs := make(chan error, 2)
	go func() { errs <- p.pipe(pc, ClientToServer, client, up, idle) }()
	go func() { errs <- p.pipe(pc, ServerToClient, up, client, idle) }()
	var first error
	for range 2 {
		if err := <-errs; err != nil && first == nil {
			first = err
			// One side failed: the other cannot go on.
			pc.closeBoth()
		}
	}
	pc.closeBoth()
	switch {
	case pc.idle.Load():
		first = ErrIdle
	case p.isClosing() && first != nil && errors.Is(first, net.ErrClosed):
		first = nil // closed by Close or Shutdown
	}
	p.emit(Event{Kind: EventClose, Conn: info, Time: time.Now(), Err: first})
}

// dialUp dials the upstream; Close during the dial cancels it.
func (p *Proxy) dialUp(dial func(ctx context.Context, network, addr string) (net.Conn, error)) (net.Conn, error) {
	p.mu.Lock()
	if p.closing {
		p.mu.Unlock()
		return nil, ErrServerClosed
	}
	if p.dialCtx == nil {
		p.dialCtx, p.dialCancel = context.WithCancel(context.Background())
	}
	ctx := p.dialCtx
	p.mu.Unlock()
	return dial(ctx, "tcp", p.Upstream)
}

// pipe copies src to dst, reporting what passes, until src ends; then it half-closes dst so
// that the peer sees the end too. A read that waits longer than idle while the other
// direction is quiet too closes the connection.
func (p *Proxy) pipe(pc *proxyConn, d Direction, src, dst net.Conn, idle time.Duration) error {
	info := pc.info
	buf := make([]byte, proxyBufferBytes)
	var off int64
	for {
		if idle > 0 {
			_ = src.SetReadDeadline(time.Unix(0, pc.last.Load()).Add(idle))
		}
		readAt := time.Now()
		n, rerr := src.Read(buf)
		if n > 0 {
			t := time.Now()
			pc.last.Store(t.UnixNano())
			if _, err := dst.Write(buf[:n]); err != nil {
				p.emit(Event{Kind: EventData, Conn: info, Dir: d, Time: t, Offset: off, Data: buf[:n]})
				off += int64(n)
				p.emit(Event{Kind: EventEnd, Conn: info, Dir: d, Time: time.Now(), Offset: off})
				return err
			}
			p.emit(Event{Kind: EventData, Conn: info, Dir: d, Time: t, Offset: off, Data: buf[:n]})
			off += int64(n)
			p.fair.pace(pc, n == len(buf), readAt, t)
		}
		if rerr != nil && errors.Is(rerr, os.ErrDeadlineExceeded) {
			if time.Since(time.Unix(0, pc.last.Load())) < idle {
				continue // the other direction was busy: wait on
			}
			pc.idle.Store(true)
		}
		if rerr != nil {
			p.emit(Event{Kind: EventEnd, Conn: info, Dir: d, Time: time.Now(), Offset: off})
			if rerr == io.EOF {
				if cw, ok := dst.(interface{ CloseWrite() error }); ok {
					_ = cw.CloseWrite()
				}
				return nil
			}
			return rerr
		}
	}
}

// fifoLock is a mutex that lets its waiters in in the order they came.
type fifoLock struct {
	mu      sync.Mutex
	held    bool
	waiters []chan struct{}
}

func (l *fifoLock) Lock() {
	l.mu.Lock()
	if !l.held {
		l.held = true
		l.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	l.waiters = append(l.waiters, ch)
	l.mu.Unlock()
	<-ch // the lock is handed over held
}

func (l *fifoLock) Unlock() {
	l.mu.Lock()
	if len(l.waiters) == 0 {
		l.held = false
		l.mu.Unlock()
		return
	}
	ch := l.waiters[0]
	l.waiters[0] = nil
	l.waiters = l.waiters[1:]
	l.mu.Unlock()
	close(ch)
}
