package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/explain"
)

func init() {
	register(command{area: "enet", verb: "echo", summary: "an ENet echo server: every packet back on its channel with its flags", run: enetEcho})
	register(command{area: "enet", verb: "explain", summary: "an ENet datagram's header and commands, field by field", run: enetExplain})
}

// enetCompressor returns the compressor a --compress flag names.
func enetCompressor(name string) (enet.Compressor, bool) {
	switch name {
	case "none", "":
		return nil, true
	case "range-coder":
		return enet.RangeCoder(), true
	case "fastlz":
		return enet.FastLZ(), true
	case "zlib":
		return enet.Zlib(), true
	case "zstd":
		return enet.Zstd(), true
	}
	return nil, false
}

const compressNames = "none, range-coder, fastlz, zlib or zstd"

func enetExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("enet", "explain", "[DATAGRAM]",
		"Explains one ENet datagram (as a UDP payload: hex, base64, an xxd or Wireshark dump, or raw):\n"+
			"its header (flags, session, peer id, sent time, checksum) and every command with its fields,\n"+
			"in the table of every explain command (bit offsets and lengths: the header packs bits). ENet's header does not say whether the hosts use a\n"+
			"checksum or which compressor: --checksum and --compress say it.\n\n"+
			"Example:\n  gamewire enet explain 8fffb78c82ff00010000ffff000005780001000000000003000000000000000000001388000000020000000200000000000004d2", stderr)
	in := addInputFlags(fs)
	checksum := fs.Bool("checksum", false, "the datagram carries ENet's CRC32 after its header")
	compress := fs.String("compress", "none", "the hosts' compressor: "+compressNames)
	asJSON := fs.Bool("json", false, "print the explanation as JSON (one line, the explain.Frame schema)")
	if err := parseCmdFlags(fs, args, 1); err != nil {
		return err
	}
	c, ok := enetCompressor(*compress)
	if !ok {
		return usagef("--compress %q: want %s", *compress, compressNames)
	}
	b, err := in.read(fs, stdin)
	if err != nil {
		return err
	}
	f := enet.ExplainOptions{Checksum: *checksum, Compressor: c}.Explain(b)
	if *asJSON {
		err = explain.WriteJSON(stdout, f)
	} else {
		err = explain.WriteText(stdout, b, f)
	}
	if err != nil {
		return err
	}
	if f.Err != nil {
		return fmt.Errorf("at byte %d: %w", f.Err.Offset(), f.Err)
	}
	return nil
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
			"your own ENet clients. It logs connections and disconnections (at most 20 lines a second) and,\n"+
			"with --log debug, packets (at most 100 lines a second); a line says how many were left out.\n"+
			"It stops on Ctrl-C (SIGINT) or SIGTERM, disconnecting its peers.\n\n"+
			"Example:\n  gamewire enet echo --addr 127.0.0.1:7777", stderr)
	addr := fs.String("addr", "127.0.0.1:7777", "listen on this `host:port` (port 0 picks a free one)")
	channels := fs.Int("channels", 0, "the most channels a peer may use (0: the default, 255)")
	maxConns := fs.Int("max-conns", 0, "the most peers at once (0: the default, 4095)")
	checksum := fs.Bool("checksum", false, "use ENet's CRC32 checksum (the clients must too)")
	compress := fs.String("compress", "none", "compression, which the clients must use too: "+compressNames)
	mtu := fs.Int("mtu", 0, "the MTU (0: the default, 1400)")
	level := fs.String("log", "info", "log `level`: debug, info, warn or error")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return asUsage("log", err)
	}
	opts := &enet.HostOptions{Channels: *channels, MaxConns: *maxConns, Checksum: *checksum, MTU: *mtu}
	c, ok := enetCompressor(*compress)
	if !ok {
		return usagef("--compress %q: want %s", *compress, compressNames)
	}
	opts.Compressor = c
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lv}))
	opts.Logger = logger
	// Peers can come and go as fast as datagrams: connection lines are limited to 20 a second,
	// packet and send-failure lines to 100, and the next line says how many were left out, so
	// the log never outgrows the traffic.
	lim := &logLimit{max: 20}
	plim := &logLimit{max: 100} // --log debug: packet lines
	wlim := &logLimit{max: 100} // failed sends
	debug := logger.Enabled(context.Background(), slog.LevelDebug)
	// The echo answers from the host's own goroutines (enet.Handler): no goroutine hand-off and
	// no allocation per packet. It never blocks there: Send copies the packet into the peer's
	// send queue, and a peer whose queue is full (HostOptions.MaxQueueBytes, 32 MiB: a peer that
	// sends and does not acknowledge) loses the echo of that packet, with a warning.
	opts.Handler = enet.HandlerFunc(func(p *enet.Peer, pk enet.Packet) {
		if debug {
			if n, ok := plim.allow(); ok {
				logger.Debug("packet", "peer", p.ID(), "channel", pk.Channel, "flags", pk.Flags.String(), "bytes", len(pk.Data), "suppressed", n)
			}
		}
		if err := p.Send(pk.Channel, pk.Data, pk.Flags); err != nil {
			if n, ok := wlim.allow(); ok {
				logger.Warn("send", "peer", p.ID(), "err", err, "suppressed", n)
			}
		}
	})
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
			if n, ok := lim.allow(); ok {
				logger.Info("connect", "peer", p.ID(), "addr", p.RemoteAddr().String(), "data", p.ConnectData(), "channels", p.Channels(), "suppressed", n)
			}
			go func() {
				// With a Handler, the peer's packets never reach Receive: this goroutine only
				// waits for its end.
				select {
				case <-p.Done():
				case <-ctx.Done():
					return
				}
				var de *enet.DisconnectError
				if n, ok := lim.allow(); ok && errors.As(p.Err(), &de) {
					logger.Info("disconnect", "peer", p.ID(), "data", de.Data, "timeout", de.Timeout, "suppressed", n)
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

// logLimit allows max log lines a second and counts the ones it refuses.
type logLimit struct {
	mu         sync.Mutex
	max        int
	second     time.Time
	n, dropped int
}

// allow reports whether a line may be logged now and how many were refused before it.
func (l *logLimit) allow() (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now().Truncate(time.Second)
	if !now.Equal(l.second) {
		l.second, l.n = now, 0
	}
	if l.n >= l.max {
		l.dropped++
		return 0, false
	}
	l.n++
	d := l.dropped
	l.dropped = 0
	return d, true
}
