package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// streams collects what ReadStreams reports: per connection and direction the bytes, with
// "<gap N>" marks, and the event kinds in order.
type streams struct {
	data   map[string]*bytes.Buffer
	events []string
	conns  map[uint64]*Conn
}

func collect() (*streams, Handler) {
	s := &streams{data: map[string]*bytes.Buffer{}, conns: map[uint64]*Conn{}}
	return s, func(ev *Event) {
		s.conns[ev.Conn.ID] = ev.Conn
		key := fmt.Sprintf("%d %s", ev.Conn.ID, ev.Dir)
		switch ev.Kind {
		case EventData:
			if s.data[key] == nil {
				s.data[key] = new(bytes.Buffer)
			}
			if int64(s.data[key].Len()) != ev.Offset && !strings.Contains(s.data[key].String(), "<gap") {
				panic(fmt.Sprintf("%s: data at offset %d after %d bytes", key, ev.Offset, s.data[key].Len()))
			}
			s.data[key].Write(ev.Data)
			s.events = append(s.events, fmt.Sprintf("%s data %d", key, len(ev.Data)))
		case EventGap:
			if s.data[key] == nil {
				s.data[key] = new(bytes.Buffer)
			}
			fmt.Fprintf(s.data[key], "<gap %d>", ev.Lost)
			s.events = append(s.events, fmt.Sprintf("%s gap %d", key, ev.Lost))
		case EventEnd:
			s.events = append(s.events, key+" end")
		default:
			s.events = append(s.events, fmt.Sprintf("%d %s", ev.Conn.ID, ev.Kind))
		}
	}
}

func (s *streams) get(id uint64, d Direction) string {
	b := s.data[fmt.Sprintf("%d %s", id, d)]
	if b == nil {
		return ""
	}
	return b.String()
}

// TestReadStreamsLoopback reads a capture that tcpdump made on the loopback interface of
// "gamewire serve" answering two "gamewire call" runs (see the cmd/gamewire capture test).
func TestReadStreamsLoopback(t *testing.T) {
	f, err := os.ReadFile("testdata/serve-call.pcap")
	if err != nil {
		t.Fatal(err)
	}
	s, h := collect()
	st, err := ReadStreams(bytes.NewReader(f), nil, h)
	if err != nil {
		t.Fatal(err)
	}
	if st.Format != FormatPcap || st.Conns != 2 || st.Packets != st.TCP {
		t.Errorf("stats %+v", st)
	}
	want := map[string]string{
		"1 client→server": "1520c25c046d0c0c18416d617a696e67576f726c6400",
		"1 server→client": "1521c25c046d0c1030583133333835322e7472756500",
		"2 client→server": "0c20c2785e18120070696e6700",
		"2 server→client": "0c21c2785e18204870696e6700",
	}
	for k, w := range want {
		if got := hex.EncodeToString(s.data[k].Bytes()); got != w {
			t.Errorf("%s: %s, want %s", k, got, w)
		}
	}
	if c := s.conns[1]; c.RolesGuessed || c.Server.Port() == 0 || c.Client.Addr().String() != "127.0.0.1" {
		t.Errorf("conn 1: %+v", c)
	}
	wantEvents := "1 open,1 client→server data 22,1 server→client data 22,1 client→server end,1 server→client end,1 close"
	if got := strings.Join(s.events[:6], ","); got != wantEvents {
		t.Errorf("events %s\nwant   %s", got, wantEvents)
	}

	// The same packets in pcapng give the same streams.
	ng := toPcapNG(t, f)
	if DetectFormat(ng) != FormatPcapNG {
		t.Fatal("not pcapng")
	}
	s2, h2 := collect()
	if st, err := ReadStreams(bytes.NewReader(ng), nil, h2); err != nil || st.Format != FormatPcapNG {
		t.Fatal(st, err)
	}
	if fmt.Sprint(s2.events) != fmt.Sprint(s.events) {
		t.Errorf("pcapng events %v\nwant %v", s2.events, s.events)
	}
	// A port filter that matches nothing.
	s3, h3 := collect()
	if st, err := ReadStreams(bytes.NewReader(f), &Options{Ports: []uint16{1}}, h3); err != nil || st.TCP != 0 || len(s3.events) != 0 {
		t.Errorf("filtered: %+v %v %v", st, err, s3.events)
	}
}

// toPcapNG rewrites a pcap capture as pcapng with gopacket's writer.
func toPcapNG(t testing.TB, pcap []byte) []byte {
	t.Helper()
	r, err := pcapgo.NewReader(bytes.NewReader(pcap))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := pcapgo.NewNgWriter(&out, r.LinkType())
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// segment is one TCP segment of a synthetic capture.
type segment struct {
	c2s      bool
	seq      uint32 // relative to the direction's ISN
	flags    string // S, A, F, R
	payload  []byte
	tsOffset time.Duration
}

const (
	clientISN = 1000
	serverISN = 5000
)

// writeCapture writes segments between 10.0.0.1:40000 (client) and 10.0.0.2:7566 as an
// Ethernet pcap.
func writeCapture(t testing.TB, segs []segment) []byte {
	t.Helper()
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, sg := range segs {
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IP{10, 0, 0, 1}, DstIP: net.IP{10, 0, 0, 2}}
		tcp := &layers.TCP{SrcPort: 40000, DstPort: 7566, Seq: clientISN + sg.seq, Window: 65535}
		if !sg.c2s {
			ip.SrcIP, ip.DstIP = ip.DstIP, ip.SrcIP
			tcp.SrcPort, tcp.DstPort = tcp.DstPort, tcp.SrcPort
			tcp.Seq = serverISN + sg.seq
		}
		tcp.SYN = strings.Contains(sg.flags, "S")
		tcp.ACK = strings.Contains(sg.flags, "A")
		tcp.FIN = strings.Contains(sg.flags, "F")
		tcp.RST = strings.Contains(sg.flags, "R")
		if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
			t.Fatal(err)
		}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(sg.payload)); err != nil {
			t.Fatal(err)
		}
		ts := base.Add(time.Duration(i)*time.Millisecond + sg.tsOffset)
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// conversation returns the segments of a connection that carries c2s and s2c in pieces of
// at most piece bytes, with the handshake and the FINs.
func conversation(c2s, s2c []byte, piece int) []segment {
	segs := []segment{{c2s: true, flags: "S"}, {flags: "SA"}, {c2s: true, seq: 1, flags: "A"}}
	cut := func(c bool, data []byte) []segment {
		var out []segment
		for off := 0; off < len(data); off += piece {
			out = append(out, segment{c2s: c, seq: uint32(1 + off), flags: "A", payload: data[off:min(off+piece, len(data))]})
		}
		return out
	}
	segs = append(segs, cut(true, c2s)...)
	segs = append(segs, cut(false, s2c)...)
	segs = append(segs, segment{c2s: true, seq: uint32(1 + len(c2s)), flags: "FA"}, segment{seq: uint32(1 + len(s2c)), flags: "FA"})
	return segs
}

func testPayload(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

// TestReadStreamsReordered: segments out of order and retransmitted (whole, and overlapping
// other segments) come out once, in order.
func TestReadStreamsReordered(t *testing.T) {
	c2s, s2c := testPayload(3000, 1), testPayload(2000, 2)
	for seed := range uint64(20) {
		segs := conversation(c2s, s2c, 100)
		r := rand.New(rand.NewPCG(seed, 1))
		// Shuffle the data segments (not the handshake), then retransmit some, some
		// overlapping their neighbours.
		data := segs[3 : len(segs)-2]
		r.Shuffle(len(data), func(i, j int) { data[i], data[j] = data[j], data[i] })
		var withRetx []segment
		for _, sg := range segs {
			withRetx = append(withRetx, sg)
			if len(sg.payload) > 0 && r.IntN(4) == 0 {
				withRetx = append(withRetx, sg)
			}
			if len(sg.payload) > 0 && r.IntN(5) == 0 {
				// An overlapping retransmission: 50 bytes before the segment, and it.
				src := c2s
				if !sg.c2s {
					src = s2c
				}
				start := max(int(sg.seq)-1-50, 0)
				withRetx = append(withRetx, segment{c2s: sg.c2s, seq: uint32(1 + start), flags: "A", payload: src[start : int(sg.seq)-1+len(sg.payload)]})
			}
		}
		s, h := collect()
		if _, err := ReadStreams(bytes.NewReader(writeCapture(t, withRetx)), nil, h); err != nil {
			t.Fatal(err)
		}
		if got := s.get(1, ClientToServer); got != string(c2s) {
			t.Fatalf("seed %d: client→server differs (%d bytes, want %d): %q", seed, len(got), len(c2s), got[:min(len(got), 80)])
		}
		if got := s.get(1, ServerToClient); got != string(s2c) {
			t.Fatalf("seed %d: server→client differs (%d bytes, want %d)", seed, len(got), len(s2c))
		}
	}
}

// TestReadStreamsMidStream: a capture that starts after the connection did reports a gap of
// unknown size, then the data from the first captured segment on (a segment before it that
// comes later is lost), with the roles guessed from the ports.
func TestReadStreamsMidStream(t *testing.T) {
	c2s, s2c := testPayload(1000, 3), testPayload(1000, 4)
	segs := conversation(c2s, s2c, 100)
	// Drop the handshake and the first 2 segments of each direction; the rest out of order.
	var kept []segment
	for _, sg := range segs[3:] {
		if sg.seq <= 200 {
			continue
		}
		kept = append(kept, sg)
	}
	kept[0], kept[1] = kept[1], kept[0]
	s, h := collect()
	if _, err := ReadStreams(bytes.NewReader(writeCapture(t, kept)), nil, h); err != nil {
		t.Fatal(err)
	}
	// The first two kept segments were swapped: the client's stream starts at 300.
	if got := s.get(1, ClientToServer); got != "<gap -1>"+string(c2s[300:]) {
		t.Errorf("client→server: %q", got[:min(len(got), 40)])
	}
	if got := s.get(1, ServerToClient); got != "<gap -1>"+string(s2c[200:]) {
		t.Errorf("server→client: %q", got[:min(len(got), 40)])
	}
	if c := s.conns[1]; !c.RolesGuessed || c.Server.Port() != 7566 || c.Client.Port() != 40000 {
		t.Errorf("roles: %+v", c)
	}
}

// TestReadStreamsLost: a segment that is never captured is a gap of its size.
func TestReadStreamsLost(t *testing.T) {
	c2s := testPayload(1000, 5)
	segs := conversation(c2s, nil, 100)
	var kept []segment
	for _, sg := range segs {
		if sg.c2s && sg.seq == 301 && len(sg.payload) > 0 {
			continue
		}
		kept = append(kept, sg)
	}
	s, h := collect()
	if _, err := ReadStreams(bytes.NewReader(writeCapture(t, kept)), nil, h); err != nil {
		t.Fatal(err)
	}
	if got, want := s.get(1, ClientToServer), string(c2s[:300])+"<gap 100>"+string(c2s[400:]); got != want {
		t.Errorf("client→server: %d bytes, want %d", len(got), len(want))
	}
}

// TestReadStreamsHostile: truncated captures, garbage and damaged headers give typed errors
// and never panic; what was read before the damage is still reported.
func TestReadStreamsHostile(t *testing.T) {
	f, err := os.ReadFile("testdata/serve-call.pcap")
	if err != nil {
		t.Fatal(err)
	}
	// The pcap file's records start at these bytes: a 24-byte file header, then a 16-byte
	// record header and the packet's captured bytes for each packet.
	var records []int64
	for off := 24; off < len(f); off += 16 + int(binary.LittleEndian.Uint32(f[off+8:])) {
		records = append(records, int64(off))
	}
	for i, in := range [][]byte{f, toPcapNG(t, f)} {
		for n := range len(in) {
			s, h := collect()
			st, err := ReadStreams(bytes.NewReader(in[:n]), nil, h)
			if err == nil {
				continue // cut at a record boundary
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Offset > int64(n) {
				t.Fatalf("cut at %d: %v (%T)", n, err, err)
			}
			// The error names the byte where the record cut short starts.
			if i == 0 && ce.Packet > 0 && ce.Offset != records[ce.Packet-1] {
				t.Fatalf("cut at %d: packet %d at byte %d, want %d", n, ce.Packet, ce.Offset, records[ce.Packet-1])
			}
			if ce.Packet > 0 && ce.Packet != st.Packets+1 {
				t.Fatalf("cut at %d: error at packet %d after %d packets", n, ce.Packet, st.Packets)
			}
			_ = s
		}
	}
	// Not a capture.
	for _, in := range []string{"", "abc", "hello world", "\x0a\x0d\x0d\x0a garbage"} {
		_, err := ReadStreams(strings.NewReader(in), nil, func(*Event) {})
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%q: %v", in, err)
		}
	}
	// A cut capture still reports what it read: the first connection.
	cut := f[:len(f)-30]
	s, h := collect()
	_, err = ReadStreams(bytes.NewReader(cut), nil, h)
	if ce := (*Error)(nil); !errors.As(err, &ce) || ce.Packet == 0 {
		t.Errorf("cut: %v", err)
	}
	if s.get(1, ServerToClient) == "" {
		t.Error("cut capture: the first connection is not reported")
	}
}

// TestReadStreamsOtherCaptures: tcpdump -i any writes Linux "cooked" (SLL2) headers; a
// session over IPv6 loopback.
func TestReadStreamsOtherCaptures(t *testing.T) {
	for file, want := range map[string]string{
		"testdata/serve-call-any.pcap":  "1521c25c046d0c1030583133333835322e7472756500",
		"testdata/serve-echo-ipv6.pcap": "0d21c2785e18204a70696e673600",
	} {
		f, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, h := collect()
		st, err := ReadStreams(bytes.NewReader(f), &Options{Ports: []uint16{7566}}, h)
		if err != nil || st.Conns < 1 || st.Skipped != 0 {
			t.Fatalf("%s: %+v %v", file, st, err)
		}
		if got := hex.EncodeToString([]byte(s.get(1, ServerToClient))); got != want {
			t.Errorf("%s: server→client %s", file, got)
		}
		if c := s.conns[1]; c.Server.Port() != 7566 || c.RolesGuessed {
			t.Errorf("%s: %+v", file, c)
		}
	}
}

// TestReadStreamsMemory: a capture streamed from a pipe, 2000 connections whose first
// segment never comes and which then send 40 MB out of order: the reader's live heap stays
// within MaxBufferedPages, however long the capture.
func TestReadStreamsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	const conns, perConn, seg = 2000, 20, 1000 // 2000 × 20 × 1000 bytes = 40 MB
	pr, pw := io.Pipe()
	go func() {
		w := pcapgo.NewWriter(pw)
		w.WriteFileHeader(65535, layers.LinkTypeEthernet)
		base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		payload := testPayload(seg, 9)
		buf := gopacket.NewSerializeBuffer()
		for i := range perConn {
			for c := range conns {
				eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
				ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IP{10, 0, byte(c >> 8), byte(c)}, DstIP: net.IP{10, 1, 0, 2}}
				// Segment 0 of every connection is missing; the rest come in order.
				tcp := &layers.TCP{SrcPort: 40000, DstPort: 7566, ACK: true, Seq: uint32(1 + (i+1)*seg), Window: 65535}
				tcp.SetNetworkLayerForChecksum(ip)
				gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(payload))
				ci := gopacket.CaptureInfo{Timestamp: base.Add(time.Duration(i*conns+c) * time.Microsecond), CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}
				if err := w.WritePacket(ci, buf.Bytes()); err != nil {
					return
				}
			}
		}
		pw.Close()
	}()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64
	var delivered int64
	events := 0
	st, err := ReadStreams(pr, &Options{MaxBufferedPages: 2048}, func(ev *Event) {
		delivered += int64(len(ev.Data))
		if events++; events%5000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	})
	if err != nil || st.Conns != conns {
		t.Fatalf("%+v %v", st, err)
	}
	if delivered != conns*perConn*seg {
		t.Errorf("delivered %d bytes, want %d", delivered, conns*perConn*seg)
	}
	// 2048 pages of 1900 bytes are 4 MB; connection state for 2000 connections and the
	// garbage between two GCs come on top. The capture is 40 MB.
	if peak > base+32<<20 {
		t.Errorf("live heap grew by %d MiB", (peak-base)>>20)
	}
	t.Logf("heap peak %d MiB above the start for a %d MiB capture", (peak-base)>>20, conns*perConn*seg>>20)
}
