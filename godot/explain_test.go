package godot

import (
	"errors"
	"runtime"
	"testing"

	"github.com/gamewire/gamewire/explain"
)

// TestExplainTree: every Variant is a field of its type spanning its bytes, with its header and
// parts as children; a property is named by its name; a Variant that did not decode holds the
// error, and the Variants before it are whole.
func TestExplainTree(t *testing.T) {
	enc := em(EncodeOptions{Dialect: Godot4})
	obj := &Object{Class: "Node", Properties: []Property{{"hp", int64(3)}}}
	b, err := enc.Append(nil, []any{int64(7), "ab", obj})
	if err != nil {
		t.Fatal(err)
	}
	fr, err := dm(DecodeOptions{Dialect: Godot4, AllowObjects: true}).Explain(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fr.Format != "godot4" || fr.Bits != int64(8*len(b)) || len(fr.Fields) != 1 || fr.Truncated {
		t.Fatalf("frame %+v", fr)
	}
	type variant struct {
		name, typ string
		off, n    int64
	}
	var got []variant
	fr.Walk(func(f *explain.Field, _ int) bool {
		if f.Name == "header" && f.Type == "u32" {
			return true
		}
		if len(f.Children) > 0 {
			got = append(got, variant{f.Name, f.Type, f.Offset(), f.Len()})
		}
		return true
	})
	// Array 8 (header, count), int 8, String "ab" 12, Object 32: header, class "Node" 8, count 4,
	// "hp" 8, int 8.
	want := []variant{{"value", "Array", 0, int64(len(b))}, {"[0]", "int", 8, 8}, {"[1]", "String", 16, 12}, {"[2]", "Object", 28, 32}, {"hp", "int", 52, 8}}
	if len(got) != len(want) {
		t.Fatalf("variants %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("variant %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	var hp *explain.Field
	for _, c := range fr.Fields[0].Children[4].Children {
		if c.Type == "int" {
			hp = c
		}
	}
	if hp == nil || hp.Name != "hp" || hp.Value != int64(3) || hp.Children[1].Value != int64(3) {
		t.Errorf("the property: %+v", hp)
	}
	checkTiling(t, fr)

	// Cut inside the String: the String holds the error, the int before it decoded.
	fr, err = dm(DecodeOptions{Dialect: Godot4}).Explain(b[:22], nil)
	if !errors.Is(err, ErrTruncated) || fr.Err == nil || !errors.Is(fr.Err, ErrTruncated) {
		t.Fatalf("cut input: %v, frame error %v", err, fr.Err)
	}
	arr := fr.Fields[0]
	if len(arr.Children) != 4 || arr.Children[2].Value != int64(7) || arr.Children[3].Err != fr.Err || arr.Err != nil {
		t.Errorf("cut input: %+v", arr)
	}
	if fr.Err.Offset() != 20 {
		t.Errorf("error at byte %d, want 20", fr.Err.Offset())
	}
}

// checkTiling checks that every composite spans its children, and that the leaves are in
// order and do not overlap.
func checkTiling(t *testing.T, fr *explain.Frame) {
	t.Helper()
	end := fr.Bit
	fr.Walk(func(f *explain.Field, _ int) bool {
		for _, c := range f.Children {
			if c.Bit < f.Bit || c.Bit+c.Bits > f.Bit+f.Bits {
				t.Errorf("%s %s [%d+%d] outside its parent %s [%d+%d]", c.Type, c.Name, c.Bit, c.Bits, f.Name, f.Bit, f.Bits)
			}
		}
		if len(f.Children) == 0 {
			if f.Bit < end {
				t.Errorf("leaf %s %s at bit %d overlaps the one before (ends at %d)", f.Type, f.Name, f.Bit, end)
			}
			end = f.Bit + f.Bits
		}
		return true
	})
}

// TestExplainEntries: a Dictionary entry is an "entry" field with a key and a value child,
// each with its own range.
func TestExplainEntries(t *testing.T) {
	d := &Dictionary{}
	d.Set("name", "Ann")
	d.Set(int64(2), []any{true})
	b, err := em(EncodeOptions{Dialect: Godot4}).Append(nil, d)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := dm(DecodeOptions{}).Explain(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	dict := fr.Fields[0]
	if dict.Type != "Dictionary" || len(dict.Children) != 4 {
		t.Fatalf("dictionary %+v", dict)
	}
	at := int64(64) // header and entry count
	for i, e := range dict.Children[2:] {
		if e.Type != "entry" || len(e.Children) != 2 || e.Children[0].Name != "key" || e.Children[1].Name != "value" {
			t.Fatalf("entry %d: %+v", i, e)
		}
		k, v := e.Children[0], e.Children[1]
		if e.Bit != at || k.Bit != e.Bit || v.Bit != k.Bit+k.Bits || e.Bits != k.Bits+v.Bits {
			t.Errorf("entry %d [%d+%d]: key [%d+%d], value [%d+%d]", i, e.Bit, e.Bits, k.Bit, k.Bits, v.Bit, v.Bits)
		}
		at = e.Bit + e.Bits
	}
	if k := dict.Children[2].Children[0]; k.Type != "String" || k.Value != "name" || dict.Children[2].Text != `"name"` {
		t.Errorf("first key %+v", k)
	}
	if v := dict.Children[3].Children[1]; v.Type != "Array" || len(v.Children) != 3 {
		t.Errorf("second value %+v", v)
	}
	if at != int64(8*len(b)) {
		t.Errorf("the entries end at bit %d, the Dictionary at %d", at, 8*len(b))
	}
	checkTiling(t, fr)
}

// nest puts v into n single-element Arrays.
func nest(n int, v any) any {
	for range n {
		v = []any{v}
	}
	return v
}

// deepArrays returns about size bytes of Arrays nested depth deep: an Array of chains.
func deepArrays(t testing.TB, size, depth int) []byte {
	chain := nest(depth, int64(1))
	one, err := Marshal(chain)
	if err != nil {
		t.Fatal(err)
	}
	chains := make([]any, size/len(one))
	for i := range chains {
		chains[i] = chain
	}
	data, err := Marshal(chains)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestExplainBudget (issue 21 item 12): 8 MB of deeply nested Arrays explain within the field
// budget, in memory proportional to the input, and the explanation says where it stops.
func TestExplainBudget(t *testing.T) {
	data := deepArrays(t, 8<<20, 1000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fr, err := dm(DecodeOptions{}).Explain(data, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !fr.Truncated {
		t.Error("the frame does not say it is cut short")
	}
	if n := fr.Count(); n > explain.DefaultMaxFields {
		t.Errorf("%d fields, budget %d", n, explain.DefaultMaxFields)
	}
	// The decoded value (DefaultMaxAllocFactor per input byte at most) and the fields kept.
	alloc := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(DefaultMaxAllocFactor*len(data) + 400*explain.DefaultMaxFields); alloc > limit {
		t.Errorf("explaining %d bytes allocated %d bytes, more than %d", len(data), alloc, limit)
	}
	t.Logf("%d bytes: %d fields, %d bytes allocated", len(data), fr.Count(), alloc)
	// A budget of its own, and none.
	fr, _ = dm(DecodeOptions{}).Explain(data[:8<<10], explain.NewBudget(10))
	if n := fr.Count(); n != 10 || !fr.Truncated {
		t.Errorf("budget 10: %d fields, truncated %v", n, fr.Truncated)
	}
	small, _ := Marshal(nest(10, int64(1)))
	fr, _ = dm(DecodeOptions{}).Explain(small, explain.NewBudget(explain.NoLimit))
	if n := fr.Count(); n != 11*2+10+1 || fr.Truncated {
		t.Errorf("no limit: %d fields, truncated %v", n, fr.Truncated)
	}
}

// TestExplainMessages: length-prefixed Variants are frames of their own, located in the input.
func TestExplainMessages(t *testing.T) {
	var data, packets []byte
	var starts []int64
	for _, v := range []any{int64(1), "x"} {
		b, _ := Marshal(v)
		starts = append(starts, int64(len(data)))
		data = append(data, byte(len(b)), 0, 0, 0)
		data = append(data, b...)
		packets = append(packets, b...)
	}
	frames, err := dm(DecodeOptions{}).ExplainMessages(data, FramingStreamPeer, nil)
	if err != nil || len(frames) != 2 {
		t.Fatalf("%d frames, %v", len(frames), err)
	}
	if f := frames[1]; f.Index != 1 || f.Bit != 8*starts[1] || f.Fields[0].Name != "length prefix" || f.Fields[1].Bit != 8*starts[1]+32 || f.Fields[1].Value != "x" {
		t.Errorf("second frame %+v", f)
	}
	frames, err = dm(DecodeOptions{}).ExplainMessages(data[:len(data)-1], FramingStreamPeer, nil)
	if !errors.Is(err, ErrTruncated) || len(frames) != 2 || frames[1].Err == nil {
		t.Errorf("cut: %d frames, %v", len(frames), err)
	}
	frames, err = dm(DecodeOptions{}).ExplainMessages(packets, FramingPacket, nil)
	if err != nil || len(frames) != 2 || frames[1].Bit != 8*(starts[1]-4) || len(frames[0].Fields) != 1 {
		t.Errorf("back to back: %d frames, %v", len(frames), err)
	}
}

func TestUninitializedBytes(t *testing.T) {
	data := []byte{0x0f, 0, 0, 0, 1, 0, 0, 0x80, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c', 0xee}
	o := dm(DecodeOptions{Dialect: Godot3})
	got, err := o.UninitializedBytes(data)
	if err != nil || len(got) != 1 || got[0] != [2]int{23, 24} {
		t.Fatalf("%v, %v", got, err)
	}
	fr, _ := o.Explain(data, nil)
	pad := fr.Fields[0].Children[len(fr.Fields[0].Children)-1]
	if pad.Type != "pad" || pad.Note != UninitializedNote {
		t.Errorf("padding %+v", pad)
	}
}
