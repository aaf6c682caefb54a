package bitproto

import (
	"encoding/binary"
	"github.com/gamewire/gamewire/internal/bitwin"
	"math"
	"reflect"
	"time"
	"unsafe"

	"github.com/gamewire/gamewire/bitstream"
)

// The struct fields of the common leaf types (the ops other than opCall) are decoded from a
// window of up to 64 input bits in local variables rather than through the bitstream.Reader: by
// scan for decodeStructs (the fields of a struct, and the elements of a slice of structs), and by
// decodeFlat for a top-level struct of leaf fields. scan makes no calls, so that the compiler
// keeps the window in registers, and stops at whatever it does not handle: a string that does not
// fit the free part of the string chunk or is longer than 16 bytes, a field within the last 8
// bytes of the input, a 64-bit integer longer than 57 bits, a negative length, a length beyond
// the input, the allocation limit, a field that is not a leaf, a null object. decodeStructs takes
// it from there through the reader, from the field's first bit, so that the errors and the
// reader's final position are those of the reader's methods. decodeFlat gives up on anything
// unusual instead, and the decode starts over through the reader.

// decodeStructs decodes n structs described by fields, the first at base and the others size
// bytes apart, and returns the index of the struct that failed. With objects set every struct is
// an object: a null bit, then its fields. A null object is zeroed when zero (the struct type) is
// not nil, and otherwise left alone, for memory the caller has zeroed.
func decodeStructs(d *decoder, fields []field, base unsafe.Pointer, n int, size uintptr, objects bool, zero reflect.Type) (int, error) {
	// The fields one by one: a composite literal would be built and then copied.
	var job scanJob
	job.buf, job.fields, job.base, job.n, job.size, job.h = d.buf, fields, base, n, size, &d.heap
	if objects {
		job.first = -1
	}
	var x uint64
	var avail uint
	wend := uint(d.r.Offset())
	i, j := 0, job.first
	for {
		var stop int
		x, avail, wend, i, j, stop = job.scan(x, avail, wend, i, j)
		switch stop {
		case scanDone:
			d.seek(wend - avail)
			return n, nil
		case scanNullBit:
			d.seek(wend - avail)
			_, err := d.r.ReadNull()
			return i, newError(0, err)
		case scanNull:
			if zero != nil {
				reflect.NewAt(zero, unsafe.Add(base, uintptr(i)*size)).Elem().SetZero()
			}
			i, j = i+1, job.first
		case scanField:
			f := &fields[j]
			fp := unsafe.Add(base, uintptr(i)*size+f.offset)
			next, ok := d.heap.stringAt(d.buf, f, fp, x, avail, wend)
			if !ok {
				d.seek(wend - avail)
				if err := d.field(f, fp); err != nil {
					return i, err
				}
				next = uint(d.r.Offset())
			}
			wend, avail, j = next, 0, j+1
		}
	}
}

// decodeFlat decodes the struct at p, whose fields are all leaves, from bit offset pos of buf
// and returns the offset after it, without a reader: it is the fast path of a top-level decode,
// scan for a single struct. The struct's strings go to h. It reports false when it meets
// anything that needs the reader, errors included; the struct is then partly decoded and must be
// decoded again.
func decodeFlat(buf []byte, pos uint, fields []field, p unsafe.Pointer, h *heap) (uint, bool) {
	// x holds the avail input bits before bit offset wend, left-aligned.
	var x uint64
	var avail uint
	wend := pos
	for j := range fields {
		f := &fields[j]
		if avail < uint(f.need) {
			var ok bool
			if x, avail, wend, ok = bitwin.Window(buf, wend-avail); !ok {
				if x, avail, wend, ok = bitwin.Tail(buf, wend); !ok {
					return 0, false
				}
			}
		}
		// The window holds the f.need bits the case may read, unless it is the end of the input,
		// which the cases check.
		fp := unsafe.Add(p, f.offset)
		switch f.op {
		case opBool:
			if avail >= 1 {
				*(*bool)(fp) = int64(x) < 0
				x <<= 1
				avail--
				continue
			}
		case opByte:
			if avail >= 8 {
				*(*byte)(fp) = byte(x >> 56)
				x <<= 8
				avail -= 8
				continue
			}
		case opInt16:
			if hdr, vb := bitwin.FormOf(x, 2); hdr+vb <= avail {
				*(*int16)(fp) = int16(int64(x<<(hdr&63)) >> ((64 - vb) & 63))
				x <<= (hdr + vb) & 63
				avail -= hdr + vb
				continue
			}
		case opInt32:
			if v, n := bitwin.Int32Form(x); n <= avail {
				*(*int32)(fp) = v
				x <<= n & 63
				avail -= n
				continue
			}
		case opInt64:
			// The forms longer than 57 bits take 65 bits or more, more than a window.
			if hdr, vb := bitwin.FormOf(x, 8); hdr+vb <= avail {
				*(*int64)(fp) = int64(x<<(hdr&63)) >> ((64 - vb) & 63)
				x <<= (hdr + vb) & 63
				avail -= hdr + vb
				continue
			}
		case opFloat32:
			if avail >= 32 {
				*(*float32)(fp) = math.Float32frombits(uint32(x >> 32))
				x <<= 32
				avail -= 32
				continue
			}
		case opFloat64:
			if pos := wend - avail; pos>>3+9 <= uint(len(buf)) {
				*(*float64)(fp) = math.Float64frombits(bits64(buf, pos))
				wend, avail = pos+64, 0
				continue
			} else if v, ok := uint64At(buf, pos); ok {
				*(*float64)(fp) = math.Float64frombits(v)
				wend, avail = pos+64, 0
				continue
			}
		case opDate:
			if avail == 0 {
				break
			}
			if int64(x) < 0 { // null
				*(*time.Time)(fp) = time.Time{}
				x <<= 1
				avail--
				continue
			}
			if pos := wend - avail + 1; pos>>3+9 <= uint(len(buf)) {
				*(*time.Time)(fp) = time.Unix(bitstream.DateUnix(int64(bits64(buf, pos))), 0).UTC()
				wend, avail = pos+64, 0
				continue
			} else if v, ok := uint64At(buf, pos); ok {
				*(*time.Time)(fp) = time.Unix(bitstream.DateUnix(int64(v)), 0).UTC()
				wend, avail = pos+64, 0
				continue
			}
		case opString:
			l32, size := bitwin.Int32Form(x)
			if size > avail {
				break
			}
			l := int64(l32)
			if l == 0 || l == -1 {
				*(*string)(fp) = ""
				x <<= size & 63
				avail -= size
				continue
			}
			s := (wend - avail + size + 7) >> 3 // the first byte: within buf
			if l > 0 && l <= int64(uint(len(buf))-s) && int(l) <= h.budget {
				n := int(l)
				h.budget -= n
				end := s + uint(n)
				switch {
				case !h.keep && uint(len(buf))-end < 8 && n > len(h.strs)-h.nstrs:
					// The last string of the input, and the chunk has no room for it: what
					// h.string does, without the call.
					*(*string)(fp) = string(buf[s:end])
					if j == len(fields)-1 {
						// The last field too, as in most bodies that end with a string:
						// returning here saves reloading the loop's state after the call.
						return end * 8, true
					}
				case n <= 16 && n <= len(h.strs)-h.nstrs:
					dst := h.strs[h.nstrs:]
					copyShort(dst, buf[s:], n)
					h.nstrs += n
					*(*string)(fp) = unsafe.String(&dst[0], n)
				default:
					*(*string)(fp) = h.string(buf[s:end], (uint(len(buf))-end)*8)
				}
				wend, avail = end*8, 0
				continue
			}
		}
		return 0, false
	}
	return wend - avail, true
}

// A scanJob is what scan decodes: n structs described by fields, the first at base and the
// others size bytes apart, from buf, with strings charged to h. first is the field index a
// struct starts at: -1 for objects, whose null bit comes first.
type scanJob struct {
	buf    []byte
	fields []field
	base   unsafe.Pointer
	n      int
	size   uintptr
	first  int
	h      *heap
}

// The reasons scan stops.
const (
	scanDone    = iota // all structs are decoded
	scanField          // field j of struct i is for the caller
	scanNull           // struct i is a null object (its null bit is read)
	scanNullBit        // the null bit of struct i is beyond the end of the input
)

// scan decodes the job's leaf fields from field j (-1: the null bit) of struct i on, at bit
// offset wend-avail, with x holding the avail input bits before wend, left-aligned, until it
// meets something it does not handle (see above). It returns where it stopped, in the same
// terms, and why.
func (job *scanJob) scan(x uint64, avail, wend uint, i, j int) (uint64, uint, uint, int, int, int) {
	fields := job.fields
	for ; i < job.n; i, j = i+1, job.first {
		p := unsafe.Add(job.base, uintptr(i)*job.size)
		if j < 0 {
			if avail == 0 {
				var ok bool
				if x, avail, wend, ok = bitwin.Window(job.buf, wend); !ok {
					if x, avail, wend, ok = bitwin.Tail(job.buf, wend); !ok {
						return x, avail, wend, i, j, scanNullBit
					}
				}
			}
			null := int64(x) < 0
			x <<= 1
			avail--
			j = 0
			if null {
				return x, avail, wend, i, j, scanNull
			}
		}
		for ; j < len(fields); j++ {
			f := &fields[j]
			if avail < uint(f.need) {
				var ok bool
				if x, avail, wend, ok = bitwin.Window(job.buf, wend-avail); !ok {
					return x, avail, wend, i, j, scanField
				}
			}
			fp := unsafe.Add(p, f.offset)
			// The window holds the f.need bits the case may read. Shift counts are masked,
			// which changes nothing but spares the compiler's checks for counts of 64 and more.
			switch f.op {
			case opBool:
				*(*bool)(fp) = int64(x) < 0
				x <<= 1
				avail--
				continue
			case opByte:
				*(*byte)(fp) = byte(x >> 56)
				x <<= 8
				avail -= 8
				continue
			case opInt16:
				hdr, vb := bitwin.FormOf(x, 2)
				*(*int16)(fp) = int16(int64(x<<(hdr&63)) >> ((64 - vb) & 63))
				x <<= (hdr + vb) & 63
				avail -= hdr + vb
				continue
			case opInt32:
				v, n := bitwin.Int32Form(x)
				*(*int32)(fp) = v
				x <<= n & 63
				avail -= n
				continue
			case opInt64:
				if hdr, vb := bitwin.FormOf(x, 8); hdr+vb <= 57 {
					*(*int64)(fp) = int64(x<<(hdr&63)) >> ((64 - vb) & 63)
					x <<= (hdr + vb) & 63
					avail -= hdr + vb
					continue
				}
			case opFloat32:
				*(*float32)(fp) = math.Float32frombits(uint32(x >> 32))
				x <<= 32
				avail -= 32
				continue
			case opFloat64:
				// Within the last 9 bytes of the input, the reader reads it.
				if pos := wend - avail; pos>>3+9 <= uint(len(job.buf)) {
					*(*float64)(fp) = math.Float64frombits(bits64(job.buf, pos))
					wend, avail = pos+64, 0
					continue
				}
			case opDate:
				if int64(x) < 0 { // null
					*(*time.Time)(fp) = time.Time{}
					x <<= 1
					avail--
					continue
				}
				if pos := wend - avail + 1; pos>>3+9 <= uint(len(job.buf)) {
					*(*time.Time)(fp) = time.Unix(bitstream.DateUnix(int64(bits64(job.buf, pos))), 0).UTC()
					wend, avail = pos+64, 0
					continue
				}
			case opString:
				l32, size := bitwin.Int32Form(x)
				l := int64(l32)
				if l == 0 || l == -1 {
					*(*string)(fp) = ""
					x <<= size & 63
					avail -= size
					continue
				}
				// A short string that fits the free part of the chunk, copied inline.
				s := (wend - avail + size + 7) >> 3 // the first byte: within buf
				if l > 0 && l <= 16 && l <= int64(uint(len(job.buf))-s) && int(l) <= job.h.budget && int(l) <= len(job.h.strs)-job.h.nstrs {
					dst := job.h.strs[job.h.nstrs:]
					copyShort(dst, job.buf[s:], int(l))
					*(*string)(fp) = unsafe.String(&dst[0], int(l))
					job.h.nstrs += int(l)
					job.h.budget -= int(l)
					wend, avail = (s+uint(l))*8, 0
					continue
				}
			}
			return x, avail, wend, i, j, scanField
		}
	}
	return x, avail, wend, i, j, scanDone
}

// stringAt decodes the string field f where scan stopped (the window x of avail bits before
// wend) into fp, for the strings scan does not copy, and returns the offset after it. It reports
// false, having changed nothing, when f is not a string or the string is not one with its
// length in the window, all its bytes within buf and within the allocation limit.
func (h *heap) stringAt(buf []byte, f *field, fp unsafe.Pointer, x uint64, avail, wend uint) (uint, bool) {
	if f.op != opString {
		return 0, false
	}
	hdr, vb := bitwin.FormOf(x, 4)
	if hdr+vb > avail {
		return 0, false
	}
	l := int64(x<<(hdr&63)) >> ((64 - vb) & 63)
	s := (wend - avail + hdr + vb + 7) >> 3 // the first byte, at the next byte boundary
	if l <= 0 || s > uint(len(buf)) || l > int64(uint(len(buf))-s) || l > int64(h.budget) {
		return 0, false
	}
	n := int(l)
	h.budget -= n
	end := s + uint(n)
	*(*string)(fp) = h.string(buf[s:end], (uint(len(buf))-end)*8)
	return end * 8, true
}

// copyShort copies the first n bytes of src to dst, 1 ≤ n ≤ 16, with loads and stores that
// may overlap, without a call.
func copyShort(dst, src []byte, n int) {
	if n >= 8 {
		binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
		binary.LittleEndian.PutUint64(dst[n-8:], binary.LittleEndian.Uint64(src[n-8:]))
		return
	}
	if n >= 4 {
		binary.LittleEndian.PutUint32(dst, binary.LittleEndian.Uint32(src))
		binary.LittleEndian.PutUint32(dst[n-4:], binary.LittleEndian.Uint32(src[n-4:]))
		return
	}
	for i := range n {
		dst[i] = src[i]
	}
}

// bits64 returns the 64 input bits at bit offset pos, which is at least 9 bytes before the end of
// buf. At a byte boundary the ninth byte is shifted out entirely.
func bits64(buf []byte, pos uint) uint64 {
	bi := pos >> 3
	return binary.BigEndian.Uint64(buf[bi:bi+8])<<(pos&7) | uint64(buf[bi+8])>>(8-pos&7)
}

// uint64At returns the 64 input bits at bit offset pos, or false when fewer than 64 bits are
// left.
func uint64At(buf []byte, pos uint) (uint64, bool) {
	if pos>>3+9 <= uint(len(buf)) {
		return bits64(buf, pos), true
	}
	x, avail, _, _ := bitwin.Tail(buf, pos)
	if avail < 64 {
		return 0, false
	}
	return x, true
}

// field decodes one field through the reader.
func (d *decoder) field(f *field, fp unsafe.Pointer) error {
	if f.op == opCall {
		if err := f.c.dec(d, fp); err != nil {
			return withField(err, f.name)
		}
		return nil
	}
	if err := d.heap.readLeaf(d.r, f, fp); err != nil {
		if errPath(err) == nil {
			err = newError(0, err)
		}
		return withField(err, f.name)
	}
	return nil
}

// readLeaf reads the leaf field f (f.op is not opCall) into fp with r, and its string into h's
// chunk. Errors are the reader's, or an *Error for a string beyond the allocation limit.
func (h *heap) readLeaf(r *bitstream.Reader, f *field, fp unsafe.Pointer) error {
	var err error
	switch f.op {
	case opBool:
		*(*bool)(fp), err = r.ReadBool()
	case opByte:
		*(*byte)(fp), err = r.ReadByte()
	case opInt16:
		*(*int16)(fp), err = r.ReadInt16()
	case opInt32:
		*(*int32)(fp), err = r.ReadInt32()
	case opInt64:
		*(*int64)(fp), err = r.ReadInt64()
	case opFloat32:
		*(*float32)(fp), err = r.ReadFloat32()
	case opFloat64:
		*(*float64)(fp), err = r.ReadFloat64()
	case opDate:
		*(*time.Time)(fp), err = r.ReadDate()
	case opString:
		off := r.Offset()
		var b []byte
		if b, err = r.ReadBytesView(); err == nil {
			if err = h.alloc(off, len(b)); err == nil {
				*(*string)(fp) = h.string(b, uint(r.Remaining()))
			}
		}
	}
	return err
}

// seek moves the reader to pos, a position within its input.
func (d *decoder) seek(pos uint) { _ = d.r.Seek(int(pos)) }
