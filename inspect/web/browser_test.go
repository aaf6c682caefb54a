package web

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/inspect/internal/samples"
	"github.com/gamewire/gamewire/internal/harness/browser"
)

// The browser tests drive the inspector page in headless Chromium: the page served by Handler
// and the static site written by Export, served by a plain file server. Screenshots go to the
// test's artifact directory: run
//
//	mkdir -p /tmp/inspector && go test -run Browser -artifacts -outputdir /tmp/inspector ./inspect/web
//
// to keep them (without -artifacts they are removed with the test's temporary files).

const seedGSF = samples.GSFRequest

var everyType = samples.Godot4EveryType

func TestBrowserServed(t *testing.T) {
	browser.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	base := serve(t, Handler())
	b, err := browser.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	runScenario(t, ctx, b, base)
	t.Run("large", func(t *testing.T) { largeInput(t, ctx, b, base) })
}

func TestBrowserStatic(t *testing.T) {
	browser.Require(t)
	if testing.Short() {
		t.Skip("skipping: -short (the static site test builds the WebAssembly decoder)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	if err := Export(ctx, dir, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index.html", "app.js", "style.css", "config.js", "wasm_exec.js", "explain.wasm"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("the export lacks %s: %v", f, err)
		}
	}
	base := serve(t, http.FileServer(http.Dir(dir)))
	b, err := browser.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	runScenario(t, ctx, b, base)
	t.Run("large", func(t *testing.T) { largeInput(t, ctx, b, base) })
	var mode string
	p := open(t, ctx, b, base, false)
	if err := p.Eval(ctx, `document.getElementById('mode').textContent`, &mode); err != nil || !strings.Contains(mode, "WebAssembly") {
		t.Errorf("the static page says %q, %v; want it to decode in WebAssembly", mode, err)
	}
}

// serve serves h on a loopback port and returns its base URL.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// open loads the page and waits until it is ready.
func open(t *testing.T, ctx context.Context, b *browser.Browser, url string, dark bool) *browser.Page {
	t.Helper()
	p, err := b.NewPage(ctx, url, 1400, 860, dark)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	if err := p.WaitFor(ctx, `document.body.dataset.state === 'ready'`); err != nil {
		t.Fatalf("%v; page problems: %v", err, p.Problems())
	}
	return p
}

// view is what the page shows, read from its DOM.
type view struct {
	Hash     string
	Format   string
	Status   []string
	Sel      int
	SelRow   string
	HexSel   []int // data-i of the highlighted byte cells
	BitSel   []int // data-b of the highlighted bit cells
	Undec    []int
	ErrAt    []int
	HexRows  int
	TreeRows int
}

const readView = `(() => {
  const ids = (sel, attr) => [...document.querySelectorAll(sel)].map(e => +e.dataset[attr]);
  const s = window.inspector.state;
  const row = s.sel >= 0 ? document.getElementById('row-' + s.sel) : null;
  return {
    Hash: location.hash, Format: document.body.dataset.format,
    Status: [...document.querySelectorAll('#status span')].map(e => e.textContent),
    Sel: s.sel, SelRow: row ? row.innerText.replace(/\s+/g, ' ') : '',
    HexSel: ids('.hx.sel', 'i'), BitSel: ids('.bt.sel', 'b'), Undec: ids('.hx.undec', 'i'), ErrAt: ids('.hx.errat', 'i'),
    HexRows: document.querySelectorAll('.hrow').length, TreeRows: document.querySelectorAll('.trow').length,
  };
})()`

// contrastJS returns the lowest WCAG contrast ratio between the text and the background of the
// coloured cells of the hex view, and the cell that has it.
const contrastJS = `(() => {
  const lum = (c) => {
    const m = c.match(/[\d.]+/g).map(Number);
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(m[0]) + 0.7152 * f(m[1]) + 0.0722 * f(m[2]);
  };
  let worst = {Ratio: 99, Cell: ''};
  for (const e of document.querySelectorAll('.hx.c, .bt.c, .hx.sel, .bt.sel')) {
    const cs = getComputedStyle(e);
    const a = lum(cs.color), b = lum(cs.backgroundColor);
    const r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (r < worst.Ratio) worst = {Ratio: r, Cell: e.outerHTML + ' ' + cs.color + ' on ' + cs.backgroundColor};
  }
  return worst;
})()`

func getView(t *testing.T, ctx context.Context, p *browser.Page) view {
	t.Helper()
	var v view
	if err := p.Eval(ctx, readView, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// nodeID returns the id of the first node, in tree order, with the given name under the
// node with id under (-1: anywhere).
func nodeID(t *testing.T, ctx context.Context, p *browser.Page, name string) int {
	t.Helper()
	js, _ := json.Marshal(name)
	var id int
	if err := p.Eval(ctx, `window.inspector.state.nodes.findIndex(n => n && n.name === `+string(js)+`)`, &id); err != nil || id < 0 {
		t.Fatalf("no field named %s in the tree (%v)", name, err)
	}
	return id
}

// rowText selects a node through the page (which scrolls its row into view) and returns the
// row's text as shown.
func rowText(t *testing.T, ctx context.Context, p *browser.Page, id int) string {
	t.Helper()
	if err := p.Eval(ctx, fmt.Sprintf(`window.inspector.select(%d, true)`, id), nil); err != nil {
		t.Fatal(err)
	}
	return getView(t, ctx, p).SelRow
}

// setInput replaces the input text as a user pasting it does, and waits for the explanation.
func setInput(t *testing.T, ctx context.Context, p *browser.Page, text string) {
	t.Helper()
	var before int
	p.Eval(ctx, `window.inspector.state.reqSeq`, &before)
	if err := p.Eval(ctx, `document.getElementById('input').select()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.ClickSelector(ctx, "#input"); err != nil {
		t.Fatal(err)
	}
	if err := p.Eval(ctx, `document.getElementById('input').select()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.InsertText(ctx, text); err != nil {
		t.Fatal(err)
	}
	waitExplained(t, ctx, p, before)
}

func waitExplained(t *testing.T, ctx context.Context, p *browser.Page, before int) {
	t.Helper()
	if err := p.WaitFor(ctx, fmt.Sprintf(`window.inspector.state.reqSeq > %d && document.body.dataset.state === 'ready'`, before)); err != nil {
		t.Fatalf("%v; page problems: %v", err, p.Problems())
	}
}

// setFormat chooses a format and sets its options through the page's controls.
func setFormat(t *testing.T, ctx context.Context, p *browser.Page, format string, opts map[string]string) {
	t.Helper()
	var before int
	p.Eval(ctx, `window.inspector.state.reqSeq`, &before)
	js, _ := json.Marshal(format)
	if err := p.Eval(ctx, `(() => { const s = document.getElementById('format'); s.value = `+string(js)+`; s.dispatchEvent(new Event('change')); })()`, nil); err != nil {
		t.Fatal(err)
	}
	for k, v := range opts {
		sel := "#opt-" + k
		if err := p.ClickSelector(ctx, sel); err != nil {
			t.Fatal(err)
		}
		if err := p.Eval(ctx, `document.querySelector('`+sel+`').select()`, nil); err != nil {
			t.Fatal(err)
		}
		if err := p.InsertText(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	if len(opts) > 0 {
		time.Sleep(500 * time.Millisecond) // the options' debounce
	}
	waitExplained(t, ctx, p, before)
}

func shot(t *testing.T, ctx context.Context, p *browser.Page, name string) {
	t.Helper()
	png, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func rangeInts(lo, hi int) []int {
	var r []int
	for i := lo; i < hi; i++ {
		r = append(r, i)
	}
	return r
}

func runScenario(t *testing.T, ctx context.Context, b *browser.Browser, base string) {
	for _, dark := range []bool{false, true} {
		theme := map[bool]string{false: "light", true: "dark"}[dark]
		t.Run("gsf-"+theme, func(t *testing.T) { gsfSeed(t, ctx, b, base, dark) })
	}
	t.Run("godot", func(t *testing.T) { godotEveryType(t, ctx, b, base) })
	t.Run("truncated", func(t *testing.T) { truncated(t, ctx, b, base) })
	t.Run("hexdump", func(t *testing.T) { hexDump(t, ctx, b, base) })
	t.Run("capture", func(t *testing.T) { captureFile(t, ctx, b, base) })
}

// hexDump pastes xxd's output and checks that the page reads the bytes, not the offsets.
func hexDump(t *testing.T, ctx context.Context, b *browser.Browser, base string) {
	p := open(t, ctx, b, base, false)
	setInput(t, ctx, p, "00000000: 1520 c25c 046d 0c0c 1841 6d61 7a69 6e67  . .\\.m...Amazing\n00000010: 576f 726c 6400                           World.\n")
	var head string
	p.Eval(ctx, `document.getElementById('hexhead').textContent`, &head)
	if head != "GSF frames · 22 bytes (hex dump)" {
		t.Errorf("head %q, want the 22 bytes of a GSF frame read from a hex dump", head)
	}
	// The same bytes as a file holding hexdump -C's output.
	path := filepath.Join(t.TempDir(), "frame.txt")
	dump := "00000000  15 20 c2 5c 04 6d 0c 0c  18 41 6d 61 7a 69 6e 67  |. .\\.m...Amazing|\n" +
		"00000010  57 6f 72 6c 64 00                                 |World.|\n00000016\n"
	if err := os.WriteFile(path, []byte(dump), 0o644); err != nil {
		t.Fatal(err)
	}
	var before int
	p.Eval(ctx, `window.inspector.state.reqSeq`, &before)
	if err := p.SetFiles(ctx, "#file", path); err != nil {
		t.Fatal(err)
	}
	waitExplained(t, ctx, p, before)
	p.Eval(ctx, `document.getElementById('hexhead').textContent`, &head)
	if head != "GSF frames · 22 bytes (hex dump)" {
		t.Errorf("from a file: head %q", head)
	}
	// A raw file dropped on the page.
	raw := filepath.Join(t.TempDir(), "frame.bin")
	one, _ := hex.DecodeString(strings.ReplaceAll(seedGSF, " ", ""))
	if err := os.WriteFile(raw, append(one, one...), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Eval(ctx, `window.inspector.state.reqSeq`, &before)
	if err := p.DropFiles(ctx, 700, 400, raw); err != nil {
		t.Fatal(err)
	}
	waitExplained(t, ctx, p, before)
	p.Eval(ctx, `document.getElementById('hexhead').textContent`, &head)
	if head != "GSF frames · 44 bytes (hex)" {
		t.Errorf("dropped: head %q, want two GSF frames", head)
	}
}

// gsfSeed pastes the seed's GSF request, gives the body's field list, and checks the tree, the
// selection in both directions, keyboard navigation and the link.
func gsfSeed(t *testing.T, ctx context.Context, b *browser.Browser, base string, dark bool) {
	p := open(t, ctx, b, base, dark)
	setInput(t, ctx, p, seedGSF)
	if v := getView(t, ctx, p); v.Format != "gsf" || !slices.Contains(v.Status, "detected as GSF frames") {
		t.Fatalf("format %q, status %q; want GSF detected", v.Format, v.Status)
	}
	setFormat(t, ctx, p, "gsf", map[string]string{"body": "clientName:string"})

	for name, want := range map[string]string{
		"svcClass":   "svcClass int32 18 (USER_SERVER) bit 16–26",
		"msgType":    "msgType int32 566 (GET_CLIENT_VERSION_INFO) bit 27–46",
		"requestId":  "requestId int32 1 bit 47–52",
		"clientName": `clientName string "AmazingWorld" bit 60–167`,
	} {
		if got := rowText(t, ctx, p, nodeID(t, ctx, p, name)); !strings.Contains(got, want) {
			t.Errorf("row %s = %q, want %q", name, got, want)
		}
	}

	// Clicking the svcClass row highlights exactly its bits, 16 to 26, and bytes 2 and 3.
	id := nodeID(t, ctx, p, "svcClass")
	if err := p.ClickSelector(ctx, fmt.Sprintf("#row-%d .tn", id)); err != nil {
		t.Fatal(err)
	}
	v := getView(t, ctx, p)
	if v.Sel != id || !slices.Equal(v.HexSel, []int{2, 3}) || !slices.Equal(v.BitSel, rangeInts(16, 27)) {
		t.Errorf("svcClass selected: sel %d (want %d), bytes %v (want [2 3]), bits %v (want 16…26)", v.Sel, id, v.HexSel, v.BitSel)
	}
	var detail string
	p.Eval(ctx, `document.getElementById('detail').innerText`, &detail)
	if !strings.Contains(detail, "bits 11000010010") {
		t.Errorf("detail %q, want svcClass's 11 bits", detail)
	}
	// The other way: clicking a bit of the string's text selects the field that holds it.
	if err := p.ClickSelector(ctx, `.bt[data-b="100"]`); err != nil {
		t.Fatal(err)
	}
	v = getView(t, ctx, p)
	if !strings.Contains(v.SelRow, `"AmazingWorld"`) || !slices.Equal(v.HexSel, rangeInts(9, 21)) {
		t.Errorf("bit 100 selected %q with bytes %v; want the string's 12 bytes 9…20", v.SelRow, v.HexSel)
	}
	// Hovering a bit marks its field's row; hovering a row marks its bits.
	if err := p.HoverSelector(ctx, `.bt[data-b="33"]`); err != nil {
		t.Fatal(err)
	}
	var hovered []string
	p.Eval(ctx, `[...document.querySelectorAll('.trow.hov .tn')].map(e => e.textContent)`, &hovered)
	if !slices.Equal(hovered, []string{"msgType"}) {
		t.Errorf("hovering bit 33 marks rows %q, want msgType's value step", hovered)
	}
	if err := p.HoverSelector(ctx, fmt.Sprintf("#row-%d .tn", nodeID(t, ctx, p, "requestId"))); err != nil {
		t.Fatal(err)
	}
	var hovBits []int
	p.Eval(ctx, `[...document.querySelectorAll('.bt.hov')].map(e => +e.dataset.b)`, &hovBits)
	if !slices.Equal(hovBits, rangeInts(47, 53)) {
		t.Errorf("hovering requestId marks bits %v, want 47…52", hovBits)
	}
	// Keyboard: from the svcClass row, ↓ goes to its first step and ← back to it.
	if err := p.ClickSelector(ctx, fmt.Sprintf("#row-%d .tn", id)); err != nil {
		t.Fatal(err)
	}
	if err := p.Press(ctx, "ArrowDown"); err != nil {
		t.Fatal(err)
	}
	v = getView(t, ctx, p)
	if !strings.Contains(v.SelRow, "svcClass compressed") || !slices.Equal(v.BitSel, []int{16, 17, 18}) {
		t.Errorf("after ↓: %q, bits %v; want the compression step, bits 16…18", v.SelRow, v.BitSel)
	}
	p.Press(ctx, "ArrowLeft")
	p.Press(ctx, "ArrowLeft") // closes svcClass
	if v = getView(t, ctx, p); v.Sel != id {
		t.Errorf("after ← ←: selected %d (%q), want svcClass %d", v.Sel, v.SelRow, id)
	}
	var expanded string
	p.Eval(ctx, fmt.Sprintf(`document.getElementById('row-%d').getAttribute('aria-expanded')`, id), &expanded)
	if expanded != "false" {
		t.Errorf("svcClass aria-expanded = %q after ←, want false", expanded)
	}
	p.Press(ctx, "ArrowRight")
	p.Eval(ctx, fmt.Sprintf(`document.getElementById('row-%d').getAttribute('aria-expanded')`, id), &expanded)
	if expanded != "true" {
		t.Errorf("svcClass aria-expanded = %q after →, want true", expanded)
	}
	// In the hex view, → moves to the next field.
	if err := p.Eval(ctx, `document.getElementById('hex').focus()`, nil); err != nil {
		t.Fatal(err)
	}
	p.Press(ctx, "ArrowRight")
	if v = getView(t, ctx, p); !strings.Contains(v.SelRow, "svcClass") || !slices.Equal(v.BitSel, rangeInts(19, 27)) {
		t.Errorf("hex view →: %q, bits %v; want svcClass's value bits 19…26", v.SelRow, v.BitSel)
	}
	// Every coloured byte and bit is readable: WCAG contrast of at least 4.5 between its text and
	// its background, in both themes.
	var worst struct {
		Ratio float64
		Cell  string
	}
	if err := p.Eval(ctx, contrastJS, &worst); err != nil {
		t.Fatal(err)
	}
	if worst.Ratio < 4.5 {
		t.Errorf("contrast %.2f for %s, want at least 4.5", worst.Ratio, worst.Cell)
	}
	t.Logf("lowest contrast of a coloured cell: %.2f", worst.Ratio)
	if dark {
		var bg string
		p.Eval(ctx, `getComputedStyle(document.body).backgroundColor`, &bg)
		if bg != "rgb(21, 23, 26)" {
			t.Errorf("dark scheme background %q", bg)
		}
	}
	p.HoverSelector(ctx, fmt.Sprintf("#row-%d .tn", nodeID(t, ctx, p, "msgType")))
	shot(t, ctx, p, map[bool]string{false: "gsf-light.png", true: "gsf-dark.png"}[dark])

	// The link reproduces the view in a new tab.
	v = getView(t, ctx, p)
	q := open(t, ctx, b, base+v.Hash, dark)
	w := getView(t, ctx, q)
	if w.Format != "gsf" || w.Sel != v.Sel || w.SelRow != v.SelRow || !slices.Equal(w.BitSel, v.BitSel) {
		t.Errorf("the link %s shows %q selected %d %q bits %v; want %d %q bits %v", v.Hash, w.Format, w.Sel, w.SelRow, w.BitSel, v.Sel, v.SelRow, v.BitSel)
	}
	for _, pg := range []*browser.Page{p, q} {
		if pr := pg.Problems(); len(pr) > 0 {
			t.Errorf("page problems: %v", pr)
		}
		for _, u := range pg.Requests() {
			if !strings.HasPrefix(u, base) && !strings.HasPrefix(u, "data:") {
				t.Errorf("the page requested %s, outside %s", u, base)
			}
		}
	}
}

// godotEveryType pastes a Godot 4 Array holding a value of every type and checks the row of
// each element and that selecting it highlights exactly its bytes.
func godotEveryType(t *testing.T, ctx context.Context, b *browser.Browser, base string) {
	p := open(t, ctx, b, base, false)
	val, want := everyType()
	data, err := godot.EncodeMode{}.Append(nil, val)
	if err != nil {
		t.Fatal(err)
	}
	setFormat(t, ctx, p, "godot4", nil)
	setInput(t, ctx, p, hex.EncodeToString(data))
	var nodes []struct {
		ID       int    `json:"id"`
		Name     string `json:"name"`
		Type     string `json:"type"`
		Value    string `json:"value"`
		Off, Len int
	}
	if err := p.Eval(ctx, `window.inspector.state.ex.nodes[0].children.filter(c => c.name.startsWith('[')).map(c => ({id: c.id, name: c.name, type: c.type, value: c.value, Off: c.off, Len: c.len}))`, &nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes) != len(want) {
		t.Fatalf("%d elements in the tree, want %d", len(nodes), len(want))
	}
	for i, n := range nodes {
		typ, value, _ := strings.Cut(want[i], "=")
		row := rowText(t, ctx, p, n.ID)
		if !strings.Contains(row, fmt.Sprintf("%s %s %s", n.Name, typ, value)) {
			t.Errorf("row of element %d = %q, want %s %s %s", i, row, n.Name, typ, value)
		}
		if v := getView(t, ctx, p); !slices.Equal(v.HexSel, rangeInts(n.Off, n.Off+n.Len)) {
			t.Errorf("element %d (%s) highlights bytes %v, want %d…%d", i, typ, v.HexSel, n.Off, n.Off+n.Len-1)
		}
	}
	// Hovering a byte marks its field's row.
	p.Eval(ctx, fmt.Sprintf(`window.inspector.select(%d, true)`, nodes[9].ID), nil)
	shot(t, ctx, p, "godot-every-type.png")
	if pr := p.Problems(); len(pr) > 0 {
		t.Errorf("page problems: %v", pr)
	}
}

// truncated checks that errors show at their offset with what decoded before them.
func truncated(t *testing.T, ctx context.Context, b *browser.Browser, base string) {
	p := open(t, ctx, b, base, false)
	// A GSF frame whose length prefix promises 20 payload bytes, with 12 of them.
	setFormat(t, ctx, p, "gsf", nil)
	setInput(t, ctx, p, seedGSF[:3*13])
	v := getView(t, ctx, p)
	if len(v.Status) == 0 || !strings.Contains(strings.Join(v.Status, " "), "error at byte 13 (bit 104): gsf: frame at byte 0 (length 21): unexpected EOF") {
		t.Errorf("status %q, want the error at byte 13, the end", v.Status)
	}
	// The header (bits 0…59) decodes; the body's bytes 8…12 do not.
	if !slices.Equal(v.Undec, rangeInts(8, 13)) {
		t.Errorf("undecoded %v; want 8…12", v.Undec)
	}
	if row := rowText(t, ctx, p, nodeID(t, ctx, p, "length prefix")); !strings.Contains(row, "21: 20 payload bytes") {
		t.Errorf("the length prefix row is %q", row)
	}
	if row := rowText(t, ctx, p, nodeID(t, ctx, p, "msgType")); !strings.Contains(row, "566 (GET_CLIENT_VERSION_INFO)") {
		t.Errorf("the msgType row is %q", row)
	}
	// A frame whose terminator is not 0 stops where its fields end: the error is marked there.
	setInput(t, ctx, p, "03 20 c2 5c")
	if v = getView(t, ctx, p); !slices.Equal(v.ErrAt, []int{3}) {
		t.Errorf("missing terminator: error marked at %v (status %q), want byte 3", v.ErrAt, v.Status)
	}
	// A Godot 4 value cut in the middle of a Rect2i: the elements before it stay.
	val, _ := everyType()
	data, _ := godot.EncodeMode{}.Append(nil, val)
	setFormat(t, ctx, p, "godot4", nil)
	setInput(t, ctx, p, hex.EncodeToString(data[:100]))
	v = getView(t, ctx, p)
	if !strings.Contains(strings.Join(v.Status, " "), "error at byte 100: godot: decoding Rect2i at byte 100 (at [8]): truncated input") {
		t.Errorf("status %q", v.Status)
	}
	if row := rowText(t, ctx, p, nodeID(t, ctx, p, "[7]")); !strings.Contains(row, "Rect2(1, 2, 3, 4)") {
		t.Errorf("row [7] = %q, want the Rect2 decoded before the error", row)
	}
	var bad bool
	p.Eval(ctx, fmt.Sprintf(`document.getElementById('row-%d').classList.contains('bad')`, nodeID(t, ctx, p, "[8]")), &bad)
	if !bad {
		t.Error("the Rect2i row is not marked as failed")
	}
	if err := p.ClickSelector(ctx, "#status .err"); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, p, "godot-truncated.png")
}

// largeInput opens a 1 MiB file and checks that the views stay virtualised.
func largeInput(t *testing.T, ctx context.Context, b *browser.Browser, base string) {
	p := open(t, ctx, b, base, false)
	// A Godot 4 PackedByteArray of 1 MiB - 8 bytes: 1 MiB in all.
	data := make([]byte, 1<<20)
	binary.LittleEndian.PutUint32(data, 29)
	binary.LittleEndian.PutUint32(data[4:], 1<<20-8)
	for i := 8; i < len(data); i++ {
		data[i] = byte(i * 7)
	}
	path := filepath.Join(t.TempDir(), "large.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	setFormat(t, ctx, p, "godot4", nil)
	var before int
	p.Eval(ctx, `window.inspector.state.reqSeq`, &before)
	start := time.Now()
	if err := p.SetFiles(ctx, "#file", path); err != nil {
		t.Fatal(err)
	}
	waitExplained(t, ctx, p, before)
	t.Logf("1 MiB explained and drawn in %v", time.Since(start))
	var size, fields int
	p.Eval(ctx, `window.inspector.state.ex.size`, &size)
	p.Eval(ctx, `window.inspector.state.ex.fields`, &fields)
	if size != 1<<20 || fields < 1<<16 {
		t.Fatalf("size %d, %d fields", size, fields)
	}
	// Jump to the end: the last byte is drawn, and only the rows in view exist.
	start = time.Now()
	if err := p.Eval(ctx, `(() => { const h = document.getElementById('hex'); h.scrollTop = h.scrollHeight; h.dispatchEvent(new Event('scroll')); })()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitFor(ctx, fmt.Sprintf(`document.querySelector('.hx[data-i="%d"]')`, len(data)-1)); err != nil {
		t.Fatal(err)
	}
	id := -1
	p.Eval(ctx, `window.inspector.state.nodes.length - 1`, &id)
	p.Eval(ctx, fmt.Sprintf(`window.inspector.select(%d, true)`, id), nil)
	t.Logf("scrolled to the end and selected the last field in %v", time.Since(start))
	v := getView(t, ctx, p)
	if v.HexRows > 200 || v.TreeRows > 200 {
		t.Errorf("%d hex rows and %d tree rows in the document; want only those in view", v.HexRows, v.TreeRows)
	}
	// The last line of the byte array: (1 MiB - 8) % 16 = 8 bytes.
	if !strings.Contains(v.SelRow, "bytes 1048568–1048575") || !slices.Equal(v.HexSel, rangeInts(len(data)-8, len(data))) {
		t.Errorf("the last field %q highlights %v", v.SelRow, v.HexSel)
	}
	shot(t, ctx, p, "large.png")
	if pr := p.Problems(); len(pr) > 0 {
		t.Errorf("page problems: %v", pr)
	}
}
