// Command server runs the bomber example's Go server: open godot/multiplayer/bomber/client in
// Godot 4.6 and play it (two or more instances), or run
// `godot --path godot/multiplayer/bomber/client -- --url=ws://127.0.0.1:8910`.
//
//	go run ./godot/multiplayer/bomber/server -addr 127.0.0.1:8910
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net"
	"os"
	"os/signal"
	"time"

	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/bomber"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8910", "listen `address` (host:port)")
	flag.Parse()
	g, err := bomber.New()
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		g.Server.Shutdown(sctx)
	}()
	log.Printf("bomber: serving on ws://%s", ln.Addr())
	if err := g.Server.Serve(ln); err != nil && !errors.Is(err, multiplayer.ErrServerClosed) {
		log.Fatal(err)
	}
}
