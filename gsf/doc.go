// Package gsf reads and writes GSF, the message layer of an MMO client's BitProtocol: each
// message is a frame (a varint length prefix, a BitProtocol payload, a 0x00 terminator), and
// each payload is a header (flags, service class, message type, request id, result and app
// codes, depending on the flags) followed by a body.
//
// The package has two layers:
//
//   - Frames: [AppendFrame] / [ConsumeFrame] and [AppendLength] / [ConsumeLength] for bytes in
//     memory, and [FrameReader] for a connection, which bounds a frame's size before it
//     allocates.
//   - Messages: [AppendMessage] / [ConsumeMessage] and [WriteMessage] / [ReadMessage] encode a
//     [Header] and a body (any Go struct, through package bitproto), and decode them into a
//     [Message] whose body stays raw ([RawBody]) until you decode it into your type with
//     [Message.DecodeBody].
//
// Names for the numbers (service classes, message types, result and app codes) come from the
// reference's enums: [ServiceClassName], [MessageTypeName] and their inverses. [Explain]
// explains a frame bit by bit, as the protocol documentation's annotated example does, and is
// what "gamewire gsf explain" prints.
//
// Where to start: build a request with [NewRequest] and [AppendMessage]; read messages from a
// connection with [NewFrameReader] and [ReadMessage]. For a TCP server and client, see package
// gsf/gsfnet.
package gsf
