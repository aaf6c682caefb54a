package natscluster_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/gsfnet/natscluster"
)

// Two nodes on one NATS server: a player on node b joins a room, and a notify to the room sent
// on node a reaches the player.
func Example() {
	// A NATS server; in production, a separate process (nats-server) or cluster.
	ns, _ := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	go ns.Start()
	ns.ReadyForConnections(5 * time.Second)
	defer ns.Shutdown()

	const msgJoin, msgLine int32 = 2001, 2100
	startNode := func(id string) (*gsfnet.Server, *natscluster.Node, string) {
		nc, _ := nats.Connect(ns.ClientURL())
		node, _ := natscluster.New(nc, &natscluster.Options{Node: id})
		srv := &gsfnet.Server{Cluster: node}
		mux := gsfnet.NewMux()
		gsfnet.Handle(mux, gsf.SvcUserServer, msgJoin, func(ctx context.Context, s *gsfnet.Session, req *Login) (*Count, error) {
			s.SetUser(req.User)
			srv.Group("lobby").Add(s)
			return &Count{}, nil
		})
		srv.Handler = mux
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		go srv.Serve(l)
		return srv, node, l.Addr().String()
	}
	srvA, nodeA, _ := startNode("a")
	defer srvA.Close()
	srvB, nodeB, addrB := startNode("b")
	defer srvB.Close()

	got := make(chan string, 1)
	ctx := context.Background()
	c, _ := gsfnet.Dial(ctx, addrB, &gsfnet.ClientOptions{NotifyHandler: func(m *gsf.Message) {
		var s Say
		_ = m.DecodeBody(&s)
		got <- s.Text
	}})
	defer c.Close()
	_ = c.Call(ctx, gsf.SvcUserServer, msgJoin, &Login{User: "bob"}, nil)
	_ = nodeB.Sync(ctx)
	for len(nodeA.Online("bob")) == 0 { // until node a has heard of bob
		time.Sleep(time.Millisecond)
	}

	fmt.Println("bob is on node", nodeA.Online("bob")[0].Node)
	n, _ := srvA.Group("lobby").Notify(gsf.SvcClient, msgLine, &Say{Room: "lobby", Text: "hello from a"})
	fmt.Println("members on node a:", n)
	fmt.Println("bob got:", <-got)
	// Output:
	// bob is on node b
	// members on node a: 0
	// bob got: hello from a
}
