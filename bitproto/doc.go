// Package bitproto maps Go structs to the BitProtocol bit stream (package bitstream) the way
// the GSF messages of the game client lay them out, and decodes ad-hoc field lists for tools.
//
// # Mapping
//
// Fields are encoded in declaration order. Unexported fields and fields tagged `bits:"-"` are
// skipped. The wire type follows from the Go type:
//
//	bool                      bool (1 bit)
//	int8, uint8               byte (8 raw bits)
//	int16, uint16             compressed int16
//	int32, uint32             compressed int32
//	int64, uint64             compressed int64
//	float32, float64          raw IEEE-754 bits
//	string                    string
//	[]byte                    byte array (same wire form as a string)
//	time.Time                 date (null bit, then 64 bits)
//	struct                    object: a null bit (0), then its fields
//	embedded struct           its fields inline, with no null bit
//	*T                        a null bit (1 = nil), then T (a pointer to a struct has one null bit)
//	[]T                       count (-1 for nil), then each element; struct elements each carry
//	                          their own null bit, strings and numbers do not
//	map[string]T              count (-1 for nil), then key string and value per entry; keys are
//	                          written in sorted order so that equal maps give equal bytes (the
//	                          reference iterates the map in random order)
//	Marshaler / Unmarshaler   the type's own MarshalBits / UnmarshalBits; struct types still get
//	                          a null bit in field position
//
// int and uint have no natural wire width: tag them. Unsigned types are written as the signed
// wire type of the same width (bit for bit); a type that is wider than its wire type is range
// checked on encode and decode.
//
// # Tags
//
// A `bits:"TYPE,OPTION"` tag picks the wire type where the Go type is ambiguous. TYPE is one of
// bool, byte, int16, int32, int64, char, float32, float64, string, bytes and date. On a slice,
// map or pointer it applies to the elements. Examples:
//
//	Seq   uint8  `bits:"byte"`  // the default for uint8
//	CX    rune   `bits:"char"`  // rune is int32: without the tag it would be a compressed int32
//	Count int    `bits:"int32"` // int needs a tag
//	Flags []int32 `bits:"int16"`
//	Skip  string `bits:"-"`
//
// The option inline writes a struct field (or the struct elements of a slice or map) without
// null bits, as the reference does for structs it serializes by calling Serialize directly.
//
// # Top level
//
// [Marshal], [Append] and [Write] encode the value itself: a struct's fields, with no null bit in
// front, because the null bit belongs to whoever contains the object (a GSF message writes it for
// its body). [WriteObject] and [ReadObject] add the null bit.
//
// # Decoding hostile input
//
// [Unmarshal] never panics on malformed input. Every count is checked against the remaining
// input before anything is allocated (an element needs at least one bit, a string or number at
// least six), nesting is limited ([DefaultMaxDepth]), and the total allocation of one decode is
// limited: to [DefaultMaxAlloc] bytes, and to [DefaultMaxAllocFactor] (64) bytes per input
// byte plus [DefaultMaxAllocSlack] (64 KiB), whatever the Go type; see [DecodeOptions]. What is charged
// is what is allocated: slice elements, map tables as they grow with the distinct keys decoded
// (a count of repeated keys does not size a map), pointees, strings and byte arrays, rounded
// up as the allocator rounds them. Errors are *[Error] values that carry the Go field path and
// the bit offset, and wrap the bitstream sentinel errors.
//
// # Performance
//
// The reflection work is done once per type and cached, and encoding goes through unsafe field
// offsets: encoding into a buffer with enough capacity does not allocate, except for maps
// (sorting the keys). Decoding reads the struct fields of the leaf types (bool, integers, floats,
// strings) from a 64-bit window of the input rather than through a bitstream.Reader, and a
// struct made only of such fields without the decoder pool; anything unusual, errors included,
// goes through the Reader. Decoding allocates the slices, maps and pointers it fills, unless the
// target value already has them: a value can be reused from one decode to the next, and its
// slices are reused when their capacity suffices. The strings of one decode are copied into
// shared chunks of at most 16 KiB (never more than the rest of the input), so that many short
// strings cost one allocation, and a string kept alive keeps its chunk alive. A [Decoder] keeps
// its chunk from one decode to the next, so that decoding many small messages into a reused
// value allocates nothing most of the time.
package bitproto
