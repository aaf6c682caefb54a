package bitproto

import (
	"fmt"
	"math"
	"reflect"
	"sync"

	"github.com/gamewire/gamewire/bitstream"
)

// Decoding limits used when [DecodeOptions] leaves them at zero.
const (
	// DefaultMaxDepth is the default nesting limit: objects, pointers, slices and maps each count
	// one level. A recursive type such as a property tree whose nodes hold a map of slices of
	// nodes uses three levels per tree level.
	DefaultMaxDepth = 100
	// DefaultMaxAllocFactor is the default limit on the bytes one decode allocates per byte
	// of its input: 64, 8 bytes per input bit, what a slice of nil pointers takes. With
	// DefaultMaxAllocSlack it bounds what any input can inflate to, whatever the Go type.
	DefaultMaxAllocFactor = 64
	// DefaultMaxAllocSlack is added to the default limit, so that short inputs can fill
	// small values whatever their length: a map of one entry takes a few hundred bytes, from
	// two bytes of input, and a tree of nested maps a few hundred times its input.
	DefaultMaxAllocSlack = 64 << 10
	// DefaultMaxAllocCeiling caps the default limit, in bytes, on the strings, byte arrays,
	// slices, maps and pointees that one decode allocates. Every count is also checked against
	// the remaining input first, so a short input cannot claim a large allocation; this caps what
	// a large input of many small (for example null) elements can inflate to.
	DefaultMaxAllocCeiling = 64 << 20
)

// NoLimit, as the value of a limit, means none; 0 means the limit's default.
const NoLimit = -1

// DecodeOptions configures decoding. The zero value uses the defaults. Options are checked
// once and turned into a [DecodeMode], which decodes.
type DecodeOptions struct {
	// MaxDepth is the nesting limit (0: DefaultMaxDepth). With NoLimit, only the input bounds
	// nesting (a level takes at least a bit), and hostile input can recurse until Go's stack
	// limit ends the program: use it for trusted input only.
	MaxDepth int
	// MaxAllocBytes limits the bytes allocated by one decode. 0 means DefaultMaxAllocFactor
	// bytes per byte of the input (from the byte of the decode's first bit to the end of the
	// data) plus DefaultMaxAllocSlack, and at most DefaultMaxAllocCeiling; NoLimit means no limit
	// beyond the check of every count against the remaining input.
	MaxAllocBytes int
}

// DecodeMode decodes with options checked once by [DecodeOptions.DecodeMode]. It is immutable and
// safe for concurrent use. The zero value decodes with the default options, as the
// package-level functions do.
type DecodeMode struct {
	o DecodeOptions
}

// DecodeMode checks o and returns the mode that decodes with it: a negative limit other than
// NoLimit fails.
func (o DecodeOptions) DecodeMode() (DecodeMode, error) {
	if o.MaxDepth < NoLimit {
		return DecodeMode{}, fmt.Errorf("bitproto: DecodeOptions.MaxDepth is %d: want a positive limit, 0 (the default) or NoLimit", o.MaxDepth)
	}
	if o.MaxAllocBytes < NoLimit {
		return DecodeMode{}, fmt.Errorf("bitproto: DecodeOptions.MaxAllocBytes is %d: want a positive limit, 0 (the default) or NoLimit", o.MaxAllocBytes)
	}
	return DecodeMode{o}, nil
}

// Options returns the options m decodes with.
func (m DecodeMode) Options() DecodeOptions { return m.o }

type encState struct {
	e encoder
	w bitstream.Writer
}

type decState struct {
	d decoder
	r bitstream.Reader
}

var (
	encPool = sync.Pool{New: func() any { return new(encState) }}
	decPool = sync.Pool{New: func() any { return new(decState) }}
)

// Marshal returns the wire form of v (see [Append]).
func Marshal(v any) ([]byte, error) {
	return Append(nil, v)
}

// Append appends the wire form of v to b. v is a struct, a pointer to a struct, or any other
// value the package maps; a struct's fields are written without a leading null bit (see
// [WriteObject] for that). The last byte is padded with zero bits. Passing a pointer avoids a
// copy: Append(buf[:0], &msg) does not allocate when buf is large enough.
func Append(b []byte, v any) ([]byte, error) {
	st := encPool.Get().(*encState)
	st.w.Reset(b)
	st.e.w = &st.w
	err := encode(&st.e, v)
	out := st.w.Bytes()
	st.w.Reset(nil)
	st.e.w = nil
	encPool.Put(st)
	if err != nil {
		return b, err
	}
	return out, nil
}

// Write writes the wire form of v to w, at w's current bit position (see [Append]).
func Write(w *bitstream.Writer, v any) error {
	if fields, p := flatSource(v); fields != nil {
		_ = encodeFields(nil, w, fields, p) // every field a leaf: no error, no encoder
		return writerErr(w)
	}
	st := encPool.Get().(*encState)
	st.e.w = w
	err := encode(&st.e, v)
	st.e.w = nil
	encPool.Put(st)
	return err
}

// WriteObject writes v as an object: a null bit, 1 when v is nil or a nil pointer, else 0
// followed by v's wire form. This is how a GSF message writes its header and body.
func WriteObject(w *bitstream.Writer, v any) error {
	if fields, p := flatSource(v); fields != nil {
		w.WriteNull(false)
		_ = encodeFields(nil, w, fields, p) // every field a leaf: no error, no encoder
		return writerErr(w)
	}
	if isNil(v) {
		w.WriteNull(true)
		return nil
	}
	w.WriteNull(false)
	return Write(w, v)
}

// flatSource returns the fields of the struct v points to and the pointer, when v is a non-nil
// pointer to a struct of leaf fields (the usual message body): Write and WriteObject then write
// it without reflection or the encoder pool. Else it returns nil and nil, having added v's
// type to ptrCache when it is a pointer and its slot is free, so that the next value of the
// type takes the fast path (an encode never takes the slot of another type: two types that
// share a slot would allocate an entry at every encode).
func flatSource(v any) ([]field, uptr) {
	if fields, p := flatTarget(v); fields != nil {
		return fields, p
	}
	if ptrSlotFree(v) {
		ptrCodecMiss(v)
	}
	return nil, nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

func encode(e *encoder, v any) error {
	start := e.w.Len()
	// A type with its own MarshalBits gets a custom content codec.
	t := reflect.TypeOf(v)
	if t == nil {
		return encodeErr(start, fmt.Errorf("%w: Marshal(nil)", ErrNil))
	}
	var p uptr
	if t.Kind() == reflect.Pointer {
		rv := reflect.ValueOf(v)
		if rv.IsNil() {
			return encodeErr(start, fmt.Errorf("%w: nil %s", ErrNil, t))
		}
		t = t.Elem()
		p = rv.UnsafePointer()
	} else {
		pv := reflect.New(t)
		pv.Elem().Set(reflect.ValueOf(v))
		p = pv.UnsafePointer()
	}
	c := cachedCodec(t)
	if c.err != nil {
		return c.err
	}
	if err := c.enc(e, p); err != nil {
		return err
	}
	return writerErr(e.w)
}

func writerErr(w *bitstream.Writer) error {
	if err := w.Err(); err != nil {
		return newError(0, err)
	}
	return nil
}

// Unmarshal decodes data into v, which must be a non-nil pointer, with the default
// [DecodeMode]. Bits left after the value are ignored, as in the reference. Fields that are
// absent from a null object are zeroed. v is not zeroed first: decoding overwrites the fields the
// wire form has, and leaves the others (unexported fields, fields tagged "-") as they are, so
// that a value can be reused from one decode to the next, as a server's read loop does. Slices in
// v are reused when their capacity suffices (their struct elements are zeroed first, unless the
// wire form covers all their fields); maps and the pointees of nil pointers are allocated.
func Unmarshal(data []byte, v any) error {
	return DecodeMode{}.Unmarshal(data, v)
}

// Read decodes a value from r into v with the default [DecodeMode] (see [Unmarshal]). The
// reader is left after the value.
func Read(r *bitstream.Reader, v any) error {
	return DecodeMode{}.Read(r, v)
}

// ReadObject reads an object's null bit and, when it is 0, the value into v. It reports whether
// the object was null; v is not modified then.
func ReadObject(r *bitstream.Reader, v any) (null bool, err error) {
	return DecodeMode{}.ReadObject(r, v)
}

// Unmarshal is [Unmarshal] with the options of m.
func (m DecodeMode) Unmarshal(data []byte, v any) error {
	_, err := m.decode(nil, data, 0, nil, v)
	return err
}

// DecodeAt decodes a value that starts at bit offset off of data into v, with the default
// [DecodeMode], and returns the offset of the bit after it. It is [Read] for a value that is
// not byte-aligned, such as a message body after its header, without a Reader to manage.
func DecodeAt(data []byte, off int, v any) (int, error) {
	// DecodeMode.DecodeAt with the default options as constants: the path of every message
	// body decoded into a new value.
	if fields, p := flatTarget(v); fields != nil && uint(off) <= uint(len(data))*8 {
		// DecodeMode{}.budget(n), without the multiplication.
		h := heap{budget: DefaultMaxAllocCeiling}
		if n := len(data) - off>>3; n < (DefaultMaxAllocCeiling-DefaultMaxAllocSlack)/DefaultMaxAllocFactor {
			h.budget = n*DefaultMaxAllocFactor + DefaultMaxAllocSlack
		}
		if next, ok := decodeFlat(data, uint(off), fields, p, &h); ok {
			return int(next), nil
		}
	}
	return DecodeMode{}.decodeReader(nil, data, off, nil, v)
}

// DecodeAt is [DecodeAt] with the options of m.
func (m DecodeMode) DecodeAt(data []byte, off int, v any) (int, error) {
	// decode's fast path, without a Decoder or a reader to serve: the path of every message
	// body decoded into a new value.
	if fields, p := flatTarget(v); fields != nil && uint(off) <= uint(len(data))*8 {
		h := heap{budget: m.budget(len(data) - off>>3)}
		if next, ok := decodeFlat(data, uint(off), fields, p, &h); ok {
			return int(next), nil
		}
	}
	return m.decodeReader(nil, data, off, nil, v)
}

// Read is [Read] with the options of m.
func (m DecodeMode) Read(r *bitstream.Reader, v any) error {
	_, err := m.decode(nil, r.Input(), r.Offset(), r, v)
	return err
}

// ReadObject is [ReadObject] with the options of m.
func (m DecodeMode) ReadObject(r *bitstream.Reader, v any) (bool, error) {
	null, err := r.ReadNull()
	if err != nil {
		return false, newError(0, err)
	}
	if null {
		return true, nil
	}
	return false, m.Read(r, v)
}

// A Decoder decodes like [DecodeMode], and keeps its string chunk from one decode to the
// next: the strings of many small values share chunks, so that decoding a message into a value
// whose slices, maps and pointers already exist usually allocates nothing at all, where
// [Unmarshal] allocates at least once for the strings of each decode. Chunks start small and
// grow to 16 KiB as they fill up.
//
// The price is memory that stays alive: a string keeps its whole chunk alive, which holds the
// strings of other, possibly many, decodes. Copy a string that is kept long after its message
// (strings.Clone), or use [Unmarshal], when that matters.
//
// The zero Decoder decodes with the default options. A Decoder is not safe for concurrent use;
// its copies share its chunk.
type Decoder struct {
	// Mode decodes every decode (the zero value: the default options).
	Mode DecodeMode

	h *heap // allocated on first use, so that copies share it
}

// Unmarshal is [Unmarshal] with the decoder's options and string chunk.
func (d *Decoder) Unmarshal(data []byte, v any) error {
	_, err := d.Mode.decode(d, data, 0, nil, v)
	return err
}

// DecodeAt is [DecodeAt] with the decoder's options and string chunk.
func (d *Decoder) DecodeAt(data []byte, off int, v any) (int, error) {
	// decode's fast path, repeated without its local heap.
	if fields, p := flatTarget(v); fields != nil && uint(off) <= uint(len(data))*8 {
		h := d.heap()
		h.budget = d.Mode.budget(len(data) - off>>3)
		if next, ok := decodeFlat(data, uint(off), fields, p, h); ok {
			return int(next), nil
		}
	}
	return d.Mode.decodeReader(d, data, off, nil, v)
}

// Read is [Read] with the decoder's options and string chunk.
func (d *Decoder) Read(r *bitstream.Reader, v any) error {
	_, err := d.Mode.decode(d, r.Input(), r.Offset(), r, v)
	return err
}

// decode decodes v from bit offset off of data and returns the offset after it. r is nil, or a
// reader over data at off, which is left after the value. The strings go to the chunk of dec,
// or when dec is nil to chunks of this decode.
func (m DecodeMode) decode(dec *Decoder, data []byte, off int, r *bitstream.Reader, v any) (int, error) {
	if fields, p := flatTarget(v); fields != nil && uint(off) <= uint(len(data))*8 {
		// A struct of leaf fields: decodeFlat, without a reader or the decoder pool. It gives up
		// on anything unusual, errors included, and the decode starts again through the reader.
		var local heap
		h := &local
		if dec != nil {
			h = dec.heap()
		}
		h.budget = m.budget(len(data) - off>>3)
		if next, ok := decodeFlat(data, uint(off), fields, p, h); ok {
			if r != nil {
				_ = r.Seek(int(next))
			}
			return int(next), nil
		}
	}
	return m.decodeReader(dec, data, off, r, v)
}

// decodeReader is decode through a reader.
func (m DecodeMode) decodeReader(dec *Decoder, data []byte, off int, r *bitstream.Reader, v any) (int, error) {
	st := decPool.Get().(*decState)
	if r == nil {
		st.r.Reset(data)
		if err := st.r.Seek(off); err != nil {
			st.r.Reset(nil)
			decPool.Put(st)
			return 0, newError(off, err)
		}
		r = &st.r
	}
	if dec != nil {
		st.d.heap = *dec.heap()
	}
	st.d.budget = m.budget(len(data) - off>>3)
	err := m.read(&st.d, r, v)
	if dec != nil {
		dec.h.strs, dec.h.nstrs = st.d.strs, st.d.nstrs
	}
	next := r.Offset()
	st.r.Reset(nil)
	st.d.release()
	decPool.Put(st)
	return next, err
}

// heap returns the decoder's heap, which it allocates on first use.
func (d *Decoder) heap() *heap {
	if d.h == nil {
		d.h = &heap{keep: true}
	}
	return d.h
}

// budget returns the allocation limit of one decode of an input of n bytes.
func (m DecodeMode) budget(n int) int {
	switch b := m.o.MaxAllocBytes; {
	case b > 0:
		return b
	case b < 0:
		return math.MaxInt
	}
	b := DefaultMaxAllocCeiling
	if n >= 0 && n < (DefaultMaxAllocCeiling-DefaultMaxAllocSlack)/DefaultMaxAllocFactor {
		b = n*DefaultMaxAllocFactor + DefaultMaxAllocSlack
	}
	return b
}

// read decodes v from r with d, whose heap is set.
func (m DecodeMode) read(d *decoder, r *bitstream.Reader, v any) error {
	d.r, d.buf, d.depth, d.maxDepth = r, r.Input(), 0, m.o.MaxDepth
	switch {
	case d.maxDepth == NoLimit:
		d.maxDepth = math.MaxInt
	case d.maxDepth <= 0:
		d.maxDepth = DefaultMaxDepth
	}
	// A pointee with its own UnmarshalBits gets a custom content codec.
	c, p := ptrCodec(v)
	if c == nil {
		c, p = ptrCodecMiss(v)
	}
	if c == nil || p == nil {
		return decodeErr(r.Offset(), fmt.Errorf("%w: Unmarshal(%T)", ErrNil, v))
	}
	if c.err != nil {
		return c.err
	}
	return c.dec(d, p)
}

// release drops the decoder's references before it goes back to the pool.
func (d *decoder) release() { *d = decoder{} }

// stringChunk is the most string data one arena chunk holds, unless a single string is longer.
const stringChunk = 16 << 10

// string returns b as a string; left is the number of input bits after b. The strings of one
// decode are copied into shared chunks, so that decoding many short strings costs one allocation
// per chunk instead of one per string; the bytes of a chunk are never written again once a
// string points to them. A chunk is at most stringChunk bytes (or one string) and never larger
// than what is left of the input, so the memory a string keeps alive is bounded by its message.
func (h *heap) string(b []byte, left uint) string {
	if len(b) == 0 {
		return ""
	}
	if !h.keep && len(b) > len(h.strs)-h.nstrs && left < 64 {
		// The last string of the input, and the chunk has no room for it: a chunk would hold
		// only this string (see room). A plain copy skips zeroing that chunk.
		return string(b)
	}
	dst := h.room(len(b), left)
	copy(dst[:len(b)], b)
	h.nstrs += len(b)
	return stringOf(&dst[0], len(b))
}

// room returns the free part of the string chunk, starting a new chunk when fewer than n bytes
// are free (left is the number of input bits after the string's bytes). The caller copies the
// string to its start and adds its length to h.nstrs. The chunks of a Decoder (h.keep) do not
// depend on the input: each is twice the size of the one before, from 256 bytes to stringChunk.
func (h *heap) room(n int, left uint) []byte {
	if n > len(h.strs)-h.nstrs {
		// The free part of the chunk left behind was allocated but never charged: charge it
		// now. (The budget may go below zero; the next charge then fails.)
		h.budget -= len(h.strs) - h.nstrs
		size := min(stringChunk, n+int(left/8))
		if h.keep {
			size = min(stringChunk, max(256, 2*len(h.strs)))
		}
		h.strs = make([]byte, max(n, size))
		h.nstrs = 0
	}
	return h.strs[h.nstrs:]
}

// enter descends one nesting level.
func (d *decoder) enter() error {
	if d.depth >= d.maxDepth {
		return decodeErr(d.r.Offset(), fmt.Errorf("%w (%d)", ErrTooDeep, d.maxDepth))
	}
	d.depth++
	return nil
}

// alloc charges n bytes to the allocation budget.
func (h *heap) alloc(off, n int) error {
	if n > h.budget {
		return decodeErr(off, fmt.Errorf("%w: %d more bytes, %d left", ErrAllocLimit, n, h.budget))
	}
	h.budget -= n
	return nil
}

// allocObject charges the allocation of n bytes of slice elements, a map or a pointee, which
// Go's allocator rounds up to its size classes (by up to a quarter for small sizes) or, beyond
// 32 KiB, to whole 8 KiB pages.
func (h *heap) allocObject(off, n int) error {
	switch {
	case n == 0:
	case n <= 16:
		n = 16
	case n <= 32<<10:
		n += n >> 2
	default:
		n = (n + 8<<10 - 1) &^ (8<<10 - 1)
	}
	return h.alloc(off, n)
}

// count checks that n elements of at least minBits bits each fit in the rest of the input. On
// error the reader is moved back to off, the start of the count.
func (d *decoder) count(off, n, minBits int) error {
	if left := d.r.Remaining(); n > left/minBits {
		_ = d.r.Seek(off)
		return decodeErr(off, fmt.Errorf("%w: %s of at least %s, %s left", bitstream.ErrTooLong, plural(n, "element"), plural(minBits, "bit"), plural(left, "bit")))
	}
	return nil
}
