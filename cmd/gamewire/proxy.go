package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsftap"
	"github.com/gamewire/gamewire/gsf/messages"
)

func init() {
	register(command{area: "gsf", verb: "proxy", summary: "forward a TCP port to a GSF server and print every frame that passes", run: gsfProxy})
}

// portsFlag parses a comma-separated list of TCP ports.
func portsFlag(s string) ([]uint16, error) {
	var ports []uint16
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := strconv.ParseUint(f, 10, 16)
		if err != nil || p == 0 {
			return nil, fmt.Errorf("--port: %q is not a TCP port", f)
		}
		ports = append(ports, uint16(p))
	}
	return ports, nil
}

// inspectCapture prints the GSF frames of a pcap or pcapng capture, each described as gsf
// decode (or explain) describes a frame: opts and write are theirs; model prints each frame's
// explanation in the one model's text form instead of write's (gsf explain).
func inspectCapture(data []byte, ports string, window int, opts gsf.ExplainOptions, asJSON bool, write func(*gsf.Explanation, io.Writer) error, model bool, stdout io.Writer) error {
	ps, err := portsFlag(ports)
	if err != nil {
		return err
	}
	pr := &gsftap.Printer{W: stdout, JSON: asJSON, Explain: opts, Text: write, Model: model, Location: time.UTC}
	var printErr error
	tap := gsftap.New(func(r *gsftap.Record) {
		if printErr == nil {
			printErr = pr.Print(r)
		}
	})
	tap.All = len(ps) > 0
	// A capture's frames take as long as they took: the window and the budget bound the
	// memory, not the time.
	tap.ReadTimeout = gsftap.NoLimit
	if window < capture.NoLimit || window == 0 {
		return fmt.Errorf("--reorder-window: %d is not a number of bytes (or -1 for no limit)", window)
	}
	st, err := capture.ReadStreams(bytes.NewReader(data), &capture.Options{Ports: ps, MaxBufferedBytes: window}, tap.Handle)
	if printErr != nil {
		return printErr
	}
	if !asJSON {
		fmt.Fprintf(stdout, "%s: %s, %s, %s (%d without GSF frames, not shown); %s, %s\n", st.Format,
			count(st.Packets, "packet"), count(st.TCP, "TCP segment"), count(st.Conns, "connection"), tap.Skipped,
			count(pr.Frames, "frame"), count(pr.Problems, "problem"))
		if st.LateSegments > 0 {
			fmt.Fprintf(stdout, "%s: %s (%s) came after the reassembly had stopped waiting for them: they are in the missing bytes above (a larger --reorder-window keeps them)\n",
				st.Format, count(st.LateSegments, "TCP segment"), count(int(st.LateBytes), "byte"))
		}
		if st.Truncated > 0 {
			fmt.Fprintf(stdout, "%s: %s: %s of their payload are not in the capture (tcpdump -s 0 keeps whole packets)\n", st.Format,
				snaplenCut(st, fmt.Sprintf("of its %d ", st.TCP)), count(int(st.MissingBytes), "byte"))
		}
	}
	if err != nil {
		return err
	}
	if pr.Frames == 0 {
		if st.Truncated > 0 {
			return fmt.Errorf("no GSF frames in the capture: %s, %s of payload missing", snaplenCut(st, ""), count(int(st.MissingBytes), "byte"))
		}
		return errors.New("no GSF frames in the capture")
	}
	return nil
}

// snaplenCut says how many TCP segments of a capture its snaplen cut: "its snaplen (60 bytes)
// cut 8 [of its 20 ]TCP segments".
func snaplenCut(st capture.Stats, of string) string {
	snap := "its snaplen"
	if st.Snaplen > 0 {
		snap = fmt.Sprintf("the capture's snaplen (%s)", plural(int(st.Snaplen), "byte"))
		if of == "" {
			snap = fmt.Sprintf("its snaplen (%s)", plural(int(st.Snaplen), "byte"))
		}
	}
	return fmt.Sprintf("%s cut %d %sTCP segments", snap, st.Truncated, of)
}

// count returns "1 frame" or "n frames".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func gsfProxy(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("gsf", "proxy", "",
		"Listens on --listen, connects every client to --upstream, and forwards every byte unchanged\n"+
			"in both directions, printing each GSF frame as it passes, described as gsf decode describes\n"+
			"it (catalog bodies field by field). A frame split across reads is printed once it is whole.\n"+
			"A malformed frame is reported and forwarded as it is; after it the proxy looks for the next\n"+
			"plausible frame. It stops on Ctrl-C (SIGINT) or SIGTERM.\n\n"+
			"Example:\n  gamewire serve --addr 127.0.0.1:7566 &\n"+
			"  gamewire gsf proxy --listen 127.0.0.1:7567 --upstream 127.0.0.1:7566 &\n"+
			"  gamewire call --addr 127.0.0.1:7567 --type GET_CLIENT_VERSION_INFO --values '[\"AmazingWorld\"]'", stderr)
	listen := fs.String("listen", "127.0.0.1:7567", "accept clients on this `host:port` (port 0 picks a free one)")
	upstream := fs.String("upstream", "", "the server's `host:port` (required)")
	asJSON := fs.Bool("json", false, "print JSON Lines: one object per frame or event, with time, connection id and direction")
	bits := fs.Bool("bits", false, "explain every frame bit by bit (as gsf explain) instead of the summary of gsf decode")
	maxFrame := fs.Int("max-message-bytes", gsf.DefaultMaxMessageBytes, "frames longer than this many `bytes` are reported and forwarded, not decoded (-1: no limit but the format's, 2^28-1)")
	strict := fs.Bool("strict", true, "report a catalog body with bits left over (--strict=false ignores them, as the reference does)")
	maxFields := fs.Int("max-fields", messages.DefaultMaxFields, "show at most this many fields of a catalog body (the rest is checked, not shown)")
	maxConns := fs.Int("max-conns", capture.DefaultMaxConns, "proxy at most this many connections at once (-1: no limit)")
	maxPerIP := fs.Int("max-conns-per-ip", capture.DefaultMaxConnsPerIP, "proxy at most this many connections at once from one client address (-1: no limit)")
	idle := fs.Duration("idle-timeout", capture.DefaultIdleTimeout, "close a connection through which nothing passed for this `duration` (-1s: never)")
	maxBuffered := fs.Int("max-buffered", gsftap.DefaultMaxBufferedBytes, "hold at most this many `bytes` of unfinished frames of all connections (-1: no limit); beyond it the largest are not shown")
	readTimeout := fs.Duration("read-timeout", gsftap.DefaultReadTimeout, "a frame not complete within this `duration` is not shown (-1s: no limit)")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	if *upstream == "" {
		fmt.Fprintln(stderr, "gamewire gsf proxy: --upstream is required")
		fs.Usage()
		return errUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	write := (*gsf.Explanation).WriteSummary
	if *bits {
		write = (*gsf.Explanation).WriteText
	}
	// The description of gsf decode: catalog bodies field by field, others dumped.
	opts := messages.ExplainOptions(messages.Options{Strict: *strict, MaxFields: *maxFields})
	pr := &gsftap.Printer{W: stdout, JSON: *asJSON, Text: write, Model: *bits, Explain: opts, Location: time.UTC}
	tap := gsftap.New(func(r *gsftap.Record) {
		if err := pr.Print(r); err != nil {
			logger.Error("gamewire gsf proxy: cannot print", "err", err)
		}
	})
	tap.All, tap.MaxMessageBytes = true, *maxFrame
	tap.MaxBufferedBytes, tap.ReadTimeout = *maxBuffered, *readTimeout
	p := &capture.Proxy{Upstream: *upstream, Handler: tap.Handle, Logger: logger,
		MaxConns: *maxConns, MaxConnsPerIP: *maxPerIP, IdleTimeout: *idle}

	ctx, stop := serveContext()
	defer stop()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	logger.Info("gamewire gsf proxy: listening", "addr", l.Addr().String(), "upstream", *upstream)
	stopServe := context.AfterFunc(ctx, func() { p.Close() })
	defer stopServe()
	err = p.Serve(l)
	// Serve returns as soon as the listener is closed; Close returns once the last events of
	// the connections are printed.
	p.Close()
	if !errors.Is(err, capture.ErrServerClosed) {
		return err
	}
	return nil
}
