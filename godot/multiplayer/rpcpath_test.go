package multiplayer

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// TestAppendCompressedFast: the fast path of AppendCompressed writes what the encoder does.
func TestAppendCompressedFast(t *testing.T) {
	vals := []any{true, false, []byte{}, []byte{1}, []byte{1, 2, 3, 4}, []byte{1, 2, 3, 4, 5}, make([]byte, 1023)}
	for _, n := range []int64{0, 1, -1, 127, 128, -128, -129, 32767, 32768, -32769, 1 << 31, -(1 << 31) - 1, 1<<63 - 1, -1 << 63} {
		vals = append(vals, n, int(n))
	}
	for _, v := range vals {
		fast, err := Encoding{}.AppendCompressed([]byte{9}, v)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := Encoding{}.appendCompressedSlow([]byte{9}, v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fast, slow) {
			t.Errorf("%T %v: % x, the encoder % x", v, v, fast, slow)
		}
	}
}

// TestFastArg: the arguments decoded without the decoder are what the decoder gives.
func TestFastArg(t *testing.T) {
	var vals []any
	for _, n := range []int64{0, 1, -1, 127, -129, 40000, -1 << 31, 1 << 40, -1 << 63} {
		vals = append(vals, n)
	}
	vals = append(vals, true, false)
	dec := Encoding{}.decOptions()
	for _, v := range vals {
		part, err := AppendCompressed(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		var buf [12]byte
		for _, ptrs := range [][2]any{{new(int), new(int)}, {new(int64), new(int64)}, {new(bool), new(bool)}} {
			fast, slow := ptrs[0], ptrs[1]
			if !fastArg(fast, part) {
				continue
			}
			if err := dec.Unmarshal(plainVariant(part, &buf), slow); err != nil {
				t.Fatalf("%v into %T: fast path taken, the decoder fails: %v", v, slow, err)
			}
			if f, s := fmt.Sprint(reflect.ValueOf(fast).Elem()), fmt.Sprint(reflect.ValueOf(slow).Elem()); f != s {
				t.Errorf("%v into %T: %s, the decoder %s", v, slow, f, s)
			}
		}
	}
}
