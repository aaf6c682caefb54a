package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/gamewire/gamewire/explain"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// startProxyCmd runs "gamewire gsf proxy" in front of upstream on a free loopback port and
// returns its address and a function that stops it and returns its exit status, output and
// log.
func startProxyCmd(t *testing.T, upstream string, args ...string) (string, func() (int, string, string)) {
	addr, stop, _ := startProxyCmdOut(t, upstream, args...)
	return addr, stop
}

// startProxyCmdOut is startProxyCmd that also returns the proxy's output as it grows.
func startProxyCmdOut(t *testing.T, upstream string, args ...string) (string, func() (int, string, string), *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { serveContext = old; cancel() })
	out, logs := new(lockedBuffer), new(lockedBuffer)
	code := make(chan int, 1)
	go func() {
		code <- run(append([]string{"gsf", "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream}, args...), strings.NewReader(""), out, logs)
	}()
	m, c, ok := logs.waitMatch(regexp.MustCompile(`listening" addr=(\S+)`), code, 10*time.Second)
	switch {
	case !ok && c >= 0:
		t.Fatalf("gamewire gsf proxy exited with %d:\n%s", c, logs.String())
	case !ok:
		t.Fatalf("gamewire gsf proxy does not listen:\n%s", logs.String())
	}
	return m[1], func() (int, string, string) {
		cancel()
		select {
		case c := <-code:
			return c, out.String(), logs.String()
		case <-time.After(20 * time.Second):
			t.Fatal("gamewire gsf proxy does not stop")
			return 0, "", ""
		}
	}, out
}

// demoCalls are "gamewire call" runs against the demo server: the protocol documentation's
// request, an echo, and one the server answers with an error.
var demoCalls = [][]string{
	{"--type", "GET_CLIENT_VERSION_INFO", "--values", `["AmazingWorld"]`},
	{"--class", "19", "--type", "23", "--values", `["ping"]`},
	{"--type", "check_username", "--values", `["admin", "secret"]`},
}

func TestProxyCommand(t *testing.T) {
	serveAddr, stopServe := startServe(t)
	addr, stop := startProxyCmd(t, serveAddr)
	for _, c := range demoCalls {
		out, errOut, code := runCLI(t, "", append([]string{"call", "--addr", addr}, c...)...)
		if code != 0 && !strings.Contains(out, "DUPLICATE_NICKNAME") {
			t.Fatalf("call %v through the proxy: exit %d: %s%s", c, code, out, errOut)
		}
	}
	code, out, logs := stop()
	if code != 0 {
		t.Fatalf("the proxy exited with %d: %s", code, logs)
	}
	for _, want := range []string{
		"client→server 127.0.0.1:",
		"  15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00\n",
		"  15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00\n",
		"    msgType        566 (GET_CLIENT_VERSION_INFO)\n",
		"    appCode        115 (DUPLICATE_NICKNAME)\n",
		" close client 127.0.0.1:",
		// Bodies decoded with the message catalog, as gsf decode does.
		`      ClientVersionInfo string "133852.true"`,
		`      ClientName string "AmazingWorld"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the proxy's output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, " frame 1, bytes 0–"); n != 2*len(demoCalls) {
		t.Errorf("%d frames printed, want %d:\n%s", n, 2*len(demoCalls), out)
	}

	// JSON Lines.
	addr, stop, jsonOut := startProxyCmdOut(t, serveAddr, "--json")
	if _, errOut, code := runCLI(t, "", append([]string{"call", "--addr", addr}, demoCalls[0]...)...); code != 0 {
		t.Fatal(errOut)
	}
	// The proxy prints the connection's close once it has seen it: stopping it before would race
	// with the records still on their way.
	if _, _, ok := jsonOut.waitMatch(regexp.MustCompile(`"kind":"close"`), nil, 10*time.Second); !ok {
		t.Errorf("no close record:\n%s", jsonOut.String())
	}
	code, out, logs = stop()
	if code != 0 {
		t.Fatalf("the proxy exited with %d: %s", code, logs)
	}
	kinds := checkJSONLines(t, out)
	if kinds != "open frame frame close" {
		t.Errorf("records %q:\n%s", kinds, out)
	}
	stopServe()
}

// checkJSONLines checks that every line is a JSON object with a kind, time and connection,
// and returns the kinds.
func checkJSONLines(t *testing.T, out string) string {
	t.Helper()
	var kinds []string
	for line := range strings.Lines(out) {
		var r struct {
			Kind  string          `json:"kind"`
			Time  time.Time       `json:"time"`
			Conn  uint64          `json:"conn"`
			Dir   string          `json:"dir"`
			Frame json.RawMessage `json:"frame"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if r.Time.IsZero() || r.Conn == 0 || (r.Kind == "frame" && (r.Dir == "" || len(r.Frame) == 0)) {
			t.Errorf("incomplete record: %s", line)
		}
		kinds = append(kinds, r.Kind)
	}
	return strings.Join(kinds, " ")
}

// TestCaptureServeCall captures the loopback traffic of "gamewire serve" and "gamewire call"
// (directly, and through "gamewire gsf proxy") with the real tcpdump, then decodes the capture
// with "gamewire gsf decode" and finds every request and response.
func TestCaptureServeCall(t *testing.T) {
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tcpdump is not installed (apt-get install tcpdump)")
		}
		t.Skip("tcpdump is not installed: skipping the real capture test (apt-get install tcpdump)")
	}
	serveAddr, stopServe := startServe(t)
	proxyAddr, stopProxy := startProxyCmd(t, serveAddr)
	_, servePort, _ := net.SplitHostPort(serveAddr)
	_, proxyPort, _ := net.SplitHostPort(proxyAddr)

	file := filepath.Join(t.TempDir(), "serve-call.pcap")
	// -Z root: keep the privileges, so that tcpdump may write into the test's directory.
	// Not --immediate-mode: with it, libpcap's ring holds a few packets of the full snap
	// length, and a burst of loopback packets overflows it; the default ring with -B 16 MiB
	// holds them all, and -U writes each packet once tcpdump has it. --print -l also prints
	// each packet, a line at a time: the test counts the FINs there.
	cmd := exec.Command(tcpdump, "-i", "lo", "-w", file, "-Z", "root", "-B", "16384", "-U", "--print", "-l", "-n",
		"--time-stamp-precision=nano", "tcp port "+servePort+" or tcp port "+proxyPort)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	fins := make(chan struct{}, 1000) // a FIN packet went through tcpdump
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Flags [F") {
				fins <- struct{}{}
			}
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	listening := make(chan string, 1)
	logDone := make(chan struct{})
	var tdLog strings.Builder // written by the goroutine below until logDone is closed
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			tdLog.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "listening on") {
				listening <- sc.Text()
			}
		}
		close(listening)
	}()
	waited := false
	t.Cleanup(func() {
		if !waited { // the test failed before it stopped tcpdump
			cmd.Process.Kill()
			<-logDone
			cmd.Wait()
		}
	})
	if _, ok := <-listening; !ok {
		waited = true
		<-logDone
		cmd.Wait()
		msg := "tcpdump cannot capture on lo: " + tdLog.String()
		if os.Getenv("CI") == "true" || os.Geteuid() == 0 {
			t.Fatal(msg)
		}
		t.Skip(msg + " (capturing needs root or CAP_NET_RAW)")
	}
	for _, addr := range []string{serveAddr, proxyAddr} {
		for _, c := range demoCalls {
			out, errOut, code := runCLI(t, "", append([]string{"call", "--addr", addr}, c...)...)
			if code != 0 && !strings.Contains(out, "DUPLICATE_NICKNAME") {
				t.Fatalf("call %v: exit %d: %s%s", c, code, out, errOut)
			}
		}
	}
	stopProxy()
	stopServe()
	// Every call appears twice through the proxy (client → proxy, proxy → server) and once
	// directly: 3 connections per call, each with its request and its response and a FIN
	// each way. tcpdump writes the packets as it reads them, and prints them: once it has
	// printed every FIN, the packets that matter are in (SIGTERM makes it flush the file).
	wantConns := 3 * len(demoCalls)
	timeout := time.After(20 * time.Second)
	for n := 0; n < 2*wantConns; n++ {
		select {
		case <-fins:
		case <-timeout:
			t.Errorf("tcpdump printed %d FINs of %d in 20 s", n, 2*wantConns)
			n = 2 * wantConns
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	waited = true
	<-logDone // tcpdump closes its stderr when it exits
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tcpdump: %v\n%s", err, tdLog.String())
	}
	t.Logf("tcpdump: %s", strings.TrimSpace(tdLog.String()))

	out, errOut, code := runCLI(t, "", "gsf", "decode", file)
	if code != 0 {
		t.Fatalf("gsf decode: exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"  15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00\n",
		"  15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00\n",
		"    appCode        115 (DUPLICATE_NICKNAME)\n",
		`      ClientVersionInfo string "133852.true"`,
		", 0 problems\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the decoded capture lacks %q:\n%s", want, out)
		}
	}
	requests := strings.Count(out, "), request\n")
	responses := strings.Count(out, "), response\n")
	if requests != wantConns || responses != wantConns {
		t.Errorf("%d requests and %d responses, want %d of each:\n%s", requests, responses, wantConns, out)
	}
	// With the server's port only: the direct calls and the proxy's upstream legs.
	out, _, code = runCLI(t, "", "gsf", "decode", "--port", servePort, file)
	if code != 0 || strings.Count(out, "), request\n") != 2*len(demoCalls) {
		t.Errorf("--port %s: exit %d:\n%s", servePort, code, out)
	}
	// JSON Lines: every request has its response, matched by connection and request id.
	out, _, code = runCLI(t, "", "gsf", "decode", "--json", file)
	if code != 0 {
		t.Fatalf("gsf decode --json: exit %d", code)
	}
	checkJSONLines(t, out)
	type key struct {
		conn uint64
		id   int32
	}
	pending := map[key]bool{}
	var answered int
	for line := range strings.Lines(out) {
		var r struct {
			Kind  string        `json:"kind"`
			Conn  uint64        `json:"conn"`
			Dir   string        `json:"dir"`
			Frame explain.Frame `json:"frame"`
		}
		json.Unmarshal([]byte(line), &r)
		if r.Kind != "frame" {
			continue
		}
		header := map[string]int32{}
		for _, f := range r.Frame.Fields {
			if v, ok := f.Value.(float64); ok {
				header[f.Name] = int32(v)
			}
		}
		k := key{r.Conn, header["requestId"]}
		switch {
		case r.Dir == "c2s" && header["flags"]&1 == 0:
			pending[k] = true
		case r.Dir == "s2c" && header["flags"]&1 == 1 && pending[k]:
			delete(pending, k)
			answered++
		default:
			t.Errorf("unexpected frame: %s", line)
		}
	}
	if answered != wantConns || len(pending) != 0 {
		t.Errorf("%d requests answered, %d not", answered, len(pending))
	}
}

// TestDecodeCaptureFile: gsf decode and explain read the capture in testdata; a truncated or
// damaged capture prints what could be read and fails with the packet and offset.
func TestDecodeCaptureFile(t *testing.T) {
	const file = "../../capture/testdata/serve-call.pcap"
	out, errOut, code := runCLI(t, "", "gsf", "explain", file)
	if code != 0 || !strings.Contains(out, "       31    16    bits                 msgType: msgType = 566 (GET_CLIENT_VERSION_INFO)  [0000001000110110]\n") {
		t.Errorf("explain: exit %d %s\n%s", code, errOut, out)
	}
	// A real pcapng file (Wireshark's dumpcap).
	out, errOut, code = runCLI(t, "", "gsf", "decode", "../../capture/testdata/serve-call-dumpcap.pcapng")
	if code != 0 || !strings.Contains(out, "    appCode        115 (DUPLICATE_NICKNAME)\n") || !strings.Contains(out, "pcapng: 20 packets, 20 TCP segments, 2 connections") {
		t.Errorf("pcapng: exit %d %s\n%s", code, errOut, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// From standard input.
	out, errOut, code = runCLI(t, string(data), "gsf", "decode")
	if code != 0 || !strings.Contains(out, "pcap: 20 packets, 20 TCP segments, 2 connections") {
		t.Errorf("stdin: exit %d %s\n%s", code, errOut, out)
	}
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(cut, data[:len(data)-30], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLI(t, "", "gsf", "decode", cut)
	if code != 1 || !strings.Contains(out, "15 21 c2 5c 04 6d 0c 10 30 58") || !regexp.MustCompile(`capture: packet \d+ \(record at byte \d+\): `).MatchString(errOut) {
		t.Errorf("truncated: exit %d, %s\n%s", code, errOut, out)
	}
	// The pcap magic and then garbage.
	bad := filepath.Join(t.TempDir(), "bad.pcap")
	if err := os.WriteFile(bad, append([]byte{0xd4, 0xc3, 0xb2, 0xa1}, strings.Repeat("\xff", 100)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code = runCLI(t, "", "gsf", "decode", bad); code != 1 || !strings.Contains(errOut, "capture: ") {
		t.Errorf("garbage: exit %d, %s", code, errOut)
	}
	if _, errOut, code = runCLI(t, "", "gsf", "decode", "--port", "http", file); code != 1 || !strings.Contains(errOut, "not a TCP port") {
		t.Errorf("--port http: exit %d, %s", code, errOut)
	}
}

// snapCapture rewrites a pcap capture as tcpdump -s snap would have written it: every record
// keeps its first snap bytes and its original length, and the header says the snaplen.
func snapCapture(t *testing.T, in []byte, snap int) []byte {
	t.Helper()
	r, err := pcapgo.NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := pcapgo.NewWriterNanos(&out)
	if err := w.WriteFileHeader(uint32(snap), r.LinkType()); err != nil {
		t.Fatal(err)
	}
	for {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		ci.CaptureLength = min(len(data), snap)
		if err := w.WritePacket(ci, data[:ci.CaptureLength]); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestDecodeCaptureSnaplen: a capture cut by a small snaplen says so, with how many of its TCP
// segments lost bytes and how many, instead of only "no GSF frames"; one whose snaplen cut a
// few frames says it beside the frames it could read.
func TestDecodeCaptureSnaplen(t *testing.T) {
	data, err := os.ReadFile("../../capture/testdata/serve-call.pcap")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s60 := filepath.Join(dir, "s60.pcap")
	if err := os.WriteFile(s60, snapCapture(t, data, 60), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "gsf", "decode", s60)
	if code != 1 || !strings.Contains(out, "pcap: the capture's snaplen (60 bytes) cut 20 of its 20 TCP segments: 70 bytes of their payload are not in the capture (tcpdump -s 0 keeps whole packets)\n") ||
		!strings.Contains(errOut, "no GSF frames in the capture: its snaplen (60 bytes) cut 20 TCP segments, 70 bytes of payload missing") {
		t.Errorf("-s 60: exit %d, %s\n%s", code, errOut, out)
	}
	// 80 bytes keep the first 14 bytes of the payload: the 13-byte ECHO frames are whole,
	// the 22-byte ones are not, and their bytes are reported missing.
	s80 := filepath.Join(dir, "s80.pcap")
	if err := os.WriteFile(s80, snapCapture(t, data, 80), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLI(t, "", "gsf", "decode", s80)
	if code != 0 || !strings.Contains(out, "snaplen (80 bytes) cut 2 of its 20 TCP segments: 16 bytes") || !strings.Contains(out, "0c 20 c2 78 5e 18 12 00 70 69 6e 67 00") {
		t.Errorf("-s 80: exit %d, %s\n%s", code, errOut, out)
	}
	// With --port, the connection whose frames were cut is shown: the bytes cut off are a
	// problem with their range.
	out, errOut, code = runCLI(t, "", "gsf", "decode", "--port", "40661", s80)
	if code != 0 || strings.Count(out, "problem at byte 14 (8 bytes): bytes 14–21 missing from the capture (not captured, cut by its snaplen") != 2 {
		t.Errorf("-s 80: exit %d, %s\n%s", code, errOut, out)
	}
}

// reversedCapture writes a capture of one connection whose client sends frame n times, one
// frame per segment, the segments after the handshake in reverse order.
func reversedCapture(t *testing.T, frame []byte, n int) []byte {
	t.Helper()
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	type seg struct {
		c2s, syn bool
		seq      uint32
		payload  []byte
	}
	segs := []seg{{c2s: true, syn: true}, {syn: true}}
	var data []seg
	for i := range n {
		data = append(data, seg{c2s: true, seq: 1 + uint32(i*len(frame)), payload: frame})
	}
	slices.Reverse(data)
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, s := range append(segs, data...) {
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IP{10, 0, 0, 1}, DstIP: net.IP{10, 0, 0, 2}}
		tcp := &layers.TCP{SrcPort: 40000, DstPort: 7566, Seq: 1000 + s.seq, ACK: !s.syn || !s.c2s, SYN: s.syn, Window: 65535}
		if !s.c2s {
			ip.SrcIP, ip.DstIP = ip.DstIP, ip.SrcIP
			tcp.SrcPort, tcp.DstPort = tcp.DstPort, tcp.SrcPort
		}
		tcp.SetNetworkLayerForChecksum(ip)
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(s.payload)); err != nil {
			t.Fatal(err)
		}
		ci := gopacket.CaptureInfo{Timestamp: base.Add(time.Duration(i) * time.Millisecond), CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}
		if err := w.WritePacket(ci, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestDecodeCaptureReorderWindow: 300 ECHO frames whose segments arrive in reverse order read
// whole by default; with --reorder-window too small for them, the bytes given up on are a
// problem with their range, and the late segments are counted.
func TestDecodeCaptureReorderWindow(t *testing.T) {
	echo := []byte{0x0c, 0x20, 0xc2, 0x78, 0x5e, 0x18, 0x12, 0x00, 0x70, 0x69, 0x6e, 0x67, 0x00}
	file := filepath.Join(t.TempDir(), "reversed.pcap")
	if err := os.WriteFile(file, reversedCapture(t, echo, 300), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", "gsf", "decode", file)
	if code != 0 || !strings.Contains(out, "; 300 frames, 0 problems\n") || strings.Contains(out, "mid-stream") {
		t.Errorf("default window: exit %d %s\n%s", code, errOut, out[max(len(out)-600, 0):])
	}
	// 100 pages of 2 KiB: 100 segments may wait, the other 200 are given up.
	out, errOut, code = runCLI(t, "", "gsf", "decode", "--reorder-window", "204800", file)
	for _, want := range []string{
		"problem at byte 0 (2600 bytes): bytes 0–2599 missing from the capture",
		"; 100 frames, 1 problem\n",
		"pcap: 200 TCP segments (2600 bytes) came after the reassembly had stopped waiting for them",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--reorder-window 204800: exit %d %s: the output lacks %q\n%s", code, errOut, want, out[max(len(out)-600, 0):])
		}
	}
}
