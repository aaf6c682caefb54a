// Package web serves the packet inspector's page (package inspect explains, this package shows):
// [Handler] serves the page and its JSON API from files embedded in the binary, and [Export]
// writes the same page as a static site whose decoding runs in WebAssembly, built from the
// inspect/wasm command by the local Go toolchain. The page makes no request outside its origin.
package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gamewire/gamewire/inspect"
)

//go:embed static
var static embed.FS

// assets are the files of the page, the same for the server and the static site.
func assets() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded directory is there by construction
	}
	return sub
}

// MaxRequest bounds the body of an explain request: room for a 1 MiB input written as a hex
// dump.
const MaxRequest = 8 << 20

// DefaultMaxDecodeBytes is the request text that the handler decodes at once, all requests
// together, unless [Options] say otherwise: two requests of [MaxRequest]. Explaining a request
// allocates about 31 bytes per byte of its text and holds at most about 11 at its peak (measured
// on 8 MiB requests of nested Arrays, GSF frames and zeros: 222–261 MB allocated, 59–90 MB of
// heap in use), so the default bounds the decoding at about 180 MB of heap in use however many
// requests arrive (without it, 8 requests of 8 MiB took 850 MB); the others wait their turn, or
// until their client goes away.
const DefaultMaxDecodeBytes = 2 * MaxRequest

// NoLimit, as Options.MaxDecodeBytes, lets every request decode at once.
const NoLimit = -1

// Options configure [NewHandler]. The zero value has every default.
type Options struct {
	// Hosts are host names, besides IP literals and "localhost", that a request's Host header
	// may name (the inspector served under a name of its own). Any other name is refused with
	// 421 Misdirected Request: a page of another site whose name was rebound to this address
	// (DNS rebinding) cannot reach the API.
	Hosts []string
	// Port, when set, is the only port a Host header may name: the port the handler is served
	// on ([Serve] sets it).
	Port string
	// MaxDecodeBytes bounds the request text (the body's bytes) decoded at once, all requests
	// together (0: DefaultMaxDecodeBytes; NoLimit: no bound). A request waits until its share
	// is free; one larger than the bound waits until it decodes alone.
	MaxDecodeBytes int64
}

// Handler is NewHandler(nil).
func Handler() http.Handler { return NewHandler(nil) }

// NewHandler serves the inspector page and its API: GET api/formats lists the formats, and POST
// api/explain takes an [inspect.Request] as application/json and answers with an
// [inspect.Explanation] (or {"error": …} with status 400). The page uses relative URLs: to serve
// it under a prefix, wrap it in http.StripPrefix.
//
// The handler answers only requests whose Host is an IP literal, localhost or one of
// opts.Hosts (on opts.Port when set); it refuses cross-origin API calls (403: a browser's
// Sec-Fetch-Site or an Origin of another host) and an explain request that is not
// application/json (415: a form or text/plain POST that a page of another origin could send
// without asking); and it decodes at most opts.MaxDecodeBytes of request text at once. A nil
// opts has every default.
func NewHandler(opts *Options) http.Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	limit := o.MaxDecodeBytes
	if limit == 0 {
		limit = DefaultMaxDecodeBytes
	}
	h := &handler{opts: o, busy: newWeighted(limit), explain: inspect.Explain}
	return h.routes()
}

// handler holds the state shared by the requests of one [NewHandler].
type handler struct {
	opts    Options
	busy    *weighted
	explain func(inspect.Request) (*inspect.Explanation, error)
}

func (h *handler) routes() http.Handler {
	mux := http.NewServeMux()
	files := http.FileServerFS(assets())
	mux.HandleFunc("GET /config.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte(configJS("server")))
	})
	mux.HandleFunc("GET /api/formats", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, inspect.Formats())
	})
	mux.HandleFunc("POST /api/explain", h.serveExplain)
	mux.Handle("GET /", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "cross-origin request refused: the inspector's API answers its own page only"})
	}))
	return securityHeaders(h.checkHost(h.checkOrigin(cop.Handler(mux))))
}

func (h *handler) serveExplain(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, map[string]string{"error": "api/explain takes application/json"})
		return
	}
	// The share of the decoding budget: the body's length, or the most it may be.
	weight := int64(MaxRequest)
	if r.ContentLength >= 0 && r.ContentLength < MaxRequest {
		weight = r.ContentLength
	}
	if err := h.busy.acquire(r.Context(), weight); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the request ended while waiting for the inspector: " + err.Error()})
		return
	}
	defer h.busy.release(weight)
	var req inspect.Request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxRequest))
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "the input is larger than the inspector's limit of 8 MiB of text"})
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad request: " + err.Error()})
		return
	}
	ex, err := h.explain(req)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, ex)
}

// checkHost refuses requests whose Host names neither an IP literal, localhost nor one of
// the configured names, or another port than the one served.
func (h *handler) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.hostAllowed(r.Host) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusMisdirectedRequest)
			io.WriteString(w, "the gamewire inspector answers requests to its own address only (Host "+strconv.Quote(r.Host)+" refused)\n")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *handler) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
	}
	if h.opts.Port != "" && port != h.opts.Port && !(port == "" && h.opts.Port == "80") {
		return false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if i := strings.IndexByte(host, '%'); i >= 0 {
		host = host[:i] // an IPv6 zone
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	for _, n := range h.opts.Hosts {
		if strings.EqualFold(strings.TrimSuffix(n, "."), host) {
			return true
		}
	}
	return false
}

// checkOrigin refuses API calls with an Origin header of another host, whatever the method:
// CrossOriginProtection lets safe methods through, and a page of another origin has no
// business reading the API either.
func (h *handler) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			site := r.Header.Get("Sec-Fetch-Site")
			origin := r.Header.Get("Origin")
			cross := site == "cross-site" || site == "same-site"
			if origin != "" && origin != "null" {
				u, err := url.Parse(origin)
				cross = cross || err != nil || u.Host != r.Host
			}
			if cross {
				writeJSON(w, http.StatusForbidden, map[string]string{"error": "cross-origin request refused: the inspector's API answers its own page only"})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// securityHeaders forbids the page any request but to its own origin: the inspector makes no
// external requests, and a pasted input cannot make it.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

// csp allows the page's own files, inline colour styles, and WebAssembly compilation.
const csp = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'"

func configJS(mode string) string {
	return "window.GAMEWIRE = {mode: \"" + mode + "\"};\n"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// Serve serves [NewHandler](opts) on l until ctx is done, then shuts the server down, letting
// requests in flight finish for up to five seconds. Requests must name l's port in their Host
// (opts.Port is set to it); a nil opts has every other default.
func Serve(ctx context.Context, l net.Listener, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	if _, p, err := net.SplitHostPort(l.Addr().String()); err == nil {
		o.Port = p
	}
	srv := &http.Server{Handler: NewHandler(&o), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
