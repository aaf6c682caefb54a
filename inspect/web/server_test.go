package web

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/inspect"
)

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Fatalf("GET /: %s, CSP %q", res.Status, res.Header.Get("Content-Security-Policy"))
	}
	body, _ := json.Marshal(inspect.Request{Format: "gsf", Input: seedGSF})
	res, err = http.Post(srv.URL+"/api/explain", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var ex inspect.Explanation
	if err := json.NewDecoder(res.Body).Decode(&ex); err != nil || res.StatusCode != 200 || ex.Fields == 0 || len(ex.Data) != 22 {
		t.Fatalf("explain: %s, %v, %d fields, %d bytes", res.Status, err, ex.Fields, len(ex.Data))
	}
	res.Body.Close()
	res, _ = http.Post(srv.URL+"/api/explain", "application/json", strings.NewReader(`{"format":"nope","input":"00"}`))
	if res.StatusCode != 400 {
		t.Errorf("unknown format: %s", res.Status)
	}
	res.Body.Close()
	big := `{"input":"` + strings.Repeat("0", MaxRequest) + `"}`
	res, _ = http.Post(srv.URL+"/api/explain", "application/json", strings.NewReader(big))
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a request over MaxRequest: %s", res.Status)
	}
	res.Body.Close()
	res, _ = http.Get(srv.URL + "/config.js")
	cfg, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(cfg), `mode: "server"`) {
		t.Errorf("config.js: %s", cfg)
	}
}
