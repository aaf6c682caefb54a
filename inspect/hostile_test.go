package inspect

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"runtime"
	"strings"
	"testing"
)

// TestHostileMemory explains a megabyte of adversarial shapes in every format and checks the
// memory allocated: at most 16 times the input (the decoded values; for a capture 24 times,
// and 1 MiB) and 1 KiB per field of the tree, which holds at most MaxNodes fields however many the input
// has.
func TestHostileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: -short")
	}
	const n = 1 << 20
	one, _ := hex.DecodeString(strings.ReplaceAll(seedGSF, " ", ""))
	u32 := func(vals ...uint32) []byte {
		b := make([]byte, n)
		for i, v := range vals {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		return b
	}
	cases := []struct {
		name string
		req  Request
		data []byte
	}{
		{"small GSF frames", Request{Format: "gsf"}, bytes.Repeat(one, n/len(one))},
		{"Godot Nils back to back", Request{Format: "godot4"}, make([]byte, n)},
		{"Godot Array of Nils", Request{Format: "godot4"}, u32(28, n/4-2)},
		{"Godot Dictionary of Nils", Request{Format: "godot3"}, u32(18, n/8-1)},
		{"Godot nested Arrays", Request{Format: "godot4"}, bytes.Repeat([]byte{28, 0, 0, 0, 1, 0, 0, 0}, n/8)},
		{"Godot PackedByteArray", Request{Format: "godot4"}, u32(29, n-8)},
		{"Godot PackedInt32Array", Request{Format: "godot4"}, u32(30, n/4-2)},
		{"Godot messages", Request{Format: "godot4", Options: map[string]string{"framing": "streampeer"}}, bytes.Repeat([]byte{4, 0, 0, 0, 0, 0, 0, 0}, n/8)},
		{"bits", Request{Format: "bits", Options: map[string]string{"fields": "bool*4096"}}, make([]byte, n)},
		{"detect", Request{Format: Auto}, make([]byte, n)},
		{"capture: tcpdump's, small", Request{Format: Auto}, readCaptureFile(t, tcpdumpCapture)},
		{"capture: a connection per packet", Request{Format: Auto}, hostileCapture(t, n, func(i int, pkt []byte) {
			binary.BigEndian.PutUint16(pkt[34:], uint16(i))
			binary.BigEndian.PutUint16(pkt[26:], uint16(i>>16))
		})},
		{"capture: a hole before every segment", Request{Format: "capture"}, hostileCapture(t, n, func(i int, pkt []byte) {
			seq := binary.BigEndian.Uint32(pkt[38:])
			binary.BigEndian.PutUint32(pkt[38:], seq+uint32(2*22*i))
		})},
		{"capture: segments in reverse", Request{Format: "capture"}, hostileCapture(t, n, func(i int, pkt []byte) {
			seq := binary.BigEndian.Uint32(pkt[38:])
			binary.BigEndian.PutUint32(pkt[38:], seq+uint32(22*(n/100-i)))
		})},
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		req := c.req
		req.Input, req.Encoding = string(c.data), "raw"
		ex, err := Explain(req)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		perByte, fixed := uint64(16), uint64(0)
		if ex.Format == "capture" {
			// Reading a capture keeps reassembly state per connection (capture.ReadStreams):
			// about 1.5 KB a connection, for at least 70 bytes of capture each; and gopacket's
			// reassembly starts with room for 1 024 connections, 0.8 MB.
			perByte, fixed = 24, 1<<20
		}
		limit := perByte*uint64(len(c.data)) + fixed + 1024*uint64(ex.Fields)
		t.Logf("%s: %d fields, %.1f MB allocated (limit %.1f MB)", c.name, ex.Fields, float64(alloc)/1e6, float64(limit)/1e6)
		if alloc > limit || ex.Fields > MaxNodes {
			t.Errorf("%s: %.1f MB allocated for %d fields, more than %.1f MB", c.name, float64(alloc)/1e6, ex.Fields, float64(limit)/1e6)
		}
	}
}

// hostileCapture makes a capture of about n bytes from the real capture's first data packet
// (the 22-byte request of packet 4 of serve-call.pcap), repeated with edit applied to the i-th
// copy's bytes (Ethernet, IPv4 at byte 14, TCP at byte 34).
func hostileCapture(t *testing.T, n int, edit func(i int, pkt []byte)) []byte {
	real := readCaptureFile(t, tcpdumpCapture)
	const at, size = 286, 16 + 88 // packet 4's record
	out := append([]byte{}, real[:24]...)
	for i := 0; len(out)+size <= n; i++ {
		out = append(out, real[at:at+size]...)
		edit(i, out[len(out)-88:])
	}
	return out
}
