package godot

import (
	"encoding/hex"
	"testing"
)

// TestExplainSpans: every header field carries its Variant's length and decoded value, a
// Variant that did not decode has Span -1, and object properties have their path.
func TestExplainSpans(t *testing.T) {
	enc := EncOptions{Dialect: Godot4}
	obj := &Object{Class: "Node", Properties: []Property{{"hp", int64(3)}}}
	b, err := enc.Append(nil, []any{int64(7), "ab", obj})
	if err != nil {
		t.Fatal(err)
	}
	fields, err := DecOptions{Dialect: Godot4, AllowObjects: true}.Explain(b)
	if err != nil {
		t.Fatal(err)
	}
	type hdr struct {
		off, span int
		path      string
	}
	var got []hdr
	for _, f := range fields {
		if f.Kind != "header" {
			if f.Span != 0 || f.Value != nil {
				t.Errorf("%s field has Span %d, Value %v", f.Kind, f.Span, f.Value)
			}
			continue
		}
		got = append(got, hdr{f.Offset, f.Span, f.Path})
		if f.Value == nil {
			t.Errorf("header at %d has no value", f.Offset)
		}
	}
	// Array 8 (header, count), int 8, String "ab" 12, Object 32: header, class "Node" 8, count 4,
	// "hp" 8, int 8.
	want := []hdr{{0, len(b), ""}, {8, 8, "[0]"}, {16, 12, "[1]"}, {28, 32, "[2]"}, {52, 8, "[2].hp"}}
	if len(got) != len(want) {
		t.Fatalf("headers %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("header %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s, _ := fields[len(fields)-2].Value.(int64); fields[len(fields)-2].Kind != "header" || s != 3 {
		t.Errorf("the property's header: %+v", fields[len(fields)-2])
	}

	// Cut inside the String: the Array and the String fail, the int before them decoded.
	fields, err = DecOptions{Dialect: Godot4}.Explain(b[:22])
	if err == nil {
		t.Fatal("no error")
	}
	var spans []int
	for _, f := range fields {
		if f.Kind == "header" {
			spans = append(spans, f.Span)
		}
	}
	if len(spans) != 3 || spans[0] != -1 || spans[1] != 8 || spans[2] != -1 {
		t.Errorf("spans %v of %s, want [-1 8 -1]", spans, hex.EncodeToString(b[:22]))
	}
}
