package bitproto

import (
	"encoding/hex"
	"fmt"
	"math"
	"time"

	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/internal/floattext"
)

// Explain returns the value as a field of the one explanation model (package explain): its
// name (the type's name when the field has none), wire type, value as a JSON scalar (numbers,
// strings, bools; bytes in hex, dates in RFC 3339, a char as a one-character string, a null bit
// as true when null), its text, and its bits, which are numbered as the value's. A value of
// several steps (a compressed integer's form and value bits, a string's length and bytes)
// holds them as children of type "bits".
func (v Value) Explain() *explain.Field {
	name := v.Field.Name
	if name == "" {
		name = v.Field.Type.String()
	}
	f := &explain.Field{Name: name, Type: v.Field.Type.String(), Value: jsonScalar(v), Text: v.Text(),
		Bit: int64(v.Bit), Bits: int64(v.Len)}
	if v.NonCanonical {
		f.Note = "not the shortest form"
	}
	if len(v.Steps) > 1 {
		for _, s := range v.Steps {
			f.Children = append(f.Children, StepField(s))
		}
	}
	return f
}

// StepField returns a step as a field of type "bits", named by the step's Name ("bits" when it
// has none), whose text is the step's.
func StepField(s Step) *explain.Field {
	name := s.Name
	if name == "" {
		name = "bits"
	}
	return &explain.Field{Name: name, Type: "bits", Text: s.Text, Bit: int64(s.Bit), Bits: int64(s.Len)}
}

// jsonScalar is the value as a JSON scalar of the model.
func jsonScalar(v Value) any {
	switch x := v.Value.(type) {
	case nil:
		return nil
	case []byte:
		return hex.EncodeToString(x)
	case time.Time:
		if x.IsZero() {
			return nil
		}
		return x.Format(time.RFC3339Nano)
	case rune:
		if v.Field.Type == Char {
			return string(x)
		}
		return int64(x)
	case uint8:
		return uint64(x)
	case int16:
		return int64(x)
	case float32:
		switch {
		case x != x:
			return floattext.NaN32Text(x) // "NaN" or "NaN:0x…": every bit survives
		case math.IsInf(float64(x), 0):
			return v.Text()
		}
		return float64(x)
	case float64:
		switch {
		case math.IsNaN(x):
			return floattext.NaN64Text(x)
		case math.IsInf(x, 0):
			return v.Text()
		}
	}
	return v.Value
}

// ExplainFields decodes fields from data, starting at bit start, and explains them as one
// [explain.Frame] (Format "bitproto"): a field per value ([Value.Explain]); the frame's Summary
// counts the bits after the last field, which are not explained. The fields count against budget (nil:
// explain.DefaultMaxFields); decoding goes on to the last field whatever the budget. On an
// error the frame holds the fields decoded before it and Err (at the failing field's bit), and
// the error (an *Error) is returned too.
func ExplainFields(data []byte, start int, fields []Field, budget *explain.Budget) (*explain.Frame, error) {
	if budget == nil {
		budget = explain.NewBudget(0)
	}
	fr := &explain.Frame{Format: "bitproto", Bit: int64(start), Bits: int64(8*len(data) - start), Fields: []*explain.Field{}}
	r := bitstream.NewReader(data)
	if err := r.Seek(start); err != nil {
		err = fmt.Errorf("bitproto: start bit %d: %w", start, err)
		fr.Bit, fr.Bits = 0, int64(8*len(data))
		fr.Err = &explain.Error{Bit: int64(8 * len(data)), Msg: err.Error(), Err: err}
		return fr, err
	}
	for i, f := range fields {
		v, err := DecodeField(r, f)
		if err != nil {
			err = &DecodeError{Path: fieldPath(i, f), Offset: int64(v.Bit) / 8, BitOffset: int64(v.Bit), Err: err}
			fr.Err = &explain.Error{Bit: int64(v.Bit), Msg: err.Error(), Err: err}
			fr.Summary = "does not decode"
			return fr, err
		}
		if v.Len == 0 && f.Type == Align {
			continue // aligned already: no bits
		}
		if !budget.AddTo(fr, v.Explain()) {
			// Checked to the end, not kept.
			continue
		}
	}
	fr.Bits = int64(r.Offset() - start)
	fr.Summary = plural(len(fields), "field") + ", " + plural(int(r.Offset()-start), "bit")
	if rest := r.Remaining(); rest > 0 {
		fr.Summary += "; " + plural(int(rest), "bit") + " after them, not decoded"
	}
	return fr, nil
}
