package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// tcpdumpRun is a tcpdump capturing on lo into a file until it has count packets.
type tcpdumpRun struct {
	file string
	cmd  *exec.Cmd
	log  *strings.Builder
	done chan struct{}
}

// startTcpdump starts tcpdump on the loopback interface, writing into a new file the first
// count packets that filter selects (tcpdump's -c: it exits by itself once it has them, so
// waiting for it is waiting for the packets). It skips the test without tcpdump or without
// the privilege to capture, and fails then under CI=true.
func startTcpdump(t *testing.T, name string, count int, filter string, extra ...string) *tcpdumpRun {
	t.Helper()
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tcpdump is not installed (apt-get install tcpdump)")
		}
		t.Skip("tcpdump is not installed: skipping the real capture test (apt-get install tcpdump)")
	}
	r := &tcpdumpRun{file: filepath.Join(t.TempDir(), name), log: new(strings.Builder), done: make(chan struct{})}
	// -Z root keeps the privileges so that tcpdump may write into the test's directory; -B
	// 16 MiB holds a burst of loopback packets; -U writes each packet as it comes.
	args := append([]string{"-i", "lo", "-w", r.file, "-Z", "root", "-B", "16384", "-U", "-c", fmt.Sprint(count),
		"--time-stamp-precision=nano"}, extra...)
	r.cmd = exec.Command(tcpdump, append(args, filter)...)
	stderr, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan bool, 1)
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			r.log.WriteString(sc.Text() + "\n")
			if !said && strings.Contains(sc.Text(), "listening on") {
				said = true
				listening <- true
			}
		}
		if !said {
			listening <- false
		}
	}()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.done
		r.cmd.Wait()
	})
	if !<-listening {
		<-r.done
		r.cmd.Wait()
		msg := "tcpdump cannot capture on lo: " + r.log.String()
		if os.Getenv("CI") == "true" || os.Geteuid() == 0 {
			t.Fatal(msg)
		}
		t.Skip(msg + " (capturing needs root or CAP_NET_RAW)")
	}
	return r
}

// wait waits for tcpdump to exit (it has its packets) and returns the capture.
func (r *tcpdumpRun) wait(t *testing.T) []byte {
	t.Helper()
	exited := make(chan error, 1)
	go func() { <-r.done; exited <- r.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("tcpdump: %v\n%s", err, r.log)
		}
	case <-time.After(30 * time.Second):
		r.cmd.Process.Kill()
		t.Fatalf("tcpdump did not get its packets in 30 s:\n%s", r.log)
	}
	b, err := os.ReadFile(r.file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// udpPair opens an echo server on network ("udp4" on 127.0.0.1, "udp6" on ::1) and a client
// socket connected to it, and returns the client and the endpoints.
func udpPair(t *testing.T, network string) (c net.Conn, client, server netip.AddrPort) {
	t.Helper()
	host := "127.0.0.1"
	if network == "udp6" {
		host = "::1"
	}
	srv, err := net.ListenPacket(network, net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("no %s loopback: %v", network, err)
	}
	t.Cleanup(func() { srv.Close() })
	go func() {
		buf := make([]byte, 65536)
		for {
			n, from, err := srv.ReadFrom(buf)
			if err != nil {
				return
			}
			srv.WriteTo(buf[:n], from)
		}
	}()
	c, err = net.Dial(network, srv.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, c.LocalAddr().(*net.UDPAddr).AddrPort(), srv.LocalAddr().(*net.UDPAddr).AddrPort()
}

// udpExchange sends each payload on c and waits for its echo.
func udpExchange(t *testing.T, c net.Conn, payloads [][]byte) {
	t.Helper()
	buf := make([]byte, 65536)
	for i, p := range payloads {
		if _, err := c.Write(p); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := c.Read(buf)
		if err != nil || !bytes.Equal(buf[:n], p) {
			t.Fatalf("echo %d: %v", i, err)
		}
	}
}

func udpPayloads() [][]byte {
	var ps [][]byte
	for i, n := range []int{0, 1, 4, 28, 100, 548, 1400, 1472, 4000, 9000} {
		p := make([]byte, n)
		for j := range p {
			p[j] = byte(i*31 + j)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestReadDatagramsTcpdump: real tcpdump captures of UDP echo traffic on loopback, over IPv4
// and IPv6, read back datagram by datagram: every payload in order, with its direction,
// endpoints and flow, and time stamps that do not go back. A second tcpdump with -s 60 on the
// same traffic gives the same datagrams cut short, each saying how many bytes it misses.
func TestReadDatagramsTcpdump(t *testing.T) {
	payloads := udpPayloads()
	for _, network := range []string{"udp4", "udp6"} {
		t.Run(network, func(t *testing.T) {
			c, client, server := udpPair(t, network)
			filter := fmt.Sprintf("udp port %d and udp port %d", client.Port(), server.Port())
			full := startTcpdump(t, "full.pcap", 2*len(payloads), filter)
			cut := startTcpdump(t, "cut.pcap", 2*len(payloads), filter, "-s", "60")
			udpExchange(t, c, payloads)
			checkDatagrams(t, full.wait(t), client, server, payloads, 0)
			checkDatagrams(t, cut.wait(t), client, server, payloads, 60)
		})
	}
}

// checkDatagrams reads a capture of udpExchange: every payload goes there and back.
func checkDatagrams(t *testing.T, capFile []byte, client, server netip.AddrPort, payloads [][]byte, snaplen int) {
	t.Helper()
	dr := ReadDatagrams(bytes.NewReader(capFile), nil)
	var got []*Datagram
	var last time.Time
	for d, err := range dr.All() {
		if err != nil {
			t.Fatal(err)
		}
		if d.Time.Before(last) {
			t.Errorf("datagram %d: time %v before %v", d.Packet, d.Time, last)
		}
		last = d.Time
		c := *d
		c.Data = bytes.Clone(d.Data)
		got = append(got, &c)
	}
	if len(got) != 2*len(payloads) {
		t.Fatalf("%d datagrams, want %d", len(got), 2*len(payloads))
	}
	st := dr.Stats()
	if st.Flows != 1 || st.UDP != len(got) || st.Packets != len(got) {
		t.Errorf("stats %+v", st)
	}
	missing := 0
	for i, d := range got {
		p := payloads[i/2]
		dir, src, dst := ClientToServer, client, server
		if i%2 == 1 {
			dir, src, dst = ServerToClient, server, client
		}
		if d.Dir != dir || d.Src != src || d.Dst != dst || d.Flow.ID != 1 || d.Flow.Client != client || d.Flow.Server != server {
			t.Errorf("datagram %d: %s %s → %s, flow %s; want %s %s → %s", i, d.Dir, d.Src, d.Dst, d.Flow, dir, src, dst)
		}
		if d.Length != len(p) {
			t.Errorf("datagram %d: length %d, want %d", i, d.Length, len(p))
		}
		want := p
		if snaplen > 0 {
			want = p[:max(min(len(p), snaplen-hdrLen(client)), 0)]
		}
		if !bytes.Equal(d.Data, want) {
			t.Errorf("datagram %d: %d bytes captured, want %d", i, len(d.Data), len(want))
		}
		if d.Missing() != len(p)-len(want) {
			t.Errorf("datagram %d: Missing %d, want %d", i, d.Missing(), len(p)-len(want))
		}
		if snaplen > 0 && hdrLen(client)+len(p) > snaplen {
			missing++ // the record is cut, if only in the UDP header
		}
	}
	if st.Truncated != missing || (snaplen == 0) != (missing == 0) {
		t.Errorf("%d truncated datagrams in the stats, %d found (snaplen %d)", st.Truncated, missing, snaplen)
	}
}

// hdrLen is the length of the headers before a UDP payload on lo: Ethernet (14), IP (20 or
// 40) and UDP (8).
func hdrLen(a netip.AddrPort) int {
	if a.Addr().Is6() {
		return 14 + 40 + 8
	}
	return 14 + 20 + 8
}

// udpPacket builds an Ethernet/IPv4/UDP packet.
func udpPacket(t testing.TB, src, dst netip.AddrPort, payload []byte) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
	udp := &layers.UDP{SrcPort: layers.UDPPort(src.Port()), DstPort: layers.UDPPort(dst.Port())}
	udp.SetNetworkLayerForChecksum(ip)
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, udp, gopacket.Payload(payload)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeUDPCapture(t testing.TB, pkts [][]byte) []byte {
	t.Helper()
	times := make([]time.Time, len(pkts))
	for i := range times {
		times[i] = time.Unix(1700000000, int64(i)*1000)
	}
	return capturedAt(t, pkts, times)
}

// TestReadDatagramsFlows: datagrams of several flows, interleaved, with TCP and a port filter;
// MaxFlows forgets the flow seen least recently; a capture cut short ends with an *Error after
// the datagrams before the cut.
func TestReadDatagramsFlows(t *testing.T) {
	a := netip.MustParseAddrPort("10.0.0.1:5000")
	b := netip.MustParseAddrPort("10.0.0.2:7777")
	c := netip.MustParseAddrPort("10.0.0.3:5001")
	pkts := [][]byte{
		udpPacket(t, a, b, []byte("a1")),
		udpPacket(t, b, c, []byte("b1")), // the server speaks first to c: c is the server of flow 2, unless Ports says otherwise
		udpPacket(t, b, a, []byte("b2")),
		udpPacket(t, c, b, []byte("c1")),
	}
	pkts = append(pkts, []byte{}) // an empty packet: skipped
	in := writeUDPCapture(t, pkts)
	var lines []string
	dr := ReadDatagrams(bytes.NewReader(in), nil)
	for d, err := range dr.All() {
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("%d %s %s %q", d.Flow.ID, d.Dir, d.Src, d.Data))
	}
	want := []string{
		`1 client→server 10.0.0.1:5000 "a1"`,
		`2 client→server 10.0.0.2:7777 "b1"`,
		`1 server→client 10.0.0.2:7777 "b2"`,
		`2 server→client 10.0.0.3:5001 "c1"`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if st := dr.Stats(); st.UDP != 4 || st.Flows != 2 || st.Skipped != 1 {
		t.Errorf("stats %+v", st)
	}

	// The port filter, which also says who the server is.
	lines = nil
	for d, err := range ReadDatagrams(bytes.NewReader(in), &Options{Ports: []uint16{7777}}).All() {
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("%d %s %s", d.Flow.ID, d.Dir, d.Flow.Server))
	}
	if got := strings.Join(lines, "; "); got != "1 client→server 10.0.0.2:7777; 2 server→client 10.0.0.2:7777; 1 server→client 10.0.0.2:7777; 2 client→server 10.0.0.2:7777" {
		t.Errorf("with Ports: %s", got)
	}

	// MaxFlows 1: every change of flow forgets the other one.
	var ids []uint64
	for d, err := range ReadDatagrams(bytes.NewReader(in), &Options{MaxFlows: 1}).All() {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.Flow.ID)
	}
	if fmt.Sprint(ids) != "[1 2 3 4]" {
		t.Errorf("MaxFlows 1: flows %v", ids)
	}

	// Cut inside the third record: two datagrams, then an *Error at its offset.
	rec3 := 24 + 2*(16+len(pkts[0]))
	dr = ReadDatagrams(bytes.NewReader(in[:rec3+20]), nil)
	n := 0
	var ferr error
	for d, err := range dr.All() {
		if err != nil {
			ferr = err
			break
		}
		_ = d
		n++
	}
	var ce *Error
	if n != 2 || !errors.As(ferr, &ce) || ce.Packet != 3 || ce.Offset != int64(rec3) {
		t.Errorf("cut capture: %d datagrams, %v", n, ferr)
	}
	if _, err := dr.Next(); err != ferr {
		t.Errorf("Next after the error: %v", err)
	}
	// Not a capture at all.
	if _, err := ReadDatagrams(strings.NewReader("hello"), nil).Next(); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("not a capture: %v", err)
	}
	if _, err := ReadDatagrams(bytes.NewReader(nil), nil).Next(); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("empty: %v", err)
	}
}

// TestReadDatagramsRealCapture reads testdata/udp-echo.pcap (tcpdump on lo, see
// testdata/README.md): five payloads there and back, and the same from its pcapng form.
func TestReadDatagramsRealCapture(t *testing.T) {
	f, err := os.ReadFile("testdata/udp-echo.pcap")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{{}, {1}, []byte("hello"), make([]byte, 100), make([]byte, 1400)}
	for i := range want[3] {
		want[3][i] = byte(i)
	}
	for _, in := range [][]byte{f, toPcapNG(t, f)} {
		dr := ReadDatagrams(bytes.NewReader(in), nil)
		i := 0
		for d, err := range dr.All() {
			if err != nil {
				t.Fatal(err)
			}
			dir := Direction(i % 2)
			if i >= 2*len(want) || !bytes.Equal(d.Data, want[i/2]) || d.Dir != dir || d.Flow.ID != 1 || d.Missing() != 0 {
				t.Fatalf("datagram %d: %s %d bytes, flow %s", i, d.Dir, len(d.Data), d.Flow)
			}
			i++
		}
		if st := dr.Stats(); i != 10 || st.Flows != 1 || st.Skipped != 0 {
			t.Errorf("%d datagrams, stats %+v", i, st)
		}
	}
}

// TestReadDatagramsRawIP: the real capture rewritten with link type raw IP (101), which the
// fast path leaves to gopacket, reads the same datagrams.
func TestReadDatagramsRawIP(t *testing.T) {
	f, err := os.ReadFile("testdata/udp-echo.pcap")
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
	read := func(in []byte) []string {
		var out []string
		for d, err := range ReadDatagrams(bytes.NewReader(in), nil).All() {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d %s %s %s %x", d.Flow.ID, d.Dir, d.Src, d.Dst, d.Data))
		}
		return out
	}
	want, got := read(f), read(raw)
	if len(want) != 10 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("raw IP:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// BenchmarkCaptureUDPEchoDecode reads the real UDP capture's 10 datagrams 100 times over (one
// capture of 1 000 datagrams) datagram by datagram, beside the yardstick: gopacket.NewPacket
// on each packet record (what a program without this package would write).
func BenchmarkCaptureUDPEchoDecode(b *testing.B) {
	real, err := os.ReadFile("testdata/udp-echo.pcap")
	if err != nil {
		b.Fatal(err)
	}
	r, err := pcapgo.NewReader(bytes.NewReader(real))
	if err != nil {
		b.Fatal(err)
	}
	var pkts [][]byte
	var cis []gopacket.CaptureInfo
	for {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		pkts, cis = append(pkts, data), append(cis, ci)
	}
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	w.WriteFileHeader(262144, layers.LinkTypeEthernet)
	for i := range 100 {
		for j, p := range pkts {
			ci := cis[j]
			ci.Timestamp = ci.Timestamp.Add(time.Duration(i) * time.Millisecond)
			w.WritePacket(ci, p)
		}
	}
	f := buf.Bytes()
	const want = 1000
	b.Run("ReadDatagrams", func(b *testing.B) {
		b.SetBytes(int64(len(f)))
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, err := range ReadDatagrams(bytes.NewReader(f), nil).All() {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != want {
				b.Fatal(n)
			}
		}
	})
	b.Run("yardstick=gopacket.NewPacket", func(b *testing.B) {
		b.SetBytes(int64(len(f)))
		b.ReportAllocs()
		for b.Loop() {
			r, err := pcapgo.NewReader(bytes.NewReader(f))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				data, _, err := r.ReadPacketData()
				if err != nil {
					break
				}
				p := gopacket.NewPacket(data, r.LinkType(), gopacket.DecodeOptions{NoCopy: true})
				if u, _ := p.Layer(layers.LayerTypeUDP).(*layers.UDP); u != nil {
					n++
				}
			}
			if n != want {
				b.Fatal(n)
			}
		}
	})
}
