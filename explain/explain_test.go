package explain

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func sample() *Frame {
	return &Frame{Format: "demo", Index: 2, Bit: 16, Bits: 24, Summary: "a demo", Fields: []*Field{
		{Name: "count", Type: "u8", Value: uint64(2), Bit: 16, Bits: 8},
		{Name: "items", Type: "list", Bit: 24, Bits: 16, Children: []*Field{
			{Name: "[0]", Type: "u8", Value: int64(7), Bit: 24, Bits: 8},
			{Name: "[1]", Type: "float", Value: math.NaN(), Text: "NaN", Bit: 32, Bits: 8, Note: "a note"},
		}},
	}}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sample(), &Frame{Format: "demo", Fields: []*Field{{Name: "<&>", Type: "s", Value: "a<b"}}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	var fr Frame
	if err := json.Unmarshal([]byte(lines[0]), &fr); err != nil {
		t.Fatal(err)
	}
	if fr.Index != 2 || fr.Fields[1].Children[1].Value != "NaN" || fr.Fields[0].Value != float64(2) || fr.Fields[1].Children[1].Note != "a note" {
		t.Errorf("round trip: %s", lines[0])
	}
	if !strings.Contains(lines[1], `"name":"<&>"`) || !strings.Contains(lines[1], `"value":"a<b"`) {
		t.Errorf("HTML escaped: %s", lines[1])
	}
}

// TestWriteJSONAsEncodingJSON: WriteJSON writes what encoding/json writes for a frame.
func TestWriteJSONAsEncodingJSON(t *testing.T) {
	fr := sample()
	fr.Fields[1].Children[1].Value = 0.25
	fr.Context = map[string]string{"stream": "1/c2s", "dir": "c2s"}
	fr.Err = &Error{Bit: 3, Bits: 2, Msg: "bad <x>"}
	fr.Fields[0].Err = fr.Err
	fr.Truncated = true
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.Encode(fr)
	var got bytes.Buffer
	WriteJSON(&got, fr, &Frame{})
	if !strings.HasPrefix(got.String(), want.String()) {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, nil, sample()); err != nil {
		t.Fatal(err)
	}
	want := `demo frame 2 at byte 2, 3 bytes: a demo
 offset   len  type                   name: meaning
      2     1  u8                     count: 2
      3     2  list                   items
      3     1    u8                   [0]: 7
      4     1    float                [1]: NaN (a note)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Bit-level, with the bits from the input, an error and a cut.
	fr := &Frame{Format: "bits", Bits: 12, Fields: []*Field{{Name: "flag", Type: "bool", Value: true, Bit: 0, Bits: 1},
		{Name: "n", Type: "int", Bit: 1, Bits: 11, Err: &Error{Bit: 1, Msg: "bad n"}}}, Truncated: true}
	fr.Err = fr.Fields[1].Err
	b.Reset()
	WriteText(&b, []byte{0xa5, 0xf0}, fr)
	want = `bits frame 0 at bit 0, 12 bits
    bit  bits  type                   name: meaning
      0     1  bool                   flag: true  [1]
      1    11  int                    n  [01001011111]
               ↳ error at bit 1: bad n
               … the explanation stops here: its field budget is spent (MaxFields, --max-fields)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWriteTextContext: a frame's context is written under its first line, the known keys
// first, any other key (a channel, a peer) after them in name order; one byte is "1 byte".
func TestWriteTextContext(t *testing.T) {
	fr := &Frame{Format: "demo", Bits: 8, Context: map[string]string{"peer": "7", "dir": "c2s", "channel": "1"},
		Fields: []*Field{{Name: "n", Type: "u8", Value: uint64(1), Bits: 8}}}
	var b bytes.Buffer
	WriteText(&b, nil, fr)
	want := `demo frame 0 at byte 0, 1 byte
  dir c2s
  channel 1
  peer 7
 offset   len  type                   name: meaning
      0     1  u8                     n: 1
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWriteTextDeep: a line does not grow with the depth of its field.
func TestWriteTextDeep(t *testing.T) {
	root := &Field{Name: "v", Type: "Array", Bits: 8}
	f := root
	for range 10000 {
		c := &Field{Name: "[0]", Type: "Array", Bits: 8}
		f.Children = []*Field{c}
		f = c
	}
	var b bytes.Buffer
	WriteText(&b, nil, &Frame{Format: "godot4", Bits: 8, Fields: []*Field{root}})
	for i, line := range strings.Split(b.String(), "\n") {
		if len(line) > 120 {
			t.Fatalf("line %d has %d bytes: %.200s", i, len(line), line)
		}
	}
	if !strings.Contains(b.String(), "‥10000 Array") {
		t.Errorf("the deepest field does not say its depth")
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(3)
	fr := &Frame{}
	parent := &Field{Name: "p", Children: []*Field{{Name: "a"}, {Name: "b", Children: []*Field{{Name: "c"}}}}}
	if !b.AddTo(fr, parent) || !fr.Truncated || len(parent.Children) != 2 || len(parent.Children[1].Children) != 0 {
		t.Fatalf("cut: %+v, truncated %v", parent, fr.Truncated)
	}
	if b.Room() || b.AddTo(fr, &Field{}) || !b.Spent() {
		t.Error("a spent budget took a field")
	}
	none := NewBudget(NoLimit)
	for range 1000 {
		if !none.Take() {
			t.Fatal("NoLimit refused a field")
		}
	}
	if d := NewBudget(0); d.left != DefaultMaxFields {
		t.Errorf("default budget %d", d.left)
	}
}

func TestFrameHelpers(t *testing.T) {
	fr := sample()
	if fr.Count() != 4 {
		t.Errorf("count %d", fr.Count())
	}
	fr.Fields[1].Err = &Error{Bit: 32, Msg: "x"}
	fr.Err = fr.Fields[1].Err
	fr.Shift(8)
	if fr.Bit != 24 || fr.Fields[1].Children[1].Bit != 40 || fr.Err.Bit != 40 {
		t.Errorf("shift: frame %d, field %d, error %d", fr.Bit, fr.Fields[1].Children[1].Bit, fr.Err.Bit)
	}
	p := &Field{Bit: 0, Bits: 0, Children: []*Field{{Bit: 8, Bits: 8}, {Bit: 16, Bits: 4}}}
	if p.Cover(); p.Bit != 8 || p.Bits != 12 || p.Offset() != 1 || p.Len() != 2 {
		t.Errorf("cover: %d+%d", p.Bit, p.Bits)
	}
	base := errors.New("base")
	e := &Error{Bit: 17, Msg: "m", Err: base}
	if !errors.Is(e, base) || e.Offset() != 2 {
		t.Errorf("error %v offset %d", e, e.Offset())
	}
	if Scalar(int32(-3)) != int64(-3) || Scalar(uint16(3)) != uint64(3) || Scalar(float32(0.5)) != 0.5 || Scalar([]int{1}) != "[1]" {
		t.Error("Scalar")
	}
}
