package godot

import ()

// Decoding a large container creates many small values: strings, and interface values boxing an
// int64, a float64, a string or a Vector3. Allocating each one separately dominates the cost of
// decoding, so a decoder takes them from chunks instead: string bytes are copied into a shared
// byte arena, and boxed scalars live in typed slabs that the interfaces point into. A chunk is
// never written again once a value is handed out, which is what Go requires of the memory behind
// an interface or a string. Chunks grow from small to a few KiB, so a single small value does
// not pay for a big chunk, and a value kept alive pins at most one chunk.

const (
	firstChunk = 4
	maxChunk   = 256
	// arenaMax is the largest string copied into the byte arena; longer strings get their own
	// allocation so that they do not pin a chunk, nor a chunk pin them.
	arenaMax  = 256
	arenaSize = 8 << 10
)

// eface is the layout of an empty interface value.
type eface struct {
	typ  uptr
	data uptr
}

func typeOf(v any) uptr { return (*eface)(uptr(&v)).typ }

var (
	stringType  = typeOf("")
	int64Type   = typeOf(int64(0))
	float64Type = typeOf(float64(0))
	vector2Type = typeOf(Vector2{})
	vector3Type = typeOf(Vector3{})
	colorType   = typeOf(Color{})
	sliceType   = typeOf([]any(nil))
)

// box makes an interface value of dynamic type typ whose data is *p. The caller guarantees that
// *p is never written again.
func box(typ uptr, p uptr) any {
	var v any
	e := (*eface)(uptr(&v))
	e.typ, e.data = typ, p
	return v
}

// slab hands out stable slots for values of type T.
type slab[T any] struct{ buf []T }

func (s *slab[T]) put(v T) uptr {
	if len(s.buf) == cap(s.buf) {
		n := min(max(2*cap(s.buf), firstChunk), maxChunk)
		s.buf = make([]T, 0, n)
	}
	s.buf = append(s.buf, v)
	return uptr(&s.buf[len(s.buf)-1])
}

// allocator holds a decoder's chunks.
type allocator struct {
	bytes    []byte
	strings  slab[string]
	ints     slab[int64]
	floats   slab[float64]
	vectors2 slab[Vector2]
	vectors3 slab[Vector3]
	colors   slab[Color]
	slices   slab[[]any]
	dicts    slab[Dictionary]
	values   []any   // backing store for small Arrays
	entries  []Entry // backing store for small Dictionaries
}

// str returns a string holding a copy of b.
func (a *allocator) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaMax {
		return string(b)
	}
	if cap(a.bytes)-len(a.bytes) < len(b) {
		a.bytes = make([]byte, 0, grow(cap(a.bytes), len(b), 64, arenaSize))
	}
	off := len(a.bytes)
	a.bytes = append(a.bytes, b...)
	return stringOf(&a.bytes[off], len(b))
}

func (a *allocator) boxString(s string) any { return box(stringType, a.strings.put(s)) }
func (a *allocator) boxInt(v int64) any     { return box(int64Type, a.ints.put(v)) }
func (a *allocator) boxFloat(v float64) any { return box(float64Type, a.floats.put(v)) }

// grow returns the size of the next chunk after one of size last, for a request of n: double
// the last, between lo and hi, and at least n. Chunks start small so that decoding one small
// value allocates little, and grow so that a large container needs few chunks.
func grow(last, n, lo, hi int) int {
	return max(min(max(2*last, lo), hi), n)
}

// anys returns a zeroed []any of length n; small ones share a chunk.
func (a *allocator) anys(n int) []any {
	if n == 0 {
		return []any{}
	}
	if n > 64 {
		return make([]any, n)
	}
	if cap(a.values)-len(a.values) < n {
		a.values = make([]any, 0, grow(cap(a.values), n, 16, 512))
	}
	off := len(a.values)
	a.values = a.values[:off+n]
	return a.values[off : off+n : off+n]
}

// entryList returns an empty []Entry with capacity n; small ones share a chunk.
func (a *allocator) entryList(n int) []Entry {
	if n == 0 {
		return []Entry{}
	}
	if n > 32 {
		return make([]Entry, 0, n)
	}
	if cap(a.entries)-len(a.entries) < n {
		a.entries = make([]Entry, 0, grow(cap(a.entries), n, 8, 256))
	}
	off := len(a.entries)
	a.entries = a.entries[:off+n]
	return a.entries[off : off : off+n]
}

// cloneAs copies the n*size(T) bytes at the start of b into a new []T. The copy goes through
// append, which does not zero memory it is about to overwrite. T must hold no pointers, and b
// must hold the little-endian form of T (the caller checks the host's byte order).
func cloneAs[T any](b []byte, n int) []T {
	var zero T
	size := int(sizeOf(zero))
	if n == 0 {
		return []T{}
	}
	c := append([]byte(nil), b[:n*size]...)
	return sliceOf((*T)(uptr(sliceData(c))), n)
}

// hostLittle reports whether the host stores words little-endian, like the wire.
var hostLittle = func() bool {
	x := uint16(1)
	return *(*byte)(uptr(&x)) == 1
}()

// The allocation budget. A decoder charges every allocation it makes to dec.bytes before making
// it (the small boxes of scalars, whose slabs are bounded chunks, when the value is decoded), so
// that decoding one value never allocates more than DecodeOptions.MaxAllocBytes, plus the bounded chunks
// of the slabs and the arena. The charges round up to Go's size classes, so that what the budget
// counts is not less than what the runtime hands out.

// Defaults of DecodeOptions.MaxAllocBytes.
const (
	// DefaultMaxAllocFactor and DefaultMaxAllocSlack make the default allocation budget of a
	// decode: DefaultMaxAllocFactor bytes per byte of input, plus DefaultMaxAllocSlack.
	DefaultMaxAllocFactor = 24
	DefaultMaxAllocSlack  = 64 << 10
)

// maxBytes returns the allocation budget for decoding data with o.
func (o DecodeOptions) maxBytes(data []byte) int {
	if o.MaxAllocBytes > 0 {
		return o.MaxAllocBytes
	}
	return DefaultMaxAllocFactor*len(data) + DefaultMaxAllocSlack
}

// charge reserves n bytes of the allocation budget, and reports false (charging nothing) if
// fewer remain.
func (dec *decoder) charge(n int) bool {
	if n > dec.bytes || n < 0 {
		return false
	}
	dec.bytes -= n
	return true
}

// chargeN reserves n elements of size bytes each.
func (dec *decoder) chargeN(n, size int) bool {
	if n < 0 || size > 0 && n > dec.bytes/size {
		return false
	}
	return dec.charge(n * size)
}

// allocErr is the error of a charge that fails.
func (dec *decoder) allocErr(what string, n int) error {
	return detail(ErrAllocLimit, "%s needs %s, %d of the budget left (DecodeOptions.MaxAllocBytes)", what, plural(n, "byte"), dec.bytes)
}

// sizeClass rounds an allocation of n bytes up to what the runtime allocates for it: Go's size
// classes are multiples of 16 up to 256 bytes, and waste at most 1/8 beyond.
func sizeClass(n int) int {
	if n <= 8 {
		return 8 * min(n, 1)
	}
	if n <= 256 {
		return (n + 15) &^ 15
	}
	return n + n/8
}

// fixedCost is what decoding a value of each type allocates besides its strings, elements and
// packed data: the box of a scalar or math value, the slot of a container.
var fixedCost = func() (c [numTypes]uint16) {
	for t := range numTypes {
		switch {
		case realCount[t] > 0:
			c[t] = uint16(sizeClass(4 * int(realCount[t])))
		case intCount[t] > 0:
			c[t] = uint16(sizeClass(4 * int(intCount[t])))
		}
	}
	c[TypeInt], c[TypeFloat], c[TypeRID] = 8, 8, 8
	c[TypeString], c[TypeStringName] = 16, 16
	c[TypeNodePath] = uint16(sizeClass(int(sizeOf(NodePath{}))))
	c[TypeSignal] = uint16(sizeClass(int(sizeOf(Signal{}))))
	c[TypeObject] = uint16(sizeClass(int(sizeOf(Object{}))))
	c[TypeArray] = uint16(sizeClass(int(sizeOf(TypedArray{}))))
	c[TypeDictionary] = uint16(sizeClass(int(sizeOf(Dictionary{}))))
	for t := TypePackedByteArray; t <= TypePackedVector4Array; t++ {
		c[t] = 24 // the slice header, boxed
	}
	return c
}()

// aliases reports whether sub lies within b (or is empty).
func aliases(sub, b []byte) bool {
	if len(sub) == 0 {
		return true
	}
	if len(b) == 0 {
		return false
	}
	s, start := uintptr(uptr(sliceData(sub))), uintptr(uptr(sliceData(b)))
	return s >= start && s < start+uintptr(len(b))
}

// keyIndexCost is what a Dictionary's keyIndex may allocate per entry it can hold: up to four
// 8-byte slots, and room for the Dictionary's hash if it is nested in a key.
const keyIndexCost = 40
