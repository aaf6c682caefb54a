package natscluster

import (
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// StartNATS runs a NATS server in the test process on loopback, on port (-1: a free one), until
// the test ends. (Exported for the package's external tests only: it is in a _test.go file.)
func StartNATS(tb testing.TB, port int) *server.Server {
	tb.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true})
	if err != nil {
		tb.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(5 * time.Second) {
		tb.Fatal("nats server did not start")
	}
	tb.Cleanup(ns.Shutdown)
	return ns
}

// quietNode returns a node "a", not started, on a NATS connection of its own to an embedded
// server, whose state requests time out after requestTimeout: for feeding it control messages
// directly.
func quietNode(tb testing.TB, requestTimeout time.Duration) *Node {
	tb.Helper()
	ns := StartNATS(tb, -1)
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	n, err := New(nc, &Options{Node: "a", RequestTimeout: requestTimeout, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { n.Close() })
	return n
}
