package gsf

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/explain"
)

// ExplainFrames explains every frame of data as an [explain.Frame] (Format "gsf") of the one
// explanation model: the length prefix, the header's fields (each holding its steps), the body
// (the catalog's fields as a tree when opts has the catalog's Describer, a field list's fields,
// or its undecoded bits), padding and terminator, every bit numbered from data's first bit. A
// frame's Summary is its header ("request USER_SERVER/LOGIN id=1").
//
// Like [Explain] it stops at the first frame that cannot be decoded, which ends the list with
// its Err set, and returns that frame's error; a frame whose body the Describer rejects has Err
// set and the frames after it follow. It also stops once budget (nil: explain.DefaultMaxFields)
// is spent: the last frame is Truncated and the frames after it are not read. Memory is that of
// the fields kept and of one frame's explanation at a time.
func ExplainFrames(data []byte, opts ExplainOptions, budget *explain.Budget) ([]*explain.Frame, error) {
	if budget == nil {
		budget = explain.NewBudget(0)
	}
	var frames []*explain.Frame
	var first error
	for off := 0; off < len(data); {
		fe, n := explainFrame(data[off:], off, opts)
		fr := fe.Frame(len(frames), budget)
		frames = append(frames, fr)
		if fe.Err != nil && first == nil {
			first = fe.Err
		}
		if n == 0 || fr.Truncated {
			break
		}
		off += n
	}
	if len(frames) == 0 {
		return nil, errors.New("gsf: no input")
	}
	return frames, first
}

// Frame returns the frame explanation as a frame of the one explanation model, numbered index,
// with bits numbered from the first bit of the input fe.Offset counts from. Its fields count
// against budget (nil: no limit).
func (fe *FrameExplanation) Frame(index int, budget *explain.Budget) *explain.Frame {
	if budget == nil {
		budget = explain.NewBudget(explain.NoLimit)
	}
	// Steps and fields are numbered from the frame's first bit, or from its payload's.
	base := int64(8*fe.Offset + 8*fe.PrefixLen - fe.FirstPayloadBit)
	if fe.PrefixLen == 0 {
		base = int64(8 * fe.Offset)
	}
	size := fe.Size
	fr := &explain.Frame{Format: "gsf", Index: index, Bit: int64(8 * fe.Offset), Bits: int64(8 * size), Fields: []*explain.Field{}}
	if fe.Header != nil {
		fr.Summary = fe.Header.String()
	}
	var desc *BodyDescription
	bodyStart := -1
	if fe.Body != nil && fe.Body.Message != nil {
		desc, bodyStart = fe.Body.Message, fe.Body.Bit
	}
	end := 0 // the end of the bits explained, in the steps' numbering
	if len(fe.Steps) > 0 {
		end = min(0, fe.Steps[0].Bit) // the length prefix is before the payload's bit 0
	}
	start := end
	add := func(f *explain.Field) bool {
		shiftField(f, base)
		return budget.AddTo(fr, f)
	}
	fi := 0
	for si := 0; si < len(fe.Steps) && !fr.Truncated; si++ {
		s := fe.Steps[si]
		if desc != nil && s.Bit >= bodyStart {
			// The describer's account of the body, and the steps it covers.
			body, bodyEnd := bodyField(desc, bodyStart)
			if !add(body) {
				break
			}
			for si < len(fe.Steps) && fe.Steps[si].Bit >= bodyStart && fe.Steps[si].Bit < bodyEnd {
				end = fe.Steps[si].Bit + fe.Steps[si].Len
				si++
			}
			si--
			desc = nil
			continue
		}
		if fi < len(fe.Fields) && fe.Fields[fi].Bit == s.Bit && len(fe.Fields[fi].Steps) > 0 {
			v := fe.Fields[fi]
			fi++
			f := v.Explain()
			f.Note = fe.notes[v.Bit]
			if !add(f) {
				break
			}
			si += len(v.Steps) - 1
			end = v.Bit + v.Len
			continue
		}
		f := bitproto.StepField(s)
		if name := fe.names[si]; name != "" {
			f.Name = name
		}
		switch f.Name {
		case "length prefix":
			f.Type, f.Value = "varint", int64(fe.Length)
			f.Text = fmt.Sprintf("%d: %s + the 0x00 terminator", fe.Length, plural(max(fe.Length-1, 0), "payload byte"))
			if fe.Length == 0 {
				f.Text = "0: an empty frame"
			}
		case "terminator":
			f.Type, f.Value, f.Text = "u8", uint64(0), "0x00"
			if s.Bit < end { // the body read into it, as the reference's reader allows
				f.Bit, f.Bits = int64(end), int64(s.Bit+s.Len-end)
				f.Note = "its first bits were read by the body, as the reference's reader allows"
			}
		}
		if s.Bit < end && f.Name != "terminator" {
			// Bits explained already (a describer's dump of a body that starts past the
			// payload's end): only what is left of them.
			if s.Bit+s.Len <= end {
				continue
			}
			f.Bit, f.Bits = int64(end), int64(s.Bit+s.Len-end)
		}
		if !add(f) {
			break
		}
		end = max(end, s.Bit+s.Len)
	}
	if fe.Err != nil {
		if fe.Size == 0 { // not a whole frame: it spans what was explained of it
			endBit := fr.Bit + int64(8*fe.PrefixLen)
			if n := len(fr.Fields); n > 0 {
				endBit = max(endBit, fr.Fields[n-1].Bit+fr.Fields[n-1].Bits)
			}
			fr.Bits = endBit - fr.Bit
		}
		at := fr.Bit
		if end > start {
			at = base + int64(end)
		}
		if errors.Is(fe.Err, io.ErrUnexpectedEOF) && fe.avail > 0 {
			// The input ends inside the frame: the error is where it ends.
			at = fr.Bit + int64(8*fe.avail)
			fr.Bits = int64(8 * fe.avail)
		}
		fr.Err = &explain.Error{Bit: at, Msg: fe.Err.Error(), Err: fe.Err}
		if fr.Summary == "" {
			fr.Summary = "does not decode"
		}
	}
	return fr
}

// bodyField is the field of a body the describer described, and the end of its bits.
func bodyField(desc *BodyDescription, bodyStart int) (*explain.Field, int) {
	end := bodyStart
	for _, st := range desc.Steps {
		end = max(end, st.Bit+st.Len)
	}
	name, typ, text := desc.Type, "message", "the catalog's layout"
	if name == "" {
		name, typ, text = "body", "unknown", "not in the catalog"
	}
	body := &explain.Field{Name: name, Type: typ, Text: text, Bit: int64(bodyStart), Bits: int64(end - bodyStart)}
	if desc.Tree != nil {
		body.Children = desc.Tree
	} else {
		for _, st := range desc.Steps {
			body.Children = append(body.Children, bitproto.StepField(st))
		}
	}
	return body, end
}

// shiftField moves a field and its children by bits.
func shiftField(f *explain.Field, bits int64) {
	f.Bit += bits
	if f.Err != nil {
		f.Err.Bit += bits
	}
	for _, c := range f.Children {
		shiftField(c, bits)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// pluralForm says n and the noun in the form for n: "1 entry", "2 entries".
func pluralForm(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
