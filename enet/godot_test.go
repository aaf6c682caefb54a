package enet

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/internal/harness/godot3"
)

func TestGodotCompressorsRoundTrip(t *testing.T) {
	inputs := [][]byte{
		[]byte("x"), []byte("0123456789abcdef"), bytes.Repeat([]byte("godot "), 300),
		payload(1400, 3), make([]byte, 4000),
	}
	for _, c := range []struct {
		name string
		new  func() Compressor
	}{{"fastlz", FastLZ}, {"zlib", Zlib}, {"zstd", Zstd}} {
		enc, dec := c.new(), c.new()
		for i, in := range inputs {
			z := enc.Compress(nil, in)
			if len(z) == 0 {
				continue
			}
			if len(z) >= len(in) {
				t.Fatalf("%s input %d: %d → %d", c.name, i, len(in), len(z))
			}
			out, err := dec.Decompress(nil, z, 4096)
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("%s input %d: %v (%d bytes back of %d)", c.name, i, err, len(out), len(in))
			}
			if _, err := dec.Decompress(nil, z, len(in)-1); err == nil {
				t.Fatalf("%s input %d: decompressed beyond the limit", c.name, i)
			}
		}
	}
}

func FuzzGodotDecompress(f *testing.F) {
	f.Add(FastLZ().Compress(nil, bytes.Repeat([]byte("abc"), 100)), uint8(0))
	f.Add(Zlib().Compress(nil, bytes.Repeat([]byte("abc"), 100)), uint8(1))
	f.Add(Zstd().Compress(nil, bytes.Repeat([]byte("abc"), 100)), uint8(2))
	f.Add([]byte{0x20, 0xff, 0xff}, uint8(0))
	cs := []Compressor{FastLZ(), Zlib(), Zstd()}
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		out, _ := cs[int(which)%3].Decompress(nil, b, 4096)
		if len(out) > 4096 {
			t.Fatalf("%d bytes out", len(out))
		}
	})
}

// godotEchoServer is a Godot 3.2.3 NetworkedMultiplayerENet server (Debian's godot3-server over
// C ENet 1.3.17) with compression mode mode, sending back every packet it gets.
const godotEchoServer = `extends SceneTree
func _init():
	var peer = NetworkedMultiplayerENet.new()
	peer.compression_mode = %d
	var err = peer.create_server(%d, 4)
	if err != OK:
		print("error ", err)
		quit()
		return
	var deadline = OS.get_ticks_msec() + 20000
	var echoed = 0
	while OS.get_ticks_msec() < deadline and echoed < %d:
		peer.poll()
		while peer.get_available_packet_count() > 0:
			var from = peer.get_packet_peer()
			var pkt = peer.get_packet()
			peer.set_target_peer(from)
			peer.transfer_mode = NetworkedMultiplayerPeer.TRANSFER_MODE_RELIABLE
			peer.put_packet(pkt)
			echoed += 1
		OS.delay_msec(1)
	var t = OS.get_ticks_msec() + 300
	while OS.get_ticks_msec() < t:
		peer.poll()
		OS.delay_msec(1)
	print("echoed ", echoed)
	quit()
`

func freeUDPPort(t *testing.T) int {
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// TestGodot3Compression: a Go client exchanges packets with an unmodified Godot 3.2.3
// NetworkedMultiplayerENet server in each of Godot's five compression modes; in the four that
// compress, datagrams travel compressed both ways.
func TestGodot3Compression(t *testing.T) {
	godot3.Require(t)
	modes := []struct {
		mode int
		name string
		c    func() Compressor
	}{{0, "none", nil}, {1, "range-coder", RangeCoder}, {2, "fastlz", FastLZ}, {3, "zlib", Zlib}, {4, "zstd", Zstd}}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			port := freeUDPPort(t)
			const n = 3
			done := make(chan *godot3.Result, 1)
			go func() {
				r, err := godot3.Run(ctx, fmt.Sprintf(godotEchoServer, m.mode, port, n), nil)
				if err != nil {
					t.Log(err)
				}
				done <- r
			}()
			var opts DialOptions
			opts.Channels, opts.Data = 3, 424242
			if m.c != nil {
				opts.Compressor = m.c()
			}
			var p *Peer
			var err error
			for range 50 { // the engine takes a moment to open its port
				cctx, ccancel := context.WithTimeout(ctx, 300*time.Millisecond)
				p, err = Dial(cctx, "udp", fmt.Sprintf("127.0.0.1:%d", port), &opts)
				ccancel()
				if err == nil {
					break
				}
			}
			if err != nil {
				t.Fatalf("connecting to Godot: %v", err)
			}
			defer p.Host().Close()
			for i := range n {
				body := []byte(strings.Repeat(fmt.Sprintf("packet %d through godot; ", i), 40+i*10))
				pk := binary.LittleEndian.AppendUint32(nil, 424242)
				pk = binary.LittleEndian.AppendUint32(pk, 1)
				if err := p.Send(1, append(pk, body...), Reliable); err != nil {
					t.Fatal(err)
				}
				for {
					got, err := p.Receive(ctx)
					if err != nil {
						t.Fatalf("packet %d: %v", i, err)
					}
					if got.Channel != 1 {
						continue // Godot's system channel
					}
					if len(got.Data) < 8 || binary.LittleEndian.Uint32(got.Data) != 1 || !bytes.Equal(got.Data[8:], body) {
						t.Fatalf("packet %d: got %q", i, got.Data)
					}
					break
				}
			}
			st := p.Host().Stats()
			t.Logf("%s: %d datagrams sent compressed, %d received compressed, %d dropped", m.name, st.CompressedSent, st.CompressedReceived, st.DatagramsDropped)
			if m.c != nil && (st.CompressedSent == 0 || st.CompressedReceived == 0) {
				t.Fatalf("no compressed datagrams: %+v", st)
			}
			if st.DatagramsDropped != 0 {
				t.Fatalf("dropped %d of Godot's datagrams", st.DatagramsDropped)
			}
			r := <-done
			if r == nil || !strings.Contains(string(r.Stdout), fmt.Sprintf("echoed %d", n)) {
				if r != nil {
					t.Fatalf("Godot: %s", r.Output())
				}
				t.Fatal("Godot did not finish")
			}
		})
	}
}
