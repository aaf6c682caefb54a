// Package explain is gamewire's one model of what wire bytes mean: every format (Godot 3 and 4
// Variants, BitProtocol field lists, GSF frames and their catalog bodies, Godot multiplayer
// packets, ENet datagrams) explains its input as [Frame]s of [Field]s, and every renderer (the
// command line's text and --json, the inspector) reads this model and nothing else. Renderers never
// parse a field's Text: everything a program needs is in a field of its own.
//
// The package depends on the standard library only and sits below every format package.
//
// Positions are in bits from the first bit of the input the frame was cut from (bit 0 is the most
// significant bit of byte 0, as BitProtocol reads them); a byte-aligned format simply uses
// multiples of 8. A field with children spans them; the leaves of a frame tile the bits they
// explain, in order.
//
// The JSON form of a Frame (its struct tags) is the schema of `gamewire … explain --json` and of
// the inspector's API, one Frame per line (JSON Lines); docs/explain.md documents it.
package explain

// Frame is one unit of an input: a Variant, a GSF frame, a multiplayer packet, an ENet datagram.
// An input that holds several (a stream, a capture) is explained as one Frame after another.
type Frame struct {
	// Format names the format that explained the frame, as the inspector's registry and the
	// command line spell it: "godot3", "godot4", "bitproto", "gsf", "multiplayer", "enet", ….
	Format string `json:"format"`
	// Index counts the frames of one input from 0.
	Index int `json:"index"`
	// Bit and Bits locate the whole frame in the input.
	Bit  int64 `json:"bit"`
	Bits int64 `json:"bits"`
	// Summary is one line that says what the frame is, for a person ("GSF request USER/LOGIN").
	Summary string `json:"summary,omitempty"`
	// Context, when set, says where the frame came from: a capture's stream and direction, a
	// time stamp, a peer. Keys are stable lower-case words ("stream", "dir", "time", "src", "dst").
	Context map[string]string `json:"context,omitempty"`
	// Fields are the frame's top-level fields in wire order.
	Fields []*Field `json:"fields"`
	// Err, when set, says why the frame (from Err.Bit on) did not decode.
	Err *Error `json:"error,omitempty"`
	// Truncated is set when the explanation stopped at a field budget before the frame's end; the
	// fields given are correct, the rest is not explained.
	Truncated bool `json:"truncated,omitempty"`
}

// Field is one field of a frame: a header, a length, a number, a string, or a composite whose
// Children are its parts. A map entry is a Field of Type "entry" with exactly two children, the
// key (Name "key") and the value (Name "value"), each with its own bit range.
type Field struct {
	// Name is the field's name or role: "header", "length", "x", "[2]", "key", "value".
	Name string `json:"name"`
	// Type is the wire type: "u32", "int32", "float64", "varint", "Vector3", "String", "bits", ….
	Type string `json:"type"`
	// Value is what the field holds as a JSON scalar (nil, bool, int64, uint64, float64 or
	// string) when it has one; composites leave it nil.
	Value any `json:"value,omitempty"`
	// Text says what the field holds as a person reads it ("1.5", "USER (0x0002)").
	Text string `json:"text,omitempty"`
	// Bit and Bits locate the field in the input.
	Bit  int64 `json:"bit"`
	Bits int64 `json:"bits"`
	// Note adds what is not the value: a flag's meaning, "uninitialized padding", a hint.
	Note string `json:"note,omitempty"`
	// Children are the field's parts in wire order.
	Children []*Field `json:"children,omitempty"`
	// Err, when set, says why this field (and what follows it) did not decode.
	Err *Error `json:"error,omitempty"`
}

// Error is a decoding error at its place in the input. It is an error.
type Error struct {
	// Bit is where decoding stopped, in bits from the start of the input; Bits, when not 0, is
	// how many bits the error covers (a malformed frame that decoding went on after).
	Bit  int64 `json:"bit"`
	Bits int64 `json:"bits,omitempty"`
	// Msg is the error's text, as the format's own error says it.
	Msg string `json:"msg"`
	// Err is the format's own error, for errors.Is and errors.As; it does not travel in JSON.
	Err error `json:"-"`
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the format's own error.
func (e *Error) Unwrap() error { return e.Err }

// Offset is the byte offset of the error (Bit/8).
func (e *Error) Offset() int64 { return e.Bit / 8 }

// Offset is the byte offset of the field's first bit.
func (f *Field) Offset() int64 { return f.Bit / 8 }

// Len is the number of bytes that hold the field's bits.
func (f *Field) Len() int64 { return (f.Bit+f.Bits+7)/8 - f.Bit/8 }
