package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/gamewire/gamewire/explain"
	"io"
	iofs "io/fs"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/lobby"
	"github.com/gamewire/gamewire/internal/byteinput"
)

func init() {
	register(command{area: "godot", verb: "mp decode", summary: "Godot 4 multiplayer packets (or a serve --trace) → JSON Lines", run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return godotMPRead("decode", args, stdin, stdout, stderr)
	}})
	register(command{area: "godot", verb: "mp explain", summary: "Godot 4 multiplayer packets field by field: offset, length, meaning (--godot 3: Godot 3 over ENet)", run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return godotMPExplainAny(args, stdin, stdout, stderr)
	}})
	register(command{area: "godot", verb: "mp serve", summary: "the lobby/chat example server for Godot 4 clients (WebSocket), or Godot 3 (--godot 3, ENet)", run: func(args []string, _ io.Reader, stdout, stderr io.Writer) error {
		return godotMPServeAny(args, stdout, stderr)
	}})
}

// mpPacket is one packet of the input, with its trace record when the input is a trace.
type mpPacket struct {
	rec  *multiplayer.TraceRecord
	data []byte
}

// mpInput reads one packet (hex, base64 or raw; hex also as the argument itself) or a JSON Lines
// trace (--trace of serve).
func mpInput(fs *flag.FlagSet, format string, stdin io.Reader) ([]mpPacket, error) {
	f, err := byteinput.ParseFormat(format)
	if err != nil {
		return nil, asUsage("format", err)
	}
	path := fs.Arg(0)
	raw, err := byteinput.ReadAll(path, stdin)
	if errors.Is(err, iofs.ErrNotExist) {
		data, err := readInput(fs, format, stdin) // hex as the argument
		if err != nil {
			return nil, err
		}
		return []mpPacket{{data: data}}, nil
	}
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' && format == "auto" {
		var ps []mpPacket
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			var rec multiplayer.TraceRecord
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				return nil, fmt.Errorf("trace line %d: %w", line, err)
			}
			data, err := hex.DecodeString(rec.Hex)
			if err != nil {
				return nil, fmt.Errorf("trace line %d: %w", line, err)
			}
			ps = append(ps, mpPacket{rec: &rec, data: data})
		}
		return ps, sc.Err()
	}
	data, src, err := byteinput.DecodeSource(raw, f)
	if err != nil {
		return nil, err
	}
	if note := src.Note(); note != "" {
		fmt.Fprintf(notes(fs), "%s: %s\n", fs.Name(), note)
	}
	if len(data) == 0 {
		return nil, errors.New("no input bytes")
	}
	return []mpPacket{{data: data}}, nil
}

func godotMPRead(verb string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	what := "Decodes SceneMultiplayer packets (Godot 4 high-level multiplayer) into JSON, one line each."
	if verb == "explain" {
		what = "Prints every field of SceneMultiplayer packets with offset, length and meaning,\nincluding replication (SPAWN, DESPAWN, SYNC)."
	}
	fs := newCmdFlags("godot", "mp "+verb, "[FILE|HEX]", what+"\n\nFILE (default standard input) holds one packet, or a JSON Lines trace written by\n"+
		"\"gamewire godot mp serve --trace\"; an argument that names no file and is hex is read as the packet.", stderr)
	format := fs.String("format", "auto", "input `encoding` of a single packet: auto, hex, base64 or raw (a JSON Lines trace is recognised)")
	asJSON := new(bool)
	maxFields := new(int)
	if verb == "explain" {
		asJSON = fs.Bool("json", false, "print JSON Lines: one explanation frame (packet) a line (docs/explain.md)")
		maxFields = addMaxFieldsFlag(fs)
	}
	if err := parseCmdFlags(fs, args, 1); err != nil {
		return err
	}
	if err := checkMaxFields(*maxFields); err != nil {
		return err
	}
	packets, err := mpInput(fs, *format, stdin)
	if err != nil {
		return err
	}
	var failed error
	budget := explain.NewBudget(*maxFields)
	for i, p := range packets {
		where := ""
		if p.rec != nil {
			where = fmt.Sprintf("packet %d (%s, peer %d)", i+1, p.rec.Dir, p.rec.Peer)
		}
		if p.rec != nil && p.rec.Dir == "id" {
			// The message that opens a connection: the client's peer id, not a SceneMultiplayer packet.
			switch {
			case verb == "decode":
				fmt.Fprintf(stdout, "{\"dir\":\"id\",\"peer\":%d,\"hex\":%q}\n", p.rec.Peer, p.rec.Hex)
			case *asJSON:
				fr := &explain.Frame{Format: "multiplayer", Index: i, Bits: 8 * int64(len(p.data)), Summary: "peer-id message: the client's unique id",
					Context: map[string]string{"dir": p.rec.Dir, "peer": strconv.Itoa(int(p.rec.Peer))}, Fields: []*explain.Field{}}
				if len(p.data) == 4 {
					fr.Fields = append(fr.Fields, &explain.Field{Name: "peer id", Type: "int32", Value: int64(p.rec.Peer), Bits: 32})
				}
				if err := explain.WriteJSON(stdout, fr); err != nil {
					return err
				}
			default:
				fmt.Fprintf(stdout, "%speer-id message to peer %d, %s: int32 %d, the client's unique id\n",
					map[bool]string{true: "\n"}[i > 0], p.rec.Peer, plural(len(p.data), "byte"), p.rec.Peer)
			}
			continue
		}
		if verb == "decode" {
			info, err := multiplayer.Decode(p.data)
			if err != nil {
				failed = errors.Join(failed, prefixErr(where, err))
				continue
			}
			out := any(info)
			if p.rec != nil {
				out = struct {
					Dir    string                  `json:"dir"`
					Peer   int32                   `json:"peer"`
					Packet *multiplayer.PacketInfo `json:"packet"`
				}{p.rec.Dir, p.rec.Peer, info}
			}
			b, err := json.Marshal(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s\n", b)
			continue
		}
		switch {
		case *asJSON:
		case where != "":
			fmt.Fprintf(stdout, "%s%s, %s\n", map[bool]string{true: "\n"}[i > 0], where, plural(len(p.data), "byte"))
		default:
			fmt.Fprintf(stdout, "SceneMultiplayer packet, %s\n", plural(len(p.data), "byte"))
		}
		fr, err := multiplayer.Explain(p.data, budget)
		fr.Index = i
		if p.rec != nil {
			fr.Context = map[string]string{"dir": p.rec.Dir, "peer": strconv.Itoa(int(p.rec.Peer))}
		}
		var werr error
		if *asJSON {
			werr = explain.WriteJSON(stdout, fr)
		} else {
			werr = explain.WriteText(stdout, p.data, fr)
		}
		if werr != nil {
			return werr
		}
		if fr.Truncated {
			noteTruncated(stderr, "godot mp explain", []*explain.Frame{fr}, *maxFields)
			break
		}
		if err != nil {
			failed = errors.Join(failed, prefixErr(where, err))
		}
	}
	return failed
}

// mpServeStarted is called with the listener's address once "godot mp serve" listens (tests).
var mpServeStarted = func(addr string) {}

func godotMPServe(args []string, stdout, stderr io.Writer) error {
	if hasProjectFlag(args) {
		return godotMPServeProject(args, stdout, stderr)
	}
	fs := newCmdFlags("godot", "mp serve", "",
		"Runs the lobby/chat example server for Godot 4 clients (godot/multiplayer/lobby):\n"+
			"open lobby.tscn in Godot 4 and point its url at ws://ADDR; with --transport enet,\n"+
			"desktop clients connect with ENetMultiplayerPeer.create_client(HOST, PORT). Ctrl-C stops it.\n"+
			"With --project DIR it serves the Godot 4 game in DIR instead (gamewire godot mp serve --project DIR --help).", stderr)
	addr := fs.String("addr", "127.0.0.1:8910", "listen `address` (host:port; port 0 picks a free one)")
	trace := fs.String("trace", "", "write every packet to `FILE` as JSON Lines (for \"godot mp decode|explain\")")
	transport := fs.String("transport", "websocket", "`websocket` (web exports, WebSocketMultiplayerPeer) or enet (desktop games, ENetMultiplayerPeer; UDP)")
	generation := fs.Int("godot", 4, "Godot `version` of the clients (4)")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	_, srv := lobby.New(logger)
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			return err
		}
		defer f.Close()
		srv.Trace = multiplayer.TraceWriter(f)
	}
	switch {
	case *transport == "enet" && *generation == 4:
		return godotMPServeENet(*addr, srv, stdout)
	case *transport != "websocket" && *transport != "enet", *generation != 4:
		return usagef("--transport %s --godot %d is not supported (websocket or enet, Godot 4)", *transport, *generation)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "godot mp: lobby server on ws://%s\n", ln.Addr())
	return serveMP(ln.Addr(), srv.Shutdown, multiplayer.ErrServerClosed, func() error { return srv.Serve(ln) })
}

// serveMP runs serve until it returns; Ctrl-C (serveContext) first shuts the server down
// gracefully with shutdown, for 5 s at most. A server closed that way (serve returns an error
// wrapping closed) is not an error. addr is where it listens, for mpServeStarted.
func serveMP(addr net.Addr, shutdown func(context.Context) error, closed error, serve func() error) error {
	ctx, stop := serveContext()
	defer stop()
	stopShutdown := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shutdown(sctx)
	})
	defer stopShutdown()
	mpServeStarted(addr.String())
	if err := serve(); err != nil && !errors.Is(err, closed) {
		return err
	}
	return nil
}

func prefixErr(where string, err error) error {
	if where == "" {
		return err
	}
	return fmt.Errorf("%s: %w", where, err)
}
