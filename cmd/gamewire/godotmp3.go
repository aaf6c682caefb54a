package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/godot/multiplayer3"
	"github.com/gamewire/gamewire/godot/multiplayer3/lobby"
)

// godotMPServeAny runs "godot mp serve": the Godot 3 lobby over ENet for --godot 3, the Godot 4
// lobby otherwise.
func godotMPServeAny(args []string, stdout, stderr io.Writer) error {
	if godotVersionArg(args) == "3" {
		return godot3MPServe(args, stdout, stderr)
	}
	return godotMPServe(args, stdout, stderr)
}

// godotVersionArg returns the value of a --godot flag in args ("" if none).
func godotVersionArg(args []string) string {
	for i, a := range args {
		a = strings.TrimPrefix(a, "-")
		a = strings.TrimPrefix(a, "-")
		if v, ok := strings.CutPrefix(a, "godot="); ok {
			return v
		}
		if a == "godot" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func godot3MPServe(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gamewire godot mp serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.String("godot", "3", "Godot `version` of the clients (3 here; 4 serves the Godot 4 lobby)")
	transport := fs.String("transport", "enet", "`transport`: enet (NetworkedMultiplayerENet; Godot 3 has no other here)")
	addr := fs.String("addr", "127.0.0.1:9999", "UDP listen `address` (host:port)")
	trace := fs.String("trace", "", "write every ENet packet to `FILE` as JSON Lines (dir, peer, channel, hex)")
	noRelay := fs.Bool("no-relay", false, "server_relay off: clients are not told about each other")
	verbose := fs.Bool("v", false, "log chat lines and refused packets too (debug level)")
	compression := fs.String("compression", "none", "the clients' compression_mode: none, range-coder, fastlz, zlib or zstd")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: gamewire godot mp serve --godot 3 [--transport enet] [--addr 127.0.0.1:PORT] [--compression MODE] [--trace FILE] [-v]\n\n"+
			"Runs the lobby/chat example server for Godot 3 clients over ENet (godot/multiplayer3/lobby):\n"+
			"open lobby.tscn in Godot 3 and point its address and port at ADDR.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gamewire godot mp serve: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	mode, err := multiplayer3.ParseCompressionMode(*compression)
	if err != nil {
		fmt.Fprintf(stderr, "gamewire godot mp serve: --compression: %v\n", err)
		return errUsage
	}
	if *transport != "enet" {
		fmt.Fprintf(stderr, "gamewire godot mp serve: --transport %s: Godot 3 multiplayer is served over enet only\n", *transport)
		return errUsage
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	_, srv := lobby.New(logger)
	srv.NoRelay = *noRelay
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			return err
		}
		defer f.Close()
		srv.Trace = traceWriter3(f)
	}
	h, err := enet.Listen("udp", *addr, &enet.HostOptions{Channels: multiplayer3.Channels, Compressor: mode.Compressor(), Logger: logger})
	if err != nil {
		return err
	}
	ctx, stop := serveContext()
	defer stop()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	fmt.Fprintf(stdout, "godot mp: Godot 3 lobby server on enet (udp) %s, compression %s\n", h.LocalAddr(), mode)
	mpServeStarted(h.LocalAddr().String())
	err = srv.Serve(h)
	close(done)
	if err != nil && !errors.Is(err, multiplayer3.ErrServerClosed) {
		return err
	}
	return nil
}

// traceWriter3 writes one JSON line per ENet packet.
func traceWriter3(w io.Writer) func(dir string, peer int32, channel uint8, pkt []byte) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(dir string, peer int32, channel uint8, pkt []byte) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(struct {
			Dir     string `json:"dir"`
			Peer    int32  `json:"peer"`
			Channel uint8  `json:"channel"`
			Hex     string `json:"hex"`
		}{dir, peer, channel, hex.EncodeToString(pkt)})
	}
}
