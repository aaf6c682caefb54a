package godot

import (
	"bytes"
	"errors"
	"testing"
)

type fuzzInner struct {
	N    int32  `godot:"n"`
	Name string `godot:"name,omitempty"`
}

type fuzzEmbedded struct {
	E uint8
}

// fuzzTarget has a field of every kind the decoder handles.
type fuzzTarget struct {
	*fuzzEmbedded
	B     bool
	I8    int8
	I     int
	U16   uint16
	U     uint64
	F32   float32
	F     float64
	S     string
	SN    StringName
	V3    Vector3
	C     Color
	T2    Transform2D
	NP    NodePath
	Bytes []byte
	I32   []int32
	I64   []int64 `godot:",typed"`
	Strs  []string
	Vs    []Vector2
	Arr   [3]int
	Sl    []fuzzInner
	M     map[string]int
	MK    map[int]fuzzInner
	P     *fuzzInner
	PP    **int
	Any   any
	Anys  []any
	Raw   RawVariant
	D     *Dictionary
	TA    TypedArray
	Team  team
	Err   error
}

func fuzzSample() *fuzzTarget {
	n := 5
	pn := &n
	return &fuzzTarget{
		fuzzEmbedded: &fuzzEmbedded{E: 1}, B: true, I8: -3, I: wideInt, U16: 65535, U: 7, F32: 1.5, F: 0.1,
		S: "héllo", SN: "sn", V3: Vector3{1, 2, 3}, C: Color{1, 0, 0, 1}, T2: Transform2D{Origin: Vector2{1, 2}},
		NP: ParseNodePath("/a/b:c"), Bytes: []byte{1, 2, 3}, I32: []int32{-1}, I64: []int64{1 << 33},
		Strs: []string{"x", ""}, Vs: []Vector2{{1, 2}}, Arr: [3]int{1, 2, 3},
		Sl: []fuzzInner{{1, "a"}, {2, ""}}, M: map[string]int{"a": 1}, MK: map[int]fuzzInner{3: {3, "c"}},
		P: &fuzzInner{9, "p"}, PP: &pn, Any: []any{int64(1), "x", NewDictionary("k", Vector2{1, 2})},
		Anys: []any{nil, 2.5}, Raw: RawVariant{0, 0, 0, 0}, D: NewDictionary(int64(1), "one"),
		TA: TypedArray{Values: []any{int64(1)}}, Team: 2,
	}
}

// FuzzUnmarshal feeds arbitrary bytes to Unmarshal, into a struct with a field of every kind and
// into an interface. It must never panic; errors must be *DecodeErrors that wrap one of the
// package's sentinels; Unmarshal into any must agree with Decode; skipping every entry of a
// Dictionary must accept exactly what Decode accepts; and whatever decodes into the struct must
// re-encode to a fixed point.
func FuzzUnmarshal(f *testing.F) {
	seedDecode(f)
	for _, d := range []Dialect{Godot3, Godot4} {
		b, err := em(EncodeOptions{Dialect: d}).Marshal(fuzzSample())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, d == Godot4)
		f.Add(b[:len(b)/2], d == Godot4)
		b, _ = em(EncodeOptions{Dialect: d}).Marshal(NewDictionary("I8", int64(300), "S", int64(1)))
		f.Add(b, d == Godot4)
	}
	// A PackedByteArray without its padding, then more entries: the engine counts the missing
	// padding, so the next key is looked for past the end of the input.
	f.Add(unhex(f, "1b000000 02000000 04000000 01000000 61000000 1d000000 01000000 01"), true)
	sentinels := []error{ErrTruncated, ErrNegativeLength, ErrUnknownType, ErrInvalidUTF8, ErrTooDeep,
		ErrTooManyElements, ErrObjectsNotAllowed, ErrOldNodePath, ErrContainerType, ErrScriptProperty, ErrUnsupported,
		ErrTypeMismatch, ErrRange, ErrTrailingData, ErrAllocLimit}
	typed := func(t *testing.T, err error, data []byte) {
		t.Helper()
		// The offset may pass the end by up to 3 bytes: after a PackedByteArray whose padding
		// is missing, the engine (and Decode) look for the next value where the padding ends.
		var de *DecodeError
		if !errors.As(err, &de) || de.Offset < 0 || de.Offset > int64(len(data))+3 {
			t.Fatalf("error %v is not a *DecodeError within the input: %#v", err, err)
		}
		for _, s := range sentinels {
			if errors.Is(err, s) {
				return
			}
		}
		if !bytes.Contains([]byte(err.Error()), []byte("UnmarshalGodot")) {
			t.Fatalf("error %v wraps no sentinel", err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, v4 bool) {
		d := Godot3
		if v4 {
			d = Godot4
		}
		o := dm(DecodeOptions{Dialect: d, MaxElements: 1 << 12, MaxDepth: 64})
		enc := em(EncodeOptions{Dialect: d})

		gv, n, derr := o.Decode(data)
		var av any
		aerr := o.Unmarshal(data, &av)
		switch {
		case derr == nil && n == len(data):
			if aerr != nil {
				t.Fatalf("Decode accepts, Unmarshal into any fails: %v", aerr)
			}
			x, _ := enc.Marshal(gv)
			y, _ := enc.Marshal(av)
			if !bytes.Equal(x, y) {
				t.Fatalf("Unmarshal into any differs from Decode:\n%x\n%x", x, y)
			}
		case aerr == nil:
			t.Fatalf("Decode: %v (%d of %d bytes), but Unmarshal into any succeeds", derr, n, len(data))
		default:
			typed(t, aerr, data)
		}

		if len(data) >= 4 {
			if tt, ok := d.TypeOf(uint32(data[0])); ok && tt == TypeDictionary && data[1] == 0 && (data[2]&^0x0F) == 0 && data[3] == 0 {
				var skipAll struct{}
				serr := o.Unmarshal(data, &skipAll)
				if (serr == nil) != (derr == nil && n == len(data)) {
					t.Fatalf("skipping every entry: %v; Decode: %v (%d of %d bytes)", serr, derr, n, len(data))
				}
			}
		}

		var target fuzzTarget
		err := o.Unmarshal(data, &target)
		if err != nil {
			typed(t, err, data)
			return
		}
		once, err := enc.Marshal(&target)
		if err != nil {
			t.Fatalf("re-encode %+v: %v", target, err)
		}
		var again fuzzTarget
		if err := o.Unmarshal(once, &again); err != nil {
			t.Fatalf("decode of the re-encoding %x: %v", once, err)
		}
		twice, err := enc.Marshal(&again)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("not a fixed point:\n%x\n%x (%v)", once, twice, err)
		}
	})
}
