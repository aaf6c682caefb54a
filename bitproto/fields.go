package bitproto

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/internal/floattext"
)

// FieldType is a wire type, as used in struct tags and in field lists.
type FieldType uint8

// The wire types. Null is an object's null bit and Align skips to the next byte boundary; both
// are only meaningful in field lists.
const (
	Bool FieldType = iota + 1
	Byte
	Int16
	Int32
	Int64
	Char
	Float32
	Float64
	String
	Bytes
	Date
	Null
	Align
)

var fieldTypeNames = [...]string{
	Bool: "bool", Byte: "byte", Int16: "int16", Int32: "int32", Int64: "int64", Char: "char",
	Float32: "float32", Float64: "float64", String: "string", Bytes: "bytes", Date: "date",
	Null: "null", Align: "align",
}

// String returns the type's name as written in tags and field lists.
func (t FieldType) String() string {
	if int(t) < len(fieldTypeNames) && fieldTypeNames[t] != "" {
		return fieldTypeNames[t]
	}
	return "FieldType(" + strconv.Itoa(int(t)) + ")"
}

// ParseFieldType parses a wire type name: bool, byte, int16, int32, int64, char, float32,
// float64, string, bytes, date, null or align. The aliases short (int16), int (int32), long
// (int64), float (float32), double (float64), object (null) and object-null (null) are accepted.
func ParseFieldType(s string) (FieldType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "short":
		return Int16, nil
	case "int":
		return Int32, nil
	case "long":
		return Int64, nil
	case "float":
		return Float32, nil
	case "double":
		return Float64, nil
	case "object", "object-null":
		return Null, nil
	case "bytearray":
		return Bytes, nil
	}
	for t, name := range fieldTypeNames {
		if name != "" && strings.EqualFold(name, strings.TrimSpace(s)) {
			return FieldType(t), nil
		}
	}
	return 0, fmt.Errorf("bitproto: unknown field type %q (want bool, byte, int16, int32, int64, char, float32, float64, string, bytes, date, null or align)", s)
}

// Field is one entry of a field list: an optional name and a wire type.
type Field struct {
	Name string
	Type FieldType
}

// String returns "name:type", or "type" for an unnamed field.
func (f Field) String() string {
	if f.Name == "" {
		return f.Type.String()
	}
	return f.Name + ":" + f.Type.String()
}

// label is the name used in explanations: the field's name, or its type.
func (f Field) label() string {
	if f.Name != "" {
		return f.Name
	}
	return f.Type.String()
}

// ParseFields parses a comma-separated field list such as "bool,int32,name:string,date". Each
// entry is TYPE or NAME:TYPE; TYPE*N repeats an entry N times (at most 4096 entries in all).
func ParseFields(spec string) ([]Field, error) {
	var fields []Field
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		n := 1
		if base, rep, ok := strings.Cut(item, "*"); ok {
			var err error
			n, err = strconv.Atoi(strings.TrimSpace(rep))
			if err != nil || n < 1 {
				return nil, fmt.Errorf("bitproto: bad repeat count in %q", item)
			}
			item = strings.TrimSpace(base)
		}
		var f Field
		typ := item
		if name, t, ok := strings.Cut(item, ":"); ok {
			f.Name, typ = strings.TrimSpace(name), t
		}
		var err error
		if f.Type, err = ParseFieldType(typ); err != nil {
			return nil, err
		}
		if len(fields)+n > 4096 {
			return nil, errors.New("bitproto: field list longer than 4096 entries")
		}
		for range n {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return nil, errors.New("bitproto: empty field list")
	}
	return fields, nil
}

// A Step is one row of a bit-by-bit explanation: where some bits are, what they are, and what
// they mean.
type Step struct {
	// Name is the part's role: the field's label for its value bits, the label and "form" for
	// a compressed integer's flag and count bits, "length", "align", "null bit".
	Name string `json:"name,omitempty"`
	Bit  int    `json:"bit"`            // offset of the first bit
	Len  int    `json:"len"`            // number of bits
	Bits string `json:"bits,omitempty"` // the bits as written in explanations: "[1][1][0]" or "[00010010]"; empty for long byte blocks
	Text string `json:"text"`           // the meaning
}

// Value is one decoded field of a field list.
type Value struct {
	Field Field `json:"-"`
	Bit   int   `json:"bit"` // offset of the first bit
	Len   int   `json:"len"` // number of bits
	// Value is the decoded value: bool, uint8 (byte), int16, int32, int64, rune (char), float32,
	// float64, string, []byte, time.Time (the zero time for a null date), bool (null: true when
	// the object is null), or nil (align).
	Value any `json:"-"`
	// Form is the encoding of a compressed integer (int16, int32, int64, char, and the length of
	// a string or byte array).
	Form *bitstream.IntForm `json:"-"`
	// NonCanonical reports a compressed integer (or length) in a form the writer would not use:
	// accepted, but a sign of a different encoder or of hand-made input.
	NonCanonical bool   `json:"-"`
	Steps        []Step `json:"steps,omitempty"`
}

// MarshalJSON writes the value with its name, type and a JSON form of the value: numbers,
// strings, true/false, bytes in hex, dates in RFC 3339 (null for the zero time), chars as a
// one-character string, and for non-canonical integer forms "canonical": false.
func (v Value) MarshalJSON() ([]byte, error) {
	type out struct {
		Name      string `json:"name,omitempty"`
		Type      string `json:"type"`
		Bit       int    `json:"bit"`
		Len       int    `json:"len"`
		Value     any    `json:"value"`
		Code      *int32 `json:"code,omitempty"`
		Canonical *bool  `json:"canonical,omitempty"`
		Steps     []Step `json:"steps,omitempty"`
	}
	o := out{Name: v.Field.Name, Type: v.Field.Type.String(), Bit: v.Bit, Len: v.Len, Value: v.Value, Steps: v.Steps}
	switch x := v.Value.(type) {
	case []byte:
		o.Value = hex.EncodeToString(x)
	case time.Time:
		if x.IsZero() {
			o.Value = nil
		} else {
			o.Value = x.Format(time.RFC3339)
		}
	case rune:
		if v.Field.Type == Char {
			c := x
			o.Code = &c
			o.Value = string(x)
		}
	case float32:
		if x != x {
			o.Value = floattext.NaN32Text(x) // "NaN" or "NaN:0x…": every bit pattern survives
		} else if math.IsInf(float64(x), 0) {
			o.Value = fmt.Sprint(x)
		}
	case float64:
		if math.IsNaN(x) {
			o.Value = floattext.NaN64Text(x)
		} else if math.IsInf(x, 0) {
			o.Value = fmt.Sprint(x)
		}
	}
	if v.NonCanonical {
		f := false
		o.Canonical = &f
	}
	return json.Marshal(o)
}

// Text returns the value formatted for people: strings quoted, bytes in hex, chars as 'A'
// (U+0041), dates in RFC 3339, null bits as "null" or "present".
func (v Value) Text() string {
	switch x := v.Value.(type) {
	case nil:
		return ""
	case string:
		return strconv.Quote(x)
	case []byte:
		if x == nil {
			return "[] (nil)"
		}
		return "[" + hex.EncodeToString(x) + "]"
	case time.Time:
		if x.IsZero() {
			return "null (zero time)"
		}
		return x.Format(time.RFC3339)
	case uint8:
		return fmt.Sprintf("0x%02x (%d)", x, x)
	case float32:
		if x != x {
			return floattext.NaN32Text(x)
		}
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		if x != x {
			return floattext.NaN64Text(x)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		if v.Field.Type == Null {
			if x {
				return "null"
			}
			return "present"
		}
		return strconv.FormatBool(x)
	case rune:
		if v.Field.Type == Char {
			return charText(x)
		}
	}
	return fmt.Sprint(v.Value)
}

func charText(r rune) string {
	if r >= 0 && utf8.ValidRune(r) && strconv.IsPrint(r) {
		return fmt.Sprintf("%q (U+%04X)", r, r)
	}
	if r < 0 {
		return fmt.Sprintf("%d (U+%04X as int16)", r, uint16(r))
	}
	return fmt.Sprintf("%d (U+%04X)", r, r)
}

// DecodeFields decodes the fields in order from r. On error it returns the fields decoded so
// far and an *Error whose Path names the failing field ("#3 name:int32").
func DecodeFields(r *bitstream.Reader, fields []Field) ([]Value, error) {
	vals := make([]Value, 0, len(fields))
	for i, f := range fields {
		v, err := DecodeField(r, f)
		if err != nil {
			return vals, &DecodeError{Path: fieldPath(i, f), Offset: int64(v.Bit / 8), BitOffset: int64(v.Bit), Err: err}
		}
		vals = append(vals, v)
	}
	return vals, nil
}

// DecodeField decodes one field from r and explains its bits. On error the returned Value holds
// the offset of the field and the error is the bitstream error.
func DecodeField(r *bitstream.Reader, f Field) (Value, error) {
	v := Value{Field: f, Bit: r.Offset()}
	label := f.label()
	var err error
	switch f.Type {
	case Bool:
		var b bool
		if b, err = r.ReadBool(); err == nil {
			v.Value = b
			v.step(r, v.Bit, 1, label+" = "+strconv.FormatBool(b))
		}
	case Null:
		var b bool
		if b, err = r.ReadNull(); err == nil {
			v.Value = b
			if b {
				v.step(r, v.Bit, 1, label+" is null")
			} else {
				v.step(r, v.Bit, 1, label+" is not null")
			}
		}
	case Byte:
		var b byte
		if b, err = r.ReadByte(); err == nil {
			v.Value = b
			v.step(r, v.Bit, 8, fmt.Sprintf("%s = 0x%02x (%d)", label, b, b))
		}
	case Int16, Int32, Int64, Char:
		width := map[FieldType]int{Int16: 2, Int32: 4, Int64: 8, Char: 2}[f.Type]
		var n int64
		var form bitstream.IntForm
		if n, form, err = r.ReadCompressed(width); err == nil {
			v.Form = &form
			text := strconv.FormatInt(n, 10)
			switch f.Type {
			case Int16:
				v.Value = int16(n)
			case Int32:
				v.Value = int32(n)
			case Int64:
				v.Value = n
			case Char:
				v.Value = rune(int16(n))
				text = charText(rune(int16(n)))
			}
			v.intSteps(r, v.Bit, form, label, label+" = "+text, n)
		}
	case Float32:
		var x float32
		if x, err = r.ReadFloat32(); err == nil {
			v.Value = x
			v.step(r, v.Bit, 32, fmt.Sprintf("%s = %s (0x%08x)", label, v.Text(), math.Float32bits(x)))
		}
	case Float64:
		var x float64
		if x, err = r.ReadFloat64(); err == nil {
			v.Value = x
			v.step(r, v.Bit, 64, fmt.Sprintf("%s = %s (0x%016x)", label, v.Text(), math.Float64bits(x)))
		}
	case String, Bytes:
		err = v.decodeBlock(r, label)
	case Date:
		err = v.decodeDate(r, label)
	case Align:
		if pad := r.Align(); pad > 0 {
			v.step(r, v.Bit, pad, "align: skip to the byte boundary")
		}
	default:
		err = fmt.Errorf("bitproto: unknown field type %d", f.Type)
	}
	if err != nil {
		_ = r.Seek(v.Bit)
		v.Steps = nil
		return v, err
	}
	v.Len = r.Offset() - v.Bit
	return v, nil
}

// step appends a step for the n bits at off, showing the bits when there are at most 64.
func (v *Value) step(r *bitstream.Reader, off, n int, text string) {
	v.Steps = append(v.Steps, Step{Name: v.Field.label(), Bit: off, Len: n, Bits: bracketBits(r, off, n, false), Text: text})
}

// bracketBits returns the n bits at off as "[0101]", or, when each is true, as "[1][1][0]".
func bracketBits(r *bitstream.Reader, off, n int, each bool) string {
	if n > 64 || n <= 0 {
		return ""
	}
	save := r.Offset()
	defer func() { _ = r.Seek(save) }()
	if r.Seek(off) != nil {
		return ""
	}
	x, err := r.ReadBits(n)
	if err != nil {
		return ""
	}
	var b strings.Builder
	if !each {
		b.WriteByte('[')
	}
	for i := n - 1; i >= 0; i-- {
		if each {
			b.WriteByte('[')
		}
		b.WriteByte('0' + byte(x>>i&1))
		if each {
			b.WriteByte(']')
		}
	}
	if !each {
		b.WriteByte(']')
	}
	return b.String()
}

// intSteps explains a compressed integer in two rows, like the protocol documentation's
// annotated example: the flag and count bits, then the value bits.
func (v *Value) intSteps(r *bitstream.Reader, off int, form bitstream.IntForm, label, valueText string, n int64) {
	var what string
	switch {
	case form.PrefixBits == 1:
		what = fmt.Sprintf("%s not compressed: full width, %s follow", label, plural(form.ValueBits, "bit"))
	case form.Bytes == 0:
		what = label + " compressed, 0 bytes -> 4-bit value"
	case form.Bytes == form.Width:
		what = fmt.Sprintf("%s compressed, %s follow (count run without terminator)", label, plural(form.Bytes, "byte"))
	case form.Bytes == 1:
		what = label + " compressed, 1 byte follows"
	default:
		what = fmt.Sprintf("%s compressed, %s follow", label, plural(form.Bytes, "byte"))
	}
	if !form.Canonical(n) {
		what += " (not the form the writer uses)"
		v.NonCanonical = true
	}
	v.Steps = append(v.Steps,
		Step{Name: label + " form", Bit: off, Len: form.PrefixBits, Bits: bracketBits(r, off, form.PrefixBits, true), Text: what},
		Step{Name: label, Bit: off + form.PrefixBits, Len: form.ValueBits, Bits: bracketBits(r, off+form.PrefixBits, form.ValueBits, false), Text: valueText})
}

func (v *Value) decodeBlock(r *bitstream.Reader, label string) error {
	start := r.Offset()
	n, form, err := r.ReadCompressed(4)
	if err != nil {
		return err
	}
	if n < -1 {
		return &bitstream.DecodeError{Offset: int64(start / 8), BitOffset: int64(start), Op: "Read" + strings.ToUpper(v.Field.Type.String()[:1]) + v.Field.Type.String()[1:], Err: fmt.Errorf("%w: %d", bitstream.ErrNegativeLength, n)}
	}
	v.Form = &form
	lenText := fmt.Sprintf("length = %d", n)
	switch {
	case n == 0 && v.Field.Type == String:
		lenText += " (empty string, no alignment)"
	case n == 0:
		lenText += " (empty, no alignment; reads as nil)"
	case n == -1:
		lenText += " (nil, no alignment)"
	}
	v.intSteps(r, start, form, label+" length", lenText, n)
	if n <= 0 {
		if v.Field.Type == String {
			v.Value = ""
		} else {
			v.Value = []byte(nil)
		}
		return nil
	}
	alignAt := r.Offset()
	_ = r.Seek(start)
	var data []byte
	if v.Field.Type == String {
		var s string
		if s, err = r.ReadString(); err == nil {
			data = []byte(s)
			v.Value = s
		}
	} else {
		if data, err = r.ReadBytes(); err == nil {
			v.Value = data
		}
	}
	if err != nil {
		return err
	}
	dataAt := r.Offset() - 8*len(data)
	if pad := dataAt - alignAt; pad > 0 {
		v.Steps = append(v.Steps, Step{Name: "align", Bit: alignAt, Len: pad, Bits: bracketBits(r, alignAt, pad, false), Text: "align: skip to the byte boundary"})
	}
	text := fmt.Sprintf("%s = %s (%s, %s)", label, v.Text(), plural(len(data), "byte"), plural(8*len(data), "bit"))
	v.Steps = append(v.Steps, Step{Name: label, Bit: dataAt, Len: 8 * len(data), Bits: bracketBits(r, dataAt, 8*len(data), false), Text: text})
	return nil
}

func (v *Value) decodeDate(r *bitstream.Reader, label string) error {
	start := r.Offset()
	t, err := r.ReadDate()
	if err != nil {
		return err
	}
	v.Value = t
	if r.Offset()-start == 1 {
		v.step(r, start, 1, label+" is null (the zero time)")
		return nil
	}
	v.step(r, start, 1, label+" is not null")
	v.Steps[len(v.Steps)-1].Name = label + " null bit"
	_ = r.Seek(start + 1)
	wire, _ := r.ReadBits(64)
	text := fmt.Sprintf("%s = %s (wire %d = unix %+d)", label, t.Format(time.RFC3339), int64(wire), int64(wire)-bitstream.DateOffset)
	if int64(wire) < 31_622_400 || bitstream.DateToWire(t) != int64(wire) {
		text += ", clamped on read"
	}
	v.step(r, start+1, 64, text)
	return nil
}

// EncodeFields writes values by a field list. Each field takes one value, except Align, which
// takes none. Accepted values: bool for bool and null (true = null); numbers (any Go integer or
// float type, or json.Number, or a decimal string) for the integer and float types, range
// checked; a one-character string or a number for char; a string for string; a hex string or a
// []byte for bytes; a time.Time, an RFC 3339 string, a Unix time number, or nil (the zero time)
// for date.
func EncodeFields(w *bitstream.Writer, fields []Field, values []any) error {
	need := 0
	for _, f := range fields {
		if f.Type != Align {
			need++
		}
	}
	if len(values) != need {
		return fmt.Errorf("bitproto: %s for %s", plural(len(values), "value"), plural(need, "field"))
	}
	vi := 0
	for i, f := range fields {
		if f.Type == Align {
			w.Align()
			continue
		}
		if err := encodeField(w, f, values[vi]); err != nil {
			return &EncodeError{Path: fieldPath(i, f), Offset: int64(w.Len() / 8), BitOffset: int64(w.Len()), Err: err}
		}
		vi++
	}
	if err := w.Err(); err != nil {
		return newError(0, err)
	}
	return nil
}

func encodeField(w *bitstream.Writer, f Field, v any) error {
	switch f.Type {
	case Bool, Null:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want true or false, got %s", describeValue(v))
		}
		w.WriteBool(b)
	case Byte, Int16, Int32, Int64:
		n, err := toInt(v)
		if err != nil {
			return err
		}
		var lo, hi int64
		switch f.Type {
		case Byte:
			lo, hi = math.MinInt8, math.MaxUint8 // a signed or an unsigned byte
		case Int16:
			lo, hi = math.MinInt16, math.MaxInt16
		case Int32:
			lo, hi = math.MinInt32, math.MaxInt32
		default:
			lo, hi = math.MinInt64, math.MaxInt64
		}
		if n < lo || n > hi {
			return fmt.Errorf("%w: %d does not fit %s", ErrRange, n, f.Type)
		}
		switch f.Type {
		case Byte:
			w.WriteByte(byte(n))
		case Int16:
			w.WriteInt16(int16(n))
		case Int32:
			w.WriteInt32(int32(n))
		default:
			w.WriteInt64(n)
		}
	case Char:
		if s, ok := v.(string); ok {
			r, size := utf8.DecodeRuneInString(s)
			if size == 0 || size != len(s) {
				return fmt.Errorf("want one character, got %q", s)
			}
			w.WriteChar(r)
			return nil
		}
		n, err := toInt(v)
		if err != nil {
			return err
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return fmt.Errorf("%w: %d is not a rune", ErrRange, n)
		}
		w.WriteChar(rune(n))
	case Float32:
		x, err := toFloat32(v)
		if err != nil {
			return err
		}
		w.WriteFloat32(x)
	case Float64:
		x, err := toFloat(v)
		if err != nil {
			return err
		}
		w.WriteFloat64(x)
	case String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s", describeValue(v))
		}
		w.WriteString(s)
	case Bytes:
		switch x := v.(type) {
		case []byte:
			w.WriteBytes(x)
		case string:
			b, err := hex.DecodeString(strings.ReplaceAll(x, " ", ""))
			if err != nil {
				return fmt.Errorf("bytes must be hex: %v", err)
			}
			w.WriteBytes(b)
		default:
			return fmt.Errorf("want a hex string, got %s", describeValue(v))
		}
	case Date:
		switch x := v.(type) {
		case nil:
			w.WriteDate(time.Time{})
		case time.Time:
			w.WriteDate(x)
		case string:
			t, err := time.Parse(time.RFC3339Nano, x)
			if err != nil {
				return err
			}
			w.WriteDate(t)
		default:
			n, err := toInt(v)
			if err != nil {
				return fmt.Errorf("want an RFC 3339 date, a Unix time or null, got %s", describeValue(v))
			}
			w.WriteDate(time.Unix(n, 0))
		}
	default:
		return fmt.Errorf("cannot encode field type %s", f.Type)
	}
	return nil
}

func toInt(v any) (int64, error) {
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return 0, fmt.Errorf("%w: %d", ErrRange, x)
		}
		return int64(x), nil
	case float64:
		if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return 0, fmt.Errorf("want an integer, got %v", x)
		}
		return int64(x), nil
	case json.Number:
		return strconv.ParseInt(string(x), 10, 64)
	case string:
		n, err := strconv.ParseInt(x, 0, 64)
		if err != nil {
			return 0, fmt.Errorf("want an integer, got %q", x)
		}
		return n, nil
	}
	return 0, fmt.Errorf("want an integer, got %s", describeValue(v))
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	case json.Number:
		return strconv.ParseFloat(string(x), 64)
	case string:
		b, err := floattext.Parse(x, 64) // "NaN", "NaN:0x…", "inf", "-inf"
		if err != nil {
			return 0, err
		}
		return math.Float64frombits(b), nil
	}
	n, err := toInt(v)
	if err != nil {
		return 0, fmt.Errorf("want a number, got %s", describeValue(v))
	}
	return float64(n), nil
}

// toFloat32 is toFloat for a float32 field: a NaN's bits are kept exactly, which a trip through
// float64 would not promise.
func toFloat32(v any) (float32, error) {
	switch x := v.(type) {
	case float32:
		return x, nil
	case string:
		b, err := floattext.Parse(x, 32)
		if err != nil {
			return 0, err
		}
		return math.Float32frombits(uint32(b)), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 32)
		return float32(f), err
	}
	f, err := toFloat(v)
	return float32(f), err
}

// fieldPath names field i of a field list in an error, counting from 1 as people do: "field 2
// (int32)" or "field 2 name:int32".
func fieldPath(i int, f Field) string {
	if f.Name == "" {
		return "field " + strconv.Itoa(i+1) + " (" + f.String() + ")"
	}
	return "field " + strconv.Itoa(i+1) + " " + f.String()
}

// plural returns "1 byte", "2 bytes": n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// describeValue says what a value given for a field is, in the words of JSON where it came from
// JSON: `the number 1`, `the string "a"`, `an array`, `null`; else its Go type.
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Number:
		return "the number " + x.String()
	case float64, float32, int, int64, int32, uint64, uint32:
		return fmt.Sprintf("the number %v", x)
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return "the string " + strconv.Quote(x)
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a Go %T", v)
}
