package explain

import "fmt"

// DefaultMaxFields is the number of fields an explanation holds when its MaxFields is 0: every
// field of a frame up to it, for all the frames of one input together. A field with its text
// takes about 200 to 400 bytes, so an explanation at the default holds at most about 40 MB of
// fields, and its text form prints at most about 10 MB, however large or deeply nested the input.
// The fields after the budget are not explained; the last frame explained says so (Truncated).
const DefaultMaxFields = 100_000

// NoLimit, as a MaxFields, lets an explanation hold every field.
const NoLimit = -1

// MaxIndent is the deepest nesting the text form indents: deeper fields are indented as deep
// as this and marked with their depth, so that a line's length does not grow with the input's
// nesting.
const MaxIndent = 16

// Budget counts the fields of one explanation (one input, all its frames) against MaxFields.
// The zero value has no room; use [NewBudget].
type Budget struct {
	left  int // fields left; < 0: no limit
	spent bool
}

// NewBudget returns a budget of maxFields fields: 0 means [DefaultMaxFields], [NoLimit] (or any
// negative value) none.
func NewBudget(maxFields int) *Budget {
	switch {
	case maxFields == 0:
		maxFields = DefaultMaxFields
	case maxFields < 0:
		maxFields = -1
	}
	return &Budget{left: maxFields}
}

// Take takes room for one field; it reports false, and remembers it, when none is left.
func (b *Budget) Take() bool {
	if b.left < 0 {
		return true
	}
	if b.left == 0 {
		b.spent = true
		return false
	}
	b.left--
	return true
}

// Room reports whether the budget has room for another field.
func (b *Budget) Room() bool { return b.left != 0 }

// Spent reports that a field was refused: the explanation is cut short.
func (b *Budget) Spent() bool { return b.spent }

// Add appends c to parent's children when the budget has room for it, and reports whether it
// did. c's own children count too: those beyond the budget are cut off.
func (b *Budget) Add(parent *Field, c *Field) bool {
	if !b.Take() {
		return false
	}
	b.prune(c)
	parent.Children = append(parent.Children, c)
	return true
}

// AddTo appends f to the frame's top-level fields when the budget has room; f's own children
// count too, and those beyond the budget are cut off. When the budget runs out it marks the frame
// Truncated. It reports whether it added f.
func (b *Budget) AddTo(fr *Frame, f *Field) bool {
	if !b.Take() {
		fr.Truncated = true
		return false
	}
	if !b.prune(f) {
		fr.Truncated = true
	}
	fr.Fields = append(fr.Fields, f)
	return true
}

// prune takes room for f's descendants, in wire order, and cuts off those beyond the budget;
// it reports whether all of them fit.
func (b *Budget) prune(f *Field) bool {
	for i, c := range f.Children {
		if !b.Take() {
			f.Children = f.Children[:i:i]
			return false
		}
		if !b.prune(c) {
			f.Children = f.Children[: i+1 : i+1]
			return false
		}
	}
	return true
}

// Walk calls fn for every field of the frame in wire order (a parent before its children), with
// its depth from 0 for the top-level fields, until fn returns false.
func (fr *Frame) Walk(fn func(f *Field, depth int) bool) {
	var walk func(fs []*Field, depth int) bool
	walk = func(fs []*Field, depth int) bool {
		for _, f := range fs {
			if !fn(f, depth) || !walk(f.Children, depth+1) {
				return false
			}
		}
		return true
	}
	walk(fr.Fields, 0)
}

// Count returns the number of fields of the frame, all levels.
func (fr *Frame) Count() int {
	n := 0
	fr.Walk(func(*Field, int) bool { n++; return true })
	return n
}

// Cover sets a composite field's range to span its children (when it has any) as well as its
// own range, and returns f.
func (f *Field) Cover() *Field {
	if len(f.Children) == 0 {
		return f
	}
	lo, hi := f.Bit, f.Bit+f.Bits
	if f.Bits == 0 {
		lo, hi = f.Children[0].Bit, f.Children[0].Bit
	}
	for _, c := range f.Children {
		lo = min(lo, c.Bit)
		hi = max(hi, c.Bit+c.Bits)
	}
	f.Bit, f.Bits = lo, hi-lo
	return f
}

// Shift moves the frame, its fields and its errors by bits (a frame explained out of a part of
// a larger input), and returns fr.
func (fr *Frame) Shift(bits int64) *Frame {
	if bits == 0 {
		return fr
	}
	fr.Bit += bits
	seen := map[*Error]bool{}
	shiftErr := func(e *Error) {
		if e != nil && !seen[e] {
			seen[e] = true
			e.Bit += bits
		}
	}
	shiftErr(fr.Err)
	fr.Walk(func(f *Field, _ int) bool {
		f.Bit += bits
		shiftErr(f.Err)
		return true
	})
	return fr
}

// CoverAll makes every composite field of the frame span its children ([Field.Cover]), from the
// innermost out.
func (fr *Frame) CoverAll() *Frame {
	var walk func(fs []*Field)
	walk = func(fs []*Field) {
		for _, f := range fs {
			walk(f.Children)
			f.Cover()
		}
	}
	walk(fr.Fields)
	return fr
}

// Validate checks the frame's structure: every field lies within the frame and within its
// parent, has no negative length, and the leaves come in wire order without overlapping. The
// formats' tests and fuzz targets call it on every frame they make.
func (fr *Frame) Validate() error {
	end := fr.Bit
	var err error
	var walk func(parent *Field, fs []*Field)
	walk = func(parent *Field, fs []*Field) {
		for _, f := range fs {
			if err != nil {
				return
			}
			switch {
			case f.Bits < 0 || f.Bit < fr.Bit || f.Bit+f.Bits > fr.Bit+fr.Bits:
				err = fmt.Errorf("explain: %s %q at bits %d+%d lies outside its frame (bits %d+%d)", f.Type, f.Name, f.Bit, f.Bits, fr.Bit, fr.Bits)
			case parent != nil && (f.Bit < parent.Bit || f.Bit+f.Bits > parent.Bit+parent.Bits):
				err = fmt.Errorf("explain: %s %q at bits %d+%d lies outside its parent %q (bits %d+%d)", f.Type, f.Name, f.Bit, f.Bits, parent.Name, parent.Bit, parent.Bits)
			case len(f.Children) == 0 && f.Bit < end:
				err = fmt.Errorf("explain: %s %q at bit %d overlaps the field before it (which ends at bit %d)", f.Type, f.Name, f.Bit, end)
			}
			if len(f.Children) == 0 {
				end = max(end, f.Bit+f.Bits)
			}
			walk(f, f.Children)
		}
	}
	walk(nil, fr.Fields)
	return err
}
