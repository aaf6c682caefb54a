package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/godot/multiplayer"
)

// godotMPServeENet serves srv (the lobby) to Godot 4 clients with an ENetMultiplayerPeer on
// UDP addr ("gamewire godot mp serve --transport enet").
func godotMPServeENet(addr string, srv *multiplayer.Server, stdout io.Writer) error {
	h, err := enet.Listen("udp", addr, nil)
	if err != nil {
		return err
	}
	ctx, stop := serveContext()
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	fmt.Fprintf(stdout, "godot mp: lobby server on enet://%s (ENetMultiplayerPeer.create_client)\n", h.LocalAddr())
	mpServeStarted(h.LocalAddr().String())
	if err := srv.ServeENet(h); err != nil && !errors.Is(err, multiplayer.ErrServerClosed) {
		return err
	}
	return nil
}
