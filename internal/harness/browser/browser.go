// Package browser drives a headless Chromium for the project's browser tests, with the Chrome
// DevTools Protocol spoken over a pipe (--remote-debugging-pipe): no WebSocket, no port, no
// dependency. It starts Chromium with the flags that work on the project's machines (those of
// internal/harness/godot4) and offers what the tests need: open a page, evaluate JavaScript and
// read the result back, type, press keys, click, emulate a colour scheme, and take screenshots.
package browser

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/gamewire/gamewire/internal/harness/godot4"
)

// Flags are the Chromium flags Start uses, besides the profile and the pipe: headless, no
// sandbox (tests run as root), and no background traffic, which the closed network refuses.
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--mute-audio", "--hide-scrollbars",
}

// Available returns nil when Chromium can be started, or what is missing.
func Available() error {
	_, err := godot4.Chromium()
	return err
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd     *exec.Cmd
	in      *os.File // our end of Chromium's command pipe (its fd 3)
	profile string
	exited  chan struct{}
	waitErr error

	mu       sync.Mutex
	next     int
	pending  map[int]chan reply
	sessions map[string]*Page
	readErr  error
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type message struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
	reply
}

// Start starts Chromium (found as internal/harness/godot4 finds it: $GAMEWIRE_CHROMIUM,
// chromium on PATH, /usr/bin/chromium) with a fresh profile.
func Start(ctx context.Context) (*Browser, error) {
	bin, err := godot4.Chromium()
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "gamewire-browser-")
	if err != nil {
		return nil, err
	}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, err
	}
	args := append(append([]string{}, Flags...), "--remote-debugging-pipe", "--user-data-dir="+profile, "about:blank")
	cmd := exec.Command(bin, args...)
	cmd.ExtraFiles = []*os.File{cmdR, outW} // fd 3: commands in, fd 4: replies out
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		cmdR.Close()
		cmdW.Close()
		outR.Close()
		outW.Close()
		os.RemoveAll(profile)
		return nil, fmt.Errorf("browser: starting %s: %w", bin, err)
	}
	cmdR.Close()
	outW.Close()
	b := &Browser{cmd: cmd, in: cmdW, profile: profile, exited: make(chan struct{}),
		pending: map[int]chan reply{}, sessions: map[string]*Page{}}
	go func() {
		b.waitErr = cmd.Wait()
		close(b.exited)
	}()
	go b.read(outR)
	// The browser answers once it is up.
	var v struct {
		Product string `json:"product"`
	}
	if err := b.call(ctx, "", "Browser.getVersion", nil, &v); err != nil {
		b.Close()
		return nil, fmt.Errorf("browser: Chromium did not answer: %w", err)
	}
	return b, nil
}

func (b *Browser) read(r *os.File) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		chunk, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = fmt.Errorf("browser: the pipe from Chromium closed: %w", err)
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m message
		if err := json.Unmarshal(chunk[:len(chunk)-1], &m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				ch <- m.reply
				delete(b.pending, m.ID)
			}
		} else if p := b.sessions[m.SessionID]; p != nil {
			p.event(m.Method, m.Params)
		}
		b.mu.Unlock()
	}
}

// call sends a command (to a page's session when session is set) and decodes its result into
// out.
func (b *Browser) call(ctx context.Context, session, method string, params, out any) error {
	ch := make(chan reply, 1)
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return b.readErr
	}
	b.next++
	id := b.next
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("browser: %s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return b.readErr
		}
		if r.Error != nil {
			return fmt.Errorf("browser: %s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("browser: %s: %w", method, context.Cause(ctx))
	case <-b.exited:
		return fmt.Errorf("browser: Chromium exited during %s: %v", method, b.waitErr)
	}
}

// Close asks Chromium to close, waits for it, kills whatever is left of its processes, and
// removes its profile.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	select {
	case <-b.exited:
	case <-time.After(5 * time.Second):
	}
	killGroup(b.cmd)
	<-b.exited
	b.in.Close()
	return os.RemoveAll(b.profile)
}

// Page is a browser tab.
type Page struct {
	b       *Browser
	session string
	target  string

	mu       sync.Mutex
	problems []string // uncaught exceptions, console errors, failed loads
	requests []string // URLs requested
	loaded   chan struct{}
}

func (p *Page) event(method string, params json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch method {
	case "Runtime.exceptionThrown":
		var e struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(params, &e)
		p.problems = append(p.problems, "exception: "+e.ExceptionDetails.Text+" "+e.ExceptionDetails.Exception.Description)
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		json.Unmarshal(params, &e)
		if e.Type == "error" || e.Type == "warning" {
			s := "console." + e.Type + ":"
			for _, a := range e.Args {
				s += fmt.Sprintf(" %v%s", a.Value, a.Description)
			}
			p.problems = append(p.problems, s)
		}
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Level string `json:"level"`
				Text  string `json:"text"`
				URL   string `json:"url"`
			} `json:"entry"`
		}
		json.Unmarshal(params, &e)
		if e.Entry.Level == "error" {
			p.problems = append(p.problems, "log: "+e.Entry.Text+" "+e.Entry.URL)
		}
	case "Network.requestWillBeSent":
		var e struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		json.Unmarshal(params, &e)
		p.requests = append(p.requests, e.Request.URL)
	case "Page.loadEventFired":
		select {
		case <-p.loaded:
		default:
			close(p.loaded)
		}
	}
}

// Problems returns the uncaught exceptions, console errors and warnings, and error log
// entries (such as failed loads and refused requests) of the page so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Requests returns the URLs the page requested so far.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// NewPage opens a tab of width×height CSS pixels, in the dark colour scheme when dark is set,
// loads url and waits for its load event.
func (b *Browser) NewPage(ctx context.Context, url string, width, height int, dark bool) (*Page, error) {
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &t); err != nil {
		return nil, err
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true}, &s); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: s.SessionID, target: t.TargetID, loaded: make(chan struct{})}
	b.mu.Lock()
	b.sessions[s.SessionID] = p
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		if err := p.call(ctx, m, nil, nil); err != nil {
			return nil, err
		}
	}
	if err := p.call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return nil, err
	}
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	if err := p.call(ctx, "Emulation.setEmulatedMedia", map[string]any{
		"features": []map[string]string{{"name": "prefers-color-scheme", "value": scheme}}}, nil); err != nil {
		return nil, err
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("browser: loading %s: %s", url, nav.ErrorText)
	}
	select {
	case <-p.loaded:
	case <-ctx.Done():
		return nil, fmt.Errorf("browser: %s did not load: %w", url, context.Cause(ctx))
	}
	return p, nil
}

func (p *Page) call(ctx context.Context, method string, params, out any) error {
	return p.b.call(ctx, p.session, method, params, out)
}

// Eval evaluates a JavaScript expression in the page, waits for it when it is a promise, and
// decodes its JSON-able value into out (which may be nil).
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("browser: %s: %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(r.Result.Value) > 0 {
		return json.Unmarshal(r.Result.Value, out)
	}
	return nil
}

// WaitFor evaluates expr until it is true or ctx ends.
func (p *Page) WaitFor(ctx context.Context, expr string) error {
	for {
		var ok bool
		if err := p.Eval(ctx, "!!("+expr+")", &ok); err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("browser: waiting for %s: %w", expr, context.Cause(ctx))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// InsertText types text into the focused element, as a paste does.
func (p *Page) InsertText(ctx context.Context, text string) error {
	return p.call(ctx, "Input.insertText", map[string]any{"text": text}, nil)
}

// keyCodes are the Windows virtual key codes of the keys Press knows.
var keyCodes = map[string]int{
	"ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40, "Enter": 13,
	"Home": 36, "End": 35, "PageUp": 33, "PageDown": 34, "Tab": 9, "Escape": 27,
}

// Press presses and releases a named key (ArrowDown, Enter, Home, …) in the focused element.
func (p *Page) Press(ctx context.Context, key string) error {
	code, ok := keyCodes[key]
	if !ok {
		return fmt.Errorf("browser: unknown key %q", key)
	}
	params := map[string]any{"type": "rawKeyDown", "key": key, "code": key, "windowsVirtualKeyCode": code}
	if key == "Enter" {
		params["type"], params["text"] = "keyDown", "\r"
	}
	if err := p.call(ctx, "Input.dispatchKeyEvent", params, nil); err != nil {
		return err
	}
	return p.call(ctx, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": code}, nil)
}

// Click moves the mouse to (x, y), in CSS pixels of the viewport, and clicks.
func (p *Page) Click(ctx context.Context, x, y float64) error {
	if err := p.Hover(ctx, x, y); err != nil {
		return err
	}
	for _, t := range []string{"mousePressed", "mouseReleased"} {
		if err := p.call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": t, "x": x, "y": y, "button": "left", "clickCount": 1}, nil); err != nil {
			return err
		}
	}
	return nil
}

// Hover moves the mouse to (x, y).
func (p *Page) Hover(ctx context.Context, x, y float64) error {
	return p.call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": x, "y": y}, nil)
}

// ClickSelector clicks the middle of the first element matching a CSS selector.
func (p *Page) ClickSelector(ctx context.Context, sel string) error {
	x, y, err := p.center(ctx, sel)
	if err != nil {
		return err
	}
	return p.Click(ctx, x, y)
}

// HoverSelector moves the mouse over the middle of the first element matching a CSS selector.
func (p *Page) HoverSelector(ctx context.Context, sel string) error {
	x, y, err := p.center(ctx, sel)
	if err != nil {
		return err
	}
	return p.Hover(ctx, x, y)
}

func (p *Page) center(ctx context.Context, sel string) (float64, float64, error) {
	js, _ := json.Marshal(sel)
	var r *struct{ X, Y float64 }
	if err := p.Eval(ctx, `(() => { const e = document.querySelector(`+string(js)+`); if (!e) return null;
		e.scrollIntoView({block: "nearest"}); const r = e.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, &r); err != nil {
		return 0, 0, err
	}
	if r == nil {
		return 0, 0, fmt.Errorf("browser: no element matches %s", sel)
	}
	return r.X, r.Y, nil
}

// Screenshot returns a PNG of the viewport.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// Close closes the tab.
func (p *Page) Close(ctx context.Context) error {
	err := p.b.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.target}, nil)
	p.b.mu.Lock()
	delete(p.b.sessions, p.session)
	p.b.mu.Unlock()
	return err
}

// SetFiles sets the files of the first <input type=file> matching a CSS selector, as a user
// choosing them does (the page gets a change event).
func (p *Page) SetFiles(ctx context.Context, sel string, paths ...string) error {
	var doc struct {
		Root struct {
			NodeID int `json:"nodeId"`
		} `json:"root"`
	}
	if err := p.call(ctx, "DOM.getDocument", nil, &doc); err != nil {
		return err
	}
	var q struct {
		NodeID int `json:"nodeId"`
	}
	if err := p.call(ctx, "DOM.querySelector", map[string]any{"nodeId": doc.Root.NodeID, "selector": sel}, &q); err != nil {
		return err
	}
	if q.NodeID == 0 {
		return fmt.Errorf("browser: no element matches %s", sel)
	}
	return p.call(ctx, "DOM.setFileInputFiles", map[string]any{"nodeId": q.NodeID, "files": paths}, nil)
}

// DropFiles drags files from outside the page and drops them at (x, y), as a user dropping
// files from a file manager does (the page gets dragenter, dragover and drop events).
func (p *Page) DropFiles(ctx context.Context, x, y float64, paths ...string) error {
	data := map[string]any{"items": []any{}, "files": paths, "dragOperationsMask": 1}
	for _, t := range []string{"dragEnter", "dragOver", "drop"} {
		if err := p.call(ctx, "Input.dispatchDragEvent", map[string]any{"type": t, "x": x, "y": y, "data": data}, nil); err != nil {
			return err
		}
	}
	return nil
}
