package bitproto

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/bitstream"
)

// The decoders read struct fields of the leaf types without the bitstream.Reader (see scan).
// These tests check that they agree with the Reader, read field by field by refLeaf, on valid
// input in every compressed form, on truncated input and on random bytes.

// leafAll has a field of every leaf type: a struct that decodeFlat decodes.
type leafAll struct {
	B   bool
	U8  uint8
	I16 int16
	U16 uint16
	I32 int32
	U32 uint32
	I64 int64
	U64 uint64
	F32 float32
	F64 float64
	D   time.Time
	S   string
	T   string
	E   time.Time
}

// leafMsg holds slices of objects of leafAll, and a field that is not a leaf.
type leafMsg struct {
	Rows []leafAll
	C    rune `bits:"char"`
	More []leafAll
	N    int32
}

// oneString is a struct of one string, which DecodeAt decodes without decodeFlat.
type oneString struct {
	S string
}

// The kinds of input the fast path tests decode.
const (
	kindLeaf = iota // a leafAll
	kindMsg         // a leafMsg
	kindOne         // a oneString
	kinds
)

// refLeaf reads a leafAll field by field with the Reader.
func refLeaf(r *bitstream.Reader, v *leafAll) error {
	var err error
	if v.B, err = r.ReadBool(); err != nil {
		return err
	}
	if v.U8, err = r.ReadByte(); err != nil {
		return err
	}
	if v.I16, err = r.ReadInt16(); err != nil {
		return err
	}
	var x16 int16
	if x16, err = r.ReadInt16(); err != nil {
		return err
	}
	v.U16 = uint16(x16)
	if v.I32, err = r.ReadInt32(); err != nil {
		return err
	}
	var x32 int32
	if x32, err = r.ReadInt32(); err != nil {
		return err
	}
	v.U32 = uint32(x32)
	if v.I64, err = r.ReadInt64(); err != nil {
		return err
	}
	var x64 int64
	if x64, err = r.ReadInt64(); err != nil {
		return err
	}
	v.U64 = uint64(x64)
	if v.F32, err = r.ReadFloat32(); err != nil {
		return err
	}
	if v.F64, err = r.ReadFloat64(); err != nil {
		return err
	}
	if v.D, err = r.ReadDate(); err != nil {
		return err
	}
	for _, s := range []*string{&v.S, &v.T} {
		b, err := r.ReadBytesView()
		if err != nil {
			return err
		}
		*s = string(b)
	}
	v.E, err = r.ReadDate()
	return err
}

// refRows reads a slice of objects of leafAll with the Reader.
func refRows(r *bitstream.Reader) ([]leafAll, error) {
	n, err := r.ReadCount()
	if err != nil || n < 0 {
		return nil, err
	}
	rows := make([]leafAll, n)
	for i := range rows {
		null, err := r.ReadNull()
		if err != nil {
			return nil, err
		}
		if !null {
			if err := refLeaf(r, &rows[i]); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

func refMsg(r *bitstream.Reader, m *leafMsg) error {
	var err error
	if m.Rows, err = refRows(r); err != nil {
		return err
	}
	if m.C, err = r.ReadChar(); err != nil {
		return err
	}
	if m.More, err = refRows(r); err != nil {
		return err
	}
	m.N, err = r.ReadInt32()
	return err
}

// writeInt writes v as a compressed integer of width bytes in a form picked at random among
// those that hold it, the non-canonical ones included, as the reader accepts them all.
func writeInt(w *bitstream.Writer, rng *rand.Rand, v int64, width int) {
	var forms []int // 0: nibble, 1..width-1: bytes, width: full, width+1: count run without terminator
	if v >= -8 && v <= 7 {
		forms = append(forms, 0)
	}
	for k := 1; k < width; k++ {
		if k == 7 && v < 0 {
			continue // the reference's sign extension of the 7-byte form (see ReadInt64)
		}
		if lo, hi := int64(-1)<<(8*k-1), int64(1)<<(8*k-1)-1; v >= lo && v <= hi {
			forms = append(forms, k)
		}
	}
	forms = append(forms, width, width+1)
	switch k := forms[rng.IntN(len(forms))]; {
	case k == 0:
		w.WriteBits(0b10, 2)
		w.WriteBits(uint64(v)&0xf, 4)
	case k < width:
		w.WriteBits(1<<(k+2)-2, k+2)
		w.WriteBits(uint64(v)&(1<<(8*k)-1), 8*k)
	default:
		if k == width {
			w.WriteBits(0, 1)
		} else {
			w.WriteBits(1<<(width+1)-1, width+1)
		}
		if width == 8 {
			w.WriteBits(uint64(v), 64)
		} else {
			w.WriteBits(uint64(v)&(1<<(8*width)-1), 8*width)
		}
	}
}

// randInt returns a value of the given bits that often is small, so that every form occurs.
func randInt(rng *rand.Rand, bits int) int64 {
	v := int64(rng.Uint64() >> (64 - bits))
	if bits < 64 {
		v = v << (64 - bits) >> (64 - bits) // sign-extend
	}
	return v >> rng.IntN(bits)
}

func randString(rng *rand.Rand) string {
	n := rng.IntN(24)
	if rng.IntN(4) == 0 {
		n = rng.IntN(3)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return string(b)
}

// writeLeaf writes a random leafAll.
func writeLeaf(w *bitstream.Writer, rng *rand.Rand) {
	w.WriteBool(rng.IntN(2) == 0)
	w.WriteBits(rng.Uint64()&0xff, 8)
	writeInt(w, rng, randInt(rng, 16), 2)
	writeInt(w, rng, randInt(rng, 16), 2)
	writeInt(w, rng, randInt(rng, 32), 4)
	writeInt(w, rng, randInt(rng, 32), 4)
	writeInt(w, rng, randInt(rng, 64), 8)
	writeInt(w, rng, randInt(rng, 64), 8)
	w.WriteBits(rng.Uint64()&0xffffffff, 32)
	w.WriteBits(rng.Uint64(), 64)
	writeDate(w, rng)
	for range 2 {
		writeString(w, rng)
	}
	writeDate(w, rng)
}

// writeString writes a random string, nil or empty in any form.
func writeString(w *bitstream.Writer, rng *rand.Rand) {
	switch rng.IntN(8) {
	case 0:
		w.WriteCount(-1) // nil, read as ""
	case 1:
		writeInt(w, rng, 0, 4) // 0 in any form
	default:
		w.WriteString(randString(rng))
	}
}

// writeDate writes a null date, or a random 64-bit wire value: any, or one near the present,
// or one the reader clamps.
func writeDate(w *bitstream.Writer, rng *rand.Rand) {
	switch rng.IntN(4) {
	case 0:
		w.WriteBits(1, 1)
	case 1:
		w.WriteBits(0, 1)
		w.WriteBits(rng.Uint64(), 64)
	case 2:
		w.WriteBits(0, 1)
		w.WriteBits(uint64(bitstream.DateOffset+1_700_000_000+rng.Int64N(1<<30)), 64)
	default:
		w.WriteBits(0, 1)
		w.WriteBits(rng.Uint64N(40_000_000), 64)
	}
}

func writeRows(w *bitstream.Writer, rng *rand.Rand) {
	n := rng.IntN(6) - 1
	w.WriteCount(n)
	for range n {
		null := rng.IntN(5) == 0
		w.WriteNull(null)
		if !null {
			writeLeaf(w, rng)
		}
	}
}

// randLeafInput returns the bytes of a random value of the kind, after skip bits, often
// truncated or with a flipped bit.
func randLeafInput(rng *rand.Rand, kind int, skip int) []byte {
	var w bitstream.Writer
	w.WriteBits(rng.Uint64(), skip)
	switch kind {
	case kindMsg:
		writeRows(&w, rng)
		w.WriteChar(rune(randInt(rng, 16)))
		writeRows(&w, rng)
		writeInt(&w, rng, randInt(rng, 32), 4)
	case kindOne:
		writeString(&w, rng)
		if rng.IntN(2) == 0 {
			w.WriteBits(rng.Uint64(), rng.IntN(65)) // more input after the string
		}
	default:
		writeLeaf(&w, rng)
	}
	b := w.Bytes()
	switch rng.IntN(6) {
	case 0:
		b = b[:rng.IntN(len(b)+1)]
	case 1:
		if len(b) > 0 {
			b[rng.IntN(len(b))] ^= 1 << rng.IntN(8)
		}
	case 2:
		b = append(b, byte(rng.Uint32()))
	}
	return b
}

// checkAgainstReader decodes data from bit offset off with DecodeAt, with a Decoder and, at offset 0,
// with Unmarshal, into fresh values and into a reused one, and checks them against the Reader.
func checkAgainstReader(t *testing.T, data []byte, off int, kind int, reused any) {
	t.Helper()
	r := bitstream.NewReader(data)
	if r.Seek(off) != nil {
		return
	}
	var want, got any
	var wantErr error
	switch kind {
	case kindMsg:
		var m leafMsg
		wantErr = refMsg(r, &m)
		want, got = &m, new(leafMsg)
	case kindOne:
		var v oneString
		var b []byte
		if b, wantErr = r.ReadBytesView(); wantErr == nil {
			v.S = string(b)
		}
		want, got = &v, new(oneString)
	default:
		var v leafAll
		wantErr = refLeaf(r, &v)
		want, got = &v, new(leafAll)
	}
	wantNext := r.Offset()
	var dec Decoder
	for i, decode := range []func(v any) (int, error){
		func(v any) (int, error) { return DecodeAt(data, off, v) },
		func(v any) (int, error) { return dec.DecodeAt(data, off, v) },
		func(v any) (int, error) {
			r := bitstream.NewReader(data)
			_ = r.Seek(off)
			err := Read(r, v)
			return r.Offset(), err
		},
	} {
		for _, v := range []any{got, reused} {
			next, err := decode(v)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("decode %d of % x at %d: error %v, the reader's %v", i, data, off, err, wantErr)
			}
			if err != nil && errors.Is(err, ErrAllocLimit) {
				// The input claims more than the default MaxAllocBytes lets it have, and fails before
				// the reader finds the error that the reference (which has no limit) meets.
				continue
			}
			if err != nil {
				var e *DecodeError
				var be, wbe *bitstream.DecodeError
				if !errors.As(err, &e) || !errors.As(err, &be) || !errors.As(wantErr, &wbe) || be.BitOffset != wbe.BitOffset || be.Op != wbe.Op {
					t.Fatalf("decode %d of % x at %d: error %v, the reader's %v", i, data, off, err, wantErr)
				}
				continue
			}
			if next != wantNext {
				t.Fatalf("decode %d of % x at %d: next %d, the reader's %d", i, data, off, next, wantNext)
			}
			if !sameLeaves(v, want) {
				t.Fatalf("decode %d of % x at %d:\n got %+v\nwant %+v", i, data, off, v, want)
			}
		}
	}
	if off == 0 {
		if err := Unmarshal(data, got); (err == nil) != (wantErr == nil) || err == nil && !sameLeaves(got, want) {
			t.Fatalf("Unmarshal of % x: %v %+v, the reader's %v %+v", data, err, got, wantErr, want)
		}
	}
}

// sameLeaves compares decoded values, floats by their bits.
func sameLeaves(a, b any) bool {
	return reflect.DeepEqual(floatBits(reflect.ValueOf(a)), floatBits(reflect.ValueOf(b)))
}

func floatBits(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer:
		return floatBits(v.Elem())
	case reflect.Float32:
		return math.Float32bits(float32(v.Float()))
	case reflect.Float64:
		return math.Float64bits(v.Float())
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = floatBits(v.Index(i))
		}
		return out
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return v.Interface()
		}
		out := make([]any, v.NumField())
		for i := range out {
			out[i] = floatBits(v.Field(i))
		}
		return out
	}
	return v.Interface()
}

func TestFastPathAgreesWithReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	reused := []any{new(leafAll), new(leafMsg), &oneString{S: "old"}}
	for i := range n {
		kind := i % kinds
		skip := rng.IntN(20)
		data := randLeafInput(rng, kind, skip)
		checkAgainstReader(t, data, skip, kind, reused[kind])
		// Random bytes, mostly invalid.
		junk := make([]byte, rng.IntN(40))
		for j := range junk {
			junk[j] = byte(rng.Uint32())
		}
		checkAgainstReader(t, junk, 0, kind, reused[kind])
	}
}

// FuzzFastPath checks the decoders against the Reader on arbitrary input, at an offset taken from
// the first byte.
func FuzzFastPath(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 12 {
		f.Add(append([]byte{byte(i%kinds) << 3}, randLeafInput(rng, i%kinds, 0)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		// The first byte: the offset (bits 0-2) and the kind (bits 3-4; 3 is a leafAll).
		off, kind := int(data[0]&7), int(data[0]>>3&3)%kinds
		reused := []any{new(leafAll), new(leafMsg), &oneString{S: "old"}}[kind]
		checkAgainstReader(t, data[1:], off, kind, reused)
	})
}

// TestReuseDecodedValue decodes into a value that holds the results of an earlier decode: the
// result must be that of a decode into a zero value, null elements of reused slices included.
func TestReuseDecodedValue(t *testing.T) {
	type row struct {
		ID   int64
		Name string
		X, Y int32
		On   bool
		F    float32
	}
	type extra struct {
		N    int32
		priv int // not on the wire: a reused slice's elements are zeroed
		S    string
	}
	type msg struct {
		Rows   []row
		Extras []extra
	}
	first := msg{
		Rows:   []row{{1, "one", 2, 3, true, 4}, {5, "five", 6, 7, true, 8}, {9, "nine", 10, 11, true, 12}},
		Extras: []extra{{N: 1, S: "a"}, {N: 2, S: "b"}},
	}
	second := msg{Rows: []row{{ID: 21, Name: "x"}, {}, {ID: 23}}, Extras: []extra{{N: 3}, {}}}
	if _, err := Marshal(&second); err != nil {
		t.Fatal(err)
	}
	// Make the middle rows null objects.
	var w bitstream.Writer
	w.WriteCount(3)
	for i, r := range second.Rows {
		w.WriteNull(i == 1)
		if i != 1 {
			if err := Write(&w, &r); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.WriteCount(2)
	w.WriteNull(false)
	if err := Write(&w, &second.Extras[0]); err != nil {
		t.Fatal(err)
	}
	w.WriteNull(true)
	data := w.Bytes()

	var fresh msg
	if err := Unmarshal(data, &fresh); err != nil {
		t.Fatal(err)
	}
	reused := first
	reused.Rows = append([]row(nil), first.Rows...)
	reused.Extras = []extra{{N: 1, priv: 7, S: "a"}, {N: 2, priv: 8, S: "b"}}
	if err := Unmarshal(data, &reused); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fresh, reused) {
		t.Fatalf("into a reused value:\n%+v\nfresh:\n%+v", reused, fresh)
	}
	if &reused.Rows[0] == &first.Rows[0] {
		t.Fatal("test setup: rows shared")
	}
}

// TestDecoderStrings decodes many values with one Decoder and its copies, keeping them all: the
// strings share chunks, and none is overwritten by a later decode.
func TestDecoderStrings(t *testing.T) {
	type small struct {
		A string
		N int32
		B string
	}
	type big struct {
		Items []small
		Name  string
		Blob  []byte
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var dec Decoder
	var keep []small
	var want []small
	for i := range 3000 {
		v := small{A: randString(rng), N: int32(i), B: strings.Repeat("x", rng.IntN(40))}
		data, err := Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		d := &dec
		if i%3 == 0 {
			c := dec // a copy shares the chunk
			d = &c
		}
		var got small
		if err := d.Unmarshal(data, &got); err != nil || got != v {
			t.Fatalf("decode %d: %v %+v, want %+v", i, err, got, v)
		}
		keep, want = append(keep, got), append(want, v)
		if i%100 == 0 {
			// A type that goes through the reader shares the chunk too.
			b := big{Items: []small{v, v}, Name: v.A, Blob: []byte(v.B)}
			if len(b.Blob) == 0 {
				b.Blob = nil // an empty byte array reads as nil
			}
			data, err := Marshal(&b)
			if err != nil {
				t.Fatal(err)
			}
			var gb big
			if _, err := dec.DecodeAt(data, 0, &gb); err != nil || !reflect.DeepEqual(gb, b) {
				t.Fatalf("decode big %d: %v %+v", i, err, gb)
			}
			keep, want = append(keep, gb.Items...), append(want, b.Items...)
		}
	}
	for i := range keep {
		if keep[i] != want[i] {
			t.Fatalf("value %d changed to %+v, want %+v", i, keep[i], want[i])
		}
	}
	if dec.h == nil || len(dec.h.strs) != stringChunk {
		t.Fatalf("the chunks did not grow to %d bytes", stringChunk)
	}
}

// TestFastPathLimits checks the errors that decodeFlat leaves to the reader: the allocation
// limit, and a nil or non-pointer target.
func TestFastPathLimits(t *testing.T) {
	type two struct{ A, B string }
	data, err := Marshal(&two{A: "abcdef", B: "ghijkl"})
	if err != nil {
		t.Fatal(err)
	}
	var v two
	err = dm(DecodeOptions{MaxAllocBytes: 8}).Unmarshal(data, &v)
	var e *DecodeError
	if !errors.Is(err, ErrAllocLimit) || !errors.As(err, &e) || e.Path != "B" {
		t.Fatalf("MaxAllocBytes 8: %v", err)
	}
	dec := Decoder{Mode: dm(DecodeOptions{MaxAllocBytes: 8})}
	for range 2 { // the budget is per decode
		if err := dec.Unmarshal(data, &v); !errors.Is(err, ErrAllocLimit) {
			t.Fatalf("Decoder with MaxAllocBytes 8: %v", err)
		}
	}
	if err := dm(DecodeOptions{MaxAllocBytes: 12}).Unmarshal(data, &v); err != nil || v.A != "abcdef" || v.B != "ghijkl" {
		t.Fatalf("MaxAllocBytes 12: %v %+v", err, v)
	}
	if err := Unmarshal(data, (*two)(nil)); !errors.Is(err, ErrNil) {
		t.Fatalf("nil pointer: %v", err)
	}
	if err := Unmarshal(data, v); !errors.Is(err, ErrNil) {
		t.Fatalf("non-pointer: %v", err)
	}
	if _, err := DecodeAt(data, len(data)*8+1, &v); !errors.Is(err, bitstream.ErrOffset) {
		t.Fatalf("offset beyond the input: %v", err)
	}
}

// TestOneStringLimit checks that DecodeAt fails a struct of one string longer than
// DefaultMaxAllocCeiling, as the reader does, and reads short ones at every bit offset near the end.
func TestOneStringLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 64 MiB")
	}
	var w bitstream.Writer
	w.WriteCount(DefaultMaxAllocCeiling + 1)
	data := append(w.Bytes(), make([]byte, DefaultMaxAllocCeiling+1)...)
	var v oneString
	if _, err := DecodeAt(data, 0, &v); !errors.Is(err, ErrAllocLimit) || v.S != "" {
		t.Fatalf("a string of DefaultMaxAllocCeiling+1 bytes: %v", err)
	}
	// A string of 16 bytes at most in the last 8 bytes of the input, and at bit offsets 1-7.
	for off := range 8 {
		w.Reset(nil)
		w.WriteBits(0, off)
		w.WriteString("twelve bytes")
		if n, err := DecodeAt(w.Bytes(), off, &v); err != nil || v.S != "twelve bytes" || n != w.Len() {
			t.Fatalf("at %d: %q %d %v, want %d", off, v.S, n, err, w.Len())
		}
	}
}

// TestDecodeFlatAllocs checks that decoding a struct of leaves allocates one string chunk, and
// with a Decoder nothing once its chunk has room.
func TestDecodeFlatAllocs(t *testing.T) {
	type req struct {
		Name string
		N    int32
		Tag  string
	}
	data, err := Marshal(&req{Name: "AmazingWorld", N: 566, Tag: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var v req
	if n := testing.AllocsPerRun(100, func() { _ = Unmarshal(data, &v) }); n != 1 {
		t.Errorf("Unmarshal: %v allocations, want 1", n)
	}
	var dec Decoder
	_ = dec.Unmarshal(data, &v)
	if n := testing.AllocsPerRun(100, func() { _ = dec.Unmarshal(data, &v) }); n > 0.1 {
		t.Errorf("Decoder.Unmarshal: %v allocations, want about 0", n)
	}
	if v.Name != "AmazingWorld" || v.N != 566 || v.Tag != "x" {
		t.Fatalf("decoded %+v", v)
	}
}

// TestConcurrentDecodeTypes decodes values of many types from many goroutines at once, so that
// the codec caches' slots are shared and replaced concurrently.
func TestConcurrentDecodeTypes(t *testing.T) {
	type (
		t1 struct{ A int32 }
		t2 struct{ A, B int32 }
		t3 struct {
			A string
			B bool
		}
		t4 struct{ A []t1 }
	)
	vals := []any{&t1{7}, &t2{1, 2}, &t3{"x", true}, &t4{[]t1{{3}}}, &leafAll{S: "s"}, &leafMsg{N: 4}}
	var datas [][]byte
	for _, v := range vals {
		b, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		datas = append(datas, b)
	}
	done := make(chan error, 8)
	for g := range 8 {
		go func() {
			var dec Decoder
			for i := range 2000 {
				k := (i + g) % len(vals)
				got := reflect.New(reflect.TypeOf(vals[k]).Elem()).Interface()
				var err error
				if i%2 == 0 {
					err = Unmarshal(datas[k], got)
				} else {
					err = dec.Unmarshal(datas[k], got)
				}
				if err == nil && !reflect.DeepEqual(got, vals[k]) {
					err = errors.New("decoded a different value")
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteFlatAgrees checks Write and WriteObject of a pointer to a flat struct, which write
// its fields without an encoder (flatSource), against the encoder's path (Append of the struct
// value), with values that take every form, and that they allocate nothing.
func TestWriteFlatAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	str := func() string { return strings.Repeat("s", rng.IntN(3)*rng.IntN(100)) }
	date := func() time.Time {
		if rng.IntN(3) == 0 {
			return time.Time{}
		}
		return time.Unix(rng.Int64N(1<<40)-1<<39, 0)
	}
	var w bitstream.Writer
	for i := range 2000 {
		v := leafAll{B: rng.IntN(2) == 0, U8: uint8(rng.Uint32()), I16: int16(rng.Uint32() >> rng.IntN(32)),
			U16: uint16(rng.Uint32()), I32: int32(rng.Uint32() >> rng.IntN(32)), U32: rng.Uint32() >> rng.IntN(32),
			I64: int64(rng.Uint64() >> rng.IntN(64)), U64: rng.Uint64() >> rng.IntN(64), F32: rng.Float32(),
			F64: rng.NormFloat64(), D: date(), S: str(), T: str(), E: date()}
		want, err := Append([]byte{0xa5}, v) // a value: the encoder's path
		if err != nil {
			t.Fatal(err)
		}
		w.Reset([]byte{0xa5})
		if err := Write(&w, &v); err != nil || !reflect.DeepEqual(w.Bytes(), want) {
			t.Fatalf("%d: Write gives % x, %v; want % x", i, w.Bytes(), err, want)
		}
		w.Reset(nil)
		if err := WriteObject(&w, &v); err != nil {
			t.Fatal(err)
		}
		var wo bitstream.Writer
		wo.WriteNull(false)
		if err := Write(&wo, v); err != nil || !reflect.DeepEqual(w.Bytes(), wo.Bytes()) {
			t.Fatalf("%d: WriteObject gives % x, want % x (%v)", i, w.Bytes(), wo.Bytes(), err)
		}
	}
	w.Reset(nil)
	if err := WriteObject(&w, (*leafAll)(nil)); err != nil || !reflect.DeepEqual(w.Bytes(), []byte{0x80}) {
		t.Fatalf("nil pointer: % x, %v", w.Bytes(), err)
	}
	v := leafAll{S: "name", I64: 1 << 40}
	buf := make([]byte, 0, 256)
	if a := testing.AllocsPerRun(100, func() { w.Reset(buf); _ = WriteObject(&w, &v) }); a != 0 {
		t.Errorf("WriteObject of a flat struct allocates %v times", a)
	}
}
