package capture

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// TestFastDecoderAgrees: for every packet of the real captures (Ethernet, Linux cooked v2,
// IPv6; pcap and pcapng), the fast decoder finds the TCP segment gopacket.NewPacket finds: the
// same flows, sequence number, flags and payload.
func TestFastDecoderAgrees(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.pcap*")
	if len(names) < 5 {
		t.Fatalf("captures: %v", names)
	}
	for _, name := range names {
		f, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var src packetSource
		var lt layers.LinkType
		if DetectFormat(f) == FormatPcapNG {
			r, err := pcapgo.NewNgReader(bytes.NewReader(f), pcapgo.DefaultNgReaderOptions)
			if err != nil {
				t.Fatal(err)
			}
			src, lt = r, r.LinkType()
		} else {
			r, err := pcapgo.NewReader(bytes.NewReader(f))
			if err != nil {
				t.Fatal(err)
			}
			src, lt = r, r.LinkType()
		}
		var d fastDecoder
		n := 0
		for ; ; n++ {
			data, _, err := src.ReadPacketData()
			if err != nil {
				break
			}
			nf, tcp, ok := d.decode(data, lt)
			p := gopacket.NewPacket(data, lt, gopacket.DecodeOptions{})
			want, _ := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
			if !ok || want == nil {
				t.Fatalf("%s packet %d: fast path %v, NewPacket finds TCP: %v", name, n+1, ok, want != nil)
			}
			if nf != p.NetworkLayer().NetworkFlow() || tcp.TransportFlow() != want.TransportFlow() || tcp.Seq != want.Seq ||
				tcp.Ack != want.Ack || tcp.SYN != want.SYN || tcp.FIN != want.FIN || tcp.RST != want.RST || !bytes.Equal(tcp.Payload, want.Payload) {
				t.Fatalf("%s packet %d: fast %v %v seq %d, NewPacket %v %v seq %d", name, n+1, nf, tcp.TransportFlow(), tcp.Seq,
					p.NetworkLayer().NetworkFlow(), want.TransportFlow(), want.Seq)
			}
		}
		t.Logf("%s: %d packets (link type %s)", name, n, lt)
	}
}

// TestReadStreamsOtherLinkType: a link type the fast decoder leaves to gopacket.NewPacket (raw
// IP: the real capture with its Ethernet headers removed) reads as the original does.
func TestReadStreamsOtherLinkType(t *testing.T) {
	f, err := os.ReadFile("testdata/serve-call.pcap")
	if err != nil {
		t.Fatal(err)
	}
	raw := append([]byte{}, f[:24]...)
	binary.LittleEndian.PutUint32(raw[20:], uint32(layers.LinkTypeRaw))
	for off := 24; off < len(f); {
		n := int(binary.LittleEndian.Uint32(f[off+8:]))
		rec := append([]byte{}, f[off:off+16]...)
		binary.LittleEndian.PutUint32(rec[8:], uint32(n-14))
		binary.LittleEndian.PutUint32(rec[12:], binary.LittleEndian.Uint32(f[off+12:])-14)
		raw = append(append(raw, rec...), f[off+16+14:off+16+n]...)
		off += 16 + n
	}
	if _, _, ok := new(fastDecoder).decode(raw[24+16:], layers.LinkTypeRaw); ok {
		t.Fatal("the fast decoder takes raw IP: the test no longer covers the other path")
	}
	want, h := collect()
	if _, err := ReadStreams(bytes.NewReader(f), nil, h); err != nil {
		t.Fatal(err)
	}
	got, h := collect()
	st, err := ReadStreams(bytes.NewReader(raw), nil, h)
	if err != nil || st.TCP != 20 {
		t.Fatalf("raw IP: %+v, %v", st, err)
	}
	if !slices.Equal(got.events, want.events) || got.get(1, ClientToServer) != want.get(1, ClientToServer) || got.get(2, ServerToClient) != want.get(2, ServerToClient) {
		t.Errorf("raw IP: events %q, want %q", got.events, want.events)
	}
}

// BenchmarkCaptureServeCallDecode reads the real tcpdump capture and reassembles its streams.
func BenchmarkCaptureServeCallDecode(b *testing.B) {
	f, err := os.ReadFile("testdata/serve-call.pcap")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(f)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadStreams(bytes.NewReader(f), nil, func(*Event) {}); err != nil {
			b.Fatal(err)
		}
	}
}
