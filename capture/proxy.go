package capture

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Proxy is a man-in-the-middle TCP proxy: it accepts connections, dials Upstream for each,
// forwards every byte unchanged in both directions, and reports what passes to Handler as
// events (the same events as ReadStreams). The client side of a Conn is the connecting peer,
// the server side is the upstream.
//
// Bytes are forwarded before they are reported; a direction reads its next bytes only after
// Handler has returned, so a slow Handler slows the traffic down instead of buffering it:
// memory is one 32 KiB buffer per direction.
type Proxy struct {
	// Upstream is the host:port every connection is forwarded to.
	Upstream string
	// Handler receives the events; nil reports nothing. Calls are serialized.
	Handler Handler
	// Dial dials the upstream; nil uses a net.Dialer with a 10 s timeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logger logs connections that fail; nil discards.
	Logger *slog.Logger

	mu     sync.Mutex // serializes Handler calls and guards the fields below
	nextID uint64
	conns  map[*proxyConn]struct{}
}

type proxyConn struct {
	info             *Conn
	client, upstream net.Conn
}

// Serve accepts connections on l until ctx is canceled or l fails, and returns then after
// closing l and every connection it proxies, and after their last events have been
// reported. It returns nil when ctx was canceled.
func (p *Proxy) Serve(parent context.Context, l net.Listener) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() {
		l.Close()
		p.mu.Lock()
		for c := range p.conns {
			c.client.Close()
			c.upstream.Close()
		}
		p.mu.Unlock()
	})
	defer stop()
	var err error
	for {
		var c net.Conn
		c, err = l.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.handle(ctx, c)
		}()
	}
	cancel() // closes the connections
	wg.Wait()
	if parent.Err() != nil {
		return nil
	}
	return err
}

func (p *Proxy) emit(ev Event) {
	if p.Handler == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Handler(&ev)
}

func (p *Proxy) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func netAddr(a net.Addr) netip.AddrPort {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.AddrPort()
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap
}

// handle proxies one accepted connection.
func (p *Proxy) handle(ctx context.Context, client net.Conn) {
	dial := p.Dial
	if dial == nil {
		d := &net.Dialer{Timeout: 10 * time.Second}
		dial = d.DialContext
	}
	p.mu.Lock()
	p.nextID++
	info := &Conn{ID: p.nextID, Client: netAddr(client.RemoteAddr())}
	p.mu.Unlock()
	up, err := dial(ctx, "tcp", p.Upstream)
	if err != nil {
		info.Server, _ = netip.ParseAddrPort(p.Upstream) // invalid for a host name
		client.Close()
		p.logger().Warn("proxy: cannot reach the upstream", "conn", info.ID, "client", info.Client, "upstream", p.Upstream, "err", err)
		p.emit(Event{Kind: EventOpen, Conn: info, Time: time.Now()})
		p.emit(Event{Kind: EventClose, Conn: info, Time: time.Now(), Err: err})
		return
	}
	info.Server = netAddr(up.RemoteAddr())
	pc := &proxyConn{info: info, client: client, upstream: up}
	p.mu.Lock()
	if p.conns == nil {
		p.conns = make(map[*proxyConn]struct{})
	}
	p.conns[pc] = struct{}{}
	closing := ctx.Err() != nil
	p.mu.Unlock()
	if closing {
		client.Close()
		up.Close()
	}
	p.emit(Event{Kind: EventOpen, Conn: info, Time: time.Now()})

	errs := make(chan error, 2)
	go func() { errs <- p.pipe(info, ClientToServer, client, up) }()
	go func() { errs <- p.pipe(info, ServerToClient, up, client) }()
	var first error
	for range 2 {
		if err := <-errs; err != nil && first == nil {
			first = err
			// One side failed: the other cannot go on.
			client.Close()
			up.Close()
		}
	}
	client.Close()
	up.Close()
	p.mu.Lock()
	delete(p.conns, pc)
	p.mu.Unlock()
	if ctx.Err() != nil && first != nil && errors.Is(first, net.ErrClosed) {
		first = nil // closed by Serve's stop
	}
	p.emit(Event{Kind: EventClose, Conn: info, Time: time.Now(), Err: first})
}

// pipe copies src to dst, reporting what passes, until src ends; then it half-closes dst so
// that the peer sees the end too.
func (p *Proxy) pipe(info *Conn, d Direction, src, dst net.Conn) error {
	buf := make([]byte, 32<<10)
	var off int64
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			t := time.Now()
			if _, err := dst.Write(buf[:n]); err != nil {
				p.emit(Event{Kind: EventData, Conn: info, Dir: d, Time: t, Offset: off, Data: buf[:n]})
				off += int64(n)
				p.emit(Event{Kind: EventEnd, Conn: info, Dir: d, Time: time.Now(), Offset: off})
				return err
			}
			p.emit(Event{Kind: EventData, Conn: info, Dir: d, Time: t, Offset: off, Data: buf[:n]})
			off += int64(n)
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
