package godottest_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/godottest"
)

// walk calls f for v and every value nested in it; inKey says whether the value is (inside) a
// Dictionary key.
func walk(v any, inKey bool, f func(v any, inKey bool)) {
	f(v, inKey)
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			walk(e, inKey, f)
		}
	case *godot.TypedArray:
		for _, e := range v.Values {
			walk(e, inKey, f)
		}
	case *godot.Dictionary:
		for _, e := range v.Entries {
			walk(e.Key, true, f)
			walk(e.Value, inKey, f)
		}
	}
}

// typeOf returns the Variant type of a value Rand generated.
func typeOf(t *testing.T, d godot.Dialect, v any) godot.Type {
	t.Helper()
	b, err := em(godot.EncodeOptions{Dialect: d}).Marshal(v)
	if err != nil {
		t.Fatalf("%v: %v", d, err)
	}
	ty, ok := d.TypeOf(uint32(b[0]))
	if !ok {
		t.Fatalf("bad type byte %x", b[0])
	}
	return ty
}

func TestRandRoundTripsThroughCodec(t *testing.T) {
	for _, o := range []godottest.Options{
		{Dialect: godot.Godot3},
		{Dialect: godot.Godot3, MaxDepth: 5, MaxLen: 10, ValidUTF8: true},
		{Dialect: godot.Godot4},
		{Dialect: godot.Godot4, DoublePrecision: true},
		{Dialect: godot.Godot4, Untyped: true, MaxDepth: -1},
	} {
		t.Run(fmt.Sprintf("%v/%+v", o.Dialect, o), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			enc := em(godot.EncodeOptions{Dialect: o.Dialect, DoublePrecision: o.DoublePrecision})
			dec := dm(godot.DecodeOptions{Dialect: o.Dialect})
			for i := range 3000 {
				v := godottest.Rand(r, o)
				b, err := enc.Marshal(v)
				if err != nil {
					t.Fatalf("value %d: Marshal(%#v): %v", i, v, err)
				}
				w, n, err := dec.Decode(b)
				if err != nil || n != len(b) {
					t.Fatalf("value %d: Decode(%x) = %v, %d of %d bytes", i, b, err, n, len(b))
				}
				b2, err := enc.Marshal(w)
				if err != nil || !bytes.Equal(b, b2) {
					t.Fatalf("value %d does not survive the codec (%v):\n%s", i, err, godottest.HexDiff(b, b2, nil))
				}
			}
		})
	}
}

func TestRandCoversEveryType(t *testing.T) {
	for _, d := range []godot.Dialect{godot.Godot3, godot.Godot4} {
		r := rand.New(rand.NewPCG(3, 4))
		seen := map[godot.Type]int{}
		typed := 0
		for range 3000 {
			walk(godottest.Rand(r, godottest.Options{Dialect: d}), false, func(v any, _ bool) {
				seen[typeOf(t, d, v)]++
				if _, ok := v.(*godot.TypedArray); ok {
					typed++
				}
			})
		}
		for _, ty := range godottest.Types(d) {
			if seen[ty] == 0 {
				t.Errorf("%v: type %s never generated", d, d.TypeName(ty))
			}
		}
		if seen[godot.TypeObject] != 0 {
			t.Errorf("%v: generated %d Objects", d, seen[godot.TypeObject])
		}
		if (typed > 0) != (d == godot.Godot4) {
			t.Errorf("%v: %d typed Arrays", d, typed)
		}
	}
}

// The exclusions of the package comment hold.
func TestRandExclusions(t *testing.T) {
	for _, o := range []godottest.Options{{Dialect: godot.Godot3}, {Dialect: godot.Godot4}, {Dialect: godot.Godot3, ValidUTF8: true}} {
		r := rand.New(rand.NewPCG(5, 6))
		var lax, nanKeys, absNames, nan32, nan64, neg0, sub32, long, empty int
		check := func(s string) {
			if strings.HasPrefix(s, "\uFEFF") {
				t.Errorf("%v: string %q starts with a BOM", o.Dialect, s)
			}
			if strings.IndexByte(s, 0) >= 0 {
				t.Errorf("%v: string %q holds NUL", o.Dialect, s)
			}
			if !utf8.ValidString(s) {
				lax++
			}
			if len(s) > 20 {
				long++
			}
			if s == "" {
				empty++
			}
		}
		for range 4000 {
			walk(godottest.Rand(r, o), false, func(v any, inKey bool) {
				switch v := v.(type) {
				case string:
					check(v)
				case []string:
					for _, s := range v {
						check(s)
					}
				case godot.NodePath:
					for _, s := range append(v.Names, v.SubNames...) {
						check(s)
					}
					if v.Absolute {
						if len(v.Names)+len(v.SubNames) == 0 && o.Dialect == godot.Godot3 {
							t.Errorf("%v: absolute NodePath without names", o.Dialect)
						}
						absNames++
					}
				case godot.RID:
					if o.Dialect == godot.Godot3 && v != 0 {
						t.Errorf("Godot 3 RID %d", v)
					}
				case []float32:
					for _, f := range v {
						if f != f && inKey {
							nanKeys++
						}
					}
				case float64:
					if math.IsNaN(v) {
						nan64++
					}
					if v == 0 && math.Signbit(v) {
						neg0++
					}
				case godot.Vector2:
					if v.X != v.X {
						nan32++
					}
					if v.X != 0 && math.Abs(float64(v.X)) < 0x1p-126 {
						sub32++
					}
				}
			})
		}
		if o.Dialect == godot.Godot3 && nanKeys > 0 {
			t.Errorf("Godot 3: %d NaNs in PoolRealArray keys", nanKeys)
		}
		if (lax > 0) != (o.Dialect == godot.Godot3 && !o.ValidUTF8) {
			t.Errorf("%+v: %d strings not valid UTF-8", o, lax)
		}
		for name, n := range map[string]int{"absolute NodePaths": absNames, "float32 NaNs": nan32, "float64 NaNs": nan64,
			"-0.0": neg0, "float32 subnormals": sub32, "long strings": long, "empty strings": empty} {
			if n == 0 {
				t.Errorf("%+v: no %s generated", o, name)
			}
		}
	}
}

func TestRandKeysDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		walk(godottest.Rand(r, godottest.Options{Dialect: godot.Godot4, MaxLen: 12}), false, func(v any, _ bool) {
			d, ok := v.(*godot.Dictionary)
			if !ok {
				return
			}
			for i, a := range d.Entries {
				for _, b := range d.Entries[:i] {
					ka, kb := a.Key, b.Key
					if s, ok := ka.(godot.StringName); ok {
						ka = string(s)
					}
					if s, ok := kb.(godot.StringName); ok {
						kb = string(s)
					}
					if godot.KeyEqual(ka, kb) {
						t.Fatalf("equal keys %#v and %#v", a.Key, b.Key)
					}
				}
			}
		})
	}
}

func TestRandDeterministic(t *testing.T) {
	gen := func() []byte {
		r := rand.New(rand.NewPCG(42, 43))
		var out []byte
		for range 200 {
			b, err := em(godot.EncodeOptions{Dialect: godot.Godot3}).Append(out, godottest.Rand(r, godottest.Options{Dialect: godot.Godot3}))
			if err != nil {
				t.Fatal(err)
			}
			out = b
		}
		return out
	}
	if !bytes.Equal(gen(), gen()) {
		t.Fatal("the same seed gave different values")
	}
}

func TestRandTypeAndTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, d := range []godot.Dialect{godot.Godot3, godot.Godot4} {
		for _, ty := range godottest.Types(d) {
			for range 20 {
				v := godottest.RandType(r, godottest.Options{Dialect: d}, ty)
				if got := typeOf(t, d, v); got != ty {
					t.Fatalf("%v: RandType(%s) gave a %s", d, d.TypeName(ty), d.TypeName(got))
				}
			}
		}
		if v := godottest.RandType(r, godottest.Options{Dialect: d}, godot.TypeObject); v != nil {
			t.Errorf("RandType(Object) = %#v", v)
		}
	}
	if v := godottest.RandType(r, godottest.Options{Dialect: godot.Godot3}, godot.TypeVector2i); v != nil {
		t.Errorf("Godot 3 RandType(Vector2i) = %#v", v)
	}
	// Types restricts every level.
	only := []godot.Type{godot.TypeArray, godot.TypeInt}
	for range 200 {
		walk(godottest.Rand(r, godottest.Options{Dialect: godot.Godot3, Types: only}), false, func(v any, _ bool) {
			switch v.(type) {
			case []any, int64:
			default:
				t.Fatalf("Types %v gave %#v", only, v)
			}
		})
	}
}

func TestEqualMaskedAndHexDiff(t *testing.T) {
	a := []byte{0x0f, 0, 0, 0, 1, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 'a', 0x55, 0x66, 0x77}
	b := append([]byte(nil), a...)
	b[21], b[22], b[23] = 0, 0, 0
	mask := [][2]int{{21, 24}}
	if !godottest.EqualMasked(a, b, mask) || godottest.EqualMasked(a, b, nil) {
		t.Fatal("EqualMasked ignores the mask")
	}
	if godottest.EqualMasked(a, b[:23], mask) {
		t.Fatal("EqualMasked accepts different lengths")
	}
	if got := godottest.FirstDifference(a, b, nil); got != 21 {
		t.Errorf("FirstDifference = %d, want 21", got)
	}
	if z := godottest.ZeroMasked(a, mask); !bytes.Equal(z, b) || a[21] != 0x55 {
		t.Errorf("ZeroMasked = %x (input now %x)", z, a)
	}
	b[4] = 2
	diff := godottest.HexDiff(a, b, mask)
	for _, want := range []string{"first difference at byte 4", "··", "! 000000", "^^"} {
		if !strings.Contains(diff, want) {
			t.Errorf("HexDiff lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, "! 000010") {
		t.Errorf("HexDiff marks the masked row as different:\n%s", diff)
	}
	// Describe names the field.
	o := dm(godot.DecodeOptions{Dialect: godot.Godot3})
	if got := godottest.Describe(o, a, 20); !strings.Contains(got, `"a"`) {
		t.Errorf("Describe(20) = %q", got)
	}
	mask2, err := godottest.EngineMask(o, a)
	if err != nil || len(mask2) != 1 || mask2[0] != [2]int{21, 24} {
		t.Errorf("EngineMask = %v, %v", mask2, err)
	}
	// A long input is cut around the difference.
	long := make([]byte, 4096)
	long2 := append([]byte(nil), long...)
	long2[2000] = 1
	if d := godottest.HexDiff(long, long2, nil); strings.Count(d, "\n") > 20 || !strings.Contains(d, "...") {
		t.Errorf("HexDiff of 4 KiB with one difference:\n%s", d)
	}
}

// dm returns the mode of o, which the test knows to be valid.
func dm(o godot.DecodeOptions) godot.DecodeMode {
	m, err := o.DecodeMode()
	if err != nil {
		panic(err)
	}
	return m
}

// em returns the mode of o, which the test knows to be valid.
func em(o godot.EncodeOptions) godot.EncodeMode {
	m, err := o.EncodeMode()
	if err != nil {
		panic(err)
	}
	return m
}
