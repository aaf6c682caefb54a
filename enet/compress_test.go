package enet

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

func TestRangeCoderRoundTrip(t *testing.T) {
	enc, dec := RangeCoder(), RangeCoder()
	r := rand.New(rand.NewPCG(1, 2))
	inputs := [][]byte{
		[]byte("a"), []byte("hello hello hello hello"), bytes.Repeat([]byte{0}, 3000),
		[]byte(strings.Repeat("the quick brown fox jumps over the lazy dog ", 80)),
	}
	for range 200 {
		b := make([]byte, r.IntN(4000)+1)
		for i := range b {
			b[i] = byte(r.IntN(1 + r.IntN(256)))
		}
		inputs = append(inputs, b)
	}
	compressed := 0
	for i, in := range inputs {
		z := enc.Compress(nil, in)
		if len(z) == 0 {
			continue // not smaller: sent as it is
		}
		compressed++
		if len(z) >= len(in) {
			t.Fatalf("input %d: compressed %d → %d", i, len(in), len(z))
		}
		out, err := dec.Decompress(nil, z, len(in))
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("input %d (%d bytes): %v, got %d bytes", i, len(in), err, len(out))
		}
		if _, err := dec.Decompress(nil, z, len(in)-1); err == nil {
			t.Fatalf("input %d: decompressed beyond its limit", i)
		}
	}
	if compressed < 10 {
		t.Fatalf("only %d of %d inputs compressed", compressed, len(inputs))
	}
}

func FuzzRangeCoderDecompress(f *testing.F) {
	f.Add(RangeCoder().Compress(nil, []byte("hello hello hello hello")))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0})
	rc := RangeCoder()
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := rc.Decompress(nil, b, 4096)
		if len(out) > 4096 {
			t.Fatalf("%d bytes out", len(out))
		}
		_ = err
	})
}

// TestChecksumAndRangeCoderWithCENet: Go and C ENet with ENet's CRC32 checksum, with its range
// coder, and with both, each way.
func TestChecksumAndRangeCoderWithCENet(t *testing.T) {
	needCPeer(t)
	ctx := testCtx(t)
	for _, mode := range []struct {
		name     string
		checksum bool
		rc       bool
	}{{"checksum", true, false}, {"rangecoder", false, true}, {"both", true, true}} {
		var cflags []string
		if mode.checksum {
			cflags = append(cflags, "-checksum")
		}
		if mode.rc {
			cflags = append(cflags, "-rangecoder")
		}
		opts := func() *HostOptions {
			o := &HostOptions{Checksum: mode.checksum}
			if mode.rc {
				o.Compressor = RangeCoder()
			}
			return o
		}
		kinds := []struct {
			ch    uint8
			data  []byte
			flags Flags
		}{
			{0, []byte(strings.Repeat("compress me ", 50)), Reliable},
			{1, payload(3000, 1), Reliable},
			{2, []byte("short"), 0},
			{3, bytes.Repeat([]byte("xyz"), 100), Unsequenced},
		}
		t.Run(mode.name+"/GoServer", func(t *testing.T) {
			srv, err := Listen("udp4", "127.0.0.1:0", opts())
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			_, port, _ := strings.Cut(srv.LocalAddr().String(), ":")
			c := startCPeer(t, append([]string{"client", "127.0.0.1", port, "-channels", "4", "-echo"}, cflags...)...)
			p, err := srv.Accept(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c.expect("connect")
			for _, k := range kinds {
				if err := p.Send(k.ch, k.data, k.flags); err != nil {
					t.Fatal(err)
				}
				if got, want := c.expect("recv"), fmt.Sprintf("recv %d %d %d %s", k.ch, k.flags, len(k.data), fnvHash(k.data)); got != want {
					t.Fatalf("C got %q want %q", got, want)
				}
				pk, err := p.Receive(ctx)
				if err != nil || !bytes.Equal(pk.Data, k.data) {
					t.Fatalf("echo: %v", err)
				}
			}
			st := srv.Stats()
			if st.DatagramsDropped != 0 {
				t.Fatalf("the Go host dropped %d of C ENet's datagrams", st.DatagramsDropped)
			}
		})
		t.Run(mode.name+"/GoClient", func(t *testing.T) {
			c := startCPeer(t, append([]string{"server", "0", "-channels", "4", "-echo"}, cflags...)...)
			port := strings.TrimPrefix(c.expect("listening"), "listening ")
			p, err := Dial(ctx, "udp", "127.0.0.1:"+port, &DialOptions{HostOptions: *opts(), Channels: 4})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Host().Close()
			c.expect("connect")
			for _, k := range kinds {
				if err := p.Send(k.ch, k.data, k.flags); err != nil {
					t.Fatal(err)
				}
				if got, want := c.expect("recv"), fmt.Sprintf("recv %d %d %d %s", k.ch, k.flags, len(k.data), fnvHash(k.data)); got != want {
					t.Fatalf("C got %q want %q", got, want)
				}
				pk, err := p.Receive(ctx)
				if err != nil || !bytes.Equal(pk.Data, k.data) {
					t.Fatalf("echo: %v", err)
				}
			}
		})
	}
}

// TestRangeCoderSameBytesAsCENet: C ENet's enet_range_coder_compress and RangeCoder produce the
// same bytes for the same inputs, one coder for all of them as a host uses it.
func TestRangeCoderSameBytesAsCENet(t *testing.T) {
	path := needCPeer(t)
	r := rand.New(rand.NewPCG(7, 8))
	var inputs [][]byte
	for i := range 60 {
		n := 1 + r.IntN(1400)
		b := make([]byte, n)
		alphabet := 1 + r.IntN(256)
		for j := range b {
			b[j] = byte(r.IntN(alphabet))
		}
		if i%3 == 0 {
			b = []byte(strings.Repeat(fmt.Sprintf("message %d ", i), 1+r.IntN(60)))
		}
		inputs = append(inputs, b)
	}
	args := []string{"rangecoder"}
	for _, b := range inputs {
		args = append(args, hex.EncodeToString(b))
	}
	out, err := exec.Command(path, args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(inputs) {
		t.Fatalf("%d lines for %d inputs", len(lines), len(inputs))
	}
	rc := RangeCoder()
	same := 0
	for i, b := range inputs {
		got := hex.EncodeToString(rc.Compress(nil, b))
		if got == "" {
			got = "-"
		}
		if got != lines[i] {
			t.Fatalf("input %d (%d bytes): Go %s\nC  %s", i, len(b), got, lines[i])
		}
		if got != "-" {
			same++
		}
	}
	t.Logf("%d of %d inputs compressed, all byte-identical to C ENet", same, len(inputs))
}
