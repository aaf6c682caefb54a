package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestInspect starts "gamewire inspect" on a free port, reads the URL it prints, asks its API
// to explain the seed's GSF request, and stops it.
func TestInspect(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { serveContext = old })
	out, errs := new(lockedBuffer), new(lockedBuffer)
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"inspect", "--addr", "127.0.0.1:0", "--allow-host", "inspector.lan"}, strings.NewReader(""), out, errs)
	}()
	m, _, ok := out.waitMatch(regexp.MustCompile(`gamewire inspector: (http://127\.0\.0\.1:\d+/)\n`), code, 10*time.Second)
	if !ok {
		t.Fatalf("no URL printed: %q %q", out.String(), errs.String())
	}
	url := m[1]
	res, err := http.Post(url+"api/explain", "application/json",
		strings.NewReader(`{"format":"gsf","input":"15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00","options":{"body":"clientName:string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Title  string
		Fields int
		Nodes  []struct{ Value string }
	}
	json.NewDecoder(res.Body).Decode(&ex)
	res.Body.Close()
	if ex.Title != "GSF frames" || len(ex.Nodes) != 1 || ex.Nodes[0].Value != "request USER_SERVER/GET_CLIENT_VERSION_INFO id=1" {
		t.Errorf("explanation: %+v", ex)
	}
	// Another name for the address (DNS rebinding) is refused, a name allowed is not, and so is
	// a cross-origin text/plain POST (issue 21 item 13).
	port := url[strings.LastIndexByte(url[:len(url)-1], ':')+1 : len(url)-1]
	for _, c := range []struct {
		host, ctype, origin string
		want                int
	}{
		{"evil.example:" + port, "application/json", "", http.StatusMisdirectedRequest},
		{"inspector.lan:" + port, "application/json", "", http.StatusOK},
		{"localhost:1", "application/json", "", http.StatusMisdirectedRequest},
		{"127.0.0.1:" + port, "text/plain", "http://evil.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", url+"api/explain", strings.NewReader(`{"format":"gsf","input":"00"}`))
		req.Host = c.host
		req.Header.Set("Content-Type", c.ctype)
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("Host %s, %s, Origin %q: status %d, want %d", c.host, c.ctype, c.origin, res.StatusCode, c.want)
		}
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit status %d: %s", c, errs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("gamewire inspect does not stop")
	}
}

// TestInspectExport writes the static site with the local Go toolchain.
func TestInspectExport(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: -short (builds the WebAssembly decoder)")
	}
	dir := filepath.Join(t.TempDir(), "site")
	out, errs := new(lockedBuffer), new(lockedBuffer)
	if c := run([]string{"inspect", "--export", dir}, strings.NewReader(""), out, errs); c != 0 {
		t.Fatalf("exit status %d: %s", c, errs.String())
	}
	for _, f := range []string{"index.html", "app.js", "style.css", "config.js", "wasm_exec.js", "explain.wasm"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), "wrote the inspector to "+dir) {
		t.Errorf("output %q", out.String())
	}
	if c := run([]string{"inspect", "extra"}, strings.NewReader(""), out, errs); c != 2 {
		t.Errorf("a positional argument: exit status %d, want 2", c)
	}
}
