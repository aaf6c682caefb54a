package multiplayer

import (
	"net"
	"runtime"
	"testing"
	"time"
)

// memInUse is the heap and stack memory in use after a collection.
func memInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// idlePeerBytes connects peers idle raw clients to s and returns the memory the process holds
// per peer (the clients' share is a net.Conn each: a few hundred bytes).
func idlePeerBytes(t *testing.T, s *Server, peers int) int64 {
	t.Helper()
	s.MaxConnsPerIP, s.AcceptRate = NoLimit, NoLimit
	var admitted testSignal // signalled at each OnConnect, once the peer is in s.Peers
	onConnect := s.OnConnect
	s.OnConnect = func(p *Peer) {
		if onConnect != nil {
			onConnect(p)
		}
		admitted.signal()
	}
	url := testServer(t, s)
	conns := make([]net.Conn, 0, peers)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	c, _, err := upgradeRaw(t, url, nil) // the first connection warms the pools up
	if err != nil {
		t.Fatal(err)
	}
	conns = append(conns, c)
	before := memInUse()
	for range peers {
		c, br, err := upgradeRaw(t, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		br.Reset(nil)
		conns = append(conns, c)
	}
	if !admitted.waitUntil(30*time.Second, func() bool { return len(s.Peers()) >= peers+1 }) {
		t.Fatalf("%d peers admitted of %d", len(s.Peers()), peers+1)
	}
	return (memInUse() - before) / int64(peers)
}

// TestIdlePeerMemory (issue 21 item 7): the memory one idle peer costs the server, relay off
// and on (with relay every peer also holds the others' ADD_PEER until written), is measured
// and bounded. docs/multiplayer.md gives the figures and the worst case for MaxConns.
func TestIdlePeerMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes the figures meaningless")
	}
	const peers = 300
	for _, tc := range []struct {
		name  string
		relay bool
		bound int64
	}{{"relay off", false, 24 << 10}, {"relay on", true, 24 << 10}} {
		s := &Server{NoRelay: !tc.relay, PingInterval: NoLimit}
		per := idlePeerBytes(t, s, peers)
		t.Logf("%s: %d bytes per idle peer", tc.name, per)
		if per > tc.bound {
			t.Errorf("%s: %d bytes per idle peer, bound %d", tc.name, per, tc.bound)
		}
	}
}
