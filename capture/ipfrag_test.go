package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// fragmentUDP returns the Ethernet packets of a UDP datagram from src to dst sent in IP
// fragments of size payload bytes (a multiple of 8; the last one shorter), in order, with
// identification id.
func fragmentUDP(t testing.TB, src, dst netip.AddrPort, id uint32, payload []byte, size int) [][]byte {
	t.Helper()
	dgram := binary.BigEndian.AppendUint16(nil, src.Port())
	dgram = binary.BigEndian.AppendUint16(dgram, dst.Port())
	dgram = binary.BigEndian.AppendUint16(dgram, uint16(8+len(payload)))
	dgram = append(dgram, 0, 0) // no checksum
	dgram = append(dgram, payload...)
	var pkts [][]byte
	for off := 0; off < len(dgram); off += size {
		chunk := dgram[off:min(off+size, len(dgram))]
		more := off+size < len(dgram)
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 2}}
		var ip gopacket.SerializableLayer
		if src.Addr().Is4() {
			eth.EthernetType = layers.EthernetTypeIPv4
			ip4 := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, Id: uint16(id),
				FragOffset: uint16(off / 8), SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
			if more {
				ip4.Flags = layers.IPv4MoreFragments
			}
			ip = ip4
		} else {
			eth.EthernetType = layers.EthernetTypeIPv6
			ip = &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolIPv6Fragment,
				SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
			fo := uint16(off)
			if more {
				fo |= 1
			}
			hdr := []byte{byte(layers.IPProtocolUDP), 0}
			hdr = binary.BigEndian.AppendUint16(hdr, fo)
			hdr = binary.BigEndian.AppendUint32(hdr, id)
			chunk = append(hdr, chunk...)
		}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, gopacket.Payload(chunk)); err != nil {
			t.Fatal(err)
		}
		pkts = append(pkts, bytes.Clone(buf.Bytes()))
	}
	return pkts
}

// capturedAt writes packets as a pcap with the given capture times.
func capturedAt(t testing.TB, pkts [][]byte, times []time.Time) []byte {
	t.Helper()
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for i, p := range pkts {
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: times[i], CaptureLength: len(p), Length: len(p)}, p); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// readAll reads every datagram of a capture, with copies of their data.
func readAll(t *testing.T, in []byte, opts *Options) ([]Datagram, Stats) {
	t.Helper()
	dr := ReadDatagrams(bytes.NewReader(in), opts)
	var got []Datagram
	for d, err := range dr.All() {
		if err != nil {
			t.Fatal(err)
		}
		c := *d
		c.Data = bytes.Clone(d.Data)
		got = append(got, c)
	}
	return got, dr.Stats()
}

func pattern(n, seed int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*7 + seed)
	}
	return p
}

// TestReadDatagramsFragments: datagrams in IP fragments over IPv4 and IPv6 — in order, out of
// order, interleaved with each other and with whole datagrams, a fragment captured twice — are
// returned once each, whole, with the record that completed them, in the order they completed.
func TestReadDatagramsFragments(t *testing.T) {
	c4, s4 := netip.MustParseAddrPort("10.0.0.1:5000"), netip.MustParseAddrPort("10.0.0.2:7777")
	c6, s6 := netip.MustParseAddrPort("[fd00::1]:5000"), netip.MustParseAddrPort("[fd00::2]:7777")
	a := pattern(4000, 1)  // 3 fragments of 1 480
	b := pattern(65507, 2) // the largest UDP payload over IPv4: 45 fragments
	c := pattern(3000, 3)  // over IPv6: 3 fragments of 1 448
	fa := fragmentUDP(t, c4, s4, 1, a, 1480)
	fb := fragmentUDP(t, s4, c4, 2, b, 1480)
	fc := fragmentUDP(t, c6, s6, 3, c, 1448)
	if len(fa) != 3 || len(fb) != 45 || len(fc) != 3 {
		t.Fatalf("%d, %d, %d fragments", len(fa), len(fb), len(fc))
	}
	var pkts [][]byte
	pkts = append(pkts, fa[2], fa[0])                      // a: last first
	pkts = append(pkts, fb[:20]...)                        // b: the first 20
	pkts = append(pkts, udpPacket(t, c4, s4, []byte("x"))) // a whole datagram between
	pkts = append(pkts, fc[1], fa[0], fa[1])               // a's first again (a duplicate), then its middle: a complete
	pkts = append(pkts, fb[20:]...)                        // b complete
	pkts = append(pkts, fc[2], fc[0])                      // c complete
	times := make([]time.Time, len(pkts))
	for i := range times {
		times[i] = time.Unix(1700000000, int64(i)*int64(time.Millisecond))
	}
	got, st := readAll(t, capturedAt(t, pkts, times), nil)
	want := []struct {
		data      []byte
		src, dst  netip.AddrPort
		packet    int
		fragments int
	}{
		{[]byte("x"), c4, s4, 23, 0},
		{a, c4, s4, 26, 3},
		{b, s4, c4, 51, 45},
		{c, c6, s6, 53, 3},
	}
	if len(got) != len(want) {
		t.Fatalf("%d datagrams, want %d", len(got), len(want))
	}
	for i, w := range want {
		d := got[i]
		if !bytes.Equal(d.Data, w.data) || d.Length != len(w.data) || d.Src != w.src || d.Dst != w.dst ||
			d.Packet != w.packet || d.Fragments != w.fragments || !d.Time.Equal(times[w.packet-1]) {
			t.Errorf("datagram %d: %d bytes (length %d) %s → %s, packet %d, %d fragments; want %d bytes %s → %s, packet %d, %d fragments",
				i, len(d.Data), d.Length, d.Src, d.Dst, d.Packet, d.Fragments, len(w.data), w.src, w.dst, w.packet, w.fragments)
		}
	}
	if got[1].Flow != got[2].Flow || got[1].Dir != ClientToServer || got[2].Dir != ServerToClient {
		t.Errorf("a and b: flows %s %s, %s %s", got[1].Flow, got[1].Dir, got[2].Flow, got[2].Dir)
	}
	if st.Packets != len(pkts) || st.UDP != 4 || st.Skipped != 0 || st.Fragments != 52 || st.LostFragments != 0 || st.Truncated != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestReadDatagramsFragmentsLost: fragments that cannot make a datagram are dropped and
// counted, and do not keep the others from completing: overlapping fragments, a datagram
// whose first fragment came longer than ReorderTimeout before, fragments still missing at
// the end of the capture, and the oldest incomplete datagrams once MaxBufferedBytes is held.
func TestReadDatagramsFragmentsLost(t *testing.T) {
	c, s := netip.MustParseAddrPort("10.0.0.1:5000"), netip.MustParseAddrPort("10.0.0.2:7777")
	t0 := time.Unix(1700000000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }

	t.Run("overlap", func(t *testing.T) {
		f := fragmentUDP(t, c, s, 1, pattern(4000, 1), 1480)
		g := fragmentUDP(t, c, s, 1, pattern(4000, 1), 1000) // the same id, cut elsewhere
		ok := fragmentUDP(t, c, s, 2, pattern(2000, 2), 1480)
		got, st := readAll(t, capturedAt(t, [][]byte{f[0], g[1], f[1], f[2], ok[0], ok[1]},
			[]time.Time{at(0), at(1), at(2), at(3), at(4), at(5)}), nil)
		// f[0] and g[1] overlap: both go; f[1] and f[2] then wait for a first fragment that
		// never comes.
		if len(got) != 1 || !bytes.Equal(got[0].Data, pattern(2000, 2)) || st.LostFragments != 4 || st.Fragments != 6 {
			t.Errorf("%d datagrams, stats %+v", len(got), st)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		f := fragmentUDP(t, c, s, 1, pattern(4000, 1), 1480)
		got, st := readAll(t, capturedAt(t, f, []time.Time{at(0), at(time.Second), at(12 * time.Second)}), nil)
		if len(got) != 0 || st.LostFragments != 3 {
			t.Errorf("%d datagrams after 12 s (ReorderTimeout 10 s), stats %+v", len(got), st)
		}
		got, _ = readAll(t, capturedAt(t, f, []time.Time{at(0), at(time.Second), at(12 * time.Second)}), &Options{ReorderTimeout: time.Minute})
		if len(got) != 1 {
			t.Errorf("%d datagrams after 12 s with ReorderTimeout 1 min", len(got))
		}
	})
	t.Run("budget", func(t *testing.T) {
		// 100 datagrams each missing their last fragment, then one whole: with room for about
		// six fragments, the old ones go and the last one still completes.
		var pkts [][]byte
		for id := range 100 {
			pkts = append(pkts, fragmentUDP(t, c, s, uint32(id), pattern(4000, id), 1480)[:2]...)
		}
		pkts = append(pkts, fragmentUDP(t, c, s, 1000, pattern(4000, 7), 1480)...)
		times := make([]time.Time, len(pkts))
		for i := range times {
			times[i] = at(time.Duration(i) * time.Millisecond)
		}
		opts := &Options{MaxBufferedBytes: 6 * (1480 + fragPieceCost)}
		dr := ReadDatagrams(bytes.NewReader(capturedAt(t, pkts, times)), opts)
		var got []Datagram
		for d, err := range dr.All() {
			if err != nil {
				t.Fatal(err)
			}
			if dr.frag.held > opts.MaxBufferedBytes {
				t.Fatalf("%d bytes held, MaxBufferedBytes %d", dr.frag.held, opts.MaxBufferedBytes)
			}
			got = append(got, *d)
		}
		st := dr.Stats()
		if len(got) != 1 || got[0].Fragments != 3 || st.LostFragments != 200 || st.Fragments != 203 {
			t.Errorf("%d datagrams, stats %+v", len(got), st)
		}
	})
	t.Run("end", func(t *testing.T) {
		f := fragmentUDP(t, c, s, 1, pattern(4000, 1), 1480)
		got, st := readAll(t, capturedAt(t, f[:2], []time.Time{at(0), at(1)}), nil)
		if len(got) != 0 || st.LostFragments != 2 || st.Fragments != 2 || st.Packets != 2 || st.Skipped != 0 {
			t.Errorf("%d datagrams, stats %+v", len(got), st)
		}
	})
}

// TestReadDatagramsFragmentsBounded: a capture of 200 000 first fragments, each of a datagram
// of its own that never completes (what a hostile capture, or a flood, looks like), holds
// at most MaxBufferedBytes, and its bookkeeping stays within a small multiple of what it holds.
func TestReadDatagramsFragmentsBounded(t *testing.T) {
	c, s := netip.MustParseAddrPort("10.0.0.1:5000"), netip.MustParseAddrPort("10.0.0.2:7777")
	first := fragmentUDP(t, c, s, 0, pattern(100, 1), 16)[0]
	var capFile bytes.Buffer
	w := pcapgo.NewWriter(&capFile)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	const n = 200000
	t0 := time.Unix(1700000000, 0)
	for i := range n {
		binary.BigEndian.PutUint16(first[14+4:], uint16(i)) // the IPv4 identification
		first[14+12] = byte(i >> 16)                        // and the source address: ids repeat
		w.WritePacket(gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * time.Microsecond), CaptureLength: len(first), Length: len(first)}, first)
	}
	const budget = 1 << 20
	dr := ReadDatagrams(bytes.NewReader(capFile.Bytes()), &Options{MaxBufferedBytes: budget})
	for {
		if _, err := dr.Next(); err != nil {
			break
		}
	}
	st := dr.Stats()
	if dr.frag.held > budget || len(dr.frag.entries) > budget/fragPieceCost || len(dr.frag.order) > 2*len(dr.frag.entries)+65 {
		t.Errorf("held %d bytes in %d datagrams, %d places in order", dr.frag.held, len(dr.frag.entries), len(dr.frag.order))
	}
	if st.Fragments != n || st.LostFragments != n || st.UDP != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestReadDatagramsFragmentsTcpdump: real tcpdump captures of UDP datagrams that the kernel
// sends in IP fragments (a network namespace of its own, whose loopback has an MTU of 1 500
// bytes): IPv4 and IPv6, up to 65 507 bytes, echoed back, read back whole; a second tcpdump
// with -s 200 gives the same datagrams cut after their first fragment's captured bytes.
func TestReadDatagramsFragmentsTcpdump(t *testing.T) {
	if os.Getenv("GAMEWIRE_TEST_NETNS") != "1" {
		runInNetns(t)
		return
	}
	if out, err := exec.Command("ip", "link", "set", "lo", "up", "mtu", "1500").CombinedOutput(); err != nil {
		t.Fatalf("ip link set lo up mtu 1500: %v\n%s", err, out)
	}
	payloads := [][]byte{pattern(100, 1), pattern(1472, 2), pattern(1473, 3), pattern(4000, 4), pattern(9000, 5), pattern(65507, 6)}
	for _, network := range []string{"udp4", "udp6"} {
		t.Run(network, func(t *testing.T) {
			ps := payloads
			ip, frag := 20, 1480 // header and fragment payload bytes over an MTU of 1 500
			if network == "udp6" {
				ps = ps[:len(ps)-1] // the 65 507-byte datagram once, over IPv4
				ip, frag = 40, 1448
			}
			packets := 0
			for _, p := range ps {
				if 8+len(p) <= 1500-ip {
					packets += 2
				} else {
					packets += 2 * ((8 + len(p) + frag - 1) / frag)
				}
			}
			c, client, server := udpPair(t, network)
			full := startTcpdump(t, "full.pcap", packets, "ip or ip6")
			cut := startTcpdump(t, "cut.pcap", packets, "ip or ip6", "-s", "200")
			udpExchange(t, c, ps)
			caps := map[int][]byte{0: full.wait(t), 200: cut.wait(t)}
			for _, snaplen := range []int{0, 200} {
				capFile := caps[snaplen]
				got, st := readAll(t, capFile, nil)
				if len(got) != 2*len(ps) || st.Packets != packets || st.LostFragments != 0 {
					t.Fatalf("snaplen %d: %d datagrams, want %d; stats %+v", snaplen, len(got), 2*len(ps), st)
				}
				for i, d := range got {
					p := ps[i/2]
					src, dst := client, server
					if i%2 == 1 {
						src, dst = server, client
					}
					fragments := 0
					if 8+len(p) > 1500-ip {
						fragments = (8 + len(p) + frag - 1) / frag
					}
					want := p
					if snaplen > 0 {
						hdr := 14 + ip + 8 // Ethernet, IP, UDP
						if fragments > 0 && network == "udp6" {
							hdr += 8 // the fragment header
						}
						want = p[:min(len(p), snaplen-hdr)]
					}
					if d.Src != src || d.Dst != dst || d.Length != len(p) || d.Fragments != fragments || !bytes.Equal(d.Data, want) {
						t.Errorf("snaplen %d, datagram %d: %s → %s, %d of %d bytes, %d fragments; want %s → %s, %d of %d bytes, %d fragments",
							snaplen, i, d.Src, d.Dst, len(d.Data), d.Length, d.Fragments, src, dst, len(want), len(p), fragments)
					}
				}
				t.Logf("snaplen %d: %d packets, %d datagrams, %d IP fragments, %d datagrams cut", snaplen, st.Packets, st.UDP, st.Fragments, st.Truncated)
			}
		})
	}
}

// runInNetns runs the calling test again in a network namespace of its own (unshare -n), where
// it may set the loopback's MTU without touching the machine's. It skips when namespaces
// cannot be made here (fails under CI=true).
func runInNetns(t *testing.T) {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err == nil {
		_, err = exec.LookPath("ip")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (apt-get install util-linux iproute2)", err)
		}
		t.Skipf("%v: skipping the IP fragment capture test (apt-get install util-linux iproute2)", err)
	}
	cmd := exec.Command(unshare, "-n", os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "GAMEWIRE_TEST_NETNS=1")
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil && strings.Contains(string(out), "unshare failed"):
		msg := fmt.Sprintf("cannot make a network namespace here: %s", bytes.TrimSpace(out))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (needs root or CAP_SYS_ADMIN)")
	case err != nil:
		t.Fatalf("in a network namespace: %v\n%s", err, out)
	case strings.Contains(string(out), "--- SKIP"):
		t.Skipf("in a network namespace:\n%s", out)
	}
	t.Logf("in a network namespace:\n%s", out)
}
