// Command lobbyserver runs the lobby/chat example server for Godot 4 clients:
//
//	go run ./godot/multiplayer/lobby/lobbyserver -addr 127.0.0.1:8910
//
// then open godot/multiplayer/lobby/godot/lobby.tscn in Godot 4 and run it.
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/lobby"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8910", "listen `address`")
	flag.Parse()
	_, srv := lobby.New(nil)
	srv.Addr = *addr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	log.Printf("lobby: listening on ws://%s", *addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, multiplayer.ErrServerClosed) {
		log.Fatal(err)
	}
}
