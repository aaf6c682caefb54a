package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"regexp"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/gsfnet/natscluster"
)

var nodeIDInvalid = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// joinCluster makes srv a node of a cluster over the NATS server at url, and returns the
// function that leaves it.
func joinCluster(srv *gsfnet.Server, url, id string, addr net.Addr, logger *slog.Logger) (func(), error) {
	if id == "" {
		host, _ := os.Hostname()
		port := ""
		if ta, ok := addr.(*net.TCPAddr); ok {
			port = fmt.Sprint(ta.Port)
		}
		id = nodeIDInvalid.ReplaceAllString(host+"-"+port, "-")
	}
	nc, err := nats.Connect(url,
		nats.Name("gamewire serve "+id),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			logger.Warn("gamewire serve: lost the NATS server", "err", err)
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			logger.Info("gamewire serve: NATS server reconnected", "url", c.ConnectedUrl())
		}))
	if err != nil {
		return nil, fmt.Errorf("--cluster: %w", err)
	}
	node, err := natscluster.New(nc, &natscluster.Options{
		Node:   id,
		Logger: logger,
		OnEvent: func(e natscluster.Event) {
			logger.Info("gamewire serve: cluster", "event", e.Kind.String(), "node", e.Node, "session", e.Session, "user", e.User, "group", e.Group)
		},
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("--node: %w", err)
	}
	srv.Cluster = node
	logger.Info("gamewire serve: joining the cluster", "node", id, "nats", nc.ConnectedUrl())
	return func() {
		_ = node.Close()
		nc.Close()
	}, nil
}
