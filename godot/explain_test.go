package godot

import (
	"encoding/hex"
	"errors"
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

func TestExplainFirst(t *testing.T) {
	b, err := EncOptions{Dialect: Godot4}.Append(nil, []any{make([]byte, 100), int64(1), "x"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := DecOptions{}.Explain(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, max := range []int{1, 3, 5, len(all) - 1} {
		got, more, err := DecOptions{}.ExplainFirst(b, max)
		if err != nil || !more || len(got) != max {
			t.Fatalf("max %d: %d fields, more %v, %v", max, len(got), more, err)
		}
		for i := range got {
			if got[i].Offset != all[i].Offset || got[i].Text != all[i].Text || got[i].Path != all[i].Path {
				t.Errorf("max %d: field %d = %+v, want %+v", max, i, got[i], all[i])
			}
		}
	}
	if got, more, _ := (DecOptions{}).ExplainFirst(b, len(all)); more || len(got) != len(all) {
		t.Errorf("max = all: %d fields, more %v", len(got), more)
	}
	// The error is Explain's, wherever the fields stop.
	_, _, err = DecOptions{}.ExplainFirst(b[:len(b)-2], 2)
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("cut input: %v", err)
	}
}
