package multiplayer

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
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

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchmarkAdmit connects peers idle raw clients (which read and count what they get) to a
// server, waits until every ADD_PEER has arrived, closes them all and waits until the server
// has forgotten them; it reports the process's CPU time of each half (the clients' share is
// small: they only read).
func benchmarkAdmit(b *testing.B, peers int, relay bool) {
	for b.Loop() {
		left := make(chan struct{}, peers)
		s := &Server{NoRelay: !relay, MaxConnsPerIP: NoLimit, AcceptRate: NoLimit, PingInterval: NoLimit,
			OnDisconnect: func(*Peer) { left <- struct{}{} }}
		url := testServer(b, s)
		var got atomic.Int64
		want := int64(peers) * 6 // the peer-id messages
		if relay {
			want += int64(peers) * int64(peers-1) * 8 // ADD_PEER: 2 bytes of header, 6 of packet
		}
		done := make(chan struct{})
		var once sync.Once
		start := cpuTime()
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
		admitted := cpuTime()
		for _, c := range conns {
			c.Close()
		}
		for range peers {
			<-left
		}
		b.ReportMetric(float64(admitted-start)/float64(time.Millisecond), "admit-cpu-ms/op")
		b.ReportMetric(float64(cpuTime()-admitted)/float64(time.Millisecond), "leave-cpu-ms/op")
		s.Close()
	}
}

// BenchmarkAdmitPeersRelayDecode: admission and departure of 500 and 1 000 idle peers with
// relay on, beside the same without relay (the yardstick: the upgrades alone).
func BenchmarkAdmitPeers500Relay(b *testing.B)   { benchmarkAdmit(b, 500, true) }
func BenchmarkAdmitPeers500NoRelay(b *testing.B) { benchmarkAdmit(b, 500, false) }
func BenchmarkAdmitPeers1000Relay(b *testing.B)  { benchmarkAdmit(b, 1000, true) }
func BenchmarkAdmitPeers1000NoRelay(b *testing.B) {
	benchmarkAdmit(b, 1000, false)
}
