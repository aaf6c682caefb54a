package bitstream

import (
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzReader runs a program of reads (one op per byte of ops) over arbitrary input. No read may
// panic; a failed read must return a *DecodeError and leave the reader where it was; the fast
// compressed-integer path must agree with the form-reporting path.
func FuzzReader(f *testing.F) {
	f.Add([]byte("\x20\xc2\x5c\x04\x6d\x0c\x0c\x18AmazingWorld\x00"), []byte{0, 0, 3, 3, 3, 3, 7, 0, 7})
	f.Add([]byte{0xff, 0x40, 0, 0, 0, 0, 0, 0, 0}, []byte{4, 4})
	f.Add([]byte{0x3f, 0xff, 0xff, 0xff, 0x80}, []byte{9, 8, 7, 6})
	f.Add([]byte{0xe0, 0x08, 0x00}, []byte{10, 11, 12})
	f.Add([]byte{0xb8}, []byte{7, 8, 10})
	f.Add([]byte{}, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		r := NewReader(data)
		for _, op := range ops {
			before := r.Offset()
			var err error
			switch op % 16 {
			case 0:
				_, err = r.ReadBool()
			case 1:
				_, err = r.ReadByte()
			case 2:
				_, err = r.ReadInt16()
			case 3:
				_, err = r.ReadInt32()
			case 4:
				_, err = r.ReadInt64()
			case 5:
				_, err = r.ReadChar()
			case 6:
				_, err = r.ReadFloat32()
			case 7:
				_, err = r.ReadString()
			case 8:
				_, err = r.ReadBytes()
			case 9:
				_, err = r.ReadDate()
			case 10:
				_, err = r.ReadCount()
			case 11:
				_, err = r.ReadBits(int(op>>4) * 5)
			case 12:
				r.Align()
			case 13:
				_, err = r.ReadFloat64()
			case 14:
				_, err = r.ReadAligned(int(op >> 4))
			case 15:
				// The fast path and the form reader must agree on value and length.
				for _, w := range []uint{2, 4, 8} {
					a := *r
					b := *r
					va, ea := a.readCompressed(w, "fast")
					vb, form, eb := b.readCompressedForm(w, "form")
					if (ea == nil) != (eb == nil) || va != vb || a.Offset() != b.Offset() {
						t.Fatalf("width %d at %d: fast %d@%d %v, form %d@%d %v", w, r.Offset(), va, a.Offset(), ea, vb, b.Offset(), eb)
					}
					if eb == nil && form.Len() != b.Offset()-r.Offset() {
						t.Fatalf("form %+v does not match the %d bits read", form, b.Offset()-r.Offset())
					}
				}
				// So must the specialised fast paths of the typed readers.
				ref := func(w uint) (int64, int, error) {
					c := *r
					v, _, err := c.readCompressedForm(w, "form")
					return v, c.Offset(), err
				}
				c := *r
				v16, e16 := c.ReadInt16()
				if rv, ro, re := ref(2); (e16 == nil) != (re == nil) || int64(v16) != int64(int16(rv)) || c.Offset() != ro {
					t.Fatalf("ReadInt16 at %d: %d@%d %v vs %d@%d %v", r.Offset(), v16, c.Offset(), e16, rv, ro, re)
				}
				c = *r
				ch, ec := c.ReadChar()
				if rv, ro, re := ref(2); (ec == nil) != (re == nil) || ch != rune(int16(rv)) || c.Offset() != ro {
					t.Fatalf("ReadChar at %d: %d@%d %v vs %d@%d %v", r.Offset(), ch, c.Offset(), ec, rv, ro, re)
				}
				c = *r
				v32, e32 := c.ReadInt32()
				if rv, ro, re := ref(4); (e32 == nil) != (re == nil) || int64(v32) != int64(int32(rv)) || c.Offset() != ro {
					t.Fatalf("ReadInt32 at %d: %d@%d %v vs %d@%d %v", r.Offset(), v32, c.Offset(), e32, rv, ro, re)
				}
				c = *r
				v64, e64 := c.ReadInt64()
				if rv, ro, re := ref(8); (e64 == nil) != (re == nil) || v64 != rv || c.Offset() != ro {
					t.Fatalf("ReadInt64 at %d: %d@%d %v vs %d@%d %v", r.Offset(), v64, c.Offset(), e64, rv, ro, re)
				}
				_, _, err = r.ReadCompressed([]int{2, 4, 8}[int(op>>4)%3])
			}
			if err != nil {
				var e *DecodeError
				if !errors.As(err, &e) {
					t.Fatalf("op %d: error %v is not a *DecodeError", op, err)
				}
				if r.Offset() != before {
					t.Fatalf("op %d: failed read moved the reader from %d to %d", op, before, r.Offset())
				}
			}
			if r.Offset() > r.Len() || r.Offset() < before {
				t.Fatalf("op %d: offset %d of %d", op, r.Offset(), r.Len())
			}
		}
	})
}

// FuzzIntRoundTrip writes values taken from the input at every width and reads them back.
func FuzzIntRoundTrip(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 8}, uint8(3))
	f.Add([]byte{0x80, 0, 0, 0, 0, 0, 0, 0}, uint8(0))
	f.Add([]byte{0x00, 0x80, 0, 0, 0, 0, 0, 0, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, lead uint8) {
		var w Writer
		w.WriteBits(0x55, int(lead%8))
		var vals []int64
		for len(data) >= 8 {
			v := int64(binary.BigEndian.Uint64(data))
			data = data[8:]
			vals = append(vals, v)
			w.WriteInt16(int16(v))
			w.WriteInt32(int32(v))
			w.WriteInt64(v)
			w.WriteChar(rune(v))
		}
		want := int(lead % 8)
		for _, v := range vals {
			want += CompressedLen(int64(int16(v)), 2) + CompressedLen(int64(int32(v)), 4) + CompressedLen(v, 8) + CompressedLen(int64(rune(v)), 2)
		}
		if w.Len() != want {
			t.Fatalf("wrote %d bits, CompressedLen says %d", w.Len(), want)
		}
		r := NewReader(w.Bytes())
		r.TryBits(int(lead % 8))
		for _, v := range vals {
			if got := r.TryInt16(); got != int16(v) {
				t.Fatalf("int16 %d read as %d", int16(v), got)
			}
			if got := r.TryInt32(); got != int32(v) {
				t.Fatalf("int32 %d read as %d", int32(v), got)
			}
			if got := r.TryInt64(); got != v {
				t.Fatalf("int64 %d read as %d", v, got)
			}
			if got := r.TryChar(); got != rune(int16(rune(v))) {
				t.Fatalf("char %d read as %d", rune(v), got)
			}
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
	})
}
