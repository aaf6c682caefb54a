package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gamewire/gamewire/enet"
)

func init() {
	register(command{area: "enet", verb: "echo", summary: "an ENet echo server: every packet back on its channel with its flags", run: enetEcho})
}

// enetContext returns the context that stops "gamewire enet echo": canceled on SIGINT or
// SIGTERM. Tests replace it.
var enetContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func enetEcho(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("enet", "echo", "",
		"Runs an ENet 1.3 echo server over UDP (pure Go, byte-compatible with C ENet 1.3.15-1.3.18\n"+
			"and so with Godot 3 and 4): it sends every packet a peer sends back to it on the same channel\n"+
			"with the same flags (reliable, unreliable, unsequenced, unreliable fragments). For testing\n"+
			"your own ENet clients. It logs connections, disconnections and, with --log debug, packets.\n"+
			"It stops on Ctrl-C (SIGINT) or SIGTERM, disconnecting its peers.\n\n"+
			"Example:\n  gamewire enet echo --addr 127.0.0.1:7777", stderr)
	addr := fs.String("addr", "127.0.0.1:7777", "listen on this `host:port` (port 0 picks a free one)")
	channels := fs.Int("channels", 0, "the most channels a peer may use (0: the default, 255)")
	maxConns := fs.Int("max-conns", 0, "the most peers at once (0: the default, 4095)")
	checksum := fs.Bool("checksum", false, "use ENet's CRC32 checksum (the clients must too)")
	compress := fs.String("compress", "none", "compression, which the clients must use too: none or range-coder")
	mtu := fs.Int("mtu", 0, "the MTU (0: the default, 1400)")
	level := fs.String("log", "info", "log `level`: debug, info, warn or error")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		fmt.Fprintf(stderr, "gamewire enet echo: --log: %v\n", err)
		return errUsage
	}
	opts := &enet.HostOptions{Channels: *channels, MaxConns: *maxConns, Checksum: *checksum, MTU: *mtu}
	switch *compress {
	case "none", "":
	case "range-coder":
		opts.Compressor = enet.RangeCoder()
	default:
		fmt.Fprintf(stderr, "gamewire enet echo: --compress: unknown %q (none or range-coder)\n", *compress)
		return errUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lv}))
	opts.Logger = logger
	h, err := enet.Listen("udp", *addr, opts)
	if err != nil {
		return err
	}
	ctx, stop := enetContext()
	defer stop()
	logger.Info("gamewire enet echo: listening", "addr", h.LocalAddr().String())
	go func() {
		for {
			p, err := h.Accept(ctx)
			if err != nil {
				return
			}
			logger.Info("connect", "peer", p.ID(), "addr", p.RemoteAddr().String(), "data", p.ConnectData(), "channels", p.Channels())
			go func() {
				for {
					pk, err := p.Receive(ctx)
					if err != nil {
						var de *enet.DisconnectError
						if errors.As(err, &de) {
							logger.Info("disconnect", "peer", p.ID(), "data", de.Data, "timeout", de.Timeout)
						}
						return
					}
					logger.Debug("packet", "peer", p.ID(), "channel", pk.Channel, "flags", pk.Flags.String(), "bytes", len(pk.Data))
					if err := p.Send(pk.Channel, pk.Data, pk.Flags); err != nil {
						logger.Warn("send", "peer", p.ID(), "err", err)
					}
				}
			}()
		}
	}()
	<-ctx.Done()
	logger.Info("gamewire enet echo: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := h.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
