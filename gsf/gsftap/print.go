package gsftap

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/gsf"
)

// Printer writes records, as text or as JSON Lines. Every frame is described by gsf.Explain
// with the options in Explain, the same description "gamewire gsf decode" gives a frame.
type Printer struct {
	W io.Writer
	// JSON writes one JSON object per line instead of text.
	JSON bool
	// Explain holds the options for gsf.Explain; messages.ExplainOptions gives those that
	// decode the message catalog's bodies (what gamewire does). The zero value shows bodies as
	// bits.
	Explain gsf.ExplainOptions
	// Text writes a frame's explanation in the text form; nil means
	// (*gsf.Explanation).WriteSummary. (*gsf.Explanation).WriteText gives the bit-by-bit form.
	Text func(*gsf.Explanation, io.Writer) error
	// Model, when set, writes each frame's explanation in the text form of the one explanation
	// model (explain.WriteText: every field with its bits, the frame's bits numbered from its
	// own first byte) instead of Text.
	Model bool
	// Location is the time zone of the text form's times; nil means time.Local.
	Location *time.Location

	// Frames and Problems count the frames and problems printed; bytes missing from a
	// capture (a RecordGap of known size) count as a problem.
	Frames, Problems int
}

// JSONRecord is the JSON Lines form of a Record.
type JSONRecord struct {
	Kind RecordKind `json:"kind"`
	Time time.Time  `json:"time"`
	Conn uint64     `json:"conn"`
	// Dir is c2s (client to server) or s2c, for frames, problems and gaps.
	Dir    *capture.Direction `json:"dir,omitempty"`
	Src    string             `json:"src,omitempty"`
	Dst    string             `json:"dst,omitempty"`
	Seq    int                `json:"seq,omitempty"`
	Offset *int64             `json:"offset,omitempty"`
	Size   int64              `json:"size,omitempty"`
	// Hex is the frame's bytes, or the first bytes of a problem.
	Hex      string `json:"hex,omitempty"`
	Resynced bool   `json:"resynced,omitempty"`
	Lost     int64  `json:"lost,omitempty"`
	// RolesGuessed: which side is the client was guessed (a capture without the SYN).
	RolesGuessed bool   `json:"rolesGuessed,omitempty"`
	Error        string `json:"error,omitempty"`
	// Frame is a frame's explanation in the one explanation model (docs/explain.md), its bits
	// numbered from the first byte of its direction's stream, its Context the record's stream,
	// direction, time and addresses.
	Frame *explain.Frame `json:"frame,omitempty"`
}

// Print writes one record.
func (p *Printer) Print(r *Record) error {
	var ex *gsf.Explanation
	switch r.Kind {
	case RecordFrame:
		p.Frames++
		ex, _ = gsf.Explain(r.Frame, p.Explain) // a frame's own problems are in ex
		if ex == nil {
			ex = &gsf.Explanation{}
		}
		for i := range ex.Frames {
			ex.Frames[i].Offset += int(r.Offset)
		}
	case RecordProblem:
		p.Problems++
	case RecordGap:
		if r.Lost > 0 {
			p.Problems++ // lost data is a problem; a stream picked up mid-way is not
		}
	}
	if p.JSON {
		return p.printJSON(r, ex)
	}
	return p.printText(r, ex)
}

func (p *Printer) printJSON(r *Record, ex *gsf.Explanation) error {
	jr := JSONRecord{Kind: r.Kind, Time: r.Time, Conn: r.Conn.ID, Seq: r.Seq, Size: r.Size, Resynced: r.Resynced, Lost: r.Lost}
	switch r.Kind {
	case RecordOpen, RecordClose:
		jr.Src, jr.Dst = addrText(r.Conn.Client), addrText(r.Conn.Server)
		jr.RolesGuessed = r.Conn.RolesGuessed
	default:
		d := r.Dir
		jr.Dir = &d
		jr.Src, jr.Dst = r.Conn.Src(d).String(), r.Conn.Dst(d).String()
		off := r.Offset
		jr.Offset = &off
	}
	if len(r.Frame) > 0 {
		jr.Hex = hex.EncodeToString(r.Frame)
	}
	if r.Err != nil {
		jr.Error = r.Err.Error()
	}
	if ex != nil && len(ex.Frames) > 0 {
		fr := ex.Frames[0].Frame(max(r.Seq-1, 0), nil)
		d, _ := r.Dir.MarshalText()
		fr.Context = map[string]string{"stream": strconv.FormatUint(r.Conn.ID, 10) + "/" + string(d), "dir": string(d),
			"time": r.Time.UTC().Format(time.RFC3339Nano), "src": jr.Src, "dst": jr.Dst}
		jr.Frame = fr
	}
	b, err := json.Marshal(jr)
	if err != nil {
		return err
	}
	_, err = p.W.Write(append(b, '\n'))
	return err
}

func (p *Printer) printText(r *Record, ex *gsf.Explanation) error {
	var b bytes.Buffer
	loc := p.Location
	if loc == nil {
		loc = time.Local
	}
	fmt.Fprintf(&b, "%s #%d ", r.Time.In(loc).Format("15:04:05.000000"), r.Conn.ID)
	if r.Kind == RecordOpen || r.Kind == RecordClose {
		verb := "open"
		if r.Kind == RecordClose {
			verb = "close"
		}
		fmt.Fprintf(&b, "%s client %s, server %s", verb, addrText(r.Conn.Client), addrText(r.Conn.Server))
		if r.Kind == RecordOpen && r.Conn.RolesGuessed {
			b.WriteString(" (no SYN in the capture: the server is guessed from the ports)")
		}
		if r.Err != nil {
			fmt.Fprintf(&b, ": %v", r.Err)
		}
		b.WriteByte('\n')
		_, err := p.W.Write(b.Bytes())
		return err
	}
	fmt.Fprintf(&b, "%s %s → %s ", r.Dir, r.Conn.Src(r.Dir), r.Conn.Dst(r.Dir))
	switch r.Kind {
	case RecordGap:
		if r.Lost < 0 {
			b.WriteString("the capture starts mid-stream: looking for the first plausible frame\n")
		} else {
			fmt.Fprintf(&b, "problem at byte %d (%s): bytes %d–%d missing from the capture (not captured, cut by its snaplen, or given up on by the out-of-order window): looking for the next plausible frame\n",
				r.Offset, bytesText(int64(r.Lost)), r.Offset, r.Offset+r.Lost-1)
		}
	case RecordProblem:
		fmt.Fprintf(&b, "problem at byte %d (%s): %v\n", r.Offset, bytesText(int64(r.Size)), r.Err)
		if len(r.Frame) > 0 {
			fmt.Fprintf(&b, "  % x", r.Frame)
			if int64(len(r.Frame)) < r.Size {
				b.WriteString(" …")
			}
			b.WriteByte('\n')
		}
	case RecordFrame:
		fmt.Fprintf(&b, "frame %d, bytes %d–%d", r.Seq, r.Offset, r.Offset+r.Size-1)
		if r.Resynced {
			b.WriteString(" (resynchronized here)")
		}
		fmt.Fprintf(&b, "\n  % x\n", r.Frame)
		write := p.Text
		if write == nil {
			write = (*gsf.Explanation).WriteSummary
		}
		var text strings.Builder
		if p.Model && ex != nil && len(ex.Frames) > 0 {
			fr := ex.Frames[0].Frame(max(r.Seq-1, 0), nil)
			fr.Shift(-8 * r.Offset) // numbered from the frame's own first byte, as r.Frame holds it
			if err := explain.WriteText(&text, r.Frame, fr); err != nil {
				return err
			}
		} else if err := write(ex, &text); err != nil {
			return err
		}
		// The explanation numbers the frame 1; it is frame r.Seq of its direction.
		out := strings.Replace(text.String(), "frame 1 at byte ", "frame "+strconv.Itoa(r.Seq)+" at byte ", 1)
		for line := range strings.Lines(out) {
			b.WriteString("  ")
			b.WriteString(line)
		}
	}
	_, err := p.W.Write(b.Bytes())
	return err
}

// addrText is a's text, or "-" for an unknown address (an upstream that could not be reached).
func addrText(a netip.AddrPort) string {
	if !a.IsValid() {
		return "-"
	}
	return a.String()
}

// bytesText returns n bytes as a person reads them: "1 byte", "2 bytes".
func bytesText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
