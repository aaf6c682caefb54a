package main

import (
	"fmt"
	"io"

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
	fmt.Fprintf(stdout, "godot mp: lobby server on enet://%s (ENetMultiplayerPeer.create_client)\n", h.LocalAddr())
	return serveMP(h.LocalAddr(), srv.Shutdown, multiplayer.ErrServerClosed, func() error { return srv.ServeENet(h) })
}
