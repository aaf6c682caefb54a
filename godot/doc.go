// Package godot reads and writes Godot's binary Variant serialization byte for byte: what
// var2bytes / var_to_bytes, bytes2var / bytes_to_var, StreamPeer.put_var / get_var,
// PacketPeer.put_var and File.store_var produce, in both of its dialects, [Godot3] (Godot 3.x)
// and [Godot4] (Godot 4.x). Every byte is checked against the real engines in the tests.
//
// The package has two layers, as google.golang.org/protobuf has:
//
//   - The generic value model: [DecodeMode.Decode] turns bytes into Go values (int64, string,
//     [Vector3], *[Dictionary], []any, packed arrays as Go slices, …) and [EncodeMode.Append]
//     turns them back into the same bytes. Use it to inspect or relay values whose shape you do
//     not know; [DecOptions.Explain] explains every field with its offset (package explain's model).
//   - Your own Go types: [EncOptions.Marshal] and [DecOptions.Unmarshal] map structs (by
//     `godot:"name"` tags), maps, slices and scalars to Variants, in the style of encoding/json.
//     This is the fast path for a server that knows its messages.
//
// Below both, package wire has the allocation-free AppendX / ConsumeX primitives; package
// gdjson has the lossless JSON form that the gamewire command prints; [StreamOptions] frames
// Variants on a connection or in a file ([NewDecoder], [NewEncoder]).
//
// Where to start: decode a value you have captured with
//
//	v, n, err := godot.DecodeOptions{Dialect: godot.Godot4}.Decode(data)
//
// and pick the dialect of the engine that wrote the bytes: the same bytes mean different things
// in the two dialects (see [DecodeMode.Decode]). Decoding is safe on hostile input: errors are
// *[DecodeError] values with the byte offset, and [DecodeOptions] bounds nesting and size.
package godot
