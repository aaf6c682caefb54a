package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/inspect/internal/samples"
	"github.com/gamewire/gamewire/internal/harness/browser"
)

// The real captures of capture/testdata (its README says how they were made).
const (
	tcpdumpCapture = "../../capture/testdata/serve-call.pcap"
	dumpcapCapture = "../../capture/testdata/serve-call-dumpcap.pcapng"
)

// streamFrame is a GSF frame of one stream: its place in the stream, its bytes and header.
type streamFrame struct {
	Off, Len    int
	Hex, Header string
}

// gsfDecodeFrames returns the frames "gamewire gsf decode" finds in a capture, by stream ("1/c2s").
func gsfDecodeFrames(t *testing.T, data []byte) map[string][]streamFrame {
	t.Helper()
	all, _, err := samples.CaptureFrames(data, false)
	if err != nil {
		t.Fatal(err)
	}
	frames := map[string][]streamFrame{}
	for _, f := range all {
		frames[f.Stream] = append(frames[f.Stream], streamFrame{f.Off, f.Len, f.Hex, f.Header})
	}
	return frames
}

// pageFrames returns the frames in the page's tree, with their bytes from the hex view's data.
const pageFrames = `(() => {
  const s = window.inspector.state;
  const hex = (n) => [...s.bytes.subarray(n.off, n.off + n.len)].map(b => b.toString(16).padStart(2, '0')).join('');
  return s.ex.nodes.filter(n => n.type === 'frame').map(n => ({Off: n.off, Len: n.len, Hex: hex(n), Header: n.value}));
})()`

// captureFile drops dumpcap's pcapng on the page, opens tcpdump's pcap with the file button and
// pastes it as base64: each time the page detects a capture, offers its streams, and shows the
// GSF frames of the stream chosen in the tree, the frames gamewire gsf decode finds there.
func captureFile(t *testing.T, ctx context.Context, b *browser.Browser, base string) {
	p := open(t, ctx, b, base, false)
	for _, c := range []struct {
		file, how string
		streams   []string
	}{
		{dumpcapCapture, "drop", []string{
			"1 client→server 127.0.0.1:53546 → 127.0.0.1:7566 (22 bytes)",
			"1 server→client 127.0.0.1:7566 → 127.0.0.1:53546 (22 bytes)",
			"2 client→server 127.0.0.1:53562 → 127.0.0.1:7566 (21 bytes)",
			"2 server→client 127.0.0.1:7566 → 127.0.0.1:53562 (46 bytes)",
		}},
		{tcpdumpCapture, "open", []string{
			"1 client→server 127.0.0.1:58832 → 127.0.0.1:40661 (22 bytes)",
			"1 server→client 127.0.0.1:40661 → 127.0.0.1:58832 (22 bytes)",
			"2 client→server 127.0.0.1:58848 → 127.0.0.1:40661 (13 bytes)",
			"2 server→client 127.0.0.1:40661 → 127.0.0.1:58848 (13 bytes)",
		}},
		{tcpdumpCapture, "paste", nil},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		path, err := filepath.Abs(c.file) // the browser takes absolute paths
		if err != nil {
			t.Fatal(err)
		}
		var before int
		p.Eval(ctx, `window.inspector.state.reqSeq`, &before)
		switch c.how {
		case "drop":
			err = p.DropFiles(ctx, 700, 400, path)
		case "open":
			err = p.SetFiles(ctx, "#file", path)
		case "paste":
			setInput(t, ctx, p, base64.StdEncoding.EncodeToString(data))
		}
		if err != nil {
			t.Fatal(err)
		}
		if c.how != "paste" {
			waitExplained(t, ctx, p, before)
		}
		v := getView(t, ctx, p)
		if v.Format != "capture" || !slices.Contains(v.Status, "detected as Packet capture (pcap/pcapng)") {
			t.Fatalf("%s (%s): format %q, status %q; want a capture detected", c.file, c.how, v.Format, v.Status)
		}
		var choices []struct{ Value, Label string }
		if err := p.Eval(ctx, `[...document.querySelectorAll('#opt-stream option')].map(o => ({Value: o.value, Label: o.textContent}))`, &choices); err != nil {
			t.Fatal(err)
		}
		if c.streams != nil {
			var labels []string
			for _, ch := range choices {
				labels = append(labels, ch.Label)
			}
			if !slices.Equal(labels, c.streams) {
				t.Errorf("%s: streams offered %q, want %q", c.file, labels, c.streams)
			}
		}
		// Every stream, chosen with the select: the frames of gsf decode, in the tree.
		want := gsfDecodeFrames(t, data)
		for _, ch := range choices {
			p.Eval(ctx, `window.inspector.state.reqSeq`, &before)
			js, _ := json.Marshal(ch.Value)
			if err := p.Eval(ctx, `(() => { const s = document.getElementById('opt-stream'); s.value = `+string(js)+`; s.dispatchEvent(new Event('change')); })()`, nil); err != nil {
				t.Fatal(err)
			}
			waitExplained(t, ctx, p, before)
			var got []streamFrame
			if err := p.Eval(ctx, pageFrames, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || !slices.Equal(got, want[ch.Value]) {
				t.Errorf("%s stream %s: frames in the tree %+v, gsf decode finds %+v", c.file, ch.Value, got, want[ch.Value])
			}
			var head string
			p.Eval(ctx, `document.getElementById('hexhead').textContent`, &head)
			if !strings.Contains(head, "stream "+strings.Replace(strings.TrimSuffix(ch.Label, ")"), " (", " as GSF frames · ", 1)) {
				t.Errorf("%s stream %s: head %q", c.file, ch.Value, head)
			}
		}
	}

	// The first stream of tcpdump's pcap: the GetClientVersionInfo request. Selecting its
	// string marks its bytes of the stream.
	p.Eval(ctx, `(() => { const s = document.getElementById('opt-stream'); s.value = '1/c2s'; s.dispatchEvent(new Event('change')); })()`, nil)
	if err := p.WaitFor(ctx, `window.inspector.state.ex.size === 22 && document.body.dataset.state === 'ready'`); err != nil {
		t.Fatal(err)
	}
	id := nodeID(t, ctx, p, "ClientName")
	if row := rowText(t, ctx, p, id); !strings.Contains(row, `ClientName string "AmazingWorld" bit 60–167`) {
		t.Errorf("ClientName row %q", row)
	}
	v := getView(t, ctx, p)
	if !slices.Equal(v.HexSel, rangeInts(7, 21)) || !slices.Equal(v.BitSel, rangeInts(60, 168)) {
		t.Errorf("ClientName selected: bytes %v, bits %v; want bytes 7…20, bits 60…167", v.HexSel, v.BitSel)
	}
	shot(t, ctx, p, "capture.png")
	// The link carries the capture (not the stream), the stream chosen and the selection.
	params, _ := url.ParseQuery(strings.TrimPrefix(v.Hash, "#"))
	pcap, _ := os.ReadFile(tcpdumpCapture)
	if params.Get("o.stream") != "1/c2s" || params.Get("in") != base64.RawURLEncoding.EncodeToString(pcap) {
		t.Errorf("link %s: want the capture and its stream", v.Hash)
	}
	p.Eval(ctx, `(() => { const s = document.getElementById('opt-stream'); s.value = '2/s2c'; s.dispatchEvent(new Event('change')); })()`, nil)
	if err := p.WaitFor(ctx, `window.inspector.state.ex.size === 13 && document.body.dataset.state === 'ready'`); err != nil {
		t.Fatal(err)
	}
	v = getView(t, ctx, p)
	q := open(t, ctx, b, base+v.Hash, false)
	if err := q.WaitFor(ctx, `window.inspector.state.ex && window.inspector.state.ex.size === 13`); err != nil {
		t.Fatalf("the link %s: %v", v.Hash, err)
	}
	if w := getView(t, ctx, q); w.Format != "capture" || !strings.Contains(w.Hash, "o.stream=2%2Fs2c") {
		t.Errorf("the link shows %q, link %s", w.Format, w.Hash)
	}

	// A capture cut inside its first data packet (the record at byte 286): no stream, the file
	// is shown with the error at that record.
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(cut, pcap[:300], 0o644); err != nil {
		t.Fatal(err)
	}
	var before int
	p.Eval(ctx, `window.inspector.state.reqSeq`, &before)
	if err := p.DropFiles(ctx, 700, 400, cut); err != nil {
		t.Fatal(err)
	}
	waitExplained(t, ctx, p, before)
	v = getView(t, ctx, p)
	if !slices.ContainsFunc(v.Status, func(s string) bool {
		return strings.HasPrefix(s, "error at byte 286: capture: packet 4 (record at byte 286): ")
	}) || !slices.Equal(v.ErrAt, []int{286}) {
		t.Errorf("cut capture: status %q, error marked at %v; want packet 4's record at byte 286", v.Status, v.ErrAt)
	}
	for _, pg := range []*browser.Page{p, q} {
		if pr := pg.Problems(); len(pr) > 0 {
			t.Errorf("page problems: %v", pr)
		}
	}
}
