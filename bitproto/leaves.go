package bitproto

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"
)

// zeroBase is where the empty slices that decoding makes point: not nil, and no allocation.
var zeroBase [0]uint64

// sliceHeader is the memory layout of a Go slice.
type sliceHeader struct {
	data     uptr
	len, cap int
}

func boolCodec() *codec {
	return &codec{
		op:      opBool,
		minBits: 1,
		enc: func(e *encoder, p uptr) error {
			e.w.WriteBool(*(*bool)(p))
			return nil
		},
		dec: func(d *decoder, p uptr) error {
			v, err := d.r.ReadBool()
			if err != nil {
				return newError(0, err)
			}
			*(*bool)(p) = v
			return nil
		},
	}
}

func stringCodec() *codec {
	return &codec{
		op:      opString,
		minBits: 6,
		enc: func(e *encoder, p uptr) error {
			e.w.WriteString(*(*string)(p))
			return nil
		},
		dec: func(d *decoder, p uptr) error {
			off := d.r.Offset()
			b, err := d.r.ReadBytesView()
			if err != nil {
				return newError(0, err)
			}
			if err := d.alloc(off, len(b)); err != nil {
				return err
			}
			*(*string)(p) = d.string(b, uint(d.r.Remaining()))
			return nil
		},
	}
}

func bytesCodec(t reflect.Type) *codec {
	return &codec{
		minBits: 6,
		enc: func(e *encoder, p uptr) error {
			e.w.WriteBytes(*(*[]byte)(p))
			return nil
		},
		dec: func(d *decoder, p uptr) error {
			off := d.r.Offset()
			b, err := d.r.ReadBytesView()
			if err != nil {
				return newError(0, err)
			}
			if b == nil {
				*(*[]byte)(p) = nil // a length of 0 reads as nil, as in the reference
				return nil
			}
			if err := d.allocObject(off, len(b)); err != nil {
				return err
			}
			*(*[]byte)(p) = append([]byte(nil), b...)
			return nil
		},
	}
}

func dateCodec() *codec {
	return &codec{
		op:      opDate,
		minBits: 1,
		enc: func(e *encoder, p uptr) error {
			e.w.WriteDate(*(*time.Time)(p))
			return nil
		},
		dec: func(d *decoder, p uptr) error {
			v, err := d.r.ReadDate()
			if err != nil {
				return newError(0, err)
			}
			*(*time.Time)(p) = v
			return nil
		},
	}
}

func floatCodec(k reflect.Kind, wire FieldType) *codec {
	c := &codec{minBits: 32}
	if wire == Float64 {
		c.minBits = 64
	}
	switch {
	case k == reflect.Float32 && wire == Float32:
		c.op = opFloat32
		c.enc = func(e *encoder, p uptr) error { e.w.WriteFloat32(*(*float32)(p)); return nil }
		c.dec = func(d *decoder, p uptr) error {
			v, err := d.r.ReadFloat32()
			*(*float32)(p) = v
			return wrapLeaf(err)
		}
	case k == reflect.Float64 && wire == Float64:
		c.op = opFloat64
		c.enc = func(e *encoder, p uptr) error { e.w.WriteFloat64(*(*float64)(p)); return nil }
		c.dec = func(d *decoder, p uptr) error {
			v, err := d.r.ReadFloat64()
			*(*float64)(p) = v
			return wrapLeaf(err)
		}
	case k == reflect.Float64: // wire float32
		c.enc = func(e *encoder, p uptr) error { e.w.WriteFloat32(float32(*(*float64)(p))); return nil }
		c.dec = func(d *decoder, p uptr) error {
			v, err := d.r.ReadFloat32()
			*(*float64)(p) = float64(v)
			return wrapLeaf(err)
		}
	default: // float32 as wire float64
		c.enc = func(e *encoder, p uptr) error { e.w.WriteFloat64(float64(*(*float32)(p))); return nil }
		c.dec = func(d *decoder, p uptr) error {
			v, err := d.r.ReadFloat64()
			*(*float32)(p) = float32(v)
			return wrapLeaf(err)
		}
	}
	return c
}

func wrapLeaf(err error) error {
	if err != nil {
		return newError(0, err)
	}
	return nil
}

// kindBits returns the size of an integer kind in bits.
func kindBits(k reflect.Kind) uint {
	switch k {
	case reflect.Int8, reflect.Uint8:
		return 8
	case reflect.Int16, reflect.Uint16:
		return 16
	case reflect.Int32, reflect.Uint32:
		return 32
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		return uint(sizeOf(uintptr(0))) * 8
	}
	return 64
}

func isUnsigned(k reflect.Kind) bool { return k >= reflect.Uint && k <= reflect.Uintptr }

// loadInt returns the integer at p as an int64 bit pattern and whether it is an unsigned value
// above math.MaxInt64.
func loadInt(p uptr, k reflect.Kind) (int64, bool) {
	switch k {
	case reflect.Int:
		return int64(*(*int)(p)), false
	case reflect.Int8:
		return int64(*(*int8)(p)), false
	case reflect.Int16:
		return int64(*(*int16)(p)), false
	case reflect.Int32:
		return int64(*(*int32)(p)), false
	case reflect.Int64:
		return *(*int64)(p), false
	case reflect.Uint8:
		return int64(*(*uint8)(p)), false
	case reflect.Uint16:
		return int64(*(*uint16)(p)), false
	case reflect.Uint32:
		return int64(*(*uint32)(p)), false
	case reflect.Uint, reflect.Uintptr:
		u := uint64(*(*uint)(p))
		return int64(u), u > math.MaxInt64
	default: // Uint64
		u := *(*uint64)(p)
		return int64(u), u > math.MaxInt64
	}
}

// storeInt stores the low bits of v at p.
func storeInt(p uptr, k reflect.Kind, v int64) {
	switch k {
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		*(*int)(p) = int(v)
	case reflect.Int8, reflect.Uint8:
		*(*int8)(p) = int8(v)
	case reflect.Int16, reflect.Uint16:
		*(*int16)(p) = int16(v)
	case reflect.Int32, reflect.Uint32:
		*(*int32)(p) = int32(v)
	default:
		*(*int64)(p) = v
	}
}

// fits reports whether the value v (an unsigned value above MaxInt64 when big) is within the
// range of a bits-wide integer, signed or not.
func fits(v int64, big bool, bits uint, signed bool) bool {
	if big {
		return !signed && bits == 64
	}
	if signed {
		if bits == 64 {
			return true
		}
		return v >= -1<<(bits-1) && v < 1<<(bits-1)
	}
	if v < 0 {
		return false
	}
	return bits == 64 || v < 1<<bits
}

// intCodec maps an integer kind to an integer wire type (byte, int16, int32, int64, char). A
// Go type of the wire type's size is written bit for bit; a narrower one is widened; a wider one
// is range checked, on encode and on decode.
func intCodec(k reflect.Kind, wire FieldType) *codec {
	gb := kindBits(k)
	c := &codec{minBits: 6}
	if wire == Byte {
		c.minBits = 8
	}
	// The common exact matches get their own closures.
	switch {
	case wire == Int32 && gb == 32:
		c.op = opInt32
		c.enc = func(e *encoder, p uptr) error { e.w.WriteInt32(*(*int32)(p)); return nil }
		c.dec = func(d *decoder, p uptr) error {
			v, err := d.r.ReadInt32()
			*(*int32)(p) = v
			return wrapLeaf(err)
		}
		return c
	case wire == Int16 && gb == 16:
		c.op = opInt16
		c.enc = func(e *encoder, p uptr) error { e.w.WriteInt16(*(*int16)(p)); return nil }
		c.dec = func(d *decoder, p uptr) error {
			v, err := d.r.ReadInt16()
			*(*int16)(p) = v
			return wrapLeaf(err)
		}
		return c
	case wire == Int64 && gb == 64:
		c.op = opInt64
		c.enc = func(e *encoder, p uptr) error { e.w.WriteInt64(*(*int64)(p)); return nil }
		c.dec = func(d *decoder, p uptr) error {
			v, err := d.r.ReadInt64()
			*(*int64)(p) = v
			return wrapLeaf(err)
		}
		return c
	case wire == Byte && gb == 8:
		c.op = opByte
		c.enc = func(e *encoder, p uptr) error { e.w.WriteByte(*(*uint8)(p)); return nil }
		c.dec = func(d *decoder, p uptr) error {
			v, err := d.r.ReadByte()
			*(*uint8)(p) = v
			return wrapLeaf(err)
		}
		return c
	}

	unsigned := isUnsigned(k)
	var wb uint
	wireSigned := true
	switch wire {
	case Byte:
		wb, wireSigned = 8, false
	case Int16, Char:
		wb = 16
	case Int32:
		wb = 32
	default:
		wb = 64
	}
	c.enc = func(e *encoder, p uptr) error {
		v, big := loadInt(p, k)
		if wire == Char {
			// Like the reference's WriteChar(rune): the form is chosen from the whole value and
			// a value beyond 16 bits is written full-width with its low 16 bits.
			e.w.WriteCompressed(v, 2)
			return nil
		}
		if gb > wb && !fits(v, big, wb, wireSigned) {
			return encodeErr(e.w.Len(), fmt.Errorf("%w: %s value %s does not fit wire type %s", ErrRange, k, fmtInt(v, big), wire))
		}
		switch wire {
		case Byte:
			e.w.WriteByte(byte(v))
		case Int16:
			e.w.WriteInt16(int16(v))
		case Int32:
			e.w.WriteInt32(int32(v))
		default:
			e.w.WriteInt64(v)
		}
		return nil
	}
	c.dec = func(d *decoder, p uptr) error {
		off := d.r.Offset()
		var v int64
		var err error
		switch wire {
		case Byte:
			var b byte
			b, err = d.r.ReadByte()
			v = int64(b)
		case Int16:
			var x int16
			x, err = d.r.ReadInt16()
			v = int64(x)
		case Char:
			var x rune
			x, err = d.r.ReadChar()
			v = int64(x)
			if unsigned {
				v = int64(uint16(x)) // unsigned char fields keep U+8000..U+FFFF
			}
		case Int32:
			var x int32
			x, err = d.r.ReadInt32()
			v = int64(x)
		default:
			v, err = d.r.ReadInt64()
		}
		if err != nil {
			return newError(0, err)
		}
		if gb != wb && !fits(v, false, gb, !unsigned) {
			return decodeErr(off, fmt.Errorf("%w: %s value %d does not fit %s", ErrRange, wire, v, k))
		}
		storeInt(p, k, v)
		return nil
	}
	return c
}

func fmtInt(v int64, big bool) string {
	if big {
		return fmt.Sprint(uint64(v))
	}
	return fmt.Sprint(v)
}

// objectCodec writes a struct in field position: a null bit (always 0 when writing), then its
// content. A null object decodes as the zero value.
func objectCodec(t reflect.Type, content *codec) *codec {
	return &codec{
		object:  content,
		minBits: 1,
		enc: func(e *encoder, p uptr) error {
			e.w.WriteBool(false)
			return content.enc(e, p)
		},
		dec: func(d *decoder, p uptr) error {
			null, err := d.r.ReadNull()
			if err != nil {
				return newError(0, err)
			}
			if null {
				reflect.NewAt(t, p).Elem().SetZero()
				return nil
			}
			if err := d.enter(); err != nil {
				return err
			}
			err = content.dec(d, p)
			d.depth--
			return err
		},
	}
}

// pointerCodec writes a pointer: a null bit (1 for nil), then the content of the pointee.
func pointerCodec(et reflect.Type, content *codec) *codec {
	size := int(et.Size())
	return &codec{
		minBits: 1,
		enc: func(e *encoder, p uptr) error {
			ptr := *(*uptr)(p)
			e.w.WriteBool(ptr == nil)
			if ptr == nil {
				return nil
			}
			return content.enc(e, ptr)
		},
		dec: func(d *decoder, p uptr) error {
			off := d.r.Offset()
			null, err := d.r.ReadNull()
			if err != nil {
				return newError(0, err)
			}
			if null {
				*(*uptr)(p) = nil
				return nil
			}
			if err := d.enter(); err != nil {
				return err
			}
			defer func() { d.depth-- }()
			ptr := *(*uptr)(p)
			if ptr == nil {
				if err := d.allocObject(off, size); err != nil {
					return err
				}
				ptr = reflect.New(et).UnsafePointer()
				*(*uptr)(p) = ptr
			}
			return content.dec(d, ptr)
		},
	}
}

// sliceCodec writes a slice: its count (-1 for nil), then every element.
func sliceCodec(t reflect.Type, elem *codec) *codec {
	et := t.Elem()
	size := et.Size()
	minBits := max(elem.minBits, 1)
	return &codec{
		minBits: 6,
		enc: func(e *encoder, p uptr) error {
			s := (*sliceHeader)(p)
			if s.data == nil {
				e.w.WriteCount(-1)
				return nil
			}
			e.w.WriteCount(s.len)
			if oc := elem.object; oc != nil && oc.fields != nil {
				// Objects of a plain struct: the null bit and the fields, inline.
				for i := range s.len {
					e.w.WriteBool(false)
					if err := encodeFields(e, e.w, oc.fields, addPtr(s.data, uintptr(i)*size)); err != nil {
						return withIndex(err, i)
					}
				}
				return nil
			}
			for i := range s.len {
				if err := elem.enc(e, addPtr(s.data, uintptr(i)*size)); err != nil {
					return withIndex(err, i)
				}
			}
			return nil
		},
		dec: func(d *decoder, p uptr) error {
			off := d.r.Offset()
			n, err := d.r.ReadCount()
			if err != nil {
				return newError(0, err)
			}
			sv := reflect.NewAt(t, p).Elem()
			if n < 0 {
				sv.SetZero()
				return nil
			}
			if err := d.count(off, n, minBits); err != nil {
				return err
			}
			if err := d.enter(); err != nil {
				return err
			}
			defer func() { d.depth-- }()
			oc := elem.object
			plain := oc != nil && oc.fields != nil // objects of a plain struct
			var zero reflect.Type                  // set when the elements are not zeroed
			if sv.Cap() >= n && !sv.IsNil() {
				sv.SetLen(n)
				if plain && oc.covered {
					// Decoding overwrites every element but the null ones, which
					// decodeStructs zeroes.
					zero = et
				} else {
					sv.Clear()
				}
			} else {
				if err := d.allocObject(off, n*int(size)); err != nil {
					return err
				}
				// Not reflect.MakeSlice, which allocates a slice header besides the elements
				// (as much again as the elements of a slice of empty slices): Grow makes
				// the elements only, zeroed, in place. An empty slice allocates nothing.
				*(*sliceHeader)(p) = sliceHeader{data: uptr(&zeroBase)}
				if n > 0 {
					*(*sliceHeader)(p) = sliceHeader{}
					sv.Grow(n)
					sv.SetLen(n)
				}
			}
			data := (*sliceHeader)(p).data
			if plain {
				// The null bits and the fields inline; the elements are one level deeper than
				// the slice.
				if err := d.enter(); err != nil {
					return err
				}
				if i, err := decodeStructs(d, oc.fields, data, n, size, true, zero); err != nil {
					return withIndex(err, i)
				}
				d.depth--
				return nil
			}
			for i := range n {
				if err := elem.dec(d, addPtr(data, uintptr(i)*size)); err != nil {
					return withIndex(err, i)
				}
			}
			return nil
		},
	}
}

// mapCodec writes a string-keyed map: its count (-1 for nil), then key and value per entry, in
// sorted key order.
func mapCodec(t reflect.Type, elem *codec) *codec {
	kt, et := t.Key(), t.Elem()
	base, entry := mapCost(kt, et)
	minBits := 6 + elem.minBits
	return &codec{
		minBits: 6,
		enc: func(e *encoder, p uptr) error {
			m := reflect.NewAt(t, p).Elem()
			if m.IsNil() {
				e.w.WriteCount(-1)
				return nil
			}
			e.w.WriteCount(m.Len())
			keys := e.keys[:0]
			iter := m.MapRange()
			for iter.Next() {
				keys = append(keys, iter.Key().String())
			}
			slices.Sort(keys)
			tmp := reflect.New(et).Elem()
			kv := reflect.New(kt).Elem()
			for _, k := range keys {
				e.w.WriteString(k)
				kv.SetString(k)
				tmp.Set(m.MapIndex(kv))
				if err := elem.enc(e, tmp.Addr().UnsafePointer()); err != nil {
					return withKey(err, k)
				}
			}
			e.keys = keys[:0]
			return nil
		},
		dec: func(d *decoder, p uptr) error {
			off := d.r.Offset()
			n, err := d.r.ReadCount()
			if err != nil {
				return newError(0, err)
			}
			m := reflect.NewAt(t, p).Elem()
			if n < 0 {
				m.SetZero()
				return nil
			}
			if err := d.count(off, n, minBits); err != nil {
				return err
			}
			if err := d.allocObject(off, base); err != nil {
				return err
			}
			if err := d.enter(); err != nil {
				return err
			}
			defer func() { d.depth-- }()
			// The map grows with the distinct keys decoded, each charged when it is added:
			// a count of n repeated keys makes a map of one entry, not of n.
			nm := reflect.MakeMap(t)
			kv := reflect.New(kt).Elem()
			tmp := reflect.New(et).Elem()
			for range n {
				koff := d.r.Offset()
				kb, err := d.r.ReadBytesView()
				if err != nil {
					return newError(0, err)
				}
				if err := d.alloc(koff, len(kb)); err != nil {
					return err
				}
				k := d.string(kb, uint(d.r.Remaining()))
				tmp.SetZero()
				if err := elem.dec(d, tmp.Addr().UnsafePointer()); err != nil {
					return withKey(err, k)
				}
				kv.SetString(k)
				before := nm.Len()
				nm.SetMapIndex(kv, tmp) // a repeated key: the last value wins, as in the reference
				if nm.Len() != before {
					if err := d.alloc(koff, entry); err != nil {
						return err
					}
				}
			}
			m.Set(nm)
			return nil
		},
	}
}

// mapCost returns what decoding a map with key type kt and element type et allocates: base
// for the map (its header, its first group of slots and the decoder's two scratch values),
// and entry for each entry, which covers the map's growth: the tables that it leaves behind
// as it doubles, and the slots that a table keeps free (Go's maps allocate up to about 5×
// the size of their slots in all while they grow to a number of entries). A key or element
// larger than 128 bytes is stored apart, in an allocation of its own.
func mapCost(kt, et reflect.Type) (base, entry int) {
	ks, es := int(kt.Size()), int(et.Size())
	slot := 0
	for _, s := range []int{ks, es} {
		if s > 128 {
			slot += 8
			entry += s
		} else {
			slot += s
		}
	}
	entry += 6 * (slot + 1)
	base = 64 + 8*(slot+1) + ks + es
	return base, entry
}
