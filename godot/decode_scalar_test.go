package godot

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// Decode's fast path for small top-level values (decodeTop) must give what the decoder gives,
// errors included, for every type id, flag and length, in both dialects and under the options it
// reads. TestDecodeScalarsDoNotAllocateAsTheDecoderDoes shows that it is taken.
func TestDecodeScalarAgreesWithDecoder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var opts []DecodeOptions
	for _, d := range []Dialect{Godot3, Godot4} {
		for _, real := range []Real{RealLossless, RealSingle, RealDouble} {
			for _, max := range []int{0, 1, 7, 8, 15, 16, 17} {
				opts = append(opts, DecodeOptions{Dialect: d, Real: real, MaxAllocBytes: max})
			}
		}
	}
	for _, o := range opts {
		for id := range uint32(40) {
			for _, flags := range []uint32{0, 1 << 16, 0xff00, 0xffff0000} {
				for n := range 24 {
					data := make([]byte, n)
					for i := range data {
						data[i] = byte(r.Uint32())
					}
					if n >= 4 {
						binary.LittleEndian.PutUint32(data, id|flags)
					}
					v, m, err := dm(o).Decode(data)
					want, wantN, wantErr := o.decode(data)
					if !reflect.DeepEqual(err, wantErr) {
						t.Fatalf("%+v % x: Decode %v, decoder %v", o, data, err, wantErr)
					}
					if !sameBits(reflect.ValueOf(v), reflect.ValueOf(want)) || m != wantN {
						t.Fatalf("%+v % x: Decode %#v (%d bytes), decoder %#v (%d)", o, data, v, m, want, wantN)
					}
				}
			}
		}
	}
}

// maxScalarCost is the largest fixedCost of the types decodeTop decodes.
func TestMaxScalarCost(t *testing.T) {
	m := 0
	for _, ty := range []Type{TypeBool, TypeInt, TypeFloat, TypeVector2, TypeVector3, TypeColor} {
		m = max(m, int(fixedCost[ty]))
	}
	if m != maxScalarCost {
		t.Fatalf("maxScalarCost is %d, the types' largest fixedCost %d", maxScalarCost, m)
	}
}

// sameBits reports whether a and b are deeply equal, floats compared by their bits (a NaN equals
// the same NaN).
func sameBits(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() || a.IsValid() && a.Type() != b.Type() {
		return false
	}
	switch {
	case !a.IsValid():
		return true
	case a.Kind() == reflect.Float32:
		f32 := reflect.TypeFor[float32]()
		return math.Float32bits(a.Convert(f32).Interface().(float32)) == math.Float32bits(b.Convert(f32).Interface().(float32))
	case a.Kind() == reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case a.Kind() == reflect.Struct:
		for i := range a.NumField() {
			if !sameBits(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// Named scalar types, which Unmarshal's fast path does not take: they show what the general path
// gives.
type (
	slowInt8    int8
	slowInt16   int16
	slowInt32   int32
	slowUint    uint
	slowUint8   uint8
	slowUint16  uint16
	slowUint32  uint32
	slowUint64  uint64
	slowFloat32 float32
)

// Unmarshal's fast paths for scalar destinations must store what the general path stores, and
// fail where it fails.
func TestUnmarshalScalarFastPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	values := []any{int64(0), int64(-1), int64(127), int64(128), int64(-129), int64(255), int64(256),
		int64(32767), int64(-32769), int64(65535), int64(65536), int64(1 << 31), int64(-1 << 31),
		int64(1<<32 - 1), int64(1 << 32), int64(-1 << 63), int64(1<<63 - 1),
		0.5, -2.0, 3.4e38, 3.5e38, -1e300, float32(1.5)}
	for range 300 {
		values = append(values, int64(r.Uint64())>>r.IntN(64), r.NormFloat64()*1e38)
	}
	check := func(d Dialect, data []byte, fast, slow any, get func() (any, any)) {
		t.Helper()
		for _, max := range []int{0, 1} { // MaxAllocBytes
			o := dm(DecodeOptions{Dialect: d, MaxAllocBytes: max})
			ef, es := o.Unmarshal(data, fast), o.Unmarshal(data, slow)
			if (ef == nil) != (es == nil) {
				t.Fatalf("%v MaxAllocBytes %d, % x into %T: %v, general path %v", d, max, data, fast, ef, es)
			}
		}
		o := dm(DecodeOptions{Dialect: d})
		ef, es := o.Unmarshal(data, fast), o.Unmarshal(data, slow)
		if (ef == nil) != (es == nil) {
			t.Fatalf("%v % x into %T: %v, general path %v", d, data, fast, ef, es)
		}
		if f, s := get(); ef == nil && !reflect.DeepEqual(f, s) {
			t.Fatalf("%v % x into %T: %v, general path %v", d, data, fast, f, s)
		}
	}
	for _, d := range []Dialect{Godot3, Godot4} {
		for _, val := range values {
			data, err := em(EncodeOptions{Dialect: d}).Marshal(val)
			if err != nil {
				t.Fatal(err)
			}
			for _, cut := range []int{0, 1} { // also with a trailing byte, which fails
				in := append(data[:len(data):len(data)], make([]byte, cut)...)
				var i8 int8
				var s8 slowInt8
				check(d, in, &i8, &s8, func() (any, any) { return int64(i8), int64(s8) })
				var i16 int16
				var s16 slowInt16
				check(d, in, &i16, &s16, func() (any, any) { return int64(i16), int64(s16) })
				var i32 int32
				var s32 slowInt32
				check(d, in, &i32, &s32, func() (any, any) { return int64(i32), int64(s32) })
				var u uint
				var su slowUint
				check(d, in, &u, &su, func() (any, any) { return uint64(u), uint64(su) })
				var u8 uint8
				var su8 slowUint8
				check(d, in, &u8, &su8, func() (any, any) { return uint64(u8), uint64(su8) })
				var u16 uint16
				var su16 slowUint16
				check(d, in, &u16, &su16, func() (any, any) { return uint64(u16), uint64(su16) })
				var u32 uint32
				var su32 slowUint32
				check(d, in, &u32, &su32, func() (any, any) { return uint64(u32), uint64(su32) })
				var u64 uint64
				var su64 slowUint64
				check(d, in, &u64, &su64, func() (any, any) { return u64, uint64(su64) })
				var f32 float32
				var sf32 slowFloat32
				check(d, in, &f32, &sf32, func() (any, any) { return f32, float32(sf32) })
			}
		}
	}
}

// Decode boxes the ints -256..255 without allocating, and gives them back as int64.
func TestDecodeSmallIntsDoNotAllocate(t *testing.T) {
	for _, x := range []int64{-256, -1, 0, 255} {
		data, err := Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if v, _, err := Decode(data); err != nil || v != any(x) {
			t.Fatalf("Decode(%d) = %#v, %v", x, v, err)
		}
		if a := testing.AllocsPerRun(100, func() { _, _, _ = Decode(data) }); a != 0 {
			t.Errorf("Decode(%d): %v allocations", x, a)
		}
	}
}
