package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/godot"
)

func init() {
	framing := Option{Name: "framing", Label: "framing", Default: "none", Choices: []Choice{
		{"none", "none (var_to_bytes, one packet)"},
		{"streampeer", "StreamPeer put_var (u32 LE length)"},
		{"streampeer-be", "StreamPeer put_var, big_endian"},
		{"packetpeerstream", "PacketPeerStream (u32 LE length)"},
		{"file", "file store_var (u32 LE length)"},
	}}
	for _, d := range []struct {
		name  string
		title string
		d     godot.Dialect
		order int
	}{{"godot4", "Godot 4 Variant", godot.Godot4, 20}, {"godot3", "Godot 3 Variant", godot.Godot3, 30}} {
		dialect := d.d
		Register(Format{Name: d.name, Title: d.title, Order: d.order, Detect: true, Options: []Option{framing},
			Explain: func(data []byte, opts map[string]string) (*Explanation, error) {
				return explainGodot(data, dialect, opts["framing"])
			}})
	}
}

// explainGodot explains every Variant of data, one after the other, each with its length prefix
// when framing has one.
func explainGodot(data []byte, d godot.Dialect, framing string) (*Explanation, error) {
	var so godot.StreamOptions
	prefixed := true
	switch framing {
	case "none", "":
		prefixed = false
	case "streampeer", "file":
		so.Framing = godot.FramingStreamPeer
	case "streampeer-be":
		so.Framing = godot.FramingStreamPeerBigEndian
	case "packetpeerstream":
		so.Framing = godot.FramingPacketPeerStream
	default:
		return nil, fmt.Errorf("inspect: unknown Godot framing %q (want none, streampeer, streampeer-be, packetpeerstream or file)", framing)
	}
	so.Dialect = d
	opts, err := godot.DecodeOptions{Dialect: d, AllowObjects: true}.DecodeMode()
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	ex := &Explanation{}
	b := &builder{}
	if !prefixed {
		for off, i := 0, 0; off < len(data); i++ {
			n, ok := godotValue(ex, b, nil, data[off:], off, opts, fmt.Sprintf("value %d", i+1))
			if !ok {
				break
			}
			off += n
		}
		return ex, nil
	}
	// The stream decoder of the godot package reads the prefixes, with its limits.
	dec := so.NewDecoder(bytes.NewReader(data))
	for off, i := 0, 0; off < len(data); i++ {
		msg, err := dec.ReadMessage()
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("the input ends inside message %d (%d bytes left): %w", i+1, len(data)-off, err)
			}
			end := min(off+4, len(data))
			if end-off == 4 {
				m := b.node(nil, byteNode(fmt.Sprintf("message %d", i+1), so.Framing.String(), "", off, len(data)-off))
				if m != nil {
					ex.Nodes = append(ex.Nodes, m)
					b.node(m, byteNode("length prefix", "u32", prefixText(data[off:end], so.Framing), off, 4))
					m.Error = err.Error()
				}
			}
			ex.addError(8*off, err)
			break
		}
		m := b.node(nil, byteNode(fmt.Sprintf("message %d", i+1), so.Framing.String(), fmt.Sprintf("%d bytes", len(msg)), off, 4+len(msg)))
		if m == nil {
			ex.Notes = append(ex.Notes, limitNote(off))
			break
		}
		ex.Nodes = append(ex.Nodes, m)
		b.node(m, byteNode("length prefix", "u32", prefixText(data[off:off+4], so.Framing), off, 4))
		if _, ok := godotValue(ex, b, m, msg, off+4, opts, "value"); !ok {
			break
		}
		off += 4 + len(msg)
	}
	return ex, nil
}

func prefixText(p []byte, f godot.Framing) string {
	n := uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
	if f == godot.FramingStreamPeerBigEndian {
		n = uint32(p[3]) | uint32(p[2])<<8 | uint32(p[1])<<16 | uint32(p[0])<<24
	}
	return fmt.Sprintf("%d bytes follow", n)
}

// godotValue explains the first Variant of data, which starts at byte base of the input, under
// parent (or as a root). It returns the Variant's length and whether it decoded.
func godotValue(ex *Explanation, b *builder, parent *Node, data []byte, base int, opts godot.DecodeMode, name string) (int, bool) {
	// One more field than the tree has room for shows that it is full.
	fields, _, err := opts.ExplainFirst(data, MaxNodes-b.nodes+1)
	// The variants open at each depth, from the top-level one down.
	var open []*Node
	size := 0
	var failed *Node // the innermost Variant that did not decode
	for _, f := range fields {
		if f.Depth == 0 && f.Kind == "bytes" && strings.HasSuffix(f.Text, "ignored (as the engine ignores them)") {
			break // the rest is the next value's
		}
		if f.Kind == "header" {
			if len(open) > f.Depth {
				open = open[:f.Depth]
			}
			var p *Node
			if len(open) > 0 {
				p = open[len(open)-1]
			} else {
				p = parent
			}
			typ := headerType(f.Text)
			n := byteNode(variantName(f, name), typ, "", base+f.Offset, 4)
			if f.Span > 0 {
				n.Len, n.Bits = f.Span, 8*f.Span
				n.Value = summarize(f.Value, 0)
				// Math types by the dialect's name: Godot 3's Quat and Transform, and Vector3
				// for a double-precision Vector3d.
				if rt := reflect.TypeOf(f.Value); rt != nil && rt.Kind() == reflect.Struct && strings.HasPrefix(n.Value, rt.Name()+"(") {
					n.Value = typ + strings.TrimPrefix(n.Value, rt.Name())
				}
			}
			if b.node(p, n) == nil {
				ex.Notes = append(ex.Notes, limitNote(base+f.Offset))
				return 0, false
			}
			if p == nil {
				ex.Nodes = append(ex.Nodes, n)
			}
			if f.Depth == 0 {
				size = f.Span
			}
			if f.Span < 0 {
				failed = n
			}
			open = append(open, n)
			if b.node(n, byteNode("header", "u32", headerValue(f.Text), base+f.Offset, 4)) == nil {
				ex.Notes = append(ex.Notes, limitNote(base+f.Offset))
				return 0, false
			}
			continue
		}
		if len(open) > f.Depth+1 {
			open = open[:f.Depth+1]
		}
		if len(open) == 0 {
			continue
		}
		name, value := leafName(f)
		leaf := byteNode(name, f.Kind, value, base+f.Offset, f.Len)
		if b.node(open[len(open)-1], leaf) == nil {
			ex.Notes = append(ex.Notes, limitNote(base+f.Offset))
			return 0, false
		}
	}
	if err != nil {
		off := len(data)
		var de *godot.DecodeError
		if errors.As(err, &de) {
			off = int(de.Offset)
			de.Offset += int64(base) // in the whole input's numbering
		}
		ex.addError(8*(base+off), err)
		msg := err.Error()
		if failed != nil {
			failed.Error = msg
		} else if parent != nil {
			parent.Error = msg
		}
		return 0, false
	}
	if size <= 0 {
		return 0, false
	}
	return size, true
}

// variantName names a Variant node by the last segment of its path.
func variantName(f godot.Field, top string) string {
	if f.Depth == 0 || f.Path == "" {
		return top
	}
	p := f.Path
	// The last segment: "[3]", "[\"key\"]", ".key(0)" or ".name".
	depth := 0
	for i := len(p) - 1; i > 0; i-- {
		switch p[i] {
		case ']':
			depth++
		case '[':
			depth--
			if depth == 0 {
				return p[i:]
			}
		case '.':
			if depth == 0 {
				return p[i:]
			}
		}
	}
	return p
}

// headerType takes the type name out of a header field's text: "[2]: Vector3 (type 9)".
func headerType(text string) string {
	if i := strings.LastIndex(text, " (type "); i >= 0 {
		text = text[:i]
	}
	if i := strings.LastIndex(text, ": "); i >= 0 {
		text = text[i+2:]
	}
	return text
}

// headerValue is the part of a header's text in parentheses: "type 9, flags 0x0001, …".
func headerValue(text string) string {
	if i := strings.LastIndex(text, " (type "); i >= 0 {
		return strings.TrimSuffix(text[i+2:], ")")
	}
	return text
}

// leafName splits a field's text into a name and a value where the text has a label: "x 1.5",
// "element count 3", "[2] 7".
func leafName(f godot.Field) (string, string) {
	t := f.Text
	switch f.Kind {
	case "utf8":
		return "text", t
	case "nul":
		return "NUL", t
	case "pad":
		return "padding", t
	case "bytes":
		return "bytes", t
	}
	// A label is everything before the last space-separated token, when that token is a number.
	if i := strings.LastIndexByte(t, ' '); i > 0 && isNumber(t[i+1:]) {
		return t[:i], t[i+1:]
	}
	return "value", t
}

// summarize renders a decoded Variant in the style of Godot's var_to_str, short: containers
// show their size and first elements.
func summarize(v any, depth int) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return fmtFloat(x, 64)
	case string:
		return quoteShort(x)
	case godot.StringName:
		return "&" + quoteShort(string(x))
	case godot.NodePath:
		return "^" + quoteShort(x.String())
	case godot.RID:
		return fmt.Sprintf("RID(%d)", uint64(x))
	case godot.Callable:
		return "Callable()"
	case godot.Signal:
		return fmt.Sprintf("Signal(%q, object %d)", x.Name, uint64(x.Object))
	case *godot.Object:
		if x == nil {
			return "null"
		}
		return fmt.Sprintf("%s {%d properties}", x.Class, len(x.Properties))
	case godot.ObjectID:
		return fmt.Sprintf("Object id %d", uint64(x))
	case []any:
		return list(len(x), "element", depth, func(i int) any { return x[i] })
	case *godot.TypedArray:
		return list(len(x.Values), "element", depth, func(i int) any { return x.Values[i] })
	case *godot.Dictionary:
		if depth > 0 || len(x.Entries) == 0 {
			return fmt.Sprintf("{%d entries}", len(x.Entries))
		}
		var parts []string
		for i, e := range x.Entries {
			if i == 3 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, summarize(e.Key, depth+1)+": "+summarize(e.Value, depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []byte:
		if len(x) <= 8 {
			return fmt.Sprintf("[% x]", x)
		}
		return fmt.Sprintf("%d bytes [% x …]", len(x), x[:8])
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice:
		return list(rv.Len(), "element", depth, func(i int) any { return rv.Index(i).Interface() })
	case reflect.Struct:
		var nums []string
		flatten(rv, &nums)
		return rv.Type().Name() + "(" + strings.Join(nums, ", ") + ")"
	case reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Float32:
		return fmtFloat(rv.Float(), 32)
	case reflect.Float64:
		return fmtFloat(rv.Float(), 64)
	case reflect.String:
		return quoteShort(rv.String())
	}
	return fmt.Sprint(v)
}

func list(n int, what string, depth int, at func(int) any) string {
	if depth > 0 || n == 0 || n > 4 {
		return fmt.Sprintf("[%d %ss]", n, what)
	}
	parts := make([]string, n)
	for i := range n {
		parts[i] = summarize(at(i), depth+1)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func flatten(rv reflect.Value, out *[]string) {
	switch rv.Kind() {
	case reflect.Struct:
		for i := range rv.NumField() {
			flatten(rv.Field(i), out)
		}
	case reflect.Float32:
		*out = append(*out, fmtFloat(rv.Float(), 32))
	case reflect.Float64:
		*out = append(*out, fmtFloat(rv.Float(), 64))
	case reflect.Int32, reflect.Int64:
		*out = append(*out, strconv.FormatInt(rv.Int(), 10))
	case reflect.Bool:
		*out = append(*out, strconv.FormatBool(rv.Bool()))
	}
}

func fmtFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func quoteShort(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:61]) + "…"
	}
	return strconv.Quote(s)
}

// isNumber reports the forms in which the godot package writes numbers.
func isNumber(s string) bool {
	if s == "inf" || s == "-inf" || strings.HasPrefix(s, "nan(") {
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
