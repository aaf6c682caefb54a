package multiplayer

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countConn counts the bytes a raw client receives and signals when a target is reached.
type countConn struct {
	n      *atomic.Int64
	target int64
	done   chan struct{}
	once   *sync.Once
}

func (c countConn) Write(p []byte) (int, error) {
	if c.n.Add(int64(len(p))) >= c.target {
		c.once.Do(func() { close(c.done) })
	}
	return len(p), nil
}

// admitRound connects peers idle raw clients (which read and count what they get) to a server,
// waits until every ADD_PEER has arrived, closes them all and waits until the server has
// forgotten them; it returns the process's CPU time (the clients' share is small: they only
// read).
func admitRound(b *testing.B, peers int, relay bool) time.Duration {
	left := make(chan struct{}, peers)
	s := &Server{NoRelay: !relay, MaxConnsPerIP: NoLimit, AcceptRate: NoLimit, PingInterval: NoLimit,
		OnDisconnect: func(*Peer) { left <- struct{}{} }}
	url := testServer(b, s)
	defer s.Close()
	var got atomic.Int64
	want := int64(peers) * 6 // the peer-id messages
	if relay {
		want += int64(peers) * int64(peers-1) * 8 // ADD_PEER: 2 bytes of header, 6 of packet
	}
	done := make(chan struct{})
	var once sync.Once
	start := time.Duration(cpuTime())
	conns := make([]net.Conn, peers)
	for i := range conns {
		c, br, err := upgradeRaw(b, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		conns[i] = c
		go io.Copy(countConn{&got, want, done, &once}, br)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatalf("%d of %d bytes", got.Load(), want)
	}
	for _, c := range conns {
		c.Close()
	}
	for range peers {
		<-left
	}
	return time.Duration(cpuTime()) - start
}

// benchmarkAdmit measures the CPU that admitting and then losing peers idle peers costs with
// relay on (each connect sends ADD_PEER to every peer, each departure DEL_PEER), beside the
// yardstick: the same upgrades with relay off.
func benchmarkAdmit(b *testing.B, peers int) {
	var relay, yard time.Duration
	for b.Loop() {
		yard += admitRound(b, peers, false)
		relay += admitRound(b, peers, true)
	}
	n := float64(b.N)
	b.ReportMetric(float64(relay)/n/float64(time.Millisecond), "cpu-ms/op")
	b.ReportMetric(float64(yard)/n/float64(time.Millisecond), "yardstick-cpu-ms/op")
	b.ReportMetric(float64(relay)/float64(yard), "x-yardstick")
}

// BenchmarkMultiplayerAdmit500 and BenchmarkMultiplayerAdmit1000: admission and departure of
// 500 and 1 000 idle peers, relay on, as a ratio to the upgrades alone (relay off).
func BenchmarkMultiplayerAdmit500(b *testing.B)  { benchmarkAdmit(b, 500) }
func BenchmarkMultiplayerAdmit1000(b *testing.B) { benchmarkAdmit(b, 1000) }
