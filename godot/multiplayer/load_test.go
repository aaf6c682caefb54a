package multiplayer

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// goodPeer is a well-behaved client of the load test: it relays numbered packets to everyone
// and checks that those of the other good peers arrive in order, without a gap.
type goodPeer struct {
	c      *Client
	mu     sync.Mutex
	next   map[int32]uint32 // per good sender, the number expected next
	got    int
	want   int
	bad    string
	done   chan struct{}
	once   sync.Once
	closed atomic.Bool
}

func (g *goodPeer) onBytes(good func(int32) bool) func(p *Peer, b []byte) {
	return func(p *Peer, b []byte) {
		if len(b) != 8 || !good(int32(binary.LittleEndian.Uint32(b))) {
			return // an attacker's
		}
		from, seq := int32(binary.LittleEndian.Uint32(b)), binary.LittleEndian.Uint32(b[4:])
		g.mu.Lock()
		defer g.mu.Unlock()
		if from != p.ID() {
			g.bad = fmt.Sprintf("packet of %d relayed as from %d", from, p.ID())
		} else if seq != g.next[from] && g.bad == "" {
			g.bad = fmt.Sprintf("from %d: number %d, want %d", from, seq, g.next[from])
		}
		g.next[from] = seq + 1
		g.got++
		if g.want > 0 && g.got == g.want {
			g.once.Do(func() { close(g.done) })
		}
	}
}

// dialFrom is dial with a source address.
func dialFrom(t testing.TB, url string, ip net.IP, o *ClientOptions) *Client {
	t.Helper()
	o.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}).DialContext}}
	return dial(t, url, o)
}

// TestLoadBesideAttacks: well-behaved clients relay to each other and call the server while,
// at the same time and with default settings, attackers from other addresses burst relay
// packets, hold idle connections, trickle and flood fragments, send refused packets and storm
// connections. The well-behaved clients lose nothing: none is dropped, every relayed packet of
// every other good client arrives in order, every call is handled.
func TestLoadBesideAttacks(t *testing.T) {
	const goods, rounds = 8, 200
	calls := make(chan struct{}, goods*rounds)
	n := MustNode("Main", RPC{Name: "hello", Mode: ModeAnyPeer, Handler: func(p *Peer, k int) { calls <- struct{}{} }})
	s := &Server{Nodes: []*Node{n}, OnError: func(*Peer, error) {}}
	url := testServer(t, s)
	goodIP, attackIP, stormIP := net.IPv4(127, 0, 0, 2), net.IPv4(127, 0, 0, 1), net.IPv4(127, 0, 0, 3)

	ids := map[int32]bool{}
	var idsMu sync.Mutex
	isGood := func(id int32) bool { idsMu.Lock(); defer idsMu.Unlock(); return ids[id] }
	gs := make([]*goodPeer, goods)
	for i := range gs {
		g := &goodPeer{next: map[int32]uint32{}, want: (goods - 1) * rounds, done: make(chan struct{})}
		g.c = dialFrom(t, url, goodIP, &ClientOptions{Nodes: []*Node{n}, OnBytes: g.onBytes(isGood),
			OnDisconnect: func(p *Peer) {
				if p.ID() == 1 {
					g.closed.Store(true)
				}
			}})
		idsMu.Lock()
		ids[g.c.ID()] = true
		idsMu.Unlock()
		gs[i] = g
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var attacks sync.WaitGroup
	rawFrom := func(ip net.IP) (net.Conn, error) {
		c, _, err := upgradeRaw(t, url, &net.TCPAddr{IP: ip})
		if err == nil {
			context.AfterFunc(ctx, func() { c.Close() }) // ends a write blocked on a throttled peer
		}
		return c, err
	}
	// A relay burst of 50 000 packets to everyone (it reads what it is sent).
	attacks.Go(func() {
		defer func(t0 time.Time) { t.Logf("attack 1 ended after %v", time.Since(t0)) }(time.Now())
		c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{
			DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: attackIP}}).DialContext}}})
		if err != nil {
			t.Error(err)
			return
		}
		defer c.CloseNow()
		go func() {
			for {
				if _, _, err := c.Read(ctx); err != nil {
					return
				}
			}
		}()
		pkt := AppendSys(nil, SysRelay, 0, AppendRaw(nil, []byte{1, 2, 3}))
		for i := range 50000 {
			if err := c.Write(ctx, websocket.MessageBinary, pkt); err != nil {
				t.Logf("burst: %d sent: %v", i, err)
				return
			}
		}
	})
	// 200 idle upgraded connections (64 are admitted, the rest refused).
	attacks.Go(func() {
		defer func(t0 time.Time) { t.Logf("attack 2 ended after %v", time.Since(t0)) }(time.Now())
		var held []net.Conn
		for range 200 {
			if c, err := rawFrom(attackIP); err == nil {
				held = append(held, c)
			}
		}
		<-ctx.Done()
		for _, c := range held {
			c.Close()
		}
	})
	// A message trickled one empty fragment every 50 ms, and one flooded with them.
	attacks.Go(func() {
		defer func(t0 time.Time) { t.Logf("attack 3 ended after %v", time.Since(t0)) }(time.Now())
		c, err := rawFrom(stormIP)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		c.Write(frame(false, 2, []byte{byte(CmdRaw)}))
		for ctx.Err() == nil {
			if _, err := c.Write(frame(false, 0, nil)); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond) // the attacker's pace, not a wait for an event
		}
	})
	attacks.Go(func() {
		defer func(t0 time.Time) { t.Logf("attack 4 ended after %v", time.Since(t0)) }(time.Now())
		c, err := rawFrom(stormIP)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		c.Write(frame(false, 2, []byte{byte(CmdRaw)}))
		empty := make([]byte, 0, 6*1024)
		for range 1024 {
			empty = append(empty, frame(false, 0, nil)...)
		}
		for ctx.Err() == nil {
			if _, err := c.Write(empty); err != nil {
				return
			}
		}
	})
	// Refused packets as fast as they go.
	attacks.Go(func() {
		defer func(t0 time.Time) { t.Logf("attack 5 ended after %v", time.Since(t0)) }(time.Now())
		c, err := rawFrom(stormIP)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		bad := frame(true, 2, []byte{0xff, 0xfe, 0xfd})
		for ctx.Err() == nil {
			if _, err := c.Write(bad); err != nil {
				return
			}
		}
	})
	// A connect storm: 300 connections opened and closed.
	attacks.Go(func() {
		defer func(t0 time.Time) { t.Logf("attack 6 ended after %v", time.Since(t0)) }(time.Now())
		for range 300 {
			if c, err := rawFrom(stormIP); err == nil {
				c.Close()
			}
		}
	})

	// The good peers' traffic, meanwhile.
	var sends sync.WaitGroup
	for _, g := range gs {
		sends.Go(func() {
			var b [8]byte
			binary.LittleEndian.PutUint32(b[:], uint32(g.c.ID()))
			for i := range rounds {
				binary.LittleEndian.PutUint32(b[4:], uint32(i))
				if err := g.c.SendBytes(0, b[:]); err != nil {
					t.Error(err)
					return
				}
				if i%20 == 0 {
					if err := g.c.RPCID(1, n, "hello", i); err != nil {
						t.Error(err)
						return
					}
				}
				time.Sleep(5 * time.Millisecond) // a player's pace, not a wait for an event
			}
		})
	}
	start := time.Now()
	sends.Wait()
	deadline := time.After(30 * time.Second)
	for i, g := range gs {
		select {
		case <-g.done:
		case <-deadline:
		}
		g.mu.Lock()
		got, bad := g.got, g.bad
		g.mu.Unlock()
		if bad != "" || got != g.want || g.closed.Load() {
			t.Errorf("good peer %d: %d of %d relayed packets, %q, dropped %v", i, got, g.want, bad, g.closed.Load())
		}
	}
	t.Logf("every good packet sent and received in %v", time.Since(start))
	cancel()
	attacks.Wait()
	want := goods * ((rounds-1)/20 + 1)
	for i := range want {
		select {
		case <-calls:
		case <-deadline:
			t.Fatalf("%d of %d calls handled", i, want)
		}
	}
}
