package godot

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// TestExplainSpans: every header field carries its Variant's length and decoded value, a
// Variant that did not decode has Span -1, and object properties have their path.
func TestExplainSpans(t *testing.T) {
	enc := em(EncodeOptions{Dialect: Godot4})
	obj := &Object{Class: "Node", Properties: []Property{{"hp", int64(3)}}}
	b, err := enc.Append(nil, []any{int64(7), "ab", obj})
	if err != nil {
		t.Fatal(err)
	}
	fields, err := dm(DecodeOptions{Dialect: Godot4, AllowObjects: true}).Explain(b)
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
	fields, err = dm(DecodeOptions{Dialect: Godot4}).Explain(b[:22])
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
	b, err := em(EncodeOptions{Dialect: Godot4}).Append(nil, []any{make([]byte, 100), int64(1), "x"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := dm(DecodeOptions{}).Explain(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, max := range []int{1, 3, 5, len(all) - 1} {
		got, more, err := dm(DecodeOptions{}).ExplainFirst(b, max)
		if err != nil || !more || len(got) != max {
			t.Fatalf("max %d: %d fields, more %v, %v", max, len(got), more, err)
		}
		for i := range got {
			if got[i].Offset != all[i].Offset || got[i].Text != all[i].Text || got[i].Path != all[i].Path {
				t.Errorf("max %d: field %d = %+v, want %+v", max, i, got[i], all[i])
			}
		}
	}
	if got, more, _ := dm(DecodeOptions{}).ExplainFirst(b, len(all)); more || len(got) != len(all) {
		t.Errorf("max = all: %d fields, more %v", len(got), more)
	}
	// The error is Explain's, wherever the fields stop.
	_, _, err = dm(DecodeOptions{}).ExplainFirst(b[:len(b)-2], 2)
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("cut input: %v", err)
	}
}

// TestExplainDeepPaths: the path of a field deep inside a value is abbreviated, so that every
// field takes the same memory however deep its Variant is (it used to keep the whole path:
// memory quadratic in the depth), and the fields of one Variant share one path string.
func TestExplainDeepPaths(t *testing.T) {
	const depth, ints = 1000, 2000
	var v any = func() []any {
		s := make([]any, ints)
		for i := range s {
			s[i] = int64(i)
		}
		return s
	}()
	for range depth {
		v = []any{v}
	}
	data, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	fields, err := dm(DecodeOptions{}).Explain(data)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range fields {
		total += len(f.Path)
		if len(f.Path) > maxPathText+30 {
			t.Fatalf("field at %d: path of %d bytes: %.200s", f.Offset, len(f.Path), f.Path)
		}
	}
	if limit := (maxPathText + 30) * len(fields); total > limit {
		t.Errorf("paths take %d bytes, more than %d", total, limit)
	}
	last := fields[len(fields)-1]
	if want := "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]…(963 more)…[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][1999]"; last.Path != want {
		t.Errorf("last path %q, want %q", last.Path, want)
	}
	if AbbreviatePath(strings.Repeat("[0]", depth)+"[1999]") != last.Path {
		t.Errorf("path %q is not AbbreviatePath's %q", last.Path, AbbreviatePath(strings.Repeat("[0]", depth)+"[1999]"))
	}
	// The header and the value of one int share a path string.
	n := len(fields)
	if a, b := fields[n-2], fields[n-1]; a.Kind != "header" || unsafe.StringData(a.Path) != unsafe.StringData(b.Path) {
		t.Errorf("fields %+v and %+v do not share their path", a, b)
	}
	// Long keys, at the start, the end and in the middle, as AbbreviatePath shortens them, and
	// never splitting a character.
	long := strings.Repeat("ké", 100)
	for _, v := range []any{
		map[string]any{long: []any{int64(1)}},
		[]any{[]any{map[string]any{long: int64(1)}}},
		nest(40, map[string]any{long: nest(40, int64(1))}),
		nest(5, map[string]any{"a": nest(50, int64(1))}),
	} {
		data, err = Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fields, err = dm(DecodeOptions{}).Explain(data)
		if err != nil {
			t.Fatal(err)
		}
		full := fullPaths(t, v)
		for i, f := range fields {
			if len(f.Path) > maxPathText+30 || !utf8.ValidString(f.Path) {
				t.Errorf("path %q", f.Path)
			}
			if want := AbbreviatePath(full[f.Offset]); f.Path != want {
				t.Errorf("field %d: path %q, AbbreviatePath of the whole path %q", i, f.Path, want)
			}
		}
	}
}

// nest puts v into n single-element Arrays.
func nest(n int, v any) any {
	for range n {
		v = []any{v}
	}
	return v
}

// fullPaths returns the whole path of the Variant at every byte offset that starts a field of
// the encoding of v, built independently of the tracer.
func fullPaths(t *testing.T, v any) map[int]string {
	t.Helper()
	paths := map[int]string{}
	off := 0
	var walk func(v any, path string)
	walk = func(v any, path string) {
		b, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		start := off
		switch v := v.(type) {
		case []any:
			off += 8
			for i, e := range v {
				walk(e, path+"["+strconv.Itoa(i)+"]")
			}
		case map[string]any:
			off += 8
			j := 0
			for k, e := range v {
				walk(k, path+".key("+strconv.Itoa(j)+")")
				j++
				walk(e, path+"["+strconv.Quote(k)+"]")
			}
		default:
			off += len(b)
		}
		for i := start; i < start+len(b); i++ {
			if _, ok := paths[i]; !ok {
				paths[i] = path
			}
		}
	}
	walk(v, "")
	return paths
}
