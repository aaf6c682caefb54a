package bitproto

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gamewire/gamewire/bitstream"
)

// Marshaler is implemented by types that write their own wire form. MarshalBits writes the
// value's content; the null bit of a struct in field position is written by the caller.
type Marshaler interface {
	MarshalBits(w *bitstream.Writer) error
}

// Unmarshaler is implemented by types that read their own wire form, the counterpart of
// [Marshaler]. The value is not zeroed first.
type Unmarshaler interface {
	UnmarshalBits(r *bitstream.Reader) error
}

var (
	marshalerType   = reflect.TypeFor[Marshaler]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
)

type encoder struct {
	w    *bitstream.Writer
	keys []string // scratch space for sorting map keys
}

type decoder struct {
	r        *bitstream.Reader
	buf      []byte // r's input
	depth    int
	maxDepth int
	heap
}

// heap is the allocation budget of a decode and its string chunk.
type heap struct {
	budget int    // bytes the decode may still allocate
	strs   []byte // the current string chunk
	nstrs  int    // the bytes of strs that strings use
	keep   bool   // a Decoder's: kept from one decode to the next
}

type (
	encFunc func(e *encoder, p uptr) error
	decFunc func(d *decoder, p uptr) error
)

// A codec encodes and decodes one Go type in one position (field content or field value).
type codec struct {
	enc     encFunc
	dec     decFunc
	minBits int   // the fewest bits a value takes on the wire, for count checks
	err     error // a *TypeError when the type has no wire form
	op      op
	fields  []field // the fields of a struct content codec
	// flat reports a struct content codec whose fields are all leaves (no opCall), which
	// decodeFlat decodes; covered reports that they are also all the struct's fields, so that
	// decoding overwrites the whole struct, which need not be zeroed first.
	flat, covered bool
	object        *codec // for an object codec: the content codec it wraps
	typ           reflect.Type
}

type field struct {
	name   string
	offset uintptr
	op     op    // copied from c.op
	need   uint8 // the most bits op reads from decodeStructs's window (0: none)
	c      *codec
}

// windowNeed returns the most bits an inline op reads from decodeStructs's window: its longest
// form (57 bits at most for an int64, whose longer forms go through the reader), or for a string
// its length.
func windowNeed(o op) uint8 {
	switch o {
	case opBool:
		return 1
	case opByte:
		return 8
	case opInt16:
		return 19
	case opInt32, opString:
		return 37
	case opInt64:
		return 57
	case opFloat32:
		return 32
	case opDate:
		return 1 // the null bit; the 64 bits after it are loaded from the input
	}
	return 0
}

// op identifies the codecs that struct loops run inline, without an indirect call.
type op uint8

const (
	opCall op = iota // call c.enc / c.dec
	opBool
	opByte
	opInt16
	opInt32
	opInt64
	opFloat32
	opFloat64
	opString
	opDate // time.Time as a Date: a null bit, then 64 bits
)

// tagInfo is a parsed `bits` struct tag.
type tagInfo struct {
	wire   FieldType // 0: derived from the Go type
	inline bool
	skip   bool
}

func parseTag(s string) (tagInfo, error) {
	if s == "-" {
		return tagInfo{skip: true}, nil
	}
	var t tagInfo
	name, opts, _ := strings.Cut(s, ",")
	if name != "" {
		ft, err := ParseFieldType(name)
		if err != nil || ft == Null || ft == Align {
			return t, fmt.Errorf("unknown wire type %q in tag", name)
		}
		t.wire = ft
	}
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		switch o {
		case "inline":
			t.inline = true
		case "":
		default:
			return t, fmt.Errorf("unknown tag option %q", o)
		}
	}
	return t, nil
}

// The content codecs of types compiled so far: reflect.Type → *codec. Entries are complete
// before they are stored; compiling holds compileMu, so that recursive types are built once.
var (
	codecs    sync.Map
	compileMu sync.Mutex
)

// codecCache is a small direct-mapped cache in front of codecs, indexed by the address of the
// type: a program that encodes and decodes a few types in turn finds their codecs without a
// sync.Map lookup, and without the allocation of a new entry unless two types share a slot.
var codecCache [64]atomic.Pointer[typedCodec]

type typedCodec struct {
	t reflect.Type
	c *codec
}

// cachedCodec is contentCodec through codecCache.
func cachedCodec(t reflect.Type) *codec {
	slot := &codecCache[typeSlot(t)]
	if tc := slot.Load(); tc != nil && tc.t == t {
		return tc.c
	}
	c := contentCodec(t)
	slot.Store(&typedCodec{t: t, c: c})
	return c
}

// ptrCache is a direct-mapped cache from the type descriptor of a pointer type *T, the type word
// of an interface holding a *T, to T's content codec: the decoders look up the codec of their
// argument with it, without reflection.
var ptrCache [64]atomic.Pointer[ptrEntry]

type ptrEntry struct {
	typ  uptr
	c    *codec
	flat []field // c.fields when c.flat
}

// ptrCodec returns the content codec of the type v points to, and the pointer, when the type is
// in ptrCache; else nil and nil (see ptrCodecMiss).
func ptrCodec(v any) (*codec, uptr) {
	e := (*[2]uptr)(uptr(&v))
	if pe := ptrCache[ptrSlot(e[0])].Load(); pe != nil && pe.typ == e[0] {
		return pe.c, e[1]
	}
	return nil, nil
}

// flatTarget returns the fields of the struct v points to and the pointer, when v is a non-nil
// pointer to a struct of leaf fields (see decodeFlat) that is in ptrCache; else nil and nil.
func flatTarget(v any) ([]field, uptr) {
	e := (*[2]uptr)(uptr(&v))
	if pe := ptrCache[ptrSlot(e[0])].Load(); pe != nil && pe.typ == e[0] && e[1] != nil {
		return pe.flat, e[1]
	}
	return nil, nil
}

// ptrSlotFree reports whether the ptrCache slot of v's type holds no type.
func ptrSlotFree(v any) bool {
	e := (*[2]uptr)(uptr(&v))
	return ptrCache[ptrSlot(e[0])].Load() == nil
}

// ptrCodecMiss is ptrCodec for a type not in ptrCache, which it adds. It returns nil and nil
// when v is not a pointer.
func ptrCodecMiss(v any) (*codec, uptr) {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return nil, nil
	}
	e := (*[2]uptr)(uptr(&v))
	c := cachedCodec(t.Elem())
	pe := &ptrEntry{typ: e[0], c: c}
	if c.flat {
		pe.flat = c.fields
	}
	ptrCache[ptrSlot(e[0])].Store(pe)
	return c, e[1]
}

// ptrSlot returns the ptrCache slot of a type descriptor.
func ptrSlot(typ uptr) uintptr {
	return (uintptr(typ)>>4 ^ uintptr(typ)>>10) % uintptr(len(ptrCache))
}

// typeSlot returns the codecCache slot of t, from the address of its type descriptor (the data
// word of the interface).
func typeSlot(t reflect.Type) uintptr {
	p := uintptr((*[2]uptr)(uptr(&t))[1])
	return (p>>4 ^ p>>10) % uintptr(len(codecCache))
}

// contentCodec returns the codec of t's content (a struct's fields without a null bit).
func contentCodec(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	compileMu.Lock()
	defer compileMu.Unlock()
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	b := &builder{root: t, built: make(map[reflect.Type]*codec)}
	c, err := b.content(t, tagInfo{})
	if err != nil {
		c = &codec{err: err}
	} else {
		for bt, bc := range b.built {
			codecs.LoadOrStore(bt, bc)
		}
	}
	codecs.Store(t, c)
	return c
}

type builder struct {
	root  reflect.Type
	path  []string
	built map[reflect.Type]*codec // struct and custom codecs of this build, possibly incomplete
}

func (b *builder) fail(t reflect.Type, format string, args ...any) error {
	reason := fmt.Sprintf(format, args...)
	if t != b.root || len(b.path) > 0 {
		reason = fmt.Sprintf("%s: %s", t, reason)
	}
	return &TypeError{Type: b.root, Path: strings.Join(b.path, "."), Reason: reason}
}

// value returns the codec of t in field, element or map-value position: structs get a null bit
// unless tagged inline.
func (b *builder) value(t reflect.Type, tag tagInfo) (*codec, error) {
	if t.Kind() == reflect.Struct && t != timeType && !tag.inline {
		c, err := b.content(t, tag)
		if err != nil {
			return nil, err
		}
		return objectCodec(t, c), nil
	}
	return b.content(t, tag)
}

// content returns the codec of t's content.
func (b *builder) content(t reflect.Type, tag tagInfo) (*codec, error) {
	pt := reflect.PointerTo(t)
	custEnc, custDec := pt.Implements(marshalerType), pt.Implements(unmarshalerType)
	if (custEnc || custDec) && t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		if tag.wire != 0 {
			return nil, b.fail(t, "a type with its own MarshalBits or UnmarshalBits cannot have wire type %s", tag.wire)
		}
		if c := b.lookup(t); c != nil {
			return c, nil
		}
		return b.custom(t, custEnc, custDec)
	}
	if t == timeType {
		if tag.wire != 0 && tag.wire != Date {
			return nil, b.fail(t, "time.Time cannot have wire type %s", tag.wire)
		}
		return dateCodec(), nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if tag.wire != 0 {
			return nil, b.fail(t, "a struct cannot have wire type %s", tag.wire)
		}
		if c := b.lookup(t); c != nil {
			return c, nil
		}
		c := &codec{typ: t}
		b.built[t] = c
		if err := b.structFields(t, c); err != nil {
			return nil, err
		}
		return c, nil
	case reflect.Pointer:
		et := t.Elem()
		if et.Kind() == reflect.Pointer {
			return nil, b.fail(t, "pointers to pointers have no wire form")
		}
		tag.inline = false
		ec, err := b.content(et, tag)
		if err != nil {
			return nil, err
		}
		return pointerCodec(et, ec), nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && (tag.wire == 0 || tag.wire == Bytes || tag.wire == String) &&
			!reflect.PointerTo(t.Elem()).Implements(marshalerType) {
			return bytesCodec(t), nil
		}
		ec, err := b.value(t.Elem(), tag)
		if err != nil {
			return nil, err
		}
		return sliceCodec(t, ec), nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, b.fail(t, "map keys must be strings")
		}
		ec, err := b.value(t.Elem(), tag)
		if err != nil {
			return nil, err
		}
		return mapCodec(t, ec), nil
	case reflect.Bool:
		if tag.wire != 0 && tag.wire != Bool {
			return nil, b.fail(t, "a bool cannot have wire type %s", tag.wire)
		}
		return boolCodec(), nil
	case reflect.String:
		switch tag.wire {
		case 0, String, Bytes:
			return stringCodec(), nil
		}
		return nil, b.fail(t, "a string cannot have wire type %s", tag.wire)
	case reflect.Float32, reflect.Float64:
		wire := tag.wire
		if wire == 0 {
			wire = Float64
			if t.Kind() == reflect.Float32 {
				wire = Float32
			}
		}
		if wire != Float32 && wire != Float64 {
			return nil, b.fail(t, "a float cannot have wire type %s", wire)
		}
		return floatCodec(t.Kind(), wire), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		wire := tag.wire
		if wire == 0 {
			switch t.Kind() {
			case reflect.Int8, reflect.Uint8:
				wire = Byte
			case reflect.Int16, reflect.Uint16:
				wire = Int16
			case reflect.Int32, reflect.Uint32:
				wire = Int32
			case reflect.Int64, reflect.Uint64:
				wire = Int64
			default:
				return nil, b.fail(t, "%s has no natural wire width: tag it `bits:\"int32\"` or `bits:\"int64\"`", t.Kind())
			}
		}
		switch wire {
		case Byte, Int16, Int32, Int64, Char:
			return intCodec(t.Kind(), wire), nil
		}
		return nil, b.fail(t, "an integer cannot have wire type %s", wire)
	}
	return nil, b.fail(t, "%s values have no wire form", t.Kind())
}

// lookup returns the complete or in-progress content codec of a struct or custom type.
func (b *builder) lookup(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	return b.built[t] // a recursive reference: completed further up
}

// structFields compiles the fields of struct type t into c.
func (b *builder) structFields(t reflect.Type, c *codec) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, err := parseTag(sf.Tag.Get("bits"))
		if err != nil {
			b.path = append(b.path, sf.Name)
			err = b.fail(t, "%v", err)
			b.path = b.path[:len(b.path)-1]
			return err
		}
		embeddedStruct := sf.Anonymous && sf.Type.Kind() == reflect.Struct && tag.wire == 0
		if tag.skip || (!sf.IsExported() && !embeddedStruct) {
			continue
		}
		b.path = append(b.path, sf.Name)
		var fc *codec
		switch {
		case embeddedStruct:
			// Embedded structs are written inline, with no null bit.
			fc, err = b.content(sf.Type, tag)
		case sf.Anonymous && sf.Type.Kind() == reflect.Pointer:
			err = b.fail(t, "embedded pointer %s: embed the struct by value, or name the field", sf.Type)
		default:
			fc, err = b.value(sf.Type, tag)
		}
		b.path = b.path[:len(b.path)-1]
		if err != nil {
			return err
		}
		c.fields = append(c.fields, field{name: sf.Name, offset: sf.Offset, op: fc.op, need: windowNeed(fc.op), c: fc})
		c.minBits += fc.minBits
	}
	c.flat = len(c.fields) > 0
	for i := range c.fields {
		if c.fields[i].op == opCall {
			c.flat = false
		}
	}
	c.covered = c.flat && len(c.fields) == t.NumField()
	c.enc = func(e *encoder, p uptr) error { return encodeFields(e, e.w, c.fields, p) }
	c.dec = func(d *decoder, p uptr) error {
		_, err := decodeStructs(d, c.fields, p, 1, 0, false, nil)
		return err
	}
	return nil
}

// encodeFields writes the fields of the struct at p to w, which is e.w. The leaf types are
// written inline; e is used only for the others (opCall), so that a flat struct (codec.flat)
// is written without an encoder (e nil: Write's fast path).
func encodeFields(e *encoder, w *bitstream.Writer, fields []field, p uptr) error {
	for i := range fields {
		f := &fields[i]
		fp := addPtr(p, f.offset)
		switch f.op {
		case opBool:
			w.WriteBool(*(*bool)(fp))
		case opByte:
			w.WriteByte(*(*byte)(fp))
		case opInt16:
			w.WriteInt16(*(*int16)(fp))
		case opInt32:
			w.WriteInt32(*(*int32)(fp))
		case opInt64:
			w.WriteInt64(*(*int64)(fp))
		case opFloat32:
			w.WriteFloat32(*(*float32)(fp))
		case opFloat64:
			w.WriteFloat64(*(*float64)(fp))
		case opString:
			w.WriteString(*(*string)(fp))
		case opDate:
			w.WriteDate(*(*time.Time)(fp))
		default:
			if err := f.c.enc(e, fp); err != nil {
				return withField(err, f.name)
			}
		}
	}
	return nil
}

// custom compiles a type with its own MarshalBits and/or UnmarshalBits. The direction the type
// does not implement uses the reflective mapping of its fields.
func (b *builder) custom(t reflect.Type, custEnc, custDec bool) (*codec, error) {
	c := &codec{typ: t, minBits: 1}
	b.built[t] = c
	var fallback *codec
	if !custEnc || !custDec {
		if t.Kind() != reflect.Struct {
			return nil, b.fail(t, "implements only one of Marshaler and Unmarshaler")
		}
		fallback = &codec{typ: t}
		if err := b.structFields(t, fallback); err != nil {
			return nil, err
		}
	}
	if custEnc {
		c.enc = func(e *encoder, p uptr) error {
			off := e.w.Len()
			if err := reflect.NewAt(t, p).Interface().(Marshaler).MarshalBits(e.w); err != nil {
				return wrapCustom(true, off, err)
			}
			return nil
		}
	} else {
		c.enc = fallback.enc
	}
	if custDec {
		c.dec = func(d *decoder, p uptr) error {
			off := d.r.Offset()
			if err := reflect.NewAt(t, p).Interface().(Unmarshaler).UnmarshalBits(d.r); err != nil {
				return wrapCustom(false, off, err)
			}
			return nil
		}
	} else {
		c.dec = fallback.dec
	}
	return c, nil
}

// wrapCustom makes the error of a Marshaler (enc) or Unmarshaler at bit off an *EncodeError or
// *DecodeError, unless it is one already.
func wrapCustom(enc bool, off int, err error) error {
	if errPath(err) != nil {
		return err
	}
	var de *bitstream.DecodeError
	var ee *bitstream.EncodeError
	switch {
	case errors.As(err, &de), errors.As(err, &ee):
		return newError(off, err)
	case enc:
		return encodeErr(off, err)
	}
	return decodeErr(off, err)
}
