// Command worldserver is the example an emulator author starts from: a GSF world server that
// serves a game client's first minutes, with its players in a SQLite database (a pure-Go
// driver: nothing to install) and, with --cluster, on several nodes over NATS.
//
// It answers the version check (GET_CLIENT_VERSION_INFO), logs players in (LOGIN, registering a
// login seen for the first time), puts them in a location (INIT_LOCATION, which hands out a
// sync-server token), takes them in on the sync server (SYNC_SERVER LOGIN: the location's
// other players get ADD_PLAYER), passes their moves (MOVE_PLAYER) and heartbeats
// (HEARTBEAT_NOTIFY) on to the other players in the location as notifies, and their chat
// (SEND_MESSAGE) to everyone there (CHAT). One server serves both the user-server and the
// sync-server service classes; it behaves as the reference server does: one message at a time
// per connection, answered in order, and the connection closed when a handler fails
// (gsfnet.Server.CloseOnError).
//
//	go run ./examples/worldserver --addr 127.0.0.1:7566 --db /tmp/world.db
//	go run ./examples/worldserver --addr 127.0.0.1:7567 --db /tmp/world.db --cluster nats://127.0.0.1:4222 --node b
//
// docs/worldserver.md has a `gamewire call` recipe for each step.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	_ "modernc.org/sqlite"

	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/gsfnet/natscluster"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "worldserver:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("worldserver", flag.ContinueOnError)
	addr := fs.String("addr", gsfnet.DefaultAddr, "listen on this `host:port`")
	dbPath := fs.String("db", "world.db", "the players' SQLite database `file` (created if missing; nodes of a cluster on one machine may share it)")
	clusterURL := fs.String("cluster", "", "join the cluster of world servers on the NATS server at this `url`: locations span every node")
	node := fs.String("node", "", "this node's `id` in the cluster (default: the port)")
	autoLogin := fs.String("auto-login", "", "treat a connection that has not logged in as this `login` (to try each step with gamewire call)")
	level := fs.String("log", "info", "log `level`: debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ws, err := start(l, *dbPath, *clusterURL, *node, log)
	if err != nil {
		return err
	}
	ws.world.AutoLogin = *autoLogin
	fmt.Fprintf(os.Stderr, "worldserver: serving on %s (players in %s)\n", l.Addr(), *dbPath)
	<-ctx.Done()
	return ws.close()
}

// worldServer is a running world server.
type worldServer struct {
	srv    *gsfnet.Server
	world  *World
	served chan error
	close  func() error
}

// start serves a world on l, with its players in the database at dbPath, clustered over the
// NATS server at clusterURL unless it is empty.
func start(l net.Listener, dbPath, clusterURL, node string, log *slog.Logger) (*worldServer, error) {
	db, err := OpenDB(dbPath)
	if err != nil {
		return nil, err
	}
	srv := &gsfnet.Server{Logger: log, CloseOnError: true}
	var nc *nats.Conn
	if clusterURL != "" {
		if nc, err = nats.Connect(clusterURL, nats.Name("worldserver")); err != nil {
			db.Close()
			return nil, fmt.Errorf("cluster: %w", err)
		}
		if node == "" {
			_, node, _ = net.SplitHostPort(l.Addr().String())
		}
		n, err := natscluster.New(nc, &natscluster.Options{Node: node})
		if err != nil {
			nc.Close()
			db.Close()
			return nil, fmt.Errorf("cluster: %w", err)
		}
		srv.Cluster = n
	}
	w := NewWorld(db, srv, log)
	w.SyncAddr = l.Addr().String()
	ws := &worldServer{srv: srv, world: w, served: make(chan error, 1)}
	go func() { ws.served <- srv.Serve(l) }()
	ws.close = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := srv.Shutdown(ctx)
		if serr := <-ws.served; !errors.Is(serr, gsfnet.ErrServerClosed) && err == nil {
			err = serr
		}
		if nc != nil {
			nc.Close()
		}
		return errors.Join(err, db.Close())
	}
	return ws, nil
}
