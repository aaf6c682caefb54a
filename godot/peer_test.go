package godot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/internal/harness/godot3"
)

// These tests run a real Godot 3 client (testdata/peer/client.gd on godot3-server) against a Go
// server built only from this package's public API. The client sends requests with put_var,
// checks every answer byte for byte against the value it expects, and prints "ok"/"FAIL" lines.

// peerRequest is every request: the body is decoded later, once the op is known.
type peerRequest struct {
	Op   string           `godot:"op"`
	Seq  int32            `godot:"seq"`
	Body godot.RawVariant `godot:"body"`
}

type peerReply struct {
	Seq    int32 `godot:"seq"`
	Result any   `godot:"result"`
}

type peerError struct {
	Seq   int32  `godot:"seq"`
	Error string `godot:"error"`
}

type peerBase struct {
	ID int64 `godot:"id"`
}

type peerStats struct {
	Str int8   `godot:"str"`
	Int uint16 `godot:"int"`
}

type peerItem struct {
	Item string `godot:"item"`
	Qty  int    `godot:"qty"`
}

// peerPlayer exercises the struct rules: an embedded struct whose fields are promoted (and come
// first), tags, a nested struct, a slice of structs, a pointer, omitempty, "-", and an unexported
// field.
type peerPlayer struct {
	peerBase
	Name      string        `godot:"name"`
	HP        int           `godot:"hp"`
	Pos       godot.Vector3 `godot:"pos"`
	Tags      []string      `godot:"tags"`
	Stats     peerStats     `godot:"stats"`
	Inventory []peerItem    `godot:"inventory"`
	Guild     *string       `godot:"guild"`
	Note      string        `godot:"note,omitempty"`
	Secret    string        `godot:"-"`
	internal  int
}

type peerSum struct {
	Sum   int64   `godot:"sum"`
	Count uint8   `godot:"count"`
	Mean  float64 `godot:"mean"`
}

// peerServer answers requests; it reports anything unexpected on the Go side through fail.
type peerServer struct {
	dec  godot.DecodeOptions
	mu   sync.Mutex
	errs []string
}

func (s *peerServer) fail(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

// answer returns the replies to one request.
func (s *peerServer) answer(req peerRequest) []any {
	reply := func(v any) []any { return []any{peerReply{Seq: req.Seq, Result: v}} }
	switch req.Op {
	case "player":
		var p peerPlayer
		p.Secret, p.internal = "kept", 1
		if err := dm(s.dec).Unmarshal(req.Body, &p); err != nil {
			return []any{peerError{Seq: req.Seq, Error: err.Error()}}
		}
		want := peerPlayer{peerBase: peerBase{ID: 7}, Name: "ada", HP: 99, Pos: godot.Vector3{X: 1, Y: 2, Z: 3},
			Tags: []string{"mage", "elf"}, Stats: peerStats{Str: 3, Int: 18},
			Inventory: []peerItem{{"wand", 1}, {"potion", 3}}, Secret: "kept", internal: 1}
		if !reflect.DeepEqual(p, want) {
			s.fail("player decoded as %+v, want %+v", p, want)
		}
		guild := "gophers"
		p.ID <<= 33
		p.Name = strings.ToUpper(p.Name)
		p.HP++
		p.Pos = godot.Vector3{X: 2 * p.Pos.X, Y: 2 * p.Pos.Y, Z: 2 * p.Pos.Z}
		p.Tags = append(p.Tags, "go")
		p.Stats.Str++
		p.Inventory = append(p.Inventory, peerItem{"gopher", 1})
		p.Guild = &guild
		return reply(&p)
	case "echo":
		var v any
		if err := dm(s.dec).Unmarshal(req.Body, &v); err != nil {
			s.fail("echo %d: %v", req.Seq, err)
		}
		return reply(v)
	case "sum":
		var xs []int64
		if err := dm(s.dec).Unmarshal(req.Body, &xs); err != nil {
			s.fail("sum: %v", err)
		}
		var r peerSum
		for _, x := range xs {
			r.Sum += x
		}
		r.Count = uint8(len(xs))
		r.Mean = float64(r.Sum) / float64(len(xs))
		return reply(r)
	case "map":
		var m map[int]string
		if err := dm(s.dec).Unmarshal(req.Body, &m); err != nil {
			s.fail("map: %v", err)
		}
		return reply(m)
	case "batch":
		var n int
		if err := dm(s.dec).Unmarshal(req.Body, &n); err != nil || n < 0 || n > 100 {
			s.fail("batch: %d %v", n, err)
		}
		var out []any
		for i := range n {
			out = append(out, peerReply{Seq: req.Seq, Result: i})
		}
		return out
	case "split":
		var vs []godot.Vector3
		if err := dm(s.dec).Unmarshal(req.Body, &vs); err != nil {
			s.fail("split: %v", err)
		}
		return reply(vs)
	}
	s.fail("unknown op %q", req.Op)
	return nil
}

// serveStream serves one TCP connection with the stream framings.
func (s *peerServer) serveStream(conn net.Conn, o godot.StreamOptions) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
	dec := o.NewDecoder(conn)
	enc := o.NewEncoder(conn)
	for {
		var req peerRequest
		err := dec.Decode(&req)
		if err == io.EOF {
			return
		}
		if err != nil {
			s.fail("reading a request: %v", err)
			return
		}
		replies := s.answer(req)
		switch req.Op {
		case "batch":
			// All answers in one Write, hence one TCP segment.
			var buf bytes.Buffer
			be := o.NewEncoder(&buf)
			for _, r := range replies {
				if err := be.Encode(r); err != nil {
					s.fail("batch: %v", err)
				}
			}
			if _, err := conn.Write(buf.Bytes()); err != nil {
				s.fail("batch write: %v", err)
			}
		case "split":
			// One answer in three Writes, cut inside the length prefix and inside the Variant.
			var buf bytes.Buffer
			if err := o.NewEncoder(&buf).Encode(replies[0]); err != nil {
				s.fail("split: %v", err)
			}
			b := buf.Bytes()
			for i, part := range [][]byte{b[:2], b[2:9], b[9:]} {
				if i > 0 {
					// A slow peer, not a wait for an event: the pause makes the parts
					// arrive (most likely) as separate reads.
					time.Sleep(50 * time.Millisecond)
				}
				if _, err := conn.Write(part); err != nil {
					s.fail("split write: %v", err)
				}
			}
		default:
			for _, r := range replies {
				if err := enc.Encode(r); err != nil {
					s.fail("reply to %s %d: %v", req.Op, req.Seq, err)
				}
			}
		}
	}
}

// udpPeer lets a Decoder and an Encoder with FramingPacket serve an unconnected UDP socket: each
// Read is one datagram, and each Write answers the address of the last one.
type udpPeer struct {
	conn *net.UDPConn
	addr *net.UDPAddr
}

func (u *udpPeer) Read(b []byte) (int, error) {
	n, a, err := u.conn.ReadFromUDP(b)
	if err == nil {
		u.addr = a
	}
	return n, err
}

func (u *udpPeer) Write(b []byte) (int, error) { return u.conn.WriteToUDP(b, u.addr) }

func (s *peerServer) serveUDP(conn *net.UDPConn, o godot.StreamOptions) {
	peer := &udpPeer{conn: conn}
	dec, enc := o.NewDecoder(peer), o.NewEncoder(peer)
	for {
		var req peerRequest
		err := dec.Decode(&req)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			s.fail("reading a datagram: %v", err)
			return
		}
		for _, r := range s.answer(req) {
			if err := enc.Encode(r); err != nil {
				s.fail("reply to %s %d: %v", req.Op, req.Seq, err)
			}
		}
	}
}

func TestGodot3Client(t *testing.T) {
	godot3.Require(t)
	script, err := os.ReadFile(filepath.Join("testdata", "peer", "client.gd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode    string
		framing godot.Framing
		checks  int
	}{
		{"stream", godot.FramingStreamPeer, 47},
		{"stream_be", godot.FramingStreamPeerBigEndian, 47},
		{"pps", godot.FramingPacketPeerStream, 43},
		{"udp", godot.FramingPacket, 39},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			o := godot.StreamOptions{Framing: tc.framing, Dialect: godot.Godot3}
			srv := &peerServer{dec: o.DecodeOptions()}
			var port int
			var wg sync.WaitGroup
			var stop func()
			if tc.framing == godot.FramingPacket {
				conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				stop = func() { conn.Close() }
				port = conn.LocalAddr().(*net.UDPAddr).Port
				wg.Go(func() { srv.serveUDP(conn, o) })
			} else {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				stop = func() { ln.Close() }
				port = ln.Addr().(*net.TCPAddr).Port
				wg.Go(func() {
					conn, err := ln.Accept()
					if err != nil {
						srv.fail("accept: %v", err)
						return
					}
					srv.serveStream(conn, o)
				})
			}
			cfg, _ := json.Marshal(map[string]any{"mode": tc.mode, "port": port})
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			res, err := godot3.Run(ctx, string(script), map[string][]byte{"config.json": cfg})
			if err != nil {
				t.Fatalf("engine: %v", err)
			}
			out := string(res.Output())
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "FAIL") {
					t.Error("Godot client: " + line)
				}
			}
			t.Logf("client: %s", strings.TrimSpace(out[strings.LastIndex(out, "DONE "):]))
			var checks, failures int
			if i := strings.LastIndex(out, "DONE "); i < 0 {
				t.Errorf("the client did not finish; output:\n%s\nstderr:\n%s", out, res.Stderr)
			} else if _, err := fmt.Sscanf(out[i:], "DONE %d %d", &checks, &failures); err != nil || failures != 0 || checks != tc.checks {
				t.Errorf("client reports %d checks, %d failures; want %d checks, 0 failures", checks, failures, tc.checks)
			}
			if se := res.ScriptErrors(); len(se) > 0 {
				t.Errorf("%d script errors, the first: %s", len(se), se[0])
			}
			// The engine has exited, which closed its TCP connection and ends serveStream; the
			// UDP server has no end of stream and stops when its socket is closed.
			stop()
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("the Go server did not stop")
			}
			srv.mu.Lock()
			for _, e := range srv.errs {
				t.Error("Go server: " + e)
			}
			srv.mu.Unlock()
		})
	}
}
