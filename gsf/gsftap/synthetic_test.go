package gsftap

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// echoFrames returns n framed ECHO requests (or responses) with ids from 1 and texts of
// growing length.
func echoFrames(t *testing.T, n int, response bool) [][]byte {
	t.Helper()
	var frames [][]byte
	for i := range n {
		h := gsf.NewRequest(19, 23, int32(i+1))
		if response {
			h.Flags = gsf.FlagResponse
		}
		b, err := gsf.AppendMessage(nil, &h, nil)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, b)
	}
	return frames
}

// tcpPacket is one segment of a synthetic capture between 10.0.0.1:40000 (client) and
// 10.0.0.2:7566.
type tcpPacket struct {
	c2s     bool
	seq     uint32
	syn     bool
	payload []byte
}

func writePcap(t *testing.T, pkts []tcpPacket) []byte {
	t.Helper()
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, p := range pkts {
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IP{10, 0, 0, 1}, DstIP: net.IP{10, 0, 0, 2}}
		tcp := &layers.TCP{SrcPort: 40000, DstPort: 7566, Seq: 1000 + p.seq, ACK: !p.syn || !p.c2s, SYN: p.syn, Window: 65535}
		if !p.c2s {
			ip.SrcIP, ip.DstIP = ip.DstIP, ip.SrcIP
			tcp.SrcPort, tcp.DstPort = tcp.DstPort, tcp.SrcPort
		}
		tcp.SetNetworkLayerForChecksum(ip)
		buf := gopacket.NewSerializeBuffer()
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(p.payload)); err != nil {
			t.Fatal(err)
		}
		ci := gopacket.CaptureInfo{Timestamp: base.Add(time.Duration(i) * time.Millisecond), CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}
		if err := w.WritePacket(ci, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// segments cuts a direction's stream into segments of 1 to 9 bytes.
func segments(c2s bool, stream []byte, r *rand.Rand) []tcpPacket {
	var out []tcpPacket
	for off := 0; off < len(stream); {
		n := min(1+r.IntN(9), len(stream)-off)
		out = append(out, tcpPacket{c2s: c2s, seq: uint32(1 + off), payload: stream[off : off+n]})
		off += n
	}
	return out
}

// TestTapSyntheticCapture: frames cut into small segments, reordered and retransmitted, in a
// capture that starts after byte 30 of the client's stream (mostly mid-frame) and without the server's
// first segment: the Tap says where it resynchronized, skips the partial frame, and finds
// every frame after it, in order.
func TestTapSyntheticCapture(t *testing.T) {
	reqs, resps := echoFrames(t, 30, false), echoFrames(t, 30, true)
	c2s, s2c := bytes.Join(reqs, nil), bytes.Join(resps, nil)
	midFrame := 0
	defer func() {
		if midFrame == 0 {
			t.Error("no seed starts the capture mid-frame")
		}
	}()
	for seed := range uint64(10) {
		r := rand.New(rand.NewPCG(seed, 3))
		var pkts []tcpPacket
		for _, p := range segments(true, c2s, r) {
			if p.seq > 30 {
				pkts = append(pkts, p)
			}
		}
		sp := segments(false, s2c, r)
		pkts = append(pkts, sp[1:]...)
		// Local reordering and duplicates.
		for i := range pkts {
			if j := i + r.IntN(4); j < len(pkts) {
				pkts[i], pkts[j] = pkts[j], pkts[i]
			}
		}
		for i := 0; i < len(pkts); i += 7 {
			pkts = append(pkts, pkts[i])
		}
		// Each direction starts at its first segment in the capture (the ones before it in
		// the stream that come later are lost with the start of the connection).
		start := [2]int{-1, -1}
		for _, p := range pkts {
			d := capture.ServerToClient
			if p.c2s {
				d = capture.ClientToServer
			}
			if start[d] < 0 {
				start[d] = int(p.seq) - 1
			}
		}
		var out strings.Builder
		pr := &Printer{W: &out, Location: time.UTC}
		var got [2][]string
		tap := New(func(rec *Record) {
			pr.Print(rec)
			switch rec.Kind {
			case RecordFrame:
				got[rec.Dir] = append(got[rec.Dir], fmt.Sprintf("%x", rec.Frame))
			case RecordProblem, RecordGap:
				got[rec.Dir] = append(got[rec.Dir], fmt.Sprintf("%s@%d", rec.Kind, rec.Offset))
			}
		})
		if _, err := capture.ReadStreams(bytes.NewReader(writePcap(t, pkts)), nil, tap.Handle); err != nil {
			t.Fatal(err)
		}
		// The rest of the frame that holds a direction's first byte is skipped.
		for d, frames := range [][][]byte{reqs, resps} {
			first, at := 0, 0
			for at < start[d] {
				at += len(frames[first])
				first++
			}
			want := []string{"gap@0"}
			if at > start[d] {
				want = append(want, "problem@0")
				midFrame++
			}
			for _, f := range frames[first:] {
				want = append(want, fmt.Sprintf("%x", f))
			}
			if fmt.Sprint(got[d]) != fmt.Sprint(want) {
				t.Fatalf("seed %d: %s\n got %v\nwant %v\n%s", seed, capture.Direction(d), got[d], want, out.String())
			}
		}
		for _, w := range []string{"the capture starts mid-stream: looking for the first plausible frame",
			"(resynchronized here)", "no SYN in the capture: the server is guessed from the ports"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("seed %d: the output lacks %q", seed, w)
			}
		}
	}
}

// TestTapNotGSF: a connection that carries another protocol is not reported, unless All is
// set; then its bytes are reported as problems.
func TestTapNotGSF(t *testing.T) {
	http := []byte("GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n")
	pkts := []tcpPacket{{c2s: true, syn: true}, {syn: true}, {c2s: true, seq: 1, payload: http}}
	capFile := writePcap(t, pkts)
	for _, all := range []bool{false, true} {
		var kinds []string
		tap := New(func(r *Record) { kinds = append(kinds, r.Kind.String()) })
		tap.All = all
		if _, err := capture.ReadStreams(bytes.NewReader(capFile), nil, tap.Handle); err != nil {
			t.Fatal(err)
		}
		switch {
		case !all && (len(kinds) != 0 || tap.Skipped != 1):
			t.Errorf("not All: records %v, %d skipped", kinds, tap.Skipped)
		case all && (len(kinds) < 3 || kinds[0] != "open" || kinds[1] != "problem" || kinds[len(kinds)-1] != "close"):
			t.Errorf("All: records %v", kinds)
		}
	}
}

// TestTapHeldBack: a connection that starts with much that is not GSF and then carries GSF is
// reported from its start, with what did not fit the held-back records reported as dropped.
func TestTapHeldBack(t *testing.T) {
	junk := bytes.Repeat([]byte{0x01, 0x00}, 400) // 400 one-byte frames that are not messages
	frame := echoFrames(t, 1, false)[0]
	pkts := []tcpPacket{{c2s: true, syn: true}, {syn: true}, {c2s: true, seq: 1, payload: append(junk, frame...)}}
	var kinds []string
	var dropped error
	tap := New(func(r *Record) {
		kinds = append(kinds, r.Kind.String())
		if errors.Is(r.Err, ErrDropped) {
			dropped = r.Err
		}
	})
	if _, err := capture.ReadStreams(bytes.NewReader(writePcap(t, pkts)), nil, tap.Handle); err != nil {
		t.Fatal(err)
	}
	// open, 255 held frames, the ErrDropped problem, the GSF frame, close.
	if len(kinds) != 259 || kinds[0] != "open" || kinds[257] != "frame" || dropped == nil || dropped.Error() != ErrDropped.Error()+": 145" {
		t.Errorf("%d records (%v...), dropped: %v", len(kinds), kinds[:3], dropped)
	}
}
