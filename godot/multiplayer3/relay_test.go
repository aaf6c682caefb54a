package multiplayer3

import (
	"context"
	"encoding/hex"
	"errors"
	"net"
	"slices"
	"sync"
	"time"
)

// datagram is one UDP datagram that passed the logging relay.
type datagram struct {
	Conn int    `json:"conn"` // the client's connection, numbered in order of its first datagram
	Dir  string `json:"dir"`  // "c2s" (client to server) or "s2c"
	Hex  string `json:"hex"`
	Ms   int64  `json:"ms"` // milliseconds since the relay started
}

func (d datagram) bytes() []byte {
	b, _ := hex.DecodeString(d.Hex)
	return b
}

// udpRelay forwards datagrams between clients and one server address, each client through an
// upstream socket of its own, and logs every datagram.
type udpRelay struct {
	ln       *net.UDPConn
	upstream *net.UDPAddr
	start    time.Time

	mu    sync.Mutex
	conns map[string]*relayConn
	log   []datagram
	wg    sync.WaitGroup
	// recorded is signalled whenever a datagram passes.
	recorded chan struct{}
}

type relayConn struct {
	n      int
	client *net.UDPAddr
	up     *net.UDPConn
}

func newUDPRelay(upstream string) (*udpRelay, error) {
	ua, err := net.ResolveUDPAddr("udp4", upstream)
	if err != nil {
		return nil, err
	}
	ln, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	r := &udpRelay{ln: ln, upstream: ua, start: time.Now(), conns: map[string]*relayConn{}, recorded: make(chan struct{}, 1)}
	r.wg.Add(1)
	go r.fromClients()
	return r, nil
}

func (r *udpRelay) port() int { return r.ln.LocalAddr().(*net.UDPAddr).Port }

func (r *udpRelay) record(conn int, dir string, b []byte) {
	r.mu.Lock()
	r.log = append(r.log, datagram{Conn: conn, Dir: dir, Hex: hex.EncodeToString(b), Ms: time.Since(r.start).Milliseconds()})
	r.mu.Unlock()
	select {
	case r.recorded <- struct{}{}:
	default:
	}
}

// waitFor waits until a datagram that passed the relay satisfies ok.
func (r *udpRelay) waitFor(ctx context.Context, ok func(datagram) bool) error {
	seen := 0
	for {
		r.mu.Lock()
		log := r.log[seen:]
		seen = len(r.log)
		r.mu.Unlock()
		if slices.ContainsFunc(log, ok) {
			return nil
		}
		select {
		case <-r.recorded:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (r *udpRelay) fromClients() {
	defer r.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, from, err := r.ln.ReadFromUDP(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		c := r.conns[from.String()]
		if c == nil {
			up, err := net.DialUDP("udp4", nil, r.upstream)
			if err != nil {
				r.mu.Unlock()
				continue
			}
			c = &relayConn{n: len(r.conns), client: from, up: up}
			r.conns[from.String()] = c
			r.wg.Add(1)
			go r.fromServer(c)
		}
		r.mu.Unlock()
		r.record(c.n, "c2s", buf[:n])
		c.up.Write(buf[:n])
	}
}

func (r *udpRelay) fromServer(c *relayConn) {
	defer r.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, err := c.up.Read(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // ECONNREFUSED once the server has gone: read on until closed
		}
		r.record(c.n, "s2c", buf[:n])
		r.ln.WriteToUDP(buf[:n], c.client)
	}
}

// close stops the relay and returns its log.
func (r *udpRelay) close() []datagram {
	r.ln.Close()
	r.mu.Lock()
	for _, c := range r.conns {
		c.up.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
	return r.log
}

// freeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago.
func freeUDPPort(ctx context.Context) (int, error) {
	var lc net.ListenConfig
	c, err := lc.ListenPacket(ctx, "udp4", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port, nil
}
