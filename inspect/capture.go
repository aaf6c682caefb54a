package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/gsf"
)

func init() {
	Register(Format{Name: "capture", Title: "Packet capture (pcap/pcapng)", Order: 50, Detect: true,
		Magic: func(data []byte) bool { return capture.DetectFormat(data) != capture.FormatUnknown },
		Options: []Option{
			{Name: "stream", Label: "stream", Default: "",
				Choices: []Choice{{Value: "", Label: "the first stream with data"}}},
			{Name: "as", Label: "as", Default: "gsf", choices: streamFormats},
		},
		Explain: explainCapture})
}

// MaxStreamChoices bounds the streams a capture's stream option lists; a note counts the
// others (still reachable with the option's value, "ID/c2s" or "ID/s2c").
const MaxStreamChoices = 1000

// streamFormats lists the formats a capture's stream can be explained as: all but captures.
func streamFormats() []Choice {
	var cs []Choice
	for _, f := range formats() {
		if f.Magic == nil {
			cs = append(cs, Choice{Value: f.Name, Label: f.Title})
		}
	}
	return cs
}

// streamKey names one direction of one connection of a capture.
type streamKey struct {
	conn uint64
	dir  capture.Direction
}

// String returns the option value of the stream: "1/c2s".
func (k streamKey) String() string {
	d, _ := k.dir.MarshalText()
	return strconv.FormatUint(k.conn, 10) + "/" + string(d)
}

// parseStreamKey reads "1/c2s" (or "1 c2s").
func parseStreamKey(s string) (streamKey, error) {
	s = strings.TrimSpace(s)
	id, dir, ok := strings.Cut(s, "/")
	if !ok {
		id, dir, ok = strings.Cut(s, " ")
	}
	var k streamKey
	n, err := strconv.ParseUint(strings.TrimSpace(id), 10, 64)
	if !ok || err != nil || n == 0 || k.dir.UnmarshalText([]byte(strings.TrimSpace(dir))) != nil {
		return k, fmt.Errorf("inspect: stream %q: want a connection number and a direction, such as 1/c2s or 2/s2c", s)
	}
	k.conn = n
	return k, nil
}

// connInfo is what a capture holds of one connection.
type connInfo struct {
	conn  *capture.Conn
	bytes [2]int64 // bytes of data per direction
}

// streamGap is bytes missing from the collected stream, before its byte at.
type streamGap struct {
	at   int
	lost int64
}

// collected is the data of one stream.
type collected struct {
	data   []byte
	gaps   []streamGap
	midway bool // the capture starts after the connection did
}

// captureReader reads a capture's streams, keeping the data of the streams keep asks for.
type captureReader struct {
	keep  func(streamKey) bool
	conns []*connInfo
	byPtr map[*capture.Conn]*connInfo
	kept  map[streamKey]*collected
}

func (r *captureReader) handle(ev *capture.Event) {
	ci := r.byPtr[ev.Conn]
	if ci == nil {
		ci = &connInfo{conn: ev.Conn}
		r.byPtr[ev.Conn] = ci
		r.conns = append(r.conns, ci)
	}
	k := streamKey{ev.Conn.ID, ev.Dir}
	var c *collected
	if ev.Kind == capture.EventData || ev.Kind == capture.EventGap {
		if c = r.kept[k]; c == nil && r.keep(k) {
			c = &collected{}
			r.kept[k] = c
		}
	}
	switch ev.Kind {
	case capture.EventData:
		ci.bytes[ev.Dir] += int64(len(ev.Data))
		if c != nil {
			c.data = append(c.data, ev.Data...)
		}
	case capture.EventGap:
		if c == nil {
			break
		}
		if ev.Lost < 0 {
			c.midway = true
		} else {
			c.gaps = append(c.gaps, streamGap{at: len(c.data), lost: ev.Lost})
		}
	}
}

// readCapture reads data's streams, keeping those keep asks for.
func readCapture(data []byte, keep func(streamKey) bool) (*captureReader, capture.Stats, error) {
	r := &captureReader{keep: keep, byPtr: map[*capture.Conn]*connInfo{}, kept: map[streamKey]*collected{}}
	// Out-of-order data waits in pages of about 1.9 KB, one per segment at least. A segment
	// takes at least 70 bytes of a capture, so a capture of n bytes never needs more than
	// n/64 pages; the bound keeps a hostile capture from holding more than about 30 times its
	// size.
	opts := capture.Options{MaxBufferedPages: min(len(data)/64+16, 16384)}
	st, err := capture.ReadStreams(bytes.NewReader(data), &opts, r.handle)
	return r, st, err
}

// explainCapture reassembles the TCP streams of a pcap or pcapng capture and explains one
// direction of one of them as another format. The explanation's Data is that stream.
func explainCapture(data []byte, opts map[string]string) (*Explanation, error) {
	as := strings.TrimSpace(opts["as"])
	inner, ok := Lookup(as)
	if !ok || inner.Magic != nil {
		return nil, fmt.Errorf("%w %q to explain a capture's stream as (have %s)", ErrUnknownFormat, as, choiceNames(streamFormats()))
	}
	var want streamKey
	var notes []string
	if s := strings.TrimSpace(opts["stream"]); s != "" {
		k, err := parseStreamKey(s)
		if err != nil {
			return nil, err
		}
		want = k
	}
	// The stream asked for, or the first connection's two directions (the first with data is
	// the default).
	keep := func(k streamKey) bool { return k == want || (want.conn == 0 && k.conn == 1) }
	r, st, rerr := readCapture(data, keep)

	// Pick the stream: the one asked for if the capture holds data of it, else the first with
	// data, client→server before server→client.
	var chosen *connInfo
	key := want
	for _, ci := range r.conns {
		if want.conn != 0 && ci.conn.ID == want.conn && ci.bytes[want.dir] > 0 {
			chosen = ci
			break
		}
	}
	if chosen == nil {
		if want.conn != 0 {
			notes = append(notes, fmt.Sprintf("the capture holds no data of stream %s: showing the first stream with data", want))
		}
		for _, ci := range r.conns {
			if ci.bytes[capture.ClientToServer] > 0 {
				chosen, key = ci, streamKey{ci.conn.ID, capture.ClientToServer}
				break
			}
			if ci.bytes[capture.ServerToClient] > 0 {
				chosen, key = ci, streamKey{ci.conn.ID, capture.ServerToClient}
				break
			}
		}
	}
	stats := captureStats(st, len(data), r.conns)
	if chosen == nil {
		// Nothing to reassemble: show the file itself, with the error where reading stopped.
		ex := &Explanation{Part: "the capture file", Notes: append(notes, stats)}
		if rerr != nil {
			var ce *capture.Error
			off := 0
			if errors.As(rerr, &ce) {
				off = int(min(ce.Offset, int64(len(data))))
			}
			ex.addError(8*off, rerr)
		} else {
			ex.Notes = append(ex.Notes, "the capture holds no TCP data to explain")
		}
		ex.setCaptureOptions(r.conns, streamKey{}, inner, opts)
		return ex, nil
	}
	col := r.kept[key]
	if col == nil {
		// The default fell on a stream that was not kept: read the capture again for it.
		r2, _, _ := readCapture(data, func(k streamKey) bool { return k == key })
		if col = r2.kept[key]; col == nil {
			col = &collected{} // not reached: the same capture holds the same streams
		}
	}

	var ex *Explanation
	var err error
	if inner.Name == "gsf" {
		// GSF frames are found as gamewire gsf decode finds them, resynchronizing after a
		// hole or a malformed frame.
		if ex, err = explainGSFStream(col, opts); err == nil {
			ex.BitLevel = inner.BitLevel
		}
	} else {
		ex, err = run(inner, col.data, opts)
	}
	if err != nil {
		// The stream is there but the format needs more (a field list): show the stream with
		// the reason, and the format's options to fill in.
		ex = &Explanation{Nodes: []*Node{}}
		ex.addError(0, err)
	}
	ex.Data, ex.Source = col.data, data
	ex.Part = fmt.Sprintf("stream %d %s %s → %s as %s", key.conn, key.dir, chosen.conn.Src(key.dir), chosen.conn.Dst(key.dir), inner.Title)
	head := stats + fmt.Sprintf("; shown: stream %d %s, %s reassembled, as %s; byte offsets count from the stream's first byte", key.conn, key.dir, plural(len(col.data), "byte"), inner.Title)
	notes = append(notes, head)
	if chosen.conn.RolesGuessed {
		notes = append(notes, "the capture holds no SYN of this connection: which side is the client is a guess (the lower port is taken for the server)")
	}
	if col.midway {
		notes = append(notes, "the capture starts after this connection did: the stream's first byte may be in the middle of a message")
	}
	ex.Notes = append(notes, ex.Notes...)
	for _, g := range col.gaps {
		ex.addError(8*g.at, fmt.Errorf("%s of the stream are missing from the capture before this byte (segments not captured)", plural(int(g.lost), "byte")))
	}
	if rerr != nil {
		ex.addError(8*len(col.data), fmt.Errorf("the capture cannot be read further, so this stream may go on beyond this byte: %w", rerr))
	}
	ex.setCaptureOptions(r.conns, key, inner, opts)
	return ex, nil
}

// explainGSFStream explains the GSF frames of a stream as gsftap (and so gamewire gsf decode)
// finds them: a gsf.Splitter splits the stream, told of the holes, and resynchronizes at the
// start of a stream picked up mid-way, after a hole and after a malformed frame; each frame is
// explained as the GSF format explains it, at its place. Malformed frames and bytes skipped are
// errors that cover their bytes.
func explainGSFStream(col *collected, opts map[string]string) (*Explanation, error) {
	data := col.data
	if _, err := explainGSF(nil, opts); err != nil {
		return nil, err // a body field list that does not parse
	}
	ex := &Explanation{Nodes: []*Node{}}
	var sp gsf.Splitter
	var lost int64 // bytes missing before the part of the stream being fed
	nodes, frames := 0, 0
	var stop error
	yield := func(f *gsf.StreamFrame) {
		if stop != nil {
			return
		}
		off := int(f.Offset - lost)
		size := int(min(f.Size, int64(len(data)-off)))
		if f.Err != nil {
			err := f.Err
			var fe *gsf.FrameError
			if errors.As(err, &fe) {
				c := *fe
				c.Offset = int64(off) // the message names the byte of the stream shown
				err = &c
			}
			ex.Errors = append(ex.Errors, Error{Off: off, Bit: 8 * off, Len: size, Msg: err.Error()})
			return
		}
		fx, err := explainGSF(data[off:off+size], opts)
		if err != nil {
			stop = err
			return
		}
		n := countNodes(fx.Nodes)
		if nodes+n > MaxNodes {
			ex.Notes = append(ex.Notes, limitNote(off))
			stop = errTreeFull
			return
		}
		nodes += n
		frames++
		for _, nd := range fx.Nodes {
			nd.Name = fmt.Sprintf("frame %d", frames)
			shiftNode(nd, off)
			ex.Nodes = append(ex.Nodes, nd)
		}
		for _, e := range fx.Errors {
			e.Off, e.Bit = e.Off+off, e.Bit+8*off
			ex.Errors = append(ex.Errors, e)
		}
		ex.Notes = append(ex.Notes, fx.Notes...)
	}
	if col.midway {
		sp.Lost(-1, yield)
	}
	at := 0
	for _, g := range col.gaps {
		sp.Write(data[at:g.at], yield)
		sp.Lost(g.lost, yield)
		lost += max(g.lost, 0)
		at = g.at
	}
	sp.Write(data[at:], yield)
	sp.End(yield)
	if stop != nil && stop != errTreeFull {
		return nil, stop
	}
	return ex, nil
}

// errTreeFull stops explainGSFStream when the tree has MaxNodes nodes.
var errTreeFull = errors.New("inspect: the tree is full")

func countNodes(ns []*Node) int {
	n := len(ns)
	for _, c := range ns {
		n += countNodes(c.Children)
	}
	return n
}

// shiftNode moves a node and its children off bytes on.
func shiftNode(n *Node, off int) {
	n.Off += off
	n.Bit += 8 * off
	for _, c := range n.Children {
		shiftNode(c, off)
	}
}

// captureStats describes what a capture holds.
func captureStats(st capture.Stats, size int, conns []*connInfo) string {
	streams := 0
	for _, ci := range conns {
		for _, n := range ci.bytes {
			if n > 0 {
				streams++
			}
		}
	}
	return fmt.Sprintf("%s capture of %s: %s, %s, %s with %s of data", st.Format, plural(size, "byte"),
		plural(st.Packets, "packet"), plural(st.TCP, "TCP segment"), plural(len(conns), "connection"), plural(streams, "stream"))
}

// captureOptions returns the options of a capture's explanation: its streams with data, the
// format of the stream, and that format's own options, each with the value used.
func captureOptions(conns []*connInfo, key streamKey, inner Format, opts map[string]string) (options []Option, unlisted int) {
	stream := Option{Name: "stream", Label: "stream", Value: key.String()}
	if key.conn == 0 {
		stream.Value = ""
		stream.Choices = []Choice{{Value: "", Label: "no stream with data"}}
	}
	listed := 0
	for _, ci := range conns {
		for d := range ci.bytes {
			k := streamKey{ci.conn.ID, capture.Direction(d)}
			if ci.bytes[d] == 0 {
				continue
			}
			if listed >= MaxStreamChoices && k != key {
				unlisted++
				continue
			}
			listed++
			stream.Choices = append(stream.Choices, Choice{Value: k.String(),
				Label: fmt.Sprintf("%d %s %s → %s (%s)", k.conn, k.dir, ci.conn.Src(k.dir), ci.conn.Dst(k.dir), plural(int(ci.bytes[d]), "byte"))})
		}
	}
	as := Option{Name: "as", Label: "as", Default: "gsf", Value: inner.Name, Choices: streamFormats()}
	out := []Option{stream, as}
	for _, o := range inner.Options {
		o.Value = opts[o.Name]
		if o.Value == "" {
			o.Value = o.Default
		}
		out = append(out, o)
	}
	return out, unlisted
}

// setCaptureOptions sets a capture explanation's options, with a note on the streams not listed.
func (ex *Explanation) setCaptureOptions(conns []*connInfo, key streamKey, inner Format, opts map[string]string) {
	var unlisted int
	ex.Options, unlisted = captureOptions(conns, key, inner, opts)
	if unlisted > 0 {
		ex.Notes = append(ex.Notes, fmt.Sprintf("the stream choice lists the first %d streams; %d more are in the capture (set the option to ID/c2s or ID/s2c in the link to see one)", MaxStreamChoices, unlisted))
	}
}

func choiceNames(cs []Choice) string {
	var ns []string
	for _, c := range cs {
		ns = append(ns, c.Value)
	}
	return strings.Join(ns, ", ")
}

// plural returns "1 byte" or "1 234 bytes": the number with its digits grouped by threes.
func plural(n int, what string) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	if n != 1 {
		what += "s"
	}
	return s + " " + what
}
