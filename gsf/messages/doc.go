// Package messages is the catalog of GSF message bodies: every request, response and notify body
// and every object type they contain whose layout the reference emulator establishes, as Go
// structs for package bitproto, registered by (service class, message type, kind).
//
// The layouts are listed in catalog.txt, field by field in wire order; the structs
// (types_gen.go) and the registry (registry_gen.go) are generated from it with
// "go generate ./gsf/messages", and the tests build each body's bytes from that list with a
// bitstream.Writer, independently of the structs, and check that the structs decode and encode
// exactly those bytes.
//
// # Using the types
//
// The structs work with every API of gamewire that takes a body: gsf.AppendMessage,
// gsf.Message.DecodeBody, gsfnet.Handle and gsfnet.Client.Call:
//
//	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgGetClientVersionInfo,
//		func(ctx context.Context, s *gsfnet.Session, req *messages.GetClientVersionInfoRequest) (*messages.GetClientVersionInfoResponse, error) {
//			return &messages.GetClientVersionInfoResponse{ClientVersionInfo: "133852.true"}, nil
//		})
//
// Objects are value fields (a null object decodes as the zero value, as in the reference),
// except where the reference writes a nil pointer for a missing one (*CrispDataTO, *ZoneInstance,
// …): those are pointers. Nullable numbers and bools are pointers. Dates are time.Time (the zero
// time is null). SessionStatus, ChatChannelTypeValue and OnlineStatusValue travel as their name
// strings; their zero values travel as the names of the reference's zero values (IN_PROGRESS,
// PRIVATE, OFFLINE), so that every body left at its zero value encodes to the reference's bytes. An OID keeps the four numbers of the wire; [OID.Int64] is the reference's 64-bit form.
//
// # Looking messages up
//
// [Lookup] and [ForHeader] find the [Entry] of a message; [Entry.New] makes a body to decode into.
// [DecodeMode.Decode] decodes a message's body into a new value of its type; with Strict it
// fails when bits are left over after the body (the body belongs to another message type, or
// the layout is wrong), where the default, like the reference, ignores them.
//
// # Describing bodies
//
// [Describe] decodes a message into a tree of fields with names, wire types, bit offsets and
// values, for tools (gamewire gsf decode, explain, call and the traffic tools); a body that is not
// in the catalog gets a schema-less dump ([RawDump]) with a clearly labelled guess at its leading
// fields. [Describe] never panics on hostile input: every error carries the bit offset, every
// count is checked against the bits left before anything is read for it, and a description
// shows at most Options.MaxFields fields (DefaultMaxFields: about 12 MiB of allocations at
// most); the rest of the body is decoded and checked without being kept.
package messages

import (
	_ "embed"
	"sync"

	"github.com/gamewire/gamewire/gsf/messages/internal/schema"
)

//go:generate go run ./internal/catalogen catalog.txt .

//go:embed catalog.txt
var catalogText []byte

var catalog = sync.OnceValue(func() *schema.Catalog {
	c, err := schema.Parse(catalogText)
	if err != nil {
		panic("messages: embedded catalog.txt: " + err.Error())
	}
	return c
})
