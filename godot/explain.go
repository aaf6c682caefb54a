package godot

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gamewire/gamewire/internal/floattext"
)

// Field is one field of an encoded Variant, as [DecodeMode.Explain] reports it: where it is, how
// long it is, and what it means, in the spirit of the offset tables of Godot's "Binary
// serialization API" page.
type Field struct {
	Offset int // byte offset from the start of the input
	Len    int // length in bytes
	Depth  int // nesting depth of the Variant the field belongs to (0 = top level)
	// Path locates the Variant the field belongs to inside the top-level value, e.g. `[2]["pos"]`.
	// A path longer than 120 bytes keeps its first and last segments and says how many it leaves
	// out, as in `[0][0]…(1020 more)…[0][3]` (see [AbbreviatePath]), so that a field takes the
	// same memory however deep its Variant is nested. Fields of one Variant share one string.
	Path string
	// Kind is the field's wire type: "header", "u32", "int32", "int64", "float32", "float64",
	// "u64", "utf8", "nul", "bytes" or "pad".
	Kind string
	// Text says what the field holds.
	Text string
	// Span is, for a "header" field, the length in bytes of the whole Variant the header starts
	// (header included), or -1 when that Variant did not decode; 0 for other fields.
	Span int
	// Value is, for a "header" field whose Variant decoded, the decoded Variant as
	// [DecodeMode.Decode] returns it; nil otherwise.
	Value any
	// Uninitialized marks NodePath name padding, which the engine never writes: in real engine
	// output these bytes hold leftover memory, so comparisons must mask them.
	Uninitialized bool
}

func (f Field) String() string {
	return fmt.Sprintf("%6d %5d  %s%-7s %s", f.Offset, f.Len, strings.Repeat("  ", f.Depth), f.Kind, f.Text)
}

// Explain decodes data like [DecodeMode.Decode] and returns every field it read, in order. On a
// decoding error it returns the fields read up to that point together with the error.
func (m DecodeMode) Explain(data []byte) ([]Field, error) {
	fields, _, err := m.ExplainFirst(data, 0)
	return fields, err
}

// ExplainFirst is [DecodeMode.Explain] keeping only the first max fields (all of them when max
// is 0 or less); more reports that fields were left out. Decoding still runs to the end, so
// the error is the same as Explain's, but the fields of a long input take no more memory than
// max of them.
func (m DecodeMode) ExplainFirst(data []byte, max int) (fields []Field, more bool, err error) {
	var dec decoder
	m.o.initDecoder(&dec, data)
	dec.tr = &tracer{max: max}
	_, end, err := dec.tracedValue(0, 0)
	if err == nil && end < len(data) {
		dec.tr.add(end, len(data)-end, 0, "bytes", "%d trailing bytes, ignored (as the engine ignores them)", len(data)-end)
	}
	return dec.tr.fields, dec.tr.full, finishPath(err)
}

// WriteFields prints fields as a table with a heading, one field a line, indented by depth.
func WriteFields(w io.Writer, fields []Field) error {
	if _, err := fmt.Fprintf(w, "%6s %5s  %-7s %s\n", "offset", "len", "kind", "meaning"); err != nil {
		return err
	}
	for _, f := range fields {
		if _, err := fmt.Fprintln(w, f.String()); err != nil {
			return err
		}
	}
	return nil
}

// UninitializedBytes returns the byte ranges [start, end) of data that the engine leaves
// uninitialised when it encodes (NodePath name padding): a byte-exact comparison of engine output
// must ignore them. It returns an error if data does not decode.
func (m DecodeMode) UninitializedBytes(data []byte) ([][2]int, error) {
	fields, err := m.Explain(data)
	if err != nil {
		return nil, err
	}
	var r [][2]int
	for _, f := range fields {
		if f.Uninitialized {
			r = append(r, [2]int{f.Offset, f.Offset + f.Len})
		}
	}
	return r, nil
}

// tracer collects fields while a decoder runs.
type tracer struct {
	fields  []Field
	path    []string
	pathLen int    // the bytes of path's segments
	text    string // the current path as Field.Path shows it, when textOK
	textOK  bool
	max     int  // keep at most this many fields (0: all)
	full    bool // fields were left out
}

// pathText returns the current path as [Field.Path] shows it: whole up to maxPathText bytes,
// else its first and last segments of up to maxPathText/2 bytes each around the count of those
// left out. It is made once per path, in time bounded by maxPathText, however deep the path.
func (t *tracer) pathText() string {
	if t.textOK {
		return t.text
	}
	t.textOK = true
	if t.pathLen <= maxPathText {
		t.text = strings.Join(t.path, "")
		return t.text
	}
	// The rules of AbbreviatePath, on the segments: the head keeps the segments that start in
	// the first half of the limit, the tail those that end less than half the limit from the end.
	head, n := 0, 0
	for head < len(t.path) && n < maxPathText/2 {
		n += len(t.path[head])
		head++
	}
	tail, m := len(t.path), 0
	for tail > head && m+len(t.path[tail-1]) < maxPathText/2 {
		m += len(t.path[tail-1])
		tail--
	}
	var sb strings.Builder
	if tail >= len(t.path) || tail-head < 2 {
		// No segment fits in the tail, or too few are left out: cut the bytes.
		sb.WriteString(t.firstBytes(maxPathText / 2))
		sb.WriteString("…")
		sb.WriteString(t.lastBytes(maxPathText / 2))
	} else {
		for _, seg := range t.path[:head] {
			sb.WriteString(seg)
		}
		fmt.Fprintf(&sb, "…(%d more)…", tail-head)
		for _, seg := range t.path[tail:] {
			sb.WriteString(seg)
		}
	}
	t.text = sb.String()
	return t.text
}

// firstBytes returns the first n bytes of the path, or fewer so as not to split a character.
func (t *tracer) firstBytes(n int) string {
	var sb strings.Builder
	for _, seg := range t.path {
		if sb.Len()+len(seg) >= n {
			sb.WriteString(seg[:n-sb.Len()])
			break
		}
		sb.WriteString(seg)
	}
	return cutUTF8(sb.String(), n)
}

// lastBytes returns the last n bytes of the path, or fewer so as not to split a character.
func (t *tracer) lastBytes(n int) string {
	k, i := 0, len(t.path)
	for i > 0 && k < n {
		i--
		k += len(t.path[i])
	}
	return cutUTF8Suffix(strings.Join(t.path[i:], ""), n)
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

// stopped reports that the tracer keeps no more fields.
func (t *tracer) stopped() bool {
	if t.max > 0 && len(t.fields) >= t.max {
		t.full = true
	}
	return t.full
}

func (t *tracer) add(off, n, depth int, kind, format string, args ...any) {
	if t.stopped() {
		return
	}
	t.fields = append(t.fields, Field{Offset: off, Len: n, Depth: depth, Path: t.pathText(),
		Kind: kind, Text: fmt.Sprintf(format, args...)})
}

// enterf enters a path segment; once the tracer is full, it only keeps count.
func (t *tracer) enterf(format string, arg any) {
	seg := ""
	if !t.full {
		seg = fmt.Sprintf(format, arg)
	}
	t.push(seg)
}

// push enters a path segment.
func (t *tracer) push(seg string) {
	t.path = append(t.path, seg)
	t.pathLen += len(seg)
	t.textOK = false
}

// enterKey enters the segment of a Dictionary value, labelled by its key.
func (t *tracer) enterKey(k any) {
	seg := ""
	if !t.full {
		seg = "[" + keyLabel(k) + "]"
	}
	t.push(seg)
}

func (t *tracer) leave() {
	t.pathLen -= len(t.path[len(t.path)-1])
	t.path = t.path[:len(t.path)-1]
	t.textOK = false
}

func (t *tracer) header(dec *decoder, p, depth int, h uint32, typ Type) {
	if t.stopped() {
		return
	}
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
	extra := ""
	if len(flags) > 0 {
		extra = ", " + strings.Join(flags, ", ")
	}
	label := ""
	if len(t.path) > 0 {
		label = t.pathText() + ": "
	}
	t.add(p, 4, depth, "header", "%s%s (type %d%s)", label, dec.d.TypeName(typ), h&0xFF, extra)
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

// str reports a String primitive: length, bytes and padding.
func (t *tracer) str(p, depth int, what string, raw []byte, s string) {
	t.add(p, 4, depth, "u32", "%slength %d", what, len(raw))
	text := raw
	nul := len(raw) > 0 && raw[len(raw)-1] == 0 && string(raw[:len(raw)-1]) == s
	if nul {
		text = raw[:len(raw)-1]
	}
	if len(text) > 0 {
		note := ""
		if !nul && string(raw) != s {
			note = fmt.Sprintf(" (decodes as %q)", s)
		}
		t.add(p+4, len(text), depth, "utf8", "%q%s", text, note)
	}
	if nul {
		t.add(p+4+len(text), 1, depth, "nul", "NUL terminator (counted in the length)")
	}
	if pad := (4 - len(raw)&3) & 3; pad > 0 {
		t.add(p+4+len(raw), pad, depth, "pad", "padding")
	}
}

// nodePathPad marks the padding of the NodePath name at p (just reported by str) as bytes the
// engine leaves uninitialised.
func (t *tracer) nodePathPad(p int) {
	if n := len(t.fields); n > 0 && t.fields[n-1].Kind == "pad" && t.fields[n-1].Offset > p {
		t.fields[n-1].Uninitialized = true
		t.fields[n-1].Text = "padding (the engine leaves it uninitialised)"
	}
}

// bytes reports the content of a PackedByteArray, 16 bytes a line, and its padding.
func (t *tracer) bytes(p int, b []byte, depth int) {
	for i := 0; i < len(b) && !t.stopped(); i += 16 {
		j := min(i+16, len(b))
		t.add(p+i, j-i, depth, "bytes", "% x", b[i:j])
	}
	if pad := (4 - len(b)&3) & 3; pad > 0 {
		t.add(p+len(b), pad, depth, "pad", "padding (optional on decode)")
	}
}

// packed reports the elements of a fixed-size packed array.
func (t *tracer) packed(dec *decoder, p, depth int, typ Type, n, comps, size int) {
	names := [4]string{"x", "y", "z", "w"}
	if typ == TypePackedColorArray {
		names = [4]string{"r", "g", "b", "a"}
	}
	kind := map[Type]string{TypePackedInt32Array: "int32", TypePackedInt64Array: "int64"}[typ]
	for i := 0; i < n && !t.stopped(); i++ {
		for c := 0; c < comps; c++ {
			off := p + (i*comps+c)*size
			b := dec.buf[off : off+size]
			label := fmt.Sprintf("[%d]", i)
			if comps > 1 {
				label += "." + names[c]
			}
			switch {
			case kind == "int32":
				t.add(off, 4, depth, "int32", "%s %d", label, int32(le32(b)))
			case kind == "int64":
				t.add(off, 8, depth, "int64", "%s %d", label, int64(le64(b)))
			case size == 4:
				t.add(off, 4, depth, "float32", "%s %s", label, fmtFloat32(math.Float32frombits(le32(b))))
			default:
				t.add(off, 8, depth, "float64", "%s %s", label, fmtFloat(math.Float64frombits(le64(b))))
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
