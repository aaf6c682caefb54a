package godot_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/internal/harness/godot4"
)

// The values of the real_t and var_to_str tests: Variant bytes the official (single-precision)
// Godot 4.6 engine decodes and writes back.
type realCase struct {
	name string
	data []byte
}

// Doubles that a float32 cannot hold: overflow, rounding, subnormals, underflow, -0, NaN
// payloads (quiet and signalling, both signs), infinity.
var awkwardDoubles = []uint64{
	math.Float64bits(1e300), math.Float64bits(-1e300), math.Float64bits(0.1), math.Float64bits(1 + 1.0/(1<<30)),
	math.Float64bits(3.4028235677973366e38), math.Float64bits(3.4028234663852886e38), math.Float64bits(1e-40),
	math.Float64bits(1e-50), 1 << 63, 0x7ff8000000000001, 0xfff8000000000000, 0x7ff0000000000123,
	0x7ff4000020000001, 0xffffffffffffffff, math.Float64bits(math.Inf(1)), math.Float64bits(-2.5),
}

// Float32 bit patterns, kept as they are by every build.
var awkwardFloats = []uint32{0xff923eaf, 0x7fc00000, 0x7f800001, 0x80000000, 0x00000001, 0x3dcccccd, 0x7f7fffff}

var realTypes = []struct {
	name  string
	id    uint32
	comps int
}{
	{"Vector2", 5, 2}, {"Rect2", 7, 4}, {"Vector3", 9, 3}, {"Transform2D", 11, 6}, {"Vector4", 12, 4},
	{"Plane", 14, 4}, {"Quaternion", 15, 4}, {"AABB", 16, 6}, {"Basis", 17, 9}, {"Transform3D", 18, 12},
	{"Projection", 19, 16}, {"Color", 20, 4},
}

func realCases() []realCase {
	var cases []realCase
	le32 := binary.LittleEndian.AppendUint32
	le64 := binary.LittleEndian.AppendUint64
	for _, rt := range realTypes {
		// Every component position gets every awkward double once.
		for start := 0; start < len(awkwardDoubles); start += rt.comps {
			b := le32(nil, rt.id|1<<16)
			for i := range rt.comps {
				b = le64(b, awkwardDoubles[(start+i)%len(awkwardDoubles)])
			}
			cases = append(cases, realCase{fmt.Sprintf("%s 64-bit #%d", rt.name, start), b})
		}
		b := le32(nil, rt.id)
		for i := range rt.comps {
			b = le32(b, awkwardFloats[i%len(awkwardFloats)])
		}
		cases = append(cases, realCase{rt.name + " 32-bit", b})
	}
	for _, pt := range []struct {
		name  string
		id    uint32
		comps int
	}{{"PackedVector2Array", 35, 2}, {"PackedVector3Array", 36, 3}, {"PackedVector4Array", 38, 4}} {
		n := (len(awkwardDoubles) + pt.comps - 1) / pt.comps
		b := le32(le32(nil, pt.id|1<<16), uint32(n))
		for i := range n * pt.comps {
			b = le64(b, awkwardDoubles[i%len(awkwardDoubles)])
		}
		cases = append(cases, realCase{pt.name + " 64-bit", b})
		b = le32(le32(nil, pt.id), uint32(len(awkwardFloats)))
		for i := range len(awkwardFloats) * pt.comps {
			b = le32(b, awkwardFloats[i%len(awkwardFloats)])
		}
		cases = append(cases, realCase{pt.name + " 32-bit", b})
	}
	// Inside containers: an Array holding a 64-bit Vector3, a typed Array[Vector2] of 64-bit
	// elements, a Dictionary with a 64-bit Transform2D value.
	v3 := le64(le64(le64(le32(nil, 9|1<<16), math.Float64bits(1e300)), math.Float64bits(0.1)), 0x7ff8000000000001)
	cases = append(cases, realCase{"Array holding a 64-bit Vector3", append(le32(le32(nil, 28), 1), v3...)})
	v2 := le64(le64(le32(nil, 5|1<<16), math.Float64bits(-1e300)), math.Float64bits(1e-40))
	cases = append(cases, realCase{"Array[Vector2] of 64-bit elements", append(le32(le32(le32(nil, 28|1<<16), 5), 2), append(v2, v2...)...)})
	t2 := le32(nil, 11|1<<16)
	for i := range 6 {
		t2 = le64(t2, awkwardDoubles[i+3])
	}
	key := append(le32(le32(nil, 4), 1), 'k', 0, 0, 0)
	cases = append(cases, realCase{"Dictionary with a 64-bit Transform2D", append(append(le32(le32(nil, 27), 1), key...), t2...)})
	return cases
}

// varStrCases are values for the var_to_str comparison of VarToStr.
func varStrCases(t *testing.T) []realCase {
	// Keys in the order var_to_str sorts them (VarToStr keeps insertion order).
	d := godot.NewDictionary(int64(3), []any{"x", nil, true}, "a", int64(1), "b", godot.Vector2{X: 1.5, Y: -2})
	d.Set(godot.StringName("sn"), godot.NodePath{Names: []string{"a", "b"}, SubNames: []string{"c"}})
	typed := &godot.Dictionary{Key: godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: godot.TypeString},
		Value:   godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: godot.TypeInt},
		Entries: []godot.Entry{{Key: "one", Value: int64(1)}, {Key: "two", Value: int64(2)}}}
	values := []any{
		nil, true, int64(-7), 1.0, 0.1, 1e300, math.Inf(1), math.Inf(-1), math.NaN(), "q\"uote\\back",
		godot.StringName("name"), godot.NodePath{Absolute: true, Names: []string{"root", "Main"}, SubNames: []string{"position", "x"}},
		godot.Vector2{X: 1, Y: 2.5}, godot.Vector2i{X: 1, Y: -2}, godot.Rect2{Size: godot.Vector2{X: 3, Y: 4}},
		godot.Vector3{X: 0.1, Y: 1e20, Z: -0.5}, godot.Vector4{X: 1, Y: 2, Z: 3, W: 4}, godot.Vector4i{X: 4, Y: 3, Z: 2, W: 1},
		godot.Transform2D{X: godot.Vector2{X: 1, Y: 2}, Y: godot.Vector2{X: 3, Y: 4}, Origin: godot.Vector2{X: 5, Y: 6}},
		godot.Plane{Normal: godot.Vector3{Y: 1}, D: 5}, godot.Quaternion{W: 1}, godot.AABB{Size: godot.Vector3{X: 1, Y: 2, Z: 3}},
		godot.Basis{X: godot.Vector3{X: 1, Y: 2, Z: 3}, Y: godot.Vector3{X: 4, Y: 5, Z: 6}, Z: godot.Vector3{X: 7, Y: 8, Z: 9}},
		godot.Transform3D{Basis: godot.Basis{X: godot.Vector3{X: 1}, Y: godot.Vector3{Y: 2}, Z: godot.Vector3{Z: 3}}, Origin: godot.Vector3{X: 7, Y: 8, Z: 9}},
		godot.Projection{X: godot.Vector4{X: 1, Y: 2}, Y: godot.Vector4{Y: 1}, Z: godot.Vector4{Z: 1, W: 3}, W: godot.Vector4{W: 1}},
		godot.Color{R: 1, G: 0.5, B: 0, A: 1},
		d, typed, godot.NewDictionary(), []any{}, []any{int64(1), []any{"nested", 2.5}},
		&godot.TypedArray{Elem: godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: godot.TypeInt}, Values: []any{int64(1), int64(2)}},
		&godot.TypedArray{Elem: godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: godot.TypeVector2}, Values: []any{godot.Vector2{X: 1}}},
		&godot.TypedArray{Elem: godot.ContainerType{Kind: godot.ContainerClassName, Name: "Node"}, Values: []any{}},
		[]byte{1, 2, 255}, []int32{-1, 2}, []int64{1 << 40}, []float32{1, 0.5}, []float64{1, 0.1}, []string{"a", "b\"c"},
		[]godot.Vector2{{X: 1, Y: 2}}, []godot.Vector3{{X: 1, Y: 2, Z: 3}}, []godot.Vector4{{X: 1, Y: 2, Z: 3, W: 4}}, []godot.Color{{R: 1, A: 1}},
		godot.Callable{}, godot.Signal{},
	}
	var cases []realCase
	for _, v := range values {
		b, err := em(godot.EncodeOptions{Dialect: godot.Godot4}).Marshal(v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		cases = append(cases, realCase{fmt.Sprintf("%T %s", v, godot.VarToStr(v)), b})
	}
	return cases
}

// TestEngine4RealSingle: DecodeOptions{Real: RealSingle} makes of every math type and packed vector
// array, written with and without the 64-bit flag, what the official single-precision Godot 4.6
// engine makes of it: decoding and encoding again gives the engine's var_to_bytes exactly. And
// VarToStr prints what the engine's var_to_str prints (dictionaries on one line).
func TestEngine4RealSingle(t *testing.T) {
	if testing.Short() {
		t.Skip("the real Godot 4 engine takes about 10 s; skipped in -short mode")
	}
	godot4.Require(t)
	realIn := realCases()
	strIn := varStrCases(t)
	all := append(append([]realCase(nil), realIn...), strIn...)
	var file []byte
	for _, c := range all {
		file = binary.LittleEndian.AppendUint32(file, uint32(len(c.data)))
		file = append(file, c.data...)
		file = append(file, make([]byte, (4-len(c.data)%4)%4)...)
	}
	script, err := os.ReadFile("testdata/godot4real/main.gd")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := godot4.Run(ctx, string(script), map[string][]byte{"in/values.bin": file})
	if err != nil {
		t.Fatal(err)
	}
	type engineOut struct {
		bytes []byte
		text  string
	}
	var outs []engineOut
	for _, line := range res.Stdout {
		f := strings.Split(line, "\t")
		switch {
		case f[0] == "I" && len(f) == 3 && f[2] != "false":
			t.Fatalf("the engine is not a single-precision build: %s", line)
		case f[0] == "R" && len(f) == 4:
			b, err := hex.DecodeString(f[2])
			if err != nil {
				t.Fatal(line)
			}
			text := strings.NewReplacer(`\\`, `\`, `\n`, "\n").Replace(f[3])
			outs = append(outs, engineOut{b, text})
		case f[0] == "N" && f[1] != strconv.Itoa(len(all)):
			t.Fatalf("the engine decoded %s values, want %d", f[1], len(all))
		}
	}
	if len(outs) != len(all) {
		t.Fatalf("the engine printed %d results, want %d\n%s", len(outs), len(all), strings.Join(res.Stderr, "\n"))
	}
	single := dm(godot.DecodeOptions{Dialect: godot.Godot4, Real: godot.RealSingle})
	lossless := dm(godot.DecodeOptions{Dialect: godot.Godot4})
	changed := 0
	for i, c := range realIn {
		v, _, err := single.Decode(c.data)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got, err := em(godot.EncodeOptions{Dialect: godot.Godot4}).Append(nil, v)
		if err != nil || !bytes.Equal(got, outs[i].bytes) {
			t.Errorf("%s: %x\n engine %x\n    Go %x, %v", c.name, c.data, outs[i].bytes, got, err)
		}
		// The lossless default keeps the input instead.
		lv, _, _ := lossless.Decode(c.data)
		if back, _ := em(godot.EncodeOptions{Dialect: godot.Godot4, DoublePrecision: true}).Append(nil, lv); !bytes.Equal(back, c.data) && !strings.Contains(c.name, "32-bit") && !strings.Contains(c.name, "Color") {
			t.Errorf("%s: lossless decoding does not give the input back: %x", c.name, back)
		}
		if !bytes.Equal(outs[i].bytes, c.data) {
			changed++
		}
	}
	if changed < len(realTypes) {
		t.Errorf("only %d of the inputs were changed by the engine: the test does not test narrowing", changed)
	}
	for j, c := range strIn {
		out := outs[len(realIn)+j]
		want := oneLineVarToStr(out.text)
		v, _, err := lossless.Decode(c.data)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := godot.VarToStr(v); got != want {
			t.Errorf("VarToStr(%s):\n got %s\nwant %s (engine: %q)", c.name, got, want, out.text)
		}
	}
}

// oneLineVarToStr puts the engine's multi-line Dictionaries on one line, as VarToStr writes
// them.
func oneLineVarToStr(s string) string {
	return strings.NewReplacer("{\n}", "{}", "{\n", "{", ",\n", ", ", "\n}", "}").Replace(s)
}
