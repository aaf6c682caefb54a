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
	"io/fs"
	"net"
	"net/http"
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

// Handler serves the inspector page and its API: GET api/formats lists the formats, and POST
// api/explain takes an [inspect.Request] and answers with an [inspect.Explanation] (or {"error": …} with status
// 400). The page uses relative URLs: to serve it under a prefix, wrap it in http.StripPrefix.
func Handler() http.Handler {
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
	mux.HandleFunc("POST /api/explain", func(w http.ResponseWriter, r *http.Request) {
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
		ex, err := inspect.Explain(req)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, ex)
	})
	mux.Handle("GET /", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
	return securityHeaders(mux)
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

// Serve serves [Handler] on l until ctx is done, then shuts the server down, letting requests in
// flight finish for up to five seconds.
func Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: Handler(), ReadHeaderTimeout: 10 * time.Second}
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
