package messages

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/messages/internal/schema"
)

// Limits of Describe when Options leaves them at zero.
const (
	// DefaultMaxFields is the most fields (objects, elements and values) one body's description
	// shows. The rest of the body is still decoded and checked, field by field, but not kept:
	// a shown field costs about 1.2 KiB of allocations with its bit-by-bit row and its line of
	// text, so a description allocates at most about 12 MiB whatever the body claims, and the
	// rest costs time linear in the body and no memory.
	DefaultMaxFields = 10000
	// DefaultMaxDepth is the deepest nesting of objects, slices and maps Describe follows.
	DefaultMaxDepth = 64
)

// Options configures Describe, Explain and Describer.
type Options struct {
	// Strict fails a known body when bits are left over after it (more than the zero padding of
	// the last byte): see DecodeOptions.Strict. Counts that cannot fit the rest of the body
	// fail in both modes.
	Strict bool
	// PayloadBits numbers bits from the payload's first bit, not the frame's (gsf.ExplainOptions).
	PayloadBits bool
	// MaxFields limits the fields one description shows (0: DefaultMaxFields); the fields after
	// them are decoded and checked but not kept (Body.Omitted counts them).
	MaxFields int
	// MaxDepth limits nesting (0: DefaultMaxDepth).
	MaxDepth int
}

// Field is one field of a described body: an object's field, a slice's element or a map's entry,
// with its wire type, where it is and what it holds. Objects, slices and maps hold their fields,
// elements or entries in wire order.
type Field struct {
	Name string `json:"name"`
	// Type is the wire type in catalog.txt's notation: int32, string, date, Player, []OID,
	// map[]string, ?int64, SessionStatus, …
	Type string `json:"type"`
	Bit  int    `json:"bit"`  // number of the first bit
	Bits int    `json:"bits"` // bits taken, null bits and counts included
	// Value is the value of a leaf in JSON form: a number, string, bool, RFC 3339 date, bytes in
	// hex, or nil for a null date, object or nullable.
	Value any `json:"value,omitempty"`
	// Text is the value as the text output shows it.
	Text string `json:"-"`
	// Raw is a leaf's decoded value as package bitproto gives it (bitproto.Value.Value).
	Raw any `json:"-"`
	// Null reports a null object, nullable value or date.
	Null bool `json:"null,omitempty"`
	// Count is the count of a slice or map (-1 for nil).
	Count *int `json:"count,omitempty"`
	// Fields are an object's fields, a slice's elements or a map's entries.
	Fields []Field `json:"fields,omitempty"`
	// Key is, for a map's entry, its key (a string) where it is; the entry's Bit and Bits span
	// the key and the value.
	Key *Field `json:"-"`
}

// Body is the description of a body of the catalog.
type Body struct {
	Entry  *Entry
	Fields []Field
	// Steps are the bit-by-bit rows, numbered as the reader numbers bits minus the shift.
	Steps []bitproto.Step
	// End is the reader's offset after the body.
	End int
	// Omitted counts the fields decoded after Options.MaxFields were shown; they start at bit
	// OmittedBit (numbered as Steps are).
	Omitted, OmittedBit int

	// leafSteps are the rows of the leaves of more than one (a compressed integer's form and
	// value bits, a string's length, alignment and bytes), by their first bit.
	leafSteps map[int][]bitproto.Step
}

// Lines returns the text form of the description: FieldLines, and a last line for the omitted
// fields.
func (b *Body) Lines() []string {
	lines := FieldLines(b.Fields)
	if b.Omitted > 0 {
		lines = append(lines, fmt.Sprintf("… %s from bit %d, decoded but not shown (a limit: Options.MaxFields, --max-fields)", plural(b.Omitted, "more field"), b.OmittedBit))
	}
	return lines
}

// Describer returns a gsf.BodyDescriber that describes the bodies of the catalog field by field
// and gives other bodies a schema-less dump (RawDump). With opts.Strict, a known body with bits
// left over is an error (a *gsf.BodyError wrapping gsf.ErrTrailingBits).
func Describer(opts Options) gsf.BodyDescriber {
	return func(h *gsf.Header, r *bitstream.Reader, end, shift int) (*gsf.BodyDescription, error) {
		in := r.Input()
		if end > len(in)*8 {
			end = len(in) * 8
		}
		// Read only the payload: a body never owns the terminator.
		pr := bitstream.NewReader(in[:(end+7)/8])
		start := r.Offset()
		_ = pr.Seek(start)
		e, ok := ForHeader(h)
		if !ok {
			raw := RawDump(pr, end, shift)
			_ = r.Seek(end)
			return &gsf.BodyDescription{Raw: raw, Steps: raw.steps(), Lines: raw.Lines()}, nil
		}
		body, err := describe(e, pr, shift, opts)
		desc := &gsf.BodyDescription{Type: e.Name, Fields: body.Fields, Steps: body.Steps, Lines: body.Lines(), Omitted: body.Omitted,
			Tree: body.Tree(start - shift)}
		_ = r.Seek(pr.Offset())
		if err != nil {
			return desc, err
		}
		if opts.Strict {
			if err := strictEnd(pr, end); err != nil {
				return desc, err
			}
		}
		return desc, nil
	}
}

// strictEnd checks that only zero padding follows the body.
func strictEnd(r *bitstream.Reader, end int) error {
	left := end - r.Offset()
	if left >= 8 {
		return gsf.NewBodyError(r.Offset(), left, gsf.ErrTrailingBits)
	}
	if left > 0 {
		if bits, _ := r.PeekBits(left); bits != 0 {
			return gsf.NewBodyError(r.Offset(), left, gsf.ErrTrailingBits)
		}
	}
	return nil
}

// Explain is gsf.Explain with the catalog's Describer: every frame of data, with its header and
// its body described field by field.
func Explain(data []byte, opts Options) (*gsf.Explanation, error) {
	return gsf.Explain(data, ExplainOptions(opts))
}

// ExplainOptions returns the gsf.ExplainOptions that Explain uses, for tools that explain one
// frame at a time (a proxy, a capture reader): gsf.Explain(frame, messages.ExplainOptions(opts)).
func ExplainOptions(opts Options) gsf.ExplainOptions {
	return gsf.ExplainOptions{PayloadBits: opts.PayloadBits, Describer: Describer(opts)}
}

// Describe describes the body of m field by field, with bit offsets from the payload's first bit.
// It fails with ErrUnknownMessage for a body that is not in the catalog (see RawDump for
// those). Errors are *bitproto.DecodeError values with the field path and bit offset; the fields
// described before the error are returned with it.
//
// Memory: at most opts.MaxFields fields are kept (the rest is decoded and checked, and counted
// in Body.Omitted), and every count is checked against the bits left before any element is
// read, so a short body that claims a huge count fails at once.
func Describe(m *gsf.Message, opts Options) (*Body, error) {
	e, ok := ForHeader(&m.Header)
	if !ok {
		return nil, fmt.Errorf("%w: %s/%s %s", ErrUnknownMessage, m.Header.SvcClass, m.Header.MessageTypeName(), KindOf(&m.Header))
	}
	if m.Body.IsNull() {
		return &Body{Entry: e}, nil
	}
	end := m.Body.BitOffset() + m.Body.BitLen()
	r := bitstream.NewReader(m.Body.Payload())
	_ = r.Seek(m.Body.BitOffset())
	b, err := describe(e, r, 0, opts)
	if err == nil && opts.Strict {
		err = strictEnd(r, end)
	}
	return b, err
}

func describe(e *Entry, r *bitstream.Reader, shift int, opts Options) (*Body, error) {
	d := &describer{c: catalog(), r: r, shift: shift, maxFields: opts.MaxFields, maxDepth: opts.MaxDepth}
	if d.maxFields <= 0 {
		d.maxFields = DefaultMaxFields
	}
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth
	}
	def := d.c.Message(e.Name)
	fields, err := d.fields(def.Fields, "")
	b := &Body{Entry: e, Fields: fields, Steps: d.steps, End: r.Offset(), Omitted: d.omitted, OmittedBit: d.quietBit - shift, leafSteps: d.leafSteps}
	if d.omitted > 0 {
		b.Steps = append(b.Steps, bitproto.Step{Bit: d.quietBit - shift, Len: r.Offset() - d.quietBit,
			Text: fmt.Sprintf("… %s, decoded but not shown (Options.MaxFields)", plural(d.omitted, "more field"))})
	}
	return b, err
}

type describer struct {
	c                  *schema.Catalog
	r                  *bitstream.Reader
	shift              int
	steps              []bitproto.Step
	depth, maxDepth    int
	nfields, maxFields int
	// quiet is set once maxFields fields are shown: the rest is decoded and checked without
	// keeping fields or rows; omitted counts it, from bit quietBit.
	quiet             bool
	omitted, quietBit int
	leafSteps         map[int][]bitproto.Step
}

// keep appends f to fs when it was shown: when the describer was not quiet as f started.
func keep(fs []Field, f Field, shown bool) []Field {
	if !shown {
		return fs
	}
	return append(fs, f)
}

func (d *describer) fields(fs []schema.Field, path string) ([]Field, error) {
	var out []Field
	for _, f := range fs {
		if f.Type == nil {
			sub, err := d.fields(d.c.Objects[f.Inline].Fields, path)
			out = append(out, sub...)
			if err != nil {
				return out, err
			}
			continue
		}
		fd, shown, err := d.value(f.Name, join(path, f.Name), f.Type)
		out = keep(out, fd, shown)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func join(path, name string) string {
	if path == "" || strings.HasPrefix(name, "[") {
		return path + name
	}
	return path + "." + name
}

func (d *describer) fail(path string, off int, err error) error {
	var be *bitproto.DecodeError
	if errors.As(err, &be) {
		return err
	}
	return &bitproto.DecodeError{Path: path, Offset: int64((off - d.shift) / 8), BitOffset: int64(off - d.shift), Err: err}
}

var leafTypes = map[string]bitproto.FieldType{"bool": bitproto.Bool, "byte": bitproto.Byte, "int16": bitproto.Int16,
	"int32": bitproto.Int32, "int64": bitproto.Int64, "char": bitproto.Char, "float32": bitproto.Float32,
	"float64": bitproto.Float64, "string": bitproto.String, "bytes": bitproto.Bytes, "date": bitproto.Date}

// read decodes one leaf (or null bit) and keeps its rows.
func (d *describer) read(path string, t bitproto.FieldType) (bitproto.Value, error) {
	off := d.r.Offset()
	if d.quiet {
		v, err := skim(d.r, t)
		if err != nil {
			return v, d.fail(path, off, err)
		}
		return v, nil
	}
	v, err := bitproto.DecodeField(d.r, bitproto.Field{Name: path, Type: t})
	for _, s := range v.Steps {
		s.Bit -= d.shift
		d.steps = append(d.steps, s)
	}
	if err != nil {
		return v, d.fail(path, off, err)
	}
	return v, nil
}

// minBits is the fewest bits a value of type t takes: the bound that a count is checked against.
func minBits(t *schema.Type) int {
	switch t.Kind {
	case schema.Leaf:
		switch t.Leaf {
		case "bool", "date":
			return 1
		case "byte":
			return 8
		case "float32":
			return 32
		case "float64":
			return 64
		}
		return 6
	case schema.Enum, schema.Slice, schema.Map:
		return 6
	}
	return 1
}

// value describes one value; shown reports whether it is within the fields shown.
func (d *describer) value(name, path string, t *schema.Type) (fd Field, shown bool, err error) {
	start := d.r.Offset()
	shown = !d.quiet && d.nfields < d.maxFields
	if shown {
		fd = Field{Name: name, Type: t.String(), Bit: start - d.shift}
	}
	err = d.fill(&fd, path, t)
	fd.Bits = d.r.Offset() - start
	return fd, shown, err
}

func (d *describer) fill(fd *Field, path string, t *schema.Type) error {
	if d.nfields++; d.nfields > d.maxFields {
		if !d.quiet {
			d.quiet, d.quietBit = true, d.r.Offset()
		}
		d.omitted++
	}
	switch t.Kind {
	case schema.Leaf, schema.Enum:
		ft := bitproto.String
		if t.Kind == schema.Leaf {
			ft = leafTypes[t.Leaf]
		}
		v, err := d.read(path, ft)
		if err != nil || d.quiet {
			return err
		}
		fd.Value, fd.Text, fd.Null = leafValue(v)
		fd.Raw = v.Value
		if len(v.Steps) > 1 {
			// The leaf's rows, for its tree (Body.Tree), by its first bit.
			if d.leafSteps == nil {
				d.leafSteps = map[int][]bitproto.Step{}
			}
			st := d.steps[len(d.steps)-len(v.Steps):] // read appended them, shifted
			d.leafSteps[st[0].Bit] = st
		}
		if t.Kind == schema.Enum {
			if _, ok := enumSets()[schema.Enums[t.Name]][v.Value.(string)]; !ok {
				fd.Text += " (not a " + t.Name + " name; the reference reads it as -1)"
			}
		}
		return nil
	case schema.Obj, schema.Nullable:
		v, err := d.read(path, bitproto.Null)
		if err != nil {
			return err
		}
		if v.Value == true {
			fd.Null, fd.Text = true, "null"
			return nil
		}
		if t.Kind == schema.Nullable {
			inner := Field{}
			if err := d.fill(&inner, path, t.Elem); err != nil {
				return err
			}
			fd.Value, fd.Text, fd.Raw = inner.Value, inner.Text, inner.Raw
			return nil
		}
		if err := d.enter(path); err != nil {
			return err
		}
		defer func() { d.depth-- }()
		var err2 error
		fd.Fields, err2 = d.fields(d.c.Objects[t.Name].Fields, path)
		switch {
		case d.quiet:
		case len(fd.Fields) == 0:
			fd.Text = "{}"
		case t.Name == "OID" && err2 == nil && len(fd.Fields) == 4:
			var n [4]int64
			for i, f := range fd.Fields {
				switch x := f.Value.(type) {
				case int32:
					n[i] = int64(x)
				case int64:
					n[i] = x
				}
			}
			o := OID{Class: int32(n[0]), Type: int32(n[1]), Server: int32(n[2]), Number: n[3]}
			fd.Text = fmt.Sprintf("%s (packed %d)", o, o.Int64())
		}
		return err2
	case schema.Slice, schema.Map:
		off := d.r.Offset()
		v, err := d.read(path+".count", bitproto.Int32)
		if err != nil {
			return err
		}
		n := int(v.Value.(int32))
		fd.Count = &n
		if n == -1 {
			fd.Null, fd.Text = true, "nil (count -1)"
			return nil
		}
		if n < -1 {
			return d.fail(path, off, fmt.Errorf("%w: count %d", bitstream.ErrNegativeLength, n))
		}
		per := minBits(t.Elem)
		if t.Kind == schema.Map {
			per += 6
		}
		if left := d.r.Remaining(); n > left/per {
			return d.fail(path, off, fmt.Errorf("%w: %s of at least %s, %s left", bitstream.ErrTooLong, plural(n, "element"), plural(per, "bit"), plural(left, "bit")))
		}
		if err := d.enter(path); err != nil {
			return err
		}
		defer func() { d.depth-- }()
		fd.Text = plural(n, "element")
		if t.Kind == schema.Map {
			fd.Text = plural(n, "entry")
		}
		for i := range n {
			var el Field
			var shown bool
			var err error
			if t.Kind == schema.Slice {
				name, epath := "", path
				if !d.quiet {
					name = "[" + strconv.Itoa(i) + "]"
					epath = path + name
				}
				el, shown, err = d.value(name, epath, t.Elem)
			} else {
				kstart := d.r.Offset()
				kv, kerr := d.read(fmt.Sprintf("%s.key[%d]", path, i), bitproto.String)
				if kerr != nil {
					return kerr
				}
				name, epath := "", path
				if !d.quiet {
					name = "[" + strconv.Quote(kv.Value.(string)) + "]"
					epath = path + name
				}
				el, shown, err = d.value(name, epath, t.Elem)
				el.Bits += el.Bit + d.shift - kstart
				el.Bit = kstart - d.shift
				if shown {
					el.Key = &Field{Name: "key", Type: "string", Bit: kstart - d.shift, Bits: kv.Len, Value: kv.Value, Text: kv.Text(), Raw: kv.Value}
				}
			}
			fd.Fields = keep(fd.Fields, el, shown)
			if err != nil {
				return err
			}
		}
		return nil
	}
	return d.fail(path, d.r.Offset(), fmt.Errorf("messages: wire type %s", t))
}

func (d *describer) enter(path string) error {
	if d.depth++; d.depth > d.maxDepth {
		return d.fail(path, d.r.Offset(), fmt.Errorf("%w: %d", bitproto.ErrTooDeep, d.maxDepth))
	}
	return nil
}

// leafValue returns a leaf's JSON value, its text, and whether it is a null date.
func leafValue(v bitproto.Value) (any, string, bool) {
	switch x := v.Value.(type) {
	case time.Time:
		if x.IsZero() {
			return nil, "null", true
		}
		return x.Format(time.RFC3339), x.Format(time.RFC3339), false
	case []byte:
		return hex.EncodeToString(x), v.Text(), false
	case rune:
		if v.Field.Type == bitproto.Char {
			return string(x), v.Text(), false
		}
	case uint8:
		return int(x), v.Text(), false
	}
	return v.Value, v.Text(), false
}

// FieldLines returns the text form of described fields, one line per field, nested fields
// indented under their object, slice or map: name, wire type, value, and where the bits are.
func FieldLines(fs []Field) []string {
	nameW, typeW := 0, 0
	var measure func(fs []Field, indent int)
	measure = func(fs []Field, indent int) {
		for _, f := range fs {
			nameW = max(nameW, indent+len(f.Name))
			typeW = max(typeW, len(f.Type))
			measure(f.Fields, indent+2)
		}
	}
	measure(fs, 0)
	nameW, typeW = min(nameW, 40), min(typeW, 24)
	var out []string
	var walk func(fs []Field, indent string)
	walk = func(fs []Field, indent string) {
		for _, f := range fs {
			text := f.Text
			if text != "" {
				text += "  "
			}
			out = append(out, fmt.Sprintf("%-*s %-*s %s(bit %d, %s)", nameW, indent+f.Name, typeW, f.Type, text, f.Bit, plural(f.Bits, "bit")))
			walk(f.Fields, indent+"  ")
		}
	}
	walk(fs, "")
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "y") {
		return fmt.Sprintf("%d %sies", n, what[:len(what)-1])
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// skim reads one leaf (or null bit) of type t without keeping rows or text: the quiet part of a
// description. Strings and byte arrays are not copied.
func skim(r *bitstream.Reader, t bitproto.FieldType) (bitproto.Value, error) {
	v := bitproto.Value{Field: bitproto.Field{Type: t}}
	var err error
	switch t {
	case bitproto.Null:
		v.Value, err = r.ReadNull()
	case bitproto.Bool:
		v.Value, err = r.ReadBool()
	case bitproto.Byte:
		v.Value, err = r.ReadByte()
	case bitproto.Int16:
		v.Value, err = r.ReadInt16()
	case bitproto.Int32:
		v.Value, err = r.ReadInt32()
	case bitproto.Int64:
		v.Value, err = r.ReadInt64()
	case bitproto.Char:
		v.Value, err = r.ReadChar()
	case bitproto.Float32:
		v.Value, err = r.ReadFloat32()
	case bitproto.Float64:
		v.Value, err = r.ReadFloat64()
	case bitproto.String:
		var b []byte
		b, err = r.ReadBytesView()
		v.Value = string(b) // a map key or an enum name; short-lived
	case bitproto.Bytes:
		v.Value, err = r.ReadBytesView()
	case bitproto.Date:
		v.Value, err = r.ReadDate()
	default:
		err = fmt.Errorf("messages: cannot skim %s", t)
	}
	return v, err
}

// enumSets are the name tables of the enums that travel as names, read once.
var enumSets = sync.OnceValue(func() map[string]map[string]int32 {
	out := map[string]map[string]int32{}
	for _, table := range schema.Enums {
		out[table] = gsf.EnumNames(table)
	}
	return out
})
