package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer that the server's goroutines may write while the test reads,
// and waits for.
type lockedBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed at the next Write
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return l.b.Write(p)
}

// waitMatch waits until the buffer matches re and returns the submatches, or returns nil when
// exited yields first (a command that ended) or after timeout. It waits for Writes, not for time.
func (l *lockedBuffer) waitMatch(re *regexp.Regexp, exited <-chan int, timeout time.Duration) (m []string, code int, ok bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		m = re.FindStringSubmatch(l.b.String())
		if m == nil && l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		l.mu.Unlock()
		if m != nil {
			return m, 0, true
		}
		select {
		case <-changed:
		case code = <-exited:
			return nil, code, false
		case <-deadline.C:
			return nil, -1, false
		}
	}
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs "gamewire serve" on a free loopback port and returns its address and a
// function that stops it and returns its exit status and log.
func startServe(t *testing.T, args ...string) (string, func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { serveContext = old })
	logs := new(lockedBuffer)
	code := make(chan int, 1)
	go func() {
		var out bytes.Buffer
		code <- run(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), strings.NewReader(""), &out, logs)
	}()
	m, c, ok := logs.waitMatch(regexp.MustCompile(`listening" addr=(\S+)`), code, 10*time.Second)
	switch {
	case !ok && c >= 0:
		t.Fatalf("gamewire serve exited with %d:\n%s", c, logs.String())
	case !ok:
		t.Fatalf("gamewire serve does not listen:\n%s", logs.String())
	}
	stop := func() (int, string) {
		cancel()
		select {
		case c := <-code:
			return c, logs.String()
		case <-time.After(20 * time.Second):
			t.Fatal("gamewire serve does not stop")
			return 0, ""
		}
	}
	t.Cleanup(func() { cancel() })
	return m[1], stop
}

func TestServeAndCall(t *testing.T) {
	addr, stop := startServe(t)

	// The README's round trip: the reference server's exact answer.
	out, errOut, code := runCLI(t, "", "call", "--addr", addr, "--class", "USER_SERVER", "--type", "GET_CLIENT_VERSION_INFO",
		"--body", "clientName:string", "--values", `["AmazingWorld"]`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"→ request USER_SERVER/GET_CLIENT_VERSION_INFO id=1 to " + addr + " (22 bytes)\n15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00\n",
		"← response USER_SERVER/GET_CLIENT_VERSION_INFO id=1 (22 bytes, ",
		"\n15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00\n",
		"  msgType        566 (GET_CLIENT_VERSION_INFO)\n",
		"body           GetClientVersionInfoResponse, 102 bits from bit 66\n",
		`    ClientVersionInfo string "133852.true"  (bit 66, 102 bits)`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}

	// The demo server's field lists are known: --values is enough; numbers work too.
	out, errOut, code = runCLI(t, "", "call", "--addr", addr, "--class", "19", "--type", "23", "--values", `["ping"]`)
	if code != 0 || !strings.Contains(out, `text         string   "ping"`) {
		t.Errorf("echo: exit %d, %s\n%s", code, errOut, out)
	}

	// An error response is printed, and the exit status is 1.
	out, errOut, code = runCLI(t, "", "call", "--addr", addr, "--type", "check_username", "--values", `["admin", "secret"]`)
	if code != 1 || !strings.Contains(out, "appCode        115 (DUPLICATE_NICKNAME)") || !strings.Contains(errOut, "already in use") {
		t.Errorf("an app error: exit %d, %s\n%s", code, errOut, out)
	}
	out, _, code = runCLI(t, "", "call", "--addr", addr, "--type", "LOGIN")
	if code != 1 || !strings.Contains(out, "NOT_IMPLEMENTED") {
		t.Errorf("an unknown message: exit %d\n%s", code, out)
	}

	// A catalog message by name, with a JSON body: the same bytes as the field list.
	out, errOut, code = runCLI(t, "", "call", "--addr", addr, "--message", "GetClientVersionInfoRequest", "--request", `{"ClientName":"AmazingWorld"}`)
	if code != 0 || !strings.Contains(out, "(22 bytes)\n15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00\n") ||
		!strings.Contains(out, `ClientVersionInfo string "133852.true"`) {
		t.Errorf("--message --request: exit %d, %s\n%s", code, errOut, out)
	}
	// By message type, with nested objects; the demo server does not answer LOGIN.
	out, errOut, code = runCLI(t, `{"LoginID":"ada","Password":"pw","SitePIN":1234,"LanguageLocalePairOID":"293578400718237473","ClientEnvInfo":{"UnityVersion":"2018.4"}}`,
		"call", "--addr", addr, "--message", "login", "--request", "-")
	if code != 1 || !strings.Contains(out, "→ request USER_SERVER/LOGIN id=1") || !strings.Contains(out, "NOT_IMPLEMENTED") {
		t.Errorf("--message login: exit %d, %s\n%s", code, errOut, out)
	}
	for _, bad := range [][]string{
		{"--message", "LoginResponse", "--request", "{}"},
		{"--message", "NoSuchMessage", "--request", "{}"},
		{"--message", "LoginRequest", "--request", `{"NoSuchField":1}`},
		{"--class", "SYNC_SERVER", "--type", "ECHO", "--request", "{}"},
		{"--message", "LoginRequest", "--type", "LOGIN"},
	} {
		if _, errOut, code := runCLI(t, "", append([]string{"call", "--addr", addr}, bad...)...); code != 1 && code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, %s", bad, code, errOut)
		}
	}

	// JSON.
	out, errOut, code = runCLI(t, "", "call", "--addr", addr, "--type", "GET_CLIENT_VERSION_INFO", "--values", `["AmazingWorld"]`, "--json")
	var ex struct {
		Frames []struct {
			Header struct {
				RequestID int32 `json:"requestId"`
				Flags     int32 `json:"flags"`
			} `json:"header"`
		} `json:"frames"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &ex) != nil || len(ex.Frames) != 1 || ex.Frames[0].Header.Flags != 1 {
		t.Errorf("--json: exit %d, %s\n%s", code, errOut, out)
	}

	// Values from standard input.
	out, _, code = runCLI(t, `["from stdin"]`, "call", "--addr", addr, "--class", "SYNC_SERVER", "--type", "ECHO", "--values", "-")
	if code != 0 || !strings.Contains(out, `"from stdin"`) {
		t.Errorf("--values -: exit %d\n%s", code, out)
	}

	c, logs := stop()
	if c != 0 {
		t.Errorf("gamewire serve exited with %d", c)
	}
	for _, want := range []string{"request USER_SERVER/GET_CLIENT_VERSION_INFO id=1", "shutting down"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the server log lacks %q:\n%s", want, logs)
		}
	}
}

// TestCallIgnored: a server that never answers (as the reference does for a message it does not
// route) makes call give up after --timeout, and say why.
func TestCallIgnored(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.Copy(io.Discard, c) // read everything, answer nothing
	}()
	start := time.Now()
	_, errOut, code := runCLI(t, "", "call", "--addr", l.Addr().String(), "--message", "LogoutRequest", "--request", "{}", "--timeout", "300ms")
	if code != 1 || !strings.Contains(errOut, "no response after 300ms") || !strings.Contains(errOut, "never answers it") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("call took %s", d)
	}
	l.Close()
	<-done
}

func TestCallErrors(t *testing.T) {
	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"call"}, 2, "--type or --message is required"},
		{[]string{"call", "--type", "ECHO", "--class", "NOPE"}, 2, `unknown service class "NOPE"`},
		{[]string{"call", "--type", "NOPE"}, 2, `unknown message type "NOPE"`},
		{[]string{"call", "--type", "1", "--values", "[1]"}, 2, "--values needs --body"},
		{[]string{"call", "--type", "1", "--body", "int32"}, 2, "--body needs --values"},
		{[]string{"call", "--type", "1", "--body", "int32", "--values", "[1"}, 1, "--values"},
		{[]string{"call", "--type", "1", "--body", "nope", "--values", "[1]"}, 2, "--body"},
		{[]string{"call", "--type", "1", "--response-body", "nope"}, 2, "--response-body"},
		{[]string{"call", "--addr", closed, "--type", "GET_CLIENT_VERSION_INFO"}, 1, "dial"},
		{[]string{"call", "extra"}, 2, "too many arguments"},
		{[]string{"serve", "--log", "loud"}, 2, "--log"},
		{[]string{"serve", "--addr", "256.0.0.1:1"}, 1, "listen"},
	} {
		_, errOut, code := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.err) {
			t.Errorf("%q: exit %d, want %d; stderr lacks %q:\n%s", tc.args, code, tc.code, tc.err, errOut)
		}
	}
}

func TestServeFlags(t *testing.T) {
	addr, stop := startServe(t, "--version-info", "1.false", "--max-conns", "5", "--idle-timeout", "1m", "--log", "debug")
	out, errOut, code := runCLI(t, "", "call", "--addr", addr, "--type", "GET_CLIENT_VERSION_INFO", "--values", `["AmazingWorld"]`, "--timeout", "20s")
	if code != 0 || !strings.Contains(out, `"1.false"`) {
		t.Errorf("exit %d, %s\n%s", code, errOut, out)
	}
	if c, logs := stop(); c != 0 || !strings.Contains(logs, "level=DEBUG") {
		t.Errorf("exit %d; the debug log:\n%s", c, logs)
	}
}
