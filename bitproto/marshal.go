package bitproto

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/gamewire/gamewire/bitstream"
)

// Decoding limits used when [DecodeOptions] leaves them at zero.
const (
	// DefaultMaxDepth is the default nesting limit: objects, pointers, slices and maps each count
	// one level. A recursive type such as a property tree whose nodes hold a map of slices of
	// nodes uses three levels per tree level.
	DefaultMaxDepth = 100
	// DefaultMaxAlloc is the default limit, in bytes, on the strings, byte arrays, slices, maps
	// and pointees that one decode allocates. Every count is also checked against the remaining
	// input first, so a short input cannot claim a large allocation; this limit caps what a
	// large input of many small (for example null) elements can inflate to.
	DefaultMaxAlloc = 64 << 20
)

// DecodeOptions configures decoding. The zero value uses the defaults.
type DecodeOptions struct {
	// MaxDepth is the nesting limit (0: DefaultMaxDepth).
	MaxDepth int
	// MaxAlloc limits the bytes allocated by one decode (0: DefaultMaxAlloc; negative: no limit
	// beyond the check of every count against the remaining input).
	MaxAlloc int
}

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
	if isNil(v) {
		w.WriteNull(true)
		return nil
	}
	w.WriteNull(false)
	return Write(w, v)
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
		return &Error{BitOffset: start, Err: fmt.Errorf("%w: Marshal(nil)", ErrNil)}
	}
	var p unsafe.Pointer
	if t.Kind() == reflect.Pointer {
		rv := reflect.ValueOf(v)
		if rv.IsNil() {
			return &Error{BitOffset: start, Err: fmt.Errorf("%w: nil %s", ErrNil, t)}
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
// [DecodeOptions]. Bits left after the value are ignored, as in the reference. Fields that are
// absent from a null object, and the fields of v the wire form does not mention, are left zero;
// slices are reused when their capacity suffices.
func Unmarshal(data []byte, v any) error {
	return DecodeOptions{}.Unmarshal(data, v)
}

// Read decodes a value from r into v with the default [DecodeOptions] (see [Unmarshal]). The
// reader is left after the value.
func Read(r *bitstream.Reader, v any) error {
	return DecodeOptions{}.Read(r, v)
}

// ReadObject reads an object's null bit and, when it is 0, the value into v. It reports whether
// the object was null; v is not modified then.
func ReadObject(r *bitstream.Reader, v any) (null bool, err error) {
	return DecodeOptions{}.ReadObject(r, v)
}

// Unmarshal is [Unmarshal] with options o.
func (o DecodeOptions) Unmarshal(data []byte, v any) error {
	st := decPool.Get().(*decState)
	st.r.Reset(data)
	err := o.read(&st.d, &st.r, v)
	st.r.Reset(nil)
	st.d.release()
	decPool.Put(st)
	return err
}

// DecodeAt decodes a value that starts at bit offset off of data into v, with the default
// [DecodeOptions], and returns the offset of the bit after it. It is [Read] for a value that is
// not byte-aligned, such as a message body after its header, without a Reader to manage.
func DecodeAt(data []byte, off int, v any) (int, error) {
	return DecodeOptions{}.DecodeAt(data, off, v)
}

// DecodeAt is [DecodeAt] with options o.
func (o DecodeOptions) DecodeAt(data []byte, off int, v any) (int, error) {
	st := decPool.Get().(*decState)
	st.r.Reset(data)
	err := st.r.Seek(off)
	if err == nil {
		err = o.read(&st.d, &st.r, v)
	} else {
		err = newError(off, err)
	}
	next := st.r.Offset()
	st.r.Reset(nil)
	st.d.release()
	decPool.Put(st)
	return next, err
}

// Read is [Read] with options o.
func (o DecodeOptions) Read(r *bitstream.Reader, v any) error {
	st := decPool.Get().(*decState)
	err := o.read(&st.d, r, v)
	st.d.release()
	decPool.Put(st)
	return err
}

// ReadObject is [ReadObject] with options o.
func (o DecodeOptions) ReadObject(r *bitstream.Reader, v any) (bool, error) {
	null, err := r.ReadNull()
	if err != nil {
		return false, newError(0, err)
	}
	if null {
		return true, nil
	}
	return false, o.Read(r, v)
}

func (o DecodeOptions) read(d *decoder, r *bitstream.Reader, v any) error {
	*d = decoder{r: r, maxDepth: o.MaxDepth, budget: o.MaxAlloc}
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth
	}
	if d.budget == 0 {
		d.budget = DefaultMaxAlloc
	} else if d.budget < 0 {
		d.budget = int(^uint(0) >> 1)
	}
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return &Error{BitOffset: r.Offset(), Err: fmt.Errorf("%w: Unmarshal(%T)", ErrNil, v)}
	}
	p := reflect.ValueOf(v).UnsafePointer()
	if p == nil {
		return &Error{BitOffset: r.Offset(), Err: fmt.Errorf("%w: Unmarshal(%T)", ErrNil, v)}
	}
	// A pointee with its own UnmarshalBits gets a custom content codec.
	c := cachedCodec(t.Elem())
	if c.err != nil {
		return c.err
	}
	return c.dec(d, p)
}

// release drops the decoder's references before it goes back to the pool.
func (d *decoder) release() { *d = decoder{} }

// stringChunk is the most string data one arena chunk holds, unless a single string is longer.
const stringChunk = 16 << 10

// string returns b as a string. The strings of one decode are copied into shared chunks, so
// that decoding many short strings costs one allocation per chunk instead of one per string; the
// chunks are never written again once a string points into them. A chunk is at most
// stringChunk bytes (or one string) and never larger than what is left of the input, so the
// memory a string keeps alive is bounded by its message.
func (d *decoder) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > len(d.strs) {
		n := max(len(b), min(stringChunk, len(b)+d.r.Remaining()/8))
		d.strs = make([]byte, n)
	}
	n := copy(d.strs, b)
	s := unsafe.String(&d.strs[0], n)
	d.strs = d.strs[n:]
	return s
}

// enter descends one nesting level.
func (d *decoder) enter() error {
	if d.depth >= d.maxDepth {
		return &Error{BitOffset: d.r.Offset(), Err: fmt.Errorf("%w (%d)", ErrDepth, d.maxDepth)}
	}
	d.depth++
	return nil
}

// alloc charges n bytes to the allocation budget.
func (d *decoder) alloc(off, n int) error {
	if n > d.budget {
		return &Error{BitOffset: off, Err: fmt.Errorf("%w: %d more bytes, %d left", ErrAllocLimit, n, d.budget)}
	}
	d.budget -= n
	return nil
}

// count checks that n elements of at least minBits bits each fit in the rest of the input. On
// error the reader is moved back to off, the start of the count.
func (d *decoder) count(off, n, minBits int) error {
	if left := d.r.Remaining(); n > left/minBits {
		_ = d.r.Seek(off)
		return &Error{BitOffset: off, Err: fmt.Errorf("%w: %d elements of at least %d bits, %d bits left", bitstream.ErrTooLong, n, minBits, left)}
	}
	return nil
}
