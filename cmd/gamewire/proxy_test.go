package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startProxyCmd runs "gamewire gsf proxy" in front of upstream on a free loopback port and
// returns its address and a function that stops it and returns its exit status, output and
// log.
func startProxyCmd(t *testing.T, upstream string, args ...string) (string, func() (int, string, string)) {
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
	}
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
	addr, stop = startProxyCmd(t, serveAddr, "--json")
	if _, errOut, code := runCLI(t, "", append([]string{"call", "--addr", addr}, demoCalls[0]...)...); code != 0 {
		t.Fatal(errOut)
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
	// holds them all, and -U writes each packet once tcpdump has it.
	cmd := exec.Command(tcpdump, "-i", "lo", "-w", file, "-Z", "root", "-B", "16384", "-U",
		"--time-stamp-precision=nano", "tcp port "+servePort+" or tcp port "+proxyPort)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
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
	// directly: 3 connections per call, each with its request and its response. tcpdump
	// writes the packets as it reads them; wait until they are all in the file.
	wantConns := 3 * len(demoCalls)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, _, _ := runCLI(t, "", "gsf", "decode", file)
		if strings.Count(out, " close client ") == wantConns || time.Now().After(deadline) {
			break
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
			Kind  string `json:"kind"`
			Conn  uint64 `json:"conn"`
			Dir   string `json:"dir"`
			Frame struct {
				Header struct {
					Flags     int32 `json:"flags"`
					RequestID int32 `json:"requestId"`
				} `json:"header"`
			} `json:"frame"`
		}
		json.Unmarshal([]byte(line), &r)
		if r.Kind != "frame" {
			continue
		}
		k := key{r.Conn, r.Frame.Header.RequestID}
		switch {
		case r.Dir == "c2s" && r.Frame.Header.Flags&1 == 0:
			pending[k] = true
		case r.Dir == "s2c" && r.Frame.Header.Flags&1 == 1 && pending[k]:
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
	if code != 0 || !strings.Contains(out, "  Bit  31:     [0000001000110110]   -> msgType = 566 (GET_CLIENT_VERSION_INFO)\n") {
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
