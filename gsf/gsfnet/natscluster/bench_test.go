package natscluster_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/gsfnet/natscluster"
)

// Stamp is the body of the benchmark's notify: when it was sent.
type Stamp struct {
	Seq  int64
	Nano int64
}

// BenchmarkClusterFanout sends group notifies to 1 000 sessions, spread over 3 nodes of a
// cluster on one embedded NATS server, from one node, and measures the time from Notify to
// the receipt of each copy by the clients (all in this process, on loopback). Each iteration
// is one notify; the next is sent when every copy of the last has arrived. The "1node" case is
// the same fan-out within one server without a cluster: the yardstick.
func BenchmarkClusterFanout(b *testing.B) {
	for _, nodes := range []int{1, 3} {
		b.Run(fmt.Sprintf("1000sessions_%dnode", nodes), func(b *testing.B) { benchFanout(b, nodes, 1000) })
	}
}

func benchFanout(b *testing.B, nNodes, nSessions int) {
	var url string
	if nNodes > 1 {
		ns := natscluster.StartNATS(b, -1)
		defer ns.Shutdown()
		url = ns.ClientURL()
	}
	type node struct {
		srv  *gsfnet.Server
		node *natscluster.Node
		nc   *nats.Conn
		addr string
	}
	var nodes []*node
	for i := range nNodes {
		n := &node{}
		mux := gsfnet.NewMux()
		srvp := &n.srv
		gsfnet.Handle(mux, gsf.SvcUserServer, msgJoin, func(ctx context.Context, s *gsfnet.Session, req *Room) (*Count, error) {
			(*srvp).Group(req.Name).Add(s)
			return &Count{}, nil
		})
		n.srv = &gsfnet.Server{Handler: mux, IdleTimeout: -1}
		if url != "" {
			var err error
			if n.nc, err = nats.Connect(url); err != nil {
				b.Fatal(err)
			}
			if n.node, err = natscluster.New(n.nc, &natscluster.Options{Node: fmt.Sprint("n", i)}); err != nil {
				b.Fatal(err)
			}
			n.srv.Cluster = n.node
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		n.addr = l.Addr().String()
		go func() { _ = n.srv.Serve(l) }()
		nodes = append(nodes, n)
	}
	defer func() {
		for _, n := range nodes {
			_ = n.srv.Close()
			if n.node != nil {
				_ = n.node.Close()
				n.nc.Close()
			}
		}
	}()

	var (
		mu        sync.Mutex
		latencies []time.Duration
		received  atomic.Int64
		all       = make(chan struct{}, 1)
		want      atomic.Int64
	)
	ctx := context.Background()
	for i := range nSessions {
		n := nodes[i%len(nodes)]
		c, err := gsfnet.Dial(ctx, n.addr, &gsfnet.ClientOptions{NotifyHandler: func(m *gsf.Message) {
			var s Stamp
			if err := m.DecodeBody(&s); err != nil {
				return
			}
			d := time.Duration(time.Now().UnixNano() - s.Nano)
			mu.Lock()
			latencies = append(latencies, d)
			mu.Unlock()
			if received.Add(1) == want.Load() {
				all <- struct{}{}
			}
		}})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if err := c.Call(ctx, gsf.SvcUserServer, msgJoin, &Room{Name: "all"}, nil); err != nil {
			b.Fatal(err)
		}
	}
	if nodes[0].node != nil {
		for _, n := range nodes {
			_ = n.node.Sync(ctx)
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(nodes[0].node.GroupMembers("all")) != nSessions {
			if time.Now().After(deadline) {
				b.Fatalf("the directory has %d members", len(nodes[0].node.GroupMembers("all")))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	g := nodes[0].srv.Group("all")
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		want.Store(int64(i+1) * int64(nSessions))
		if _, err := g.Notify(gsf.SvcClient, msgChatEvent, &Stamp{Seq: int64(i), Nano: time.Now().UnixNano()}); err != nil {
			b.Fatal(err)
		}
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			b.Fatalf("notify %d: %d of %d copies arrived", i, received.Load()-int64(i)*int64(nSessions), nSessions)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	mu.Lock()
	slices.Sort(latencies)
	if len(latencies) > 0 {
		b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
	}
	mu.Unlock()
	b.ReportMetric(float64(received.Load())/elapsed.Seconds(), "delivered/s")
}
