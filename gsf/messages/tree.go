package messages

import (
	"fmt"
	"strings"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/explain"
)

// Tree returns the body's fields as fields of the one explanation model (package explain),
// numbered as the description numbers bits, for a body whose first bit is start: an object's
// fields, a slice's elements and a map's entries are children of theirs, the bits of an object's
// null bit, a slice's or map's count and the bits between children are fields of their own
// ("null bit", "count", "bits"), so that the leaves tile the body; a map's entry is a field of
// type "entry" with a "key" and a "value" child, each with its own range. Fields decoded but not
// shown (Options.MaxFields) are one field "omitted".
func (b *Body) Tree(start int) []*explain.Field {
	body := &explain.Field{Bit: int64(start)}
	if n := len(b.Fields); n > 0 {
		body.Bits = int64(b.Fields[n-1].Bit+b.Fields[n-1].Bits) - body.Bit
	}
	addFields(body, "", b.Fields, false, b.leafSteps)
	if b.Omitted > 0 {
		end := b.OmittedBit
		if s := b.Steps; len(s) > 0 {
			end = s[len(s)-1].Bit + s[len(s)-1].Len
		}
		// The fields shown may end past where the omitted ones start (a slice shown whose
		// later elements are not): the omitted field covers what is left after them.
		from := max(int64(b.OmittedBit), body.Bit+body.Bits)
		body.Children = append(body.Children, &explain.Field{Name: "omitted", Type: "bits", Bit: from, Bits: max(int64(end)-from, 0),
			Text: fmt.Sprintf("%s, decoded but not shown (a limit: Options.MaxFields, --max-fields)", plural(b.Omitted, "more field"))})
	}
	if body.Children == nil {
		return []*explain.Field{}
	}
	return body.Children
}

// addFields adds fs under parent, a value of wire type container, with fields for the bits
// before, between and (when closed) after them.
func addFields(parent *explain.Field, container string, fs []Field, closed bool, steps map[int][]bitproto.Step) {
	at := parent.Bit
	gap := func(upTo int64) {
		if upTo <= at {
			return
		}
		name := "bits"
		switch {
		case at == parent.Bit && (strings.HasPrefix(container, "[]") || strings.HasPrefix(container, "map[")):
			name = "count"
		case at == parent.Bit && upTo-at == 1:
			name = "null bit"
		}
		parent.Children = append(parent.Children, &explain.Field{Name: name, Type: "bits", Bit: at, Bits: upTo - at})
		at = upTo
	}
	for _, f := range fs {
		gap(int64(f.Bit))
		n := treeField(f, steps)
		parent.Children = append(parent.Children, n)
		at = n.Bit + n.Bits
	}
	if closed && len(fs) > 0 {
		gap(parent.Bit + parent.Bits)
	}
}

// treeField is one described field in the model.
func treeField(f Field, steps map[int][]bitproto.Step) *explain.Field {
	if f.Key != nil {
		key := &explain.Field{Name: "key", Type: f.Key.Type, Value: explain.Scalar(f.Key.Value), Text: f.Key.Text, Bit: int64(f.Key.Bit), Bits: int64(f.Key.Bits)}
		v := f
		v.Key, v.Name = nil, "value"
		v.Bit = f.Key.Bit + f.Key.Bits
		v.Bits = f.Bit + f.Bits - v.Bit
		return &explain.Field{Name: f.Name, Type: "entry", Bit: int64(f.Bit), Bits: int64(f.Bits), Children: []*explain.Field{key, treeField(v, steps)}}
	}
	n := &explain.Field{Name: f.Name, Type: f.Type, Value: explain.Scalar(f.Value), Text: f.Text, Bit: int64(f.Bit), Bits: int64(f.Bits)}
	if len(f.Fields) > 0 {
		addFields(n, f.Type, f.Fields, true, steps)
	} else if rows := steps[f.Bit]; len(rows) > 0 {
		// A leaf's bits, row by row, when they tile it.
		end := n.Bit
		for _, st := range rows {
			if int64(st.Bit) != end {
				return n
			}
			end += int64(st.Len)
		}
		if end == n.Bit+n.Bits {
			for _, st := range rows {
				n.Children = append(n.Children, bitproto.StepField(st))
			}
		}
	}
	return n
}
