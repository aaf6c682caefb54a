package inspect

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/messages"
)

func init() {
	Register(Format{Name: "gsf", Title: "GSF frames", BitLevel: true, Order: 10, Detect: true,
		Options: []Option{{Name: "body", Label: "body fields", Placeholder: "catalog, or clientName:string",
			Default: ""}},
		Explain: explainGSF})
	Register(Format{Name: "bits", Title: "BitProtocol field list", BitLevel: true, Order: 40,
		Options: []Option{{Name: "fields", Label: "fields", Placeholder: "bool,int32,name:string",
			Default: ""}, {Name: "offset", Label: "start bit", Default: "0", Placeholder: "0"}},
		Explain: explainBits})
}

// explainGSF explains every frame with gsf.Explain: a node per frame, a node per field with
// its steps, and a node for every other step (length prefix, padding, terminator). Without a
// field list, bodies are described by the message catalog (package gsf/messages), the same as
// "gamewire gsf decode" does.
func explainGSF(data []byte, opts map[string]string) (*Explanation, error) {
	eo := messages.ExplainOptions(messages.Options{})
	if spec := strings.TrimSpace(opts["body"]); spec != "" {
		fields, err := bitproto.ParseFields(spec)
		if err != nil {
			return nil, err
		}
		eo.Body = fields
	}
	ex := &Explanation{}
	b := &builder{}
	// A part at a time, so that a long input costs no more than the tree it fills.
	eo.MaxFrames = 256
	i := 0
	for off := 0; off < len(data) && !b.limited; {
		gx, err := gsf.Explain(data[off:], eo)
		if len(gx.Frames) == 0 {
			ex.addError(8*off, err)
			break
		}
		stop := gsfFrames(ex, b, gx.Frames, data, off, &i)
		last := gx.Frames[len(gx.Frames)-1]
		if stop || last.Err != nil || len(gx.Frames) < eo.MaxFrames {
			break
		}
		off += last.Offset + last.Size
	}
	return ex, nil
}

// gsfFrames adds the frames of a part of the input that starts at byte off; it reports whether
// the tree is full or a frame failed.
func gsfFrames(ex *Explanation, b *builder, frames []gsf.FrameExplanation, data []byte, off int, i *int) bool {
	for _, fe := range frames {
		fe.Offset += off
		var ferr *gsf.FrameError
		if errors.As(fe.Err, &ferr) {
			ferr.Offset += int64(off) // the message names the byte of the whole input
		}
		*i++
		base := 8 * fe.Offset
		size := fe.Size
		if fe.Err != nil {
			size = len(data) - fe.Offset
		}
		value := ""
		if fe.Header != nil {
			value = fe.Header.String()
		}
		frame := b.node(nil, byteNode(fmt.Sprintf("frame %d", *i), "frame", value, fe.Offset, size))
		if frame == nil {
			ex.Notes = append(ex.Notes, limitNote(fe.Offset))
			return true
		}
		ex.Nodes = append(ex.Nodes, frame)
		fi := 0
		end := base
		var desc *gsf.BodyDescription
		bodyStart := -1
		if fe.Body != nil && fe.Body.Message != nil {
			desc, bodyStart = fe.Body.Message, fe.Body.Bit
		}
		for si := 0; si < len(fe.Steps); si++ {
			s := fe.Steps[si]
			if desc != nil && s.Bit >= bodyStart {
				// The catalog's account of the body: its fields as a tree, in wire order.
				if !catalogBody(b, frame, desc, base, bodyStart) {
					break
				}
				bodyEnd := bodyStart
				for _, st := range desc.Steps {
					bodyEnd = max(bodyEnd, st.Bit+st.Len)
				}
				for si < len(fe.Steps) && fe.Steps[si].Bit >= bodyStart && fe.Steps[si].Bit < bodyEnd {
					end = base + fe.Steps[si].Bit + fe.Steps[si].Len
					si++
				}
				desc = nil
				si--
				continue
			}
			if fi < len(fe.Fields) && fe.Fields[fi].Bit == s.Bit && len(fe.Fields[fi].Steps) > 0 {
				v := fe.Fields[fi]
				fi++
				name := v.Field.Name
				if name == "" {
					name = v.Field.Type.String()
				}
				fn := b.node(frame, bitNode(name, v.Field.Type.String(), valueText(v), base+v.Bit, v.Len))
				if fn == nil {
					break
				}
				if len(v.Steps) > 1 {
					for _, st := range v.Steps {
						if b.node(fn, stepNode(st, base)) == nil {
							break
						}
					}
				}
				si += len(v.Steps) - 1
				end = base + v.Bit + v.Len
				continue
			}
			if b.node(frame, stepNode(s, base)) == nil {
				break
			}
			end = base + s.Bit + s.Len
		}
		if b.limited {
			ex.Notes = append(ex.Notes, limitNote(fe.Offset))
			return true
		}
		if fe.Err != nil {
			frame.Error = fe.Err.Error()
			// A frame cut short misses bytes at the end of the input; any other error stops
			// decoding after the last bits explained.
			if errors.Is(fe.Err, io.ErrUnexpectedEOF) {
				end = 8 * len(data)
			}
			ex.addError(end, fe.Err)
			return true
		}
	}
	return false
}

// catalogBody adds a body described by the catalog: a node for the body, with a node per field
// (objects, slices and maps hold theirs), or the raw dump of a body the catalog does not know.
// It reports false when the tree is full.
func catalogBody(b *builder, frame *Node, desc *gsf.BodyDescription, base, bodyStart int) bool {
	fields, _ := desc.Fields.([]messages.Field)
	name, typ, value := desc.Type, "message", "the catalog's layout"
	if name == "" {
		name, typ, value = "body", "unknown", "not in the catalog"
	}
	bits := 0
	for _, st := range desc.Steps {
		bits = max(bits, st.Bit+st.Len-bodyStart)
	}
	body := b.node(frame, bitNode(name, typ, value, base+bodyStart, bits))
	if body == nil {
		return false
	}
	if len(fields) == 0 {
		for _, st := range desc.Steps {
			if b.node(body, stepNode(st, base)) == nil {
				return false
			}
		}
		return true
	}
	// The leaves tile the body: the bits of an object, slice or map before its first child (a
	// null bit, a count) and between children get nodes of their own.
	var add func(parent *Node, container string, fs []messages.Field) bool
	add = func(parent *Node, container string, fs []messages.Field) bool {
		at := parent.Bit
		gap := func(upTo int) bool {
			if upTo <= at {
				return true
			}
			name := "bits"
			switch {
			case at == parent.Bit && (strings.HasPrefix(container, "[]") || strings.HasPrefix(container, "map[")):
				name = "count"
			case at == parent.Bit && upTo-at == 1:
				name = "null bit"
			}
			return b.node(parent, bitNode(name, "bits", "", at, upTo-at)) != nil
		}
		for _, f := range fs {
			if !gap(base + f.Bit) {
				return false
			}
			text := f.Text
			if text == "" && f.Value != nil {
				text = fmt.Sprint(f.Value)
			}
			n := b.node(parent, bitNode(f.Name, f.Type, text, base+f.Bit, f.Bits))
			if n == nil || (len(f.Fields) > 0 && !add(n, f.Type, f.Fields)) {
				return false
			}
			at = base + f.Bit + f.Bits
		}
		if len(fs) > 0 && parent != body {
			return gap(parent.Bit + parent.Bits)
		}
		return true
	}
	return add(body, "", fields)
}

// valueText is a field's value without its name: "18 (USER_SERVER)" rather than the step's
// "svcClass = 18 (USER_SERVER)".
func valueText(v bitproto.Value) string {
	t := v.Text()
	if len(v.Steps) > 0 {
		last := v.Steps[len(v.Steps)-1].Text
		if _, after, ok := strings.Cut(last, " = "); ok && strings.HasPrefix(after, t) {
			return after
		}
	}
	return t
}

func stepNode(s bitproto.Step, base int) *Node {
	name, value := s.Text, s.Bits
	if k, v, ok := strings.Cut(s.Text, " = "); ok {
		name, value = k, v
	} else if k, v, ok := strings.Cut(s.Text, ": "); ok {
		name, value = k, v
	}
	n := bitNode(name, "bits", value, base+s.Bit, s.Len)
	return n
}

// explainBits decodes a BitProtocol bit stream by a field list with bitproto.DecodeFields.
func explainBits(data []byte, opts map[string]string) (*Explanation, error) {
	spec := strings.TrimSpace(opts["fields"])
	if spec == "" {
		return nil, errors.New("inspect: BitProtocol needs a field list, such as bool,int32,name:string")
	}
	fields, err := bitproto.ParseFields(spec)
	if err != nil {
		return nil, err
	}
	start := 0
	if s := strings.TrimSpace(opts["offset"]); s != "" {
		var err error
		if start, err = strconv.Atoi(s); err != nil || start < 0 {
			return nil, fmt.Errorf("inspect: start bit %q: want a number of bits", s)
		}
	}
	r := bitstream.NewReader(data)
	if err := r.Seek(start); err != nil {
		return nil, fmt.Errorf("inspect: start bit %d: %w", start, err)
	}
	vals, derr := bitproto.DecodeFields(r, fields)
	ex := &Explanation{}
	b := &builder{}
	for _, v := range vals {
		name := v.Field.Name
		if name == "" {
			name = v.Field.Type.String()
		}
		n := b.node(nil, bitNode(name, v.Field.Type.String(), valueText(v), v.Bit, v.Len))
		if n == nil {
			ex.Notes = append(ex.Notes, limitNote(v.Bit/8))
			break
		}
		ex.Nodes = append(ex.Nodes, n)
		if len(v.Steps) > 1 {
			for _, st := range v.Steps {
				if b.node(n, stepNode(st, 0)) == nil {
					break
				}
			}
		}
	}
	if derr != nil {
		bit := r.Offset()
		var be *bitproto.DecodeError
		if errors.As(derr, &be) {
			bit = int(be.BitOffset)
		}
		ex.addError(bit, derr)
	} else if rest := r.Remaining(); rest > 0 {
		ex.Notes = append(ex.Notes, fmt.Sprintf("%d bits after the fields, not decoded", rest))
	}
	return ex, nil
}
