package godot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/internal/floattext"
)

// Explain decodes data like [DecodeMode.Decode] and explains it as one [explain.Frame] (Format
// "godot3" or "godot4"): the top-level Variant is a field of the Variant's type name whose
// children are its header and its parts, down to every byte, in the spirit of the offset tables
// of Godot's "Binary serialization API" page. A Dictionary entry is a field of type "entry" with a
// "key" child and a "value" child, each a Variant with its own range. Bytes after the Variant are
// a "bytes" field noted as ignored (the engine ignores them).
//
// The fields count against budget (nil: a budget of [explain.DefaultMaxFields]); once it is
// spent the frame is Truncated, decoding still runs to the end, and the error is the same as
// Decode's. The frame's memory is the budget's fields plus the decoded value (bounded by the
// options' MaxAllocBytes, proportional to the input). On a decoding error the frame holds the fields
// read up to the error, Err is set on the frame and on the innermost Variant that failed, and
// the error is returned too.
func (m DecodeMode) Explain(data []byte, budget *explain.Budget) (*explain.Frame, error) {
	if budget == nil {
		budget = explain.NewBudget(0)
	}
	var dec decoder
	m.o.initDecoder(&dec, data)
	t := &tracer{budget: budget, size: len(data)}
	dec.tr = t
	_, end, err := dec.tracedValue(0, 0)
	err = finishPath(err)
	if err == nil && end < len(data) {
		t.leaf(end, len(data)-end, "bytes", "trailing", nil, plural(len(data)-end, "trailing byte")+", ignored (as the engine ignores them)")
	}
	fr := &explain.Frame{Format: formatName(m.o.Dialect), Bits: 8 * int64(len(data)), Fields: t.top}
	if fr.Fields == nil {
		fr.Fields = []*explain.Field{}
	}
	if err == nil {
		if len(t.top) > 0 {
			fr.Summary = t.top[0].Type + " " + t.top[0].Text
		}
	} else {
		xe := &explain.Error{Bit: 8 * int64(len(data)), Msg: err.Error(), Err: err}
		var de *DecodeError
		if errors.As(err, &de) {
			xe.Bit = 8 * int64(de.Offset)
		}
		fr.Err = xe
		if t.failed != nil {
			t.failed.Err = xe
		}
		fr.Summary = "does not decode"
	}
	fr.Truncated = budget.Spent()
	return fr, err
}

// ExplainMessages explains every Variant of data, one frame each: back to back with
// [FramingPacket], or each after its length prefix (a "length prefix" field of the frame) in the
// other framings. Frames are numbered from 0 and located in data. It stops at the first Variant
// or prefix that does not decode, whose frame ends the list, and returns its error; it also
// stops, without error, once budget is spent (the last frame is Truncated).
func (m DecodeMode) ExplainMessages(data []byte, framing Framing, budget *explain.Budget) ([]*explain.Frame, error) {
	if budget == nil {
		budget = explain.NewBudget(0)
	}
	var frames []*explain.Frame
	for off := 0; off < len(data); {
		idx := len(frames)
		if framing == FramingPacket {
			n, fr, err := m.explainOne(data[off:], budget)
			fr.Index = idx
			fr.Shift(8 * int64(off))
			frames = append(frames, fr)
			if err != nil {
				return frames, shiftErr(err, off)
			}
			if fr.Truncated {
				return frames, nil
			}
			off += n
			continue
		}
		fr := &explain.Frame{Format: formatName(m.o.Dialect), Index: idx, Bit: 8 * int64(off), Fields: []*explain.Field{}}
		frames = append(frames, fr)
		if len(data)-off < 4 {
			err := &DecodeError{Offset: int64(off), Err: fmt.Errorf("%w: a %s length prefix needs 4 bytes, have %d", ErrTruncated, framing, len(data)-off)}
			fr.Bits = 8 * int64(len(data)-off)
			fr.Err = &explain.Error{Bit: 8 * int64(off), Msg: err.Error(), Err: err}
			return frames, err
		}
		n := binary.LittleEndian.Uint32(data[off:])
		if framing == FramingStreamPeerBigEndian {
			n = binary.BigEndian.Uint32(data[off:])
		}
		prefix := &explain.Field{Name: "length prefix", Type: "u32", Value: uint64(n), Text: plural(int(n), "byte") + " follow",
			Bit: 8 * int64(off), Bits: 32}
		if framing == FramingStreamPeerBigEndian {
			prefix.Type = "u32be"
		}
		if !budget.AddTo(fr, prefix) {
			return frames[:len(frames)-1], nil
		}
		if uint64(n) > uint64(len(data)-off-4) {
			err := &DecodeError{Offset: int64(off), Err: fmt.Errorf("%w: the prefix says %s, %d follow", ErrTruncated, plural(int(n), "byte"), len(data)-off-4)}
			fr.Bits = 8 * int64(len(data)-off)
			fr.Err = &explain.Error{Bit: 8 * int64(off), Msg: err.Error(), Err: err}
			prefix.Err = fr.Err
			return frames, err
		}
		msg := data[off+4 : off+4+int(n)]
		inner, err := m.Explain(msg, budget)
		inner.Shift(8 * int64(off+4))
		fr.Fields = append(fr.Fields, inner.Fields...)
		fr.Bits = 8 * int64(4+len(msg))
		fr.Summary, fr.Err, fr.Truncated = inner.Summary, inner.Err, inner.Truncated
		if err != nil {
			return frames, shiftErr(err, off+4)
		}
		if fr.Truncated {
			return frames, nil
		}
		off += 4 + int(n)
	}
	return frames, nil
}

// explainOne explains the first Variant of data, without the bytes after it, and returns its
// length.
func (m DecodeMode) explainOne(data []byte, budget *explain.Budget) (int, *explain.Frame, error) {
	var dec decoder
	m.o.initDecoder(&dec, data)
	_, n, err := dec.value(0, 0)
	if err == nil {
		data = data[:min(n, len(data))]
	}
	fr, err := m.Explain(data, budget)
	return len(data), fr, err
}

// shiftErr moves a *DecodeError's offset by off (a Variant decoded out of a larger input).
func shiftErr(err error, off int) error {
	var de *DecodeError
	if off != 0 && errors.As(err, &de) {
		de.Offset += int64(off)
	}
	return err
}

func formatName(d Dialect) string {
	if d == Godot3 {
		return "godot3"
	}
	return "godot4"
}

func pluralForm(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// UninitializedBytes returns the byte ranges [start, end) of data that the engine leaves
// uninitialised when it encodes (NodePath name padding): a byte-exact comparison of engine output
// must ignore them. It returns an error if data does not decode.
func (m DecodeMode) UninitializedBytes(data []byte) ([][2]int, error) {
	var dec decoder
	m.o.initDecoder(&dec, data)
	t := &tracer{budget: explain.NewBudget(1), size: len(data)} // the ranges, not the fields
	t.budget.Take()
	dec.tr = t
	if _, _, err := dec.tracedValue(0, 0); err != nil {
		return nil, finishPath(err)
	}
	return t.uninit, nil
}

// UninitializedNote is the Note of NodePath name padding in an explanation: the engine never
// writes these bytes, and in its output they hold leftover memory.
const UninitializedNote = "uninitialised: the engine leaves these bytes as leftover memory"

// tracer builds the fields of an explanation while a decoder runs.
type tracer struct {
	budget *explain.Budget
	top    []*explain.Field
	// stack holds the Variants and entries open, innermost last; nil for one not kept (the
	// budget was spent), whose parts are not kept either.
	stack  []*explain.Field
	name   string         // the name of the next Variant
	failed *explain.Field // the innermost Variant that did not decode
	uninit [][2]int       // NodePath padding
	size   int            // bytes of the input
	// lastPad is the padding of the last string, at lastPadAt, lastPadLen bytes.
	lastPad               *explain.Field
	lastPadAt, lastPadLen int
}

// kept reports whether a field added now would be kept.
func (t *tracer) kept() bool {
	n := len(t.stack)
	return t.budget.Room() && (n == 0 || t.stack[n-1] != nil)
}

// attach adds f under the innermost open field, or at the top; it reports whether f is kept.
func (t *tracer) attach(f *explain.Field) bool {
	if n := len(t.stack); n > 0 {
		p := t.stack[n-1]
		return p != nil && t.budget.Add(p, f)
	}
	if !t.budget.Take() {
		return false
	}
	t.top = append(t.top, f)
	return true
}

// openVariant opens the field of the Variant at p; it returns the stack's height before it.
func (t *tracer) openVariant(p int) int {
	mark := len(t.stack)
	name := t.name
	if name == "" && mark == 0 {
		name = "value"
	}
	t.name = ""
	var f *explain.Field
	if t.kept() {
		f = &explain.Field{Name: name, Type: "Variant", Bit: 8 * int64(min(p, t.size))} // after padding the input lacks
		if !t.attach(f) {
			f = nil
		}
	} else {
		t.budget.Take() // refused: the explanation is cut short
	}
	t.stack = append(t.stack, f)
	return mark
}

// closeVariant completes the Variant opened at mark with its value, or marks it failed.
func (t *tracer) closeVariant(dec *decoder, mark int, v any, end int, err error) {
	f := t.stack[mark]
	for _, e := range t.stack[mark+1:] {
		if e != nil {
			e.Cover() // an entry that an error left open
		}
	}
	t.stack = t.stack[:mark]
	if f == nil {
		return
	}
	if err != nil {
		if t.failed == nil {
			t.failed = f
		}
		f.Cover()
		return
	}
	f.Bits = 8*int64(end) - f.Bit
	f.Text = summarize(v, dec.d, 0)
	switch x := v.(type) {
	case nil:
	case bool, int64, string:
		f.Value = x
	case float64:
		f.Value = x
		f.Text = fmtFloat(x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			f.Value = f.Text
		}
	case StringName:
		f.Value = string(x)
	case NodePath:
		f.Value = x.String()
	}
}

// openEntry opens a Dictionary entry at p; its key Variant follows.
func (t *tracer) openEntry(p int) {
	f := &explain.Field{Name: "entry", Type: "entry", Bit: 8 * int64(min(p, t.size))}
	if !t.attach(f) {
		f = nil
	}
	t.stack = append(t.stack, f)
	t.name = "key"
}

// entryValue names the entry by its key k; its value Variant follows.
func (t *tracer) entryValue(k any) {
	if e := t.stack[len(t.stack)-1]; e != nil {
		e.Text = shortLabel(k)
	}
	t.name = "value"
}

// closeEntry closes the entry.
func (t *tracer) closeEntry() {
	if e := t.stack[len(t.stack)-1]; e != nil {
		e.Cover()
	}
	t.stack = t.stack[:len(t.stack)-1]
}

// enterf names the next Variant: an element "[3]" or a property ".name".
func (t *tracer) enterf(format string, arg any) {
	if !t.kept() {
		return // the Variant is not kept: no name needed
	}
	t.name = strings.TrimPrefix(fmt.Sprintf(format, arg), ".")
	if len(t.name) > 64 {
		t.name = cutUTF8(t.name, 61) + "…"
	}
}

// leave ends an element or property.
func (t *tracer) leave() {}

// shortLabel is a key as an entry's text: keyLabel, at most about 64 bytes.
func shortLabel(k any) string {
	switch x := k.(type) {
	case string:
		return quoteShort(x)
	case StringName:
		return "&" + quoteShort(string(x))
	}
	return summarize(k, Godot4, 1)
}

// leaf adds a field of n bytes at off.
func (t *tracer) leaf(off, n int, typ, name string, value any, text string) *explain.Field {
	n = min(n, t.size-off) // padding that the input lacks (it is optional at the end)
	if n <= 0 {
		return nil
	}
	if !t.kept() {
		t.budget.Take() // refused: the explanation is cut short
		return nil
	}
	if x, ok := value.(float64); ok && text != "" && (math.IsNaN(x) || math.IsInf(x, 0)) {
		value = text // "NaN:0x…", "inf": JSON has no such numbers, and the text keeps every bit
	}
	f := &explain.Field{Name: name, Type: typ, Value: value, Text: text, Bit: 8 * int64(off), Bits: 8 * int64(n)}
	if !t.attach(f) {
		return nil
	}
	return f
}

// header adds the header field of the open Variant, and gives the Variant its type.
func (t *tracer) header(dec *decoder, h uint32, typ Type) {
	n := len(t.stack)
	if n == 0 || t.stack[n-1] == nil {
		return
	}
	v := t.stack[n-1]
	v.Type = dec.d.TypeName(typ)
	var flags []string
	if h>>16 != 0 {
		flags = append(flags, fmt.Sprintf("flags %#04x", h>>16))
		switch {
		case typ == TypeArray && dec.d == Godot4:
			flags = append(flags, "element "+containerKindName(ContainerKind(h>>16&3)))
		case typ == TypeDictionary && dec.d == Godot4:
			flags = append(flags, "key "+containerKindName(ContainerKind(h>>16&3)), "value "+containerKindName(ContainerKind(h>>18&3)))
		case typ == TypeObject && h&(1<<16) != 0:
			flags = append(flags, "OBJECT_AS_ID")
		case h&(1<<16) != 0 && (typ == TypeInt || typ == TypeFloat || dec.d == Godot4 && realCount[typ] > 0 && typ != TypeColor ||
			dec.d == Godot4 && (typ == TypePackedVector2Array || typ == TypePackedVector3Array || typ == TypePackedVector4Array)):
			flags = append(flags, "ENCODE_FLAG_64")
		default:
			flags = append(flags, "ignored")
		}
	}
	text := fmt.Sprintf("type %d %s", h&0xFF, dec.d.TypeName(typ))
	if len(flags) > 0 {
		text += ", " + strings.Join(flags, ", ")
	}
	p := int(v.Bit / 8)
	t.leaf(p, 4, "u32", "header", uint64(h), text)
}

func containerKindName(k ContainerKind) string {
	switch k {
	case ContainerBuiltin:
		return "typed (builtin)"
	case ContainerClassName:
		return "typed (class name)"
	case ContainerScript:
		return "typed (script)"
	}
	return "untyped"
}

// str reports a String primitive at p: length, bytes, terminator and padding. what names the
// string's role ("class name ", "" for a String Variant).
func (t *tracer) str(p int, what string, raw []byte, s string) {
	if !t.kept() {
		t.lastPad, t.lastPadAt, t.lastPadLen = nil, p+4+len(raw), (4-len(raw)&3)&3
		return
	}
	t.leaf(p, 4, "u32", what+"length", int64(len(raw)), "")
	text := raw
	nul := len(raw) > 0 && raw[len(raw)-1] == 0 && string(raw[:len(raw)-1]) == s
	if nul {
		text = raw[:len(raw)-1]
	}
	if len(text) > 0 {
		name := strings.TrimSpace(what)
		if name == "" {
			name = "text"
		}
		note := ""
		if !nul && string(raw) != s {
			note = "decodes as " + quoteShort(s)
		}
		if f := t.leaf(p+4, len(text), "utf8", name, s, quoteShort(string(text))); f != nil {
			f.Note = note
		}
	}
	if nul {
		t.leaf(p+4+len(text), 1, "nul", "NUL", nil, "terminator (counted in the length)")
	}
	t.lastPad, t.lastPadLen = nil, 0
	if pad := (4 - len(raw)&3) & 3; pad > 0 {
		t.lastPadAt, t.lastPadLen = p+4+len(raw), pad
		t.lastPad = t.leaf(t.lastPadAt, pad, "pad", "padding", nil, "")
	}
}

// nodePathPad marks the padding of the NodePath name just reported by str as bytes the engine
// leaves uninitialised.
func (t *tracer) nodePathPad(p int) {
	if t.lastPadLen > 0 && t.lastPadAt > p {
		t.uninit = append(t.uninit, [2]int{t.lastPadAt, t.lastPadAt + t.lastPadLen})
		if t.lastPad != nil {
			t.lastPad.Note = UninitializedNote
		}
	}
	t.lastPad, t.lastPadAt, t.lastPadLen = nil, 0, 0
}

// bytes reports the content of a PackedByteArray, 16 bytes a field, and its padding.
func (t *tracer) bytes(p int, b []byte) {
	if !t.kept() {
		t.budget.Take()
		return
	}
	for i := 0; i < len(b); i += 16 {
		j := min(i+16, len(b))
		if t.leaf(p+i, j-i, "bytes", fmt.Sprintf("[%d:%d]", i, j), nil, fmt.Sprintf("% x", b[i:j])) == nil {
			return
		}
	}
	if pad := (4 - len(b)&3) & 3; pad > 0 {
		t.leaf(p+len(b), pad, "pad", "padding", nil, "optional on decode")
	}
}

// packed reports the elements of a fixed-size packed array.
func (t *tracer) packed(dec *decoder, p int, typ Type, n, comps, size int) {
	if !t.kept() {
		t.budget.Take()
		return
	}
	names := [4]string{"x", "y", "z", "w"}
	if typ == TypePackedColorArray {
		names = [4]string{"r", "g", "b", "a"}
	}
	kind := map[Type]string{TypePackedInt32Array: "int32", TypePackedInt64Array: "int64"}[typ]
	for i := 0; i < n; i++ {
		for c := 0; c < comps; c++ {
			off := p + (i*comps+c)*size
			b := dec.buf[off : off+size]
			label := "[" + strconv.Itoa(i) + "]"
			if comps > 1 {
				label += "." + names[c]
			}
			var f *explain.Field
			switch {
			case kind == "int32":
				f = t.leaf(off, 4, "int32", label, int64(int32(le32(b))), "")
			case kind == "int64":
				f = t.leaf(off, 8, "int64", label, int64(le64(b)), "")
			case size == 4:
				x := math.Float32frombits(le32(b))
				f = t.leaf(off, 4, "float32", label, float64(x), fmtFloat32(x))
			default:
				x := math.Float64frombits(le64(b))
				f = t.leaf(off, 8, "float64", label, x, fmtFloat(x))
			}
			if f == nil {
				return
			}
		}
	}
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// componentName names the i-th wire component of a math type.
func componentName(t Type, i int) string {
	switch t {
	case TypeVector2, TypeVector2i, TypeVector3, TypeVector3i, TypeVector4, TypeVector4i, TypeQuaternion:
		return [4]string{"x", "y", "z", "w"}[i]
	case TypeRect2, TypeRect2i:
		return [4]string{"position.x", "position.y", "size.x", "size.y"}[i]
	case TypeAABB:
		return [6]string{"position.x", "position.y", "position.z", "size.x", "size.y", "size.z"}[i]
	case TypePlane:
		return [4]string{"normal.x", "normal.y", "normal.z", "d"}[i]
	case TypeColor:
		return [4]string{"r", "g", "b", "a"}[i]
	case TypeTransform2D:
		return [6]string{"x.x", "x.y", "y.x", "y.y", "origin.x", "origin.y"}[i]
	case TypeBasis, TypeTransform3D:
		return [12]string{"x.x", "y.x", "z.x", "x.y", "y.y", "z.y", "x.z", "y.z", "z.z", "origin.x", "origin.y", "origin.z"}[i]
	case TypeProjection:
		return [4]string{"x", "y", "z", "w"}[i/4] + "." + [4]string{"x", "y", "z", "w"}[i%4]
	}
	return strconv.Itoa(i)
}

// summarize renders a decoded Variant short, in the style of Godot's var_to_str: containers
// show their size and, at the top, their first elements; math types their components.
func summarize(v any, d Dialect, depth int) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return fmtFloat(x)
	case string:
		return quoteShort(x)
	case StringName:
		return "&" + quoteShort(string(x))
	case NodePath:
		return "^" + quoteShort(x.String())
	case RID:
		return fmt.Sprintf("RID(%d)", uint64(x))
	case Callable:
		return "Callable()"
	case Signal:
		return fmt.Sprintf("Signal(%s, object %d)", quoteShort(x.Name), uint64(x.Object))
	case *Object:
		if x == nil {
			return "null"
		}
		return fmt.Sprintf("%s {%s}", x.Class, pluralForm(len(x.Properties), "property", "properties"))
	case ObjectID:
		return fmt.Sprintf("Object id %d", uint64(x))
	case []any:
		return list(len(x), d, depth, func(i int) any { return x[i] })
	case *TypedArray:
		return list(len(x.Values), d, depth, func(i int) any { return x.Values[i] })
	case *Dictionary:
		if depth > 0 || len(x.Entries) == 0 {
			return "{" + pluralForm(len(x.Entries), "entry", "entries") + "}"
		}
		var parts []string
		for i, e := range x.Entries {
			if i == 3 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, summarize(e.Key, d, depth+1)+": "+summarize(e.Value, d, depth+1))
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
		return list(rv.Len(), d, depth, func(i int) any { return rv.Index(i).Interface() })
	case reflect.Struct:
		var nums []string
		flatten(rv, &nums)
		return structName(rv.Type().Name(), d) + "(" + strings.Join(nums, ", ") + ")"
	case reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Float32:
		return fmtFloat32(float32(rv.Float()))
	case reflect.Float64:
		return fmtFloat(rv.Float())
	case reflect.String:
		return quoteShort(rv.String())
	}
	return fmt.Sprint(v)
}

// structName is the dialect's name of a math type: Godot 3's Quat and Transform, and Vector3
// for a double-precision Vector3d.
func structName(name string, d Dialect) string {
	switch name {
	case "Vector2d", "Rect2d", "Vector3d", "Vector4d", "Transform2Dd", "Planed", "Quaterniond", "AABBd", "Basisd", "Transform3Dd", "Projectiond":
		name = name[:len(name)-1]
	}
	if d == Godot3 {
		switch name {
		case "Quaternion":
			return "Quat"
		case "Transform3D":
			return "Transform"
		}
	}
	return name
}

func list(n int, d Dialect, depth int, at func(int) any) string {
	if depth > 0 || n == 0 || n > 4 {
		return "[" + plural(n, "element") + "]"
	}
	parts := make([]string, n)
	for i := range n {
		parts[i] = summarize(at(i), d, depth+1)
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
		*out = append(*out, fmtFloat32(float32(rv.Float())))
	case reflect.Float64:
		*out = append(*out, fmtFloat(rv.Float()))
	case reflect.Int32, reflect.Int64:
		*out = append(*out, strconv.FormatInt(rv.Int(), 10))
	case reflect.Bool:
		*out = append(*out, strconv.FormatBool(rv.Bool()))
	}
}

// quoteShort quotes s, cut to about 64 bytes.
func quoteShort(s string) string {
	if len(s) > 64 {
		return strconv.Quote(cutUTF8(s, 61)) + "…"
	}
	return strconv.Quote(s)
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not split a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// fmtFloat renders a float64 so that it parses back to the same bits: the shortest decimal form,
// or inf/-inf, or NaN ("NaN:0x…" with its bits unless it is the quiet NaN).
func fmtFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return floattext.NaN64Text(f)
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// fmtFloat32 is fmtFloat for float32.
func fmtFloat32(f float32) string {
	switch {
	case f != f:
		return floattext.NaN32Text(f)
	case math.IsInf(float64(f), 1):
		return "inf"
	case math.IsInf(float64(f), -1):
		return "-inf"
	}
	return strconv.FormatFloat(float64(f), 'g', -1, 32)
}

// cutUTF8Suffix returns the longest suffix of s of at most n bytes that does not split a
// character.
func cutUTF8Suffix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
