package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/godot/multiplayer3"
	"github.com/gamewire/gamewire/godot/multiplayer3/lobby"
	"github.com/gamewire/gamewire/internal/byteinput"
)

// godotMPServeAny runs "godot mp serve": the Godot 3 lobby over ENet for --godot 3, the Godot 4
// lobby otherwise.
func godotMPServeAny(args []string, stdout, stderr io.Writer) error {
	v, rest := godotVersionArg(args)
	if v == "3" {
		return godot3MPServe(args, stdout, stderr)
	}
	return godotMPServe(rest, stdout, stderr)
}

// godotVersionArg returns the value of a --godot flag in args ("" if none), and args without a
// --godot 4 (the Godot 4 commands' default).
func godotVersionArg(args []string) (string, []string) {
	for i, a := range args {
		if a == "--" {
			break
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if v, ok := strings.CutPrefix(name, "godot="); ok {
			return v, without(args, v, i, 1)
		}
		if name == "godot" && i+1 < len(args) {
			return args[i+1], without(args, args[i+1], i, 2)
		}
	}
	return "", args
}

// without returns args without the n arguments at i when the version is 4.
func without(args []string, version string, i, n int) []string {
	if version != "4" {
		return args
	}
	return append(append([]string(nil), args[:i]...), args[i+n:]...)
}

func godot3MPServe(args []string, stdout, stderr io.Writer) error {
	fs := newCmdFlags("godot", "mp serve", "--godot 3",
		"Runs the lobby/chat example server for Godot 3 clients over ENet (godot/multiplayer3/lobby):\n"+
			"open lobby.tscn in Godot 3 and point its address and port at ADDR, its compression_mode\n"+
			"at --compression. Ctrl-C stops it.", stderr)
	fs.String("godot", "3", "Godot `version` of the clients (3 here; 4 serves the Godot 4 lobby over WebSocket)")
	transport := fs.String("transport", "enet", "`transport`: enet (NetworkedMultiplayerENet; Godot 3 has no other here)")
	addr := fs.String("addr", "127.0.0.1:9999", "UDP listen `address` (host:port; port 0 picks a free one)")
	trace := fs.String("trace", "", "write every ENet packet to `FILE` as JSON Lines (for \"godot mp explain --godot 3\")")
	noRelay := fs.Bool("no-relay", false, "server_relay off: clients are not told about each other")
	verbose := fs.Bool("v", false, "log chat lines and refused packets too (debug level)")
	compression := fs.String("compression", "none", "the clients' compression_mode: none, range-coder, fastlz, zlib or zstd")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	mode, err := multiplayer3.ParseCompressionMode(*compression)
	if err != nil {
		return asUsage("compression", err)
	}
	if *transport != "enet" {
		return usagef("--transport %s: Godot 3 multiplayer is served over enet only", *transport)
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
	fmt.Fprintf(stdout, "godot mp: Godot 3 lobby server on enet (udp) %s, compression %s\n", h.LocalAddr(), mode)
	return serveMP(h.LocalAddr(), srv.Shutdown, multiplayer3.ErrServerClosed, func() error { return srv.Serve(h) })
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

// godotMPExplainAny runs "godot mp explain": Godot 3 packets (NetworkedMultiplayerENet and
// MultiplayerAPI) for --godot 3, Godot 4's SceneMultiplayer packets otherwise.
func godotMPExplainAny(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	v, rest := godotVersionArg(args)
	if v == "3" {
		return godot3MPExplain(args, stdin, stdout, stderr)
	}
	return godotMPRead("explain", rest, stdin, stdout, stderr)
}

// trace3Record is one line of "godot mp serve --godot 3 --trace".
type trace3Record struct {
	Dir     string `json:"dir"`
	Peer    int32  `json:"peer"`
	Channel uint8  `json:"channel"`
	Hex     string `json:"hex"`
}

func godot3MPExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("godot", "mp explain", "--godot 3 [FILE|HEX]",
		"Prints every field of Godot 3 NetworkedMultiplayerENet packets (the SYS messages, the\n"+
			"[source][target] header, the MultiplayerAPI command and each Godot 3 Variant argument).\n\n"+
			"FILE (default standard input) holds one ENet packet, or a JSON Lines trace written by\n"+
			"\"gamewire godot mp serve --godot 3 --trace\"; an argument that names no file and is hex is\n"+
			"read as the packet.", stderr)
	fs.String("godot", "3", "Godot `version` of the packets (3 here)")
	format := fs.String("format", "auto", "input `encoding` of a single packet: auto, hex, base64 or raw (a JSON Lines trace is recognised)")
	channel := fs.Uint("channel", uint(multiplayer3.ChannelReliable), "ENet `channel` of a single packet: 0 for SYS messages, 1 or more for [source][target] and a MultiplayerAPI packet")
	asJSON := fs.Bool("json", false, "print one explain.Frame per line (JSON Lines)")
	if err := parseCmdFlags(fs, args, 1); err != nil {
		return err
	}
	if *channel > 255 {
		return usagef("--channel %d: ENet channels are 0–255", *channel)
	}
	f, err := byteinput.ParseFormat(*format)
	if err != nil {
		return asUsage("format", err)
	}
	type pkt struct {
		rec  *trace3Record
		data []byte
	}
	var pkts []pkt
	raw, err := byteinput.ReadAll(fs.Arg(0), stdin)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		data, err := readInput(fs, *format, stdin) // hex as the argument
		if err != nil {
			return err
		}
		pkts = append(pkts, pkt{nil, data})
	case err != nil:
		return err
	case len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '{' && f == byteinput.Auto:
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<26)
		for line := 1; sc.Scan(); line++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var rec trace3Record
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				return fmt.Errorf("trace line %d: %w", line, err)
			}
			data, err := hex.DecodeString(rec.Hex)
			if err != nil {
				return fmt.Errorf("trace line %d: %w", line, err)
			}
			pkts = append(pkts, pkt{&rec, data})
		}
		if err := sc.Err(); err != nil {
			return err
		}
	default:
		data, src, err := byteinput.DecodeSource(raw, f)
		if err != nil {
			return err
		}
		if note := src.Note(); note != "" {
			fmt.Fprintf(notes(fs), "%s: %s\n", fs.Name(), note)
		}
		if len(data) == 0 {
			return errors.New("no input bytes")
		}
		pkts = append(pkts, pkt{nil, data})
	}
	frames := make([]*explain.Frame, 0, len(pkts))
	failed := false
	for i, p := range pkts {
		ch := uint8(*channel)
		if p.rec != nil {
			ch = p.rec.Channel
		}
		fr := multiplayer3.Explain(ch, p.data)
		fr.Index = i
		fr.Context = map[string]string{"channel": fmt.Sprint(ch)}
		if p.rec != nil {
			fr.Context["dir"], fr.Context["peer"] = p.rec.Dir, fmt.Sprint(p.rec.Peer)
		}
		failed = failed || fr.Err != nil
		frames = append(frames, fr)
	}
	if *asJSON {
		err = explain.WriteJSON(stdout, frames...)
	} else {
		// Each frame's positions count from its own packet: the table's bits come from it.
		for i, fr := range frames {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			if err = explain.WriteText(stdout, pkts[i].data, fr); err != nil {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	if failed {
		return errors.New("some packets did not decode")
	}
	return nil
}
