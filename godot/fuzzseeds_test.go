package godot

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot/wire"
)

var updateFuzzSeeds = flag.Bool("fuzzseeds.update", false, "rewrite the adversarial seeds in testdata/fuzz")

// fuzzSeedShapes are small forms of the adversarial inputs of issue 10 (quadratic Dictionary keys,
// conversions and NodePath parsing that multiply the input, deep nesting, huge claims), for the
// seed corpora of FuzzDecode and FuzzUnmarshal. Those whose name ends in "deep" are too large to
// keep as files.
func fuzzSeedShapes(t testing.TB) []shape {
	var shapes []shape
	add := func(name string, d Dialect, data []byte) {
		shapes = append(shapes, shape{fmt.Sprintf("%s %s", d, name), DecodeOptions{Dialect: d}, data})
	}
	for _, d := range []Dialect{Godot3, Godot4} {
		for _, k := range keyKinds {
			if d.Has(k.t) {
				add("Dictionary of 12 "+k.name+" keys", d, keyDict(t, d, k.key, 12))
			}
		}
		nested := keyDict(t, d, func(i int) any { return int64(i) }, 9)
		for range 3 {
			inner := nested
			nested = keyDictValues(t, d, func(i int) any {
				if i == 0 {
					return RawVariant(inner)
				}
				return int64(i)
			}, func(int) any { return nil }, 9)
		}
		add("Dictionary keys nested in keys", d, nested)
		add("Arrays 1025 deep", d, append(repeatBytes(arrayOf(d, 1, nil), 1025), header(d, TypeNil, 0)...))
		add("Arrays 1026 deep", d, append(repeatBytes(arrayOf(d, 1, nil), 1026), header(d, TypeNil, 0)...))
		add("Dictionaries 1025 deep", d, append(repeatBytes(dictOf(d, 1, header(d, TypeNil, 0)), 1025), header(d, TypeNil, 0)...))
		np := u32(header(d, TypeNodePath, 0), wire.NodePathNewFormat|256)
		add("NodePath of 256 empty names", d, append(append(np, 0, 0, 0, 0, 0, 0, 0, 0), repeatBytes(u32(nil, 0), 256)...))
		add("PackedStringArray of 256 empty strings", d, append(u32(header(d, TypePackedStringArray, 0), 256), repeatBytes(u32(nil, 0), 256)...))
		add("Array claiming 2^31-1 elements", d, u32(header(d, TypeArray, 0), 1<<31-1))
		add("Dictionary claiming 2^31-1 entries", d, u32(header(d, TypeDictionary, 0), 1<<31-1))
	}
	bytes1K, _ := Marshal(make([]byte, 1024))
	add("Array[Array] of a 1 KiB PackedByteArray", Godot4, typedArrayOf(TypeArray, 1, bytes1K))
	vecs, _ := Marshal(make([]Vector3, 64))
	add("Array[Array] of a PackedVector3Array", Godot4, typedArrayOf(TypeArray, 1, vecs))
	for _, s := range []string{strings.Repeat("a:", 512), strings.Repeat("a/", 512), strings.Repeat(":", 64), "/" + strings.Repeat("a/b:", 64)} {
		add(fmt.Sprintf("Array[NodePath] of %.4q", s), Godot4, typedArrayOf(TypeNodePath, 1, godotString(Godot4, TypeString, s)))
		add(fmt.Sprintf("Dictionary[NodePath] of %.4q", s), Godot4, typedDictOf(TypeNodePath, 1, append(godotString(Godot4, TypeString, s), header(Godot4, TypeNil, 0)...)))
	}
	ints := arrayOf(Godot4, 64, repeatBytes(append(header(Godot4, TypeInt, 0), 1, 2, 3, 4), 64))
	nils := arrayOf(Godot4, 256, repeatBytes(header(Godot4, TypeNil, 0), 256))
	for _, p := range []Type{TypePackedStringArray, TypePackedColorArray, TypePackedVector4Array, TypePackedByteArray} {
		add(fmt.Sprintf("Array[%s] of an Array of ints", p), Godot4, typedArrayOf(p, 1, ints))
		add(fmt.Sprintf("Array[%s] of an Array of nulls", p), Godot4, typedArrayOf(p, 1, nils))
	}
	return shapes
}

// addFuzzSeeds adds fuzzSeedShapes to the seeds of a fuzz target of ([]byte, bool).
func addFuzzSeeds(f *testing.F) {
	for _, s := range fuzzSeedShapes(f) {
		f.Add(s.data, s.o.Dialect == Godot4)
	}
}

// TestFuzzSeeds writes fuzzSeedShapes (but the deep ones) into the seed corpus of FuzzDecode, in
// testdata/fuzz, with -fuzzseeds.update, and otherwise checks that they are there. (FuzzDecode and
// FuzzUnmarshal also add all of them to their seeds.)
func TestFuzzSeeds(t *testing.T) {
	slug := regexp.MustCompile(`[^a-zA-Z0-9]+`)
	for _, target := range []string{"FuzzDecode"} {
		dir := filepath.Join("testdata", "fuzz", target)
		for i, s := range fuzzSeedShapes(t) {
			if strings.HasSuffix(s.name, " deep") {
				continue
			}
			name := filepath.Join(dir, fmt.Sprintf("adversarial-%02d-%s", i, strings.Trim(slug.ReplaceAllString(s.name, "-"), "-")))
			want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbool(%v)\n", s.data, s.o.Dialect == Godot4)
			if *updateFuzzSeeds {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if got, err := os.ReadFile(name); err != nil || string(got) != want {
				t.Errorf("%s is missing or stale (go test ./godot -run TestFuzzSeeds -fuzzseeds.update): %v", name, err)
			}
		}
	}
}
