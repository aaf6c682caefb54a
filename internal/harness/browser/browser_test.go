package browser

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestPage loads a page from a loopback server, reads a value back, types, presses a key and
// takes a screenshot.
func TestPage(t *testing.T) {
	Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><title>t</title><input id=i autofocus><p id=k></p>
<script>document.getElementById('i').focus();
addEventListener('keydown', e => { document.getElementById('k').textContent += e.key + ';'; });</script>`))
	})}
	go srv.Serve(ln)
	defer srv.Close()

	b, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(ctx, "http://"+ln.Addr().String()+"/", 400, 300, true)
	if err != nil {
		t.Fatal(err)
	}
	var title string
	if err := p.Eval(ctx, "document.title", &title); err != nil || title != "t" {
		t.Fatalf("title = %q, %v", title, err)
	}
	if err := p.ClickSelector(ctx, "#i"); err != nil {
		t.Fatal(err)
	}
	if err := p.InsertText(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	if err := p.Press(ctx, "ArrowDown"); err != nil {
		t.Fatal(err)
	}
	var got struct{ V, K string }
	if err := p.Eval(ctx, `({V: document.getElementById('i').value, K: document.getElementById('k').textContent})`, &got); err != nil {
		t.Fatal(err)
	}
	if got.V != "hello" || got.K != "ArrowDown;" {
		t.Errorf("value %q, keys %q; want hello, ArrowDown;", got.V, got.K)
	}
	var dark bool
	if err := p.Eval(ctx, `matchMedia('(prefers-color-scheme: dark)').matches`, &dark); err != nil || !dark {
		t.Errorf("dark scheme not emulated: %v %v", dark, err)
	}
	png, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot is not a PNG: % x", png[:min(8, len(png))])
	}
	if err := p.Eval(ctx, `undefinedFunction()`, nil); err == nil {
		t.Error("an exception in Eval returned no error")
	}
}
