package godot_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/godottest"
)

// equalForm returns a value that Godot 4 takes as the same key as v but that differs from it: a
// String for a StringName and back (where keys are compared: at the top and as the keys of
// Dictionaries), -0 for 0 at every depth, and another NaN for a NaN where keys are compared (an
// Array element or a Dictionary value that is NaN equals nothing).
func equalForm(v any, top bool, r *rand.Rand) any {
	nan64 := func() float64 { return math.Float64frombits(0x7FF0000000000001 | r.Uint64()&0x000FFFFFFFFFFFFF) }
	switch v := v.(type) {
	case string:
		if top {
			return godot.StringName(v)
		}
	case godot.StringName:
		if top {
			return string(v)
		}
	case float64:
		if v == 0 {
			return math.Copysign(0, -math.Copysign(1, v))
		}
		if v != v && top {
			return nan64()
		}
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = equalForm(e, false, r)
		}
		return out
	case *godot.TypedArray:
		out := *v
		out.Values = equalForm(v.Values, false, r).([]any)
		return &out
	case *godot.Dictionary:
		out := *v
		out.Entries = make([]godot.Entry, len(v.Entries))
		for i, e := range v.Entries {
			out.Entries[i] = godot.Entry{Key: equalForm(e.Key, true, r), Value: equalForm(e.Value, false, r)}
		}
		return &out
	case []float64:
		out := make([]float64, len(v))
		for i, f := range v {
			out[i] = equalForm(f, false, r).(float64)
		}
		return out
	}
	return v
}

// Keys that the dialect's KeyEqual calls equal hash alike: random keys of every type, decoded
// twice from the same bytes, and changed into equal forms.
func TestKeyHashAgreesWithKeyEqual(t *testing.T) {
	for _, d := range []godot.Dialect{godot.Godot3, godot.Godot4} {
		r := rand.New(rand.NewPCG(1, uint64(d)))
		hash := godot.NewKeyHashForTest(d)
		var pool []any
		for i := range 3000 {
			maxLen := 4
			if i%3 == 0 {
				maxLen = 16 // Dictionaries large enough to be compared through an index
			}
			v := godottest.Rand(r, godottest.Options{Dialect: d, MaxDepth: 3, MaxLen: maxLen})
			data, err := em(godot.EncodeOptions{Dialect: d}).Append(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			a, _, err1 := dm(godot.DecodeOptions{Dialect: d}).Decode(data)
			b, _, err2 := dm(godot.DecodeOptions{Dialect: d}).Decode(data)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", d, err1, err2)
			}
			forms := []any{b}
			if d == godot.Godot4 && d.KeyEqual(a, b) { // not a key holding a NaN that equals nothing
				f := equalForm(a, true, r)
				if !d.KeyEqual(a, f) || !d.KeyEqual(f, a) {
					t.Fatalf("%s value %d: %#v and its equal form %#v are not equal keys", d, i, a, f)
				}
				forms = append(forms, f)
				if dict, ok := a.(*godot.Dictionary); ok && len(dict.Entries) > 0 {
					// One value changed: no longer equal.
					changed := *dict
					changed.Entries = append([]godot.Entry(nil), dict.Entries...)
					k := r.IntN(len(changed.Entries))
					changed.Entries[k].Value = []any{changed.Entries[k].Value}
					if d.KeyEqual(a, &changed) || d.KeyEqual(&changed, a) {
						t.Fatalf("%s value %d: %#v equals %#v with a value changed", d, i, a, &changed)
					}
				}
			}
			for _, f := range forms {
				if !d.KeyEqual(a, f) {
					continue // Godot 3 Dictionaries compare by identity
				}
				ha, oka := hash(a)
				hf, okf := hash(f)
				if !oka || !okf || ha != hf {
					t.Fatalf("%s value %d: equal keys %#v and %#v hash to %x %v and %x %v", d, i, a, f, ha, oka, hf, okf)
				}
			}
			if i%10 == 0 {
				pool = append(pool, a)
			}
		}
		for i, a := range pool {
			for _, b := range pool[i+1:] {
				if d.KeyEqual(a, b) {
					ha, oka := hash(a)
					hb, okb := hash(b)
					if !oka || !okb || ha != hb {
						t.Fatalf("%s: equal keys %#v and %#v hash to %x %v and %x %v", d, a, b, ha, oka, hb, okb)
					}
				}
			}
		}
	}
}
