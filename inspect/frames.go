package inspect

import (
	"fmt"
	"strconv"

	"github.com/gamewire/gamewire/explain"
)

// fromFrames builds the tree of an explanation from the frames a format explained data as:
// a frame of one top-level field is that field's node; a frame of several is a node "frame N"
// holding them when there are several frames or the frame is a GSF frame, else its fields are
// the roots. Nodes take every fact from the model's own fields (names, types, ranges, text
// and errors), never from parsing text.
func fromFrames(frames []*explain.Frame) *Explanation {
	ex := &Explanation{Nodes: []*Node{}}
	nodes := 0
	for i, fr := range frames {
		n := fr.Count()
		if len(fr.Fields) != 1 && (len(frames) > 1 || fr.Format == "gsf") {
			n++ // the frame's own node
		}
		if nodes+n > MaxNodes || len(fr.Fields) == 0 && fr.Truncated {
			ex.Notes = append(ex.Notes, limitNote(int(fr.Bit/8)))
			break
		}
		nodes += n
		var root *Node
		if len(fr.Fields) != 1 && len(frames) == 1 && fr.Format != "gsf" {
			for _, f := range fr.Fields {
				ex.Nodes = append(ex.Nodes, fieldNode(f))
			}
			if fr.Err != nil {
				ex.addFieldError(fr.Err)
			}
			if fr.Truncated {
				ex.Notes = append(ex.Notes, limitNote(int(fr.Bit/8)))
			}
			continue
		}
		if len(fr.Fields) == 1 {
			root = fieldNode(fr.Fields[0])
			if len(frames) > 1 && root.Name == "value" {
				root.Name = "value " + strconv.Itoa(i+1)
			}
		} else {
			root = bitNode("frame "+strconv.Itoa(fr.Index+1), "frame", fr.Summary, int(fr.Bit), int(fr.Bits))
			for _, f := range fr.Fields {
				root.Children = append(root.Children, fieldNode(f))
			}
		}
		if fr.Err != nil {
			ex.addFieldError(fr.Err)
			if root.Error == "" && len(fr.Fields) != 1 {
				root.Error = fr.Err.Msg
			}
		}
		if fr.Truncated {
			ex.Notes = append(ex.Notes, limitNote(int(fr.Bit/8)))
		}
		ex.Nodes = append(ex.Nodes, root)
	}
	return ex
}

// fieldNode makes the node of a field and its children.
func fieldNode(f *explain.Field) *Node {
	n := bitNode(f.Name, f.Type, fieldText(f), int(f.Bit), int(f.Bits))
	if f.Note != "" {
		if n.Value != "" {
			n.Value += " (" + f.Note + ")"
		} else {
			n.Value = f.Note
		}
	}
	if f.Err != nil {
		n.Error = f.Err.Msg
	}
	for _, c := range f.Children {
		n.Children = append(n.Children, fieldNode(c))
	}
	return n
}

// fieldText is what a node shows as its value: the field's Text, else its Value.
func fieldText(f *explain.Field) string {
	if f.Text != "" {
		return f.Text
	}
	switch v := f.Value.(type) {
	case nil:
		return ""
	case string:
		return strconv.Quote(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(f.Value)
}

// addFieldError records an error of the model, with the bits it covers.
func (ex *Explanation) addFieldError(e *explain.Error) {
	ex.Errors = append(ex.Errors, Error{Off: int(e.Bit / 8), Bit: int(e.Bit), Len: int((e.Bits + 7) / 8), Msg: e.Msg})
}
