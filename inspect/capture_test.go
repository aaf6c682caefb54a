package inspect

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/inspect/internal/samples"
)

// The captures are real ones (capture/testdata/README.md says how they were made): tcpdump's
// pcap of two "gamewire call" runs against "gamewire serve", and dumpcap's pcapng of two more.
const (
	tcpdumpCapture = "../capture/testdata/serve-call.pcap"
	dumpcapCapture = "../capture/testdata/serve-call-dumpcap.pcapng"
)

func readCaptureFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func explainRaw(t testing.TB, data []byte, format string, opts map[string]string) *Explanation {
	t.Helper()
	ex, err := Explain(Request{Format: format, Input: string(data), Encoding: "raw", Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func option(ex *Explanation, name string) *Option {
	for i := range ex.Options {
		if ex.Options[i].Name == name {
			return &ex.Options[i]
		}
	}
	return nil
}

// TestCaptureStreams: a capture is detected from its magic, its streams are offered as choices,
// the first stream with data (client→server) is shown by default, and any other can be chosen.
func TestCaptureStreams(t *testing.T) {
	pcap := readCaptureFile(t, tcpdumpCapture)
	ex := explainRaw(t, pcap, Auto, nil)
	if ex.Format != "capture" || ex.Notes[0] != "detected as Packet capture (pcap/pcapng)" {
		t.Fatalf("detected as %q, notes %q", ex.Format, ex.Notes)
	}
	// The stream is the request of the protocol documentation's example: its 22 bytes, with
	// the nodes and offsets of GSF frames over them.
	want, _ := hex.DecodeString(strings.ReplaceAll(seedGSF, " ", ""))
	if !bytes.Equal(ex.Data, want) || ex.Size != 22 || !bytes.Equal(ex.Source, pcap) || !ex.BitLevel {
		t.Fatalf("data % x (size %d), source of %d bytes, bit level %v; want the 22-byte request", ex.Data, ex.Size, len(ex.Source), ex.BitLevel)
	}
	if ex.Part != "stream 1 client→server 127.0.0.1:58832 → 127.0.0.1:40661 as GSF frames" {
		t.Errorf("part %q", ex.Part)
	}
	if len(ex.Errors) != 0 || len(ex.Nodes) != 1 || ex.Nodes[0].Name != "frame 1" {
		t.Fatalf("errors %v, %d nodes", ex.Errors, len(ex.Nodes))
	}
	checkTiles(t, ex, 176)
	if n := find(ex.Nodes, "ClientName"); n == nil || n.Value != `"AmazingWorld"` || n.Bit != 60 {
		t.Errorf("ClientName: %+v", n)
	}
	if !strings.Contains(ex.Notes[1], "pcap capture of 1 766 bytes: 20 packets, 20 TCP segments, 2 connections with 4 streams of data; shown: stream 1 client→server, 22 bytes reassembled") {
		t.Errorf("note %q", ex.Notes[1])
	}
	stream := option(ex, "stream")
	if stream == nil || stream.Value != "1/c2s" {
		t.Fatalf("stream option %+v", stream)
	}
	var labels []string
	for _, c := range stream.Choices {
		labels = append(labels, c.Value+"="+c.Label)
	}
	wantLabels := []string{
		"1/c2s=1 client→server 127.0.0.1:58832 → 127.0.0.1:40661 (22 bytes)",
		"1/s2c=1 server→client 127.0.0.1:40661 → 127.0.0.1:58832 (22 bytes)",
		"2/c2s=2 client→server 127.0.0.1:58848 → 127.0.0.1:40661 (13 bytes)",
		"2/s2c=2 server→client 127.0.0.1:40661 → 127.0.0.1:58848 (13 bytes)",
	}
	if strings.Join(labels, "\n") != strings.Join(wantLabels, "\n") {
		t.Errorf("stream choices:\n%s\nwant:\n%s", strings.Join(labels, "\n"), strings.Join(wantLabels, "\n"))
	}
	if as := option(ex, "as"); as == nil || as.Value != "gsf" || len(as.Choices) < 4 || slicesHave(as.Choices, "capture") {
		t.Errorf("as option %+v", as)
	}
	if body := option(ex, "body"); body == nil {
		t.Error("the GSF body option is not offered")
	}

	// Another stream, chosen explicitly, from the capture pasted as base64 and as hex.
	for _, in := range []string{base64.StdEncoding.EncodeToString(pcap), hex.EncodeToString(pcap)} {
		ex, err := Explain(Request{Format: "capture", Input: in, Options: map[string]string{"stream": "2/s2c"}})
		if err != nil {
			t.Fatal(err)
		}
		if ex.Size != 13 || ex.Data[1] != 0x21 || option(ex, "stream").Value != "2/s2c" {
			t.Fatalf("2/s2c: % x", ex.Data)
		}
		if n := find(ex.Nodes, "msgType"); n == nil || n.Value != "23 (ECHO)" {
			t.Errorf("2/s2c msgType: %+v", n)
		}
	}
	// A stream the capture does not hold falls back to the default, with a note.
	ex = explainRaw(t, pcap, "capture", map[string]string{"stream": "7/s2c"})
	if option(ex, "stream").Value != "1/c2s" || !strings.Contains(strings.Join(ex.Notes, "\n"), "no data of stream 7/s2c") {
		t.Errorf("stream 7/s2c: shown %s, notes %q", option(ex, "stream").Value, ex.Notes)
	}
	// Another format for the stream, with that format's options.
	ex = explainRaw(t, pcap, "capture", map[string]string{"as": "bits", "fields": "bool,int32"})
	if ex.BitLevel != true || len(ex.Nodes) != 2 || option(ex, "fields").Value != "bool,int32" {
		t.Errorf("as bits: %d nodes, options %+v", len(ex.Nodes), ex.Options)
	}
	// The format needs a field list: the stream is shown with the reason.
	ex = explainRaw(t, pcap, "capture", map[string]string{"as": "bits"})
	if len(ex.Errors) != 1 || ex.Errors[0].Off != 0 || !strings.Contains(ex.Errors[0].Msg, "field list") || ex.Size != 22 {
		t.Errorf("as bits without fields: %+v", ex.Errors)
	}
	// Not a format to explain a stream as.
	for _, as := range []string{"capture", "nope"} {
		if _, err := Explain(Request{Format: "capture", Input: string(pcap), Encoding: "raw", Options: map[string]string{"as": as}}); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("as %q: %v", as, err)
		}
	}
	if _, err := Explain(Request{Format: "capture", Input: string(pcap), Encoding: "raw", Options: map[string]string{"stream": "one"}}); err == nil {
		t.Error("stream \"one\": no error")
	}
}

func slicesHave(cs []Choice, v string) bool {
	for _, c := range cs {
		if c.Value == v {
			return true
		}
	}
	return false
}

// TestCaptureSameFramesAsGSFDecode: the inspector finds, in every stream of the real captures,
// the frames that "gamewire gsf decode" finds (package gsftap over capture.ReadStreams, which
// the command prints), at the same stream offsets, with the same bytes and headers.
func TestCaptureSameFramesAsGSFDecode(t *testing.T) {
	for _, name := range []string{tcpdumpCapture, dumpcapCapture, "../capture/testdata/serve-call-nosyn.pcap",
		"../capture/testdata/serve-call-any.pcap", "../capture/testdata/serve-echo-ipv6.pcap"} {
		data := readCaptureFile(t, name)
		want, problems, err := samples.CaptureFrames(data, false)
		if err != nil || problems != 0 {
			t.Fatalf("%s: gsf decode: %v, %d problems", name, err, problems)
		}
		var got []samples.CaptureFrame
		first := explainRaw(t, data, Auto, nil)
		for _, c := range option(first, "stream").Choices {
			ex := explainRaw(t, data, Auto, map[string]string{"stream": c.Value})
			if len(ex.Errors) != 0 {
				t.Fatalf("%s stream %s: %v", name, c.Value, ex.Errors)
			}
			for _, n := range ex.Nodes {
				if n.Type == "frame" {
					got = append(got, samples.CaptureFrame{Stream: c.Value, Off: n.Off, Len: n.Len,
						Hex: hex.EncodeToString(ex.Data[n.Off : n.Off+n.Len]), Header: n.Value})
				}
			}
		}
		// gsftap reports frames in capture order; the inspector stream by stream.
		sortFrames(want)
		sortFrames(got)
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("%s: %d frames, gsf decode finds %d", name, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: frame %+v, gsf decode finds %+v", name, got[i], want[i])
			}
		}
		t.Logf("%s: %d frames in %d streams", name, len(got), len(option(first, "stream").Choices))
	}
}

func sortFrames(fs []samples.CaptureFrame) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Stream != fs[j].Stream {
			return fs[i].Stream < fs[j].Stream
		}
		return fs[i].Off < fs[j].Off
	})
}

// TestCaptureErrors: captures cut short at every byte, damaged and not captures at all are
// explained without panicking, with the error at its byte: in the file when no stream could be
// read (the hex view then shows the file), at the end of the stream shown otherwise.
func TestCaptureErrors(t *testing.T) {
	pcap := readCaptureFile(t, tcpdumpCapture)
	pcapng := readCaptureFile(t, dumpcapCapture)
	for _, in := range [][]byte{pcap, pcapng} {
		for n := 4; n < len(in); n++ {
			cut := in[:n]
			_, rerr := capture.ReadStreams(bytes.NewReader(cut), nil, func(*capture.Event) {})
			ex := explainRaw(t, cut, Auto, nil)
			if ex.Format != "capture" {
				t.Fatalf("cut at %d: detected as %s", n, ex.Format)
			}
			checkInside(t, ex, ex.Nodes)
			var ce *capture.Error
			if rerr == nil {
				if ex.Part != "the capture file" && len(ex.Errors) != 0 {
					t.Fatalf("cut at %d (a record boundary): errors %v", n, ex.Errors)
				}
				continue
			}
			if !errors.As(rerr, &ce) {
				t.Fatalf("cut at %d: %v", n, rerr)
			}
			last := ex.Errors[len(ex.Errors)-1]
			if last.Msg != rerr.Error() && !strings.HasSuffix(last.Msg, ": "+rerr.Error()) {
				t.Fatalf("cut at %d: error %q, want %q", n, last.Msg, rerr)
			}
			if ex.Part == "the capture file" {
				if !bytes.Equal(ex.Data, cut) || last.Off != int(ce.Offset) || len(ex.Nodes) != 0 {
					t.Fatalf("cut at %d: file of %d bytes, error at %d, want at %d", n, ex.Size, last.Off, ce.Offset)
				}
			} else if last.Off != ex.Size || !strings.Contains(last.Msg, "this stream may go on") {
				t.Fatalf("cut at %d: stream of %d bytes, error %+v", n, ex.Size, last)
			}
		}
	}
	// Cut inside the record of packet 4 (the first with data, at byte 286): nothing to
	// reassemble, the file is shown with the error at the record.
	ex := explainRaw(t, pcap[:300], "capture", nil)
	if ex.Part != "the capture file" || len(ex.Errors) != 1 || ex.Errors[0].Off != 286 || !strings.Contains(ex.Errors[0].Msg, "packet 4 (record at byte 286)") {
		t.Errorf("cut in packet 4: part %q, errors %+v", ex.Part, ex.Errors)
	}
	// Cut inside packet 13 (at byte 1166): connection 1 is whole, connection 2 has no data yet.
	ex = explainRaw(t, pcap[:1200], "capture", map[string]string{"stream": "1/s2c"})
	if ex.Size != 22 || len(ex.Errors) != 1 || ex.Errors[0].Off != 22 || !strings.Contains(ex.Errors[0].Msg, "packet 14 (record at byte 1166)") {
		t.Errorf("cut in packet 14: %d bytes, errors %+v", ex.Size, ex.Errors)
	}
	// Holes: the real capture's request three times on one connection, 22 bytes missing before
	// the second and the third (their sequence numbers skip them). The stream holds what was
	// captured, errors mark where bytes are missing, and the frames around them decode.
	holes := hostileCapture(t, 24+3*104, func(i int, pkt []byte) {
		seq := binary.BigEndian.Uint32(pkt[38:])
		binary.BigEndian.PutUint32(pkt[38:], seq+uint32(2*22*i))
	})
	ex = explainRaw(t, holes, Auto, nil)
	var at []int
	for _, e := range ex.Errors {
		if e.Msg != "22 bytes of the stream are missing from the capture before this byte (segments not captured)" {
			t.Errorf("holes: error %+v", e)
		}
		at = append(at, e.Off)
	}
	if ex.Size != 66 || len(ex.Nodes) != 3 || !slices.Equal(at, []int{22, 44}) || !strings.Contains(strings.Join(ex.Notes, "\n"), "the capture starts after this connection did") {
		t.Errorf("holes: %d bytes, %d frames, errors at %v, notes %q", ex.Size, len(ex.Nodes), at, ex.Notes)
	}
	// The file header alone: a capture without packets.
	ex = explainRaw(t, pcap[:24], Auto, nil)
	if ex.Format != "capture" || len(ex.Errors) != 0 || !strings.Contains(strings.Join(ex.Notes, "\n"), "no TCP data") {
		t.Errorf("header only: %+v", ex)
	}
	// Not a capture, asked to read as one; a damaged file header.
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{[]byte("hello world"), "not a pcap or pcapng file"},
		{pcap[:20], "file header"},
		{append([]byte{0x0a, 0x0d, 0x0d, 0x0a}, bytes.Repeat([]byte{0xff}, 40)...), "file header"},
	} {
		ex := explainRaw(t, c.in, "capture", nil)
		if len(ex.Errors) != 1 || ex.Errors[0].Off != 0 || !strings.Contains(ex.Errors[0].Msg, c.want) || !bytes.Equal(ex.Data, c.in) {
			t.Errorf("% x: errors %+v, want %q at byte 0", c.in[:8], ex.Errors, c.want)
		}
	}
}

// TestCaptureResync: a capture picked up in the middle of a frame, with a hole later, made from
// the real capture's request (packet 4 of serve-call.pcap): its last 10 bytes, then 22 bytes
// missing, then the request twice. As gamewire gsf decode (gsftap) does, the inspector skips
// to the first plausible frame and resynchronizes after the hole: the same frames, with the
// bytes skipped and the hole as errors.
func TestCaptureResync(t *testing.T) {
	real := readCaptureFile(t, tcpdumpCapture)
	const at, size = 286, 16 + 88 // packet 4's record: 66 bytes of headers, the 22-byte request
	record := func(seqDelta uint32, from int) []byte {
		r := append([]byte{}, real[at:at+size]...)
		pkt := r[16:]
		binary.BigEndian.PutUint32(pkt[38:], binary.BigEndian.Uint32(pkt[38:])+seqDelta)
		binary.BigEndian.PutUint16(pkt[16:], binary.BigEndian.Uint16(pkt[16:])-uint16(from)) // IPv4 total length
		r = append(r[:16+66], pkt[66+from:]...)
		binary.LittleEndian.PutUint32(r[8:], uint32(len(r)-16))
		binary.LittleEndian.PutUint32(r[12:], uint32(len(r)-16))
		return r
	}
	data := append([]byte{}, real[:24]...)
	data = append(data, record(12, 12)...) // the request's last 10 bytes
	data = append(data, record(44, 0)...)  // 22 bytes missing before it
	data = append(data, record(66, 0)...)

	want, _, err := samples.CaptureFrames(data, true)
	if err != nil {
		t.Fatal(err)
	}
	ex := explainRaw(t, data, Auto, nil)
	var got []samples.CaptureFrame
	for _, n := range ex.Nodes {
		got = append(got, samples.CaptureFrame{Off: n.Off, Len: n.Len, Hex: hex.EncodeToString(ex.Data[n.Off : n.Off+n.Len]), Header: n.Value})
	}
	// The stream shown lacks the 22 bytes of the hole: gsftap's stream offsets 32 and 54
	// (which count them) are bytes 10 and 32 of it.
	if len(want) != 2 || want[0].Off != 32 || want[1].Off != 54 {
		t.Fatalf("gsf decode finds %+v", want)
	}
	want[0].Off, want[1].Off = 10, 32
	for i := range want {
		want[i].Stream = "" // the tree's frames do not say their stream
	}
	if !slices.Equal(got, want) || ex.Size != 54 {
		t.Fatalf("frames %+v in %d bytes, want %+v", got, ex.Size, want)
	}
	if ex.Nodes[0].Name != "frame 1" || ex.Nodes[1].Name != "frame 2" {
		t.Errorf("frames named %q, %q", ex.Nodes[0].Name, ex.Nodes[1].Name)
	}
	if len(ex.Errors) != 2 || ex.Errors[0].Off != 0 || ex.Errors[0].Len != 10 || !strings.Contains(ex.Errors[0].Msg, "gsf: frame at byte 0: not at a frame boundary") ||
		ex.Errors[1].Off != 10 || !strings.HasPrefix(ex.Errors[1].Msg, "22 bytes of the stream are missing") {
		t.Errorf("errors %+v", ex.Errors)
	}
	checkInside(t, ex, ex.Nodes)
}
