package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/gamewire/gamewire/inspect"
)

const okBody = `{"format":"gsf","input":"` + seedGSF + `"}`

func post(t *testing.T, h http.Handler, host, ctype string, hdr map[string]string) int {
	t.Helper()
	r := httptest.NewRequest("POST", "/api/explain", strings.NewReader(okBody))
	r.Host = host
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// TestHostChecked: a page whose name was rebound to the inspector's address (DNS rebinding)
// sends its own name as Host, and gets nothing.
func TestHostChecked(t *testing.T) {
	h := Handler()
	for _, c := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:7373", 200}, {"localhost:7373", 200}, {"[::1]:7373", 200}, {"192.168.1.20:7373", 200},
		{"evil.example:7373", http.StatusMisdirectedRequest}, {"evil.example", http.StatusMisdirectedRequest},
		{"127.0.0.1.nip.io:7373", http.StatusMisdirectedRequest},
	} {
		if got := post(t, h, c.host, "application/json", nil); got != c.want {
			t.Errorf("Host %q: status %d, want %d", c.host, got, c.want)
		}
	}
	// The page itself is refused as well: a rebound page could read it and learn nothing, but
	// nothing of the inspector should answer another name.
	r := httptest.NewRequest("GET", "/", nil)
	r.Host = "evil.example:7373"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusMisdirectedRequest {
		t.Errorf("GET / for another name: %d", w.Code)
	}
	named := NewHandler(&Options{Hosts: []string{"inspector.lan"}, Port: "7373"})
	for _, c := range []struct {
		host string
		want int
	}{{"inspector.lan:7373", 200}, {"INSPECTOR.LAN:7373", 200}, {"inspector.lan:80", 421}, {"127.0.0.1:7374", 421}, {"evil.example:7373", 421}} {
		if got := post(t, named, c.host, "application/json", nil); got != c.want {
			t.Errorf("Options.Hosts, Host %q: status %d, want %d", c.host, got, c.want)
		}
	}
}

// TestCrossOriginRefused: a page of another origin can POST text/plain without a preflight;
// the API refuses it, and any call that says it comes from another origin.
func TestCrossOriginRefused(t *testing.T) {
	h := Handler()
	host := "127.0.0.1:7373"
	for _, c := range []struct {
		name  string
		ctype string
		hdr   map[string]string
		want  int
	}{
		{"same origin", "application/json", map[string]string{"Origin": "http://127.0.0.1:7373", "Sec-Fetch-Site": "same-origin"}, 200},
		{"no browser headers", "application/json; charset=utf-8", nil, 200},
		{"text/plain cross-origin", "text/plain", map[string]string{"Origin": "http://evil.example"}, 403},
		{"text/plain, no Origin", "text/plain", nil, 415},
		{"form", "application/x-www-form-urlencoded", nil, 415},
		{"json cross-site", "application/json", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"json other origin", "application/json", map[string]string{"Origin": "http://127.0.0.1:9999"}, 403},
	} {
		if got := post(t, h, host, c.ctype, c.hdr); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	r := httptest.NewRequest("GET", "/api/formats", nil)
	r.Host = host
	r.Header.Set("Origin", "http://evil.example")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 403 {
		t.Errorf("GET api/formats from another origin: %d", w.Code)
	}
}

// TestDecodingBounded: requests beyond MaxDecodeBytes of text wait for those decoding to end.
func TestDecodingBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		size := int64(len(okBody))
		hd := &handler{opts: Options{}, busy: newWeighted(3 * size)}
		var mu sync.Mutex
		inside, most := 0, 0
		release := make(chan struct{})
		hd.explain = func(req inspect.Request) (*inspect.Explanation, error) {
			mu.Lock()
			inside++
			most = max(most, inside)
			mu.Unlock()
			<-release
			mu.Lock()
			inside--
			mu.Unlock()
			return inspect.Explain(req)
		}
		h := hd.routes()
		var wg sync.WaitGroup
		codes := make(chan int, 7)
		for range 6 {
			wg.Go(func() { codes <- post(t, h, "127.0.0.1:1", "application/json", nil) })
		}
		synctest.Wait()
		// One more client, which gives up while it waits behind the others.
		ctx, cancel := context.WithCancel(context.Background())
		wg.Go(func() {
			r := httptest.NewRequestWithContext(ctx, "POST", "/api/explain", strings.NewReader(okBody))
			r.Host = "127.0.0.1:1"
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			codes <- w.Code
		})
		synctest.Wait()
		mu.Lock()
		if inside != 3 {
			t.Errorf("%d requests decode at once with room for 3", inside)
		}
		mu.Unlock()
		cancel()
		synctest.Wait()
		if c := <-codes; c != http.StatusServiceUnavailable {
			t.Errorf("the client that gave up: %d", c)
		}
		close(release)
		wg.Wait()
		close(codes)
		for c := range codes {
			if c != 200 {
				t.Errorf("status %d", c)
			}
		}
		if most != 3 {
			t.Errorf("at most %d at once, want 3", most)
		}
	})
}

func TestWeightedLarger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newWeighted(10)
		ctx := context.Background()
		_ = s.acquire(ctx, 4)
		done := make(chan struct{})
		go func() { _ = s.acquire(ctx, 50); close(done) }() // larger than all: waits for none taken
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("a request larger than the bound went ahead beside another")
		default:
		}
		s.release(4)
		<-done
		s.release(50)
		if s.cur != 0 || len(s.waiters) != 0 {
			t.Fatalf("cur %d, %d waiters", s.cur, len(s.waiters))
		}
	})
}
