package messages

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// Kind says which of a message type's bodies an entry is.
type Kind uint8

// The kinds of bodies.
const (
	Request  Kind = iota + 1 // a request (flags&3 == 0)
	Response                 // the response to a request (flags&3 == 1)
	Notify                   // a notify (flags&2 != 0)
)

// String returns "request", "response" or "notify".
func (k Kind) String() string {
	switch k {
	case Request:
		return "request"
	case Response:
		return "response"
	case Notify:
		return "notify"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// KindOf returns the kind of body a header announces.
func KindOf(h *gsf.Header) Kind {
	switch {
	case h.IsNotify():
		return Notify
	case h.IsResponse():
		return Response
	}
	return Request
}

// Key identifies a body in the catalog.
type Key struct {
	Class gsf.ServiceClass
	Type  int32
	Kind  Kind
}

// Entry is a body of the catalog.
type Entry struct {
	Key
	// Name is the Go type's name, for example "LoginRequest".
	Name string
	// MessageName is the message type's name, for example "LOGIN".
	MessageName string

	typ reflect.Type
}

// GoType returns the body's Go type (a struct type of this package).
func (e *Entry) GoType() reflect.Type { return e.typ }

// New returns a pointer to a new zero body of the entry's type, for example a
// *LoginRequest.
func (e *Entry) New() any { return reflect.New(e.typ).Interface() }

// String returns for example "USER_SERVER/LOGIN request (LoginRequest)".
func (e *Entry) String() string {
	return fmt.Sprintf("%s/%s %s (%s)", e.Class, e.MessageName, e.Kind, e.Name)
}

var index = sync.OnceValues(func() (map[Key]*Entry, map[string]*Entry) {
	byKey := make(map[Key]*Entry, len(catalogEntries))
	byName := make(map[string]*Entry, len(catalogEntries))
	for i := range catalogEntries {
		e := &catalogEntries[i]
		byKey[e.Key] = e
		byName[strings.ToLower(e.Name)] = e
	}
	return byKey, byName
})

// Lookup returns the catalog's entry for a body.
func Lookup(class gsf.ServiceClass, msgType int32, kind Kind) (*Entry, bool) {
	byKey, _ := index()
	e, ok := byKey[Key{class, msgType, kind}]
	return e, ok
}

// ForHeader returns the catalog's entry for the body of a message with header h. A request
// whose (class, type) the catalog knows only as a notify (the client-to-server notifies of
// SYNC_SERVER, which some clients send with request flags) gets the notify's entry.
func ForHeader(h *gsf.Header) (*Entry, bool) {
	kind := KindOf(h)
	if e, ok := Lookup(h.SvcClass, h.MsgType, kind); ok {
		return e, true
	}
	if kind == Request {
		return Lookup(h.SvcClass, h.MsgType, Notify)
	}
	return nil, false
}

// ByName returns the entry whose Go type has the given name (case-insensitive), for example
// "LoginRequest".
func ByName(name string) (*Entry, bool) {
	_, byName := index()
	e, ok := byName[strings.ToLower(name)]
	return e, ok
}

// Entries returns every body of the catalog, in the catalog's order. The slice is a copy; the
// entries are shared.
func Entries() []*Entry {
	out := make([]*Entry, len(catalogEntries))
	for i := range catalogEntries {
		out[i] = &catalogEntries[i]
	}
	return out
}

// ObjectType returns the Go type of an object type of the catalog, by name (for example
// "Player").
func ObjectType(name string) (reflect.Type, bool) {
	t, ok := objectTypes[name]
	return t, ok
}

// ErrUnknownMessage reports a message whose body is not in the catalog.
var ErrUnknownMessage = errors.New("messages: body not in the catalog")

// DecodeOptions configures decoding bodies of the catalog. The zero value decodes as the
// reference does.
type DecodeOptions struct {
	// Limits is the bitproto mode with the decoding limits (depth, allocation).
	Limits bitproto.DecodeMode
	// Strict makes a decode fail when bits are left over after the body (beyond the zero
	// padding of the last byte), or when it reads past the payload into the frame's
	// terminator: the signs of a body decoded with the wrong type. Counts that cannot fit the
	// rest of the body fail in both modes. Without Strict, trailing bits are ignored, as by the
	// reference.
	Strict bool
}

// Decode decodes the body of m into a new value of the catalog's type for its header, and
// returns a pointer to it (for example a *LoginRequest) and the entry. A null body gives the
// zero value. A message the catalog does not know gives an error wrapping ErrUnknownMessage.
func (o DecodeOptions) Decode(m *gsf.Message) (any, *Entry, error) {
	e, ok := ForHeader(&m.Header)
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s/%s %s", ErrUnknownMessage, m.Header.SvcClass, m.Header.MessageTypeName(), KindOf(&m.Header))
	}
	v := e.New()
	if err := o.DecodeBody(m, v); err != nil {
		return nil, e, err
	}
	return v, e, nil
}

// DecodeBody decodes the body of m into v (a pointer to any type bitproto maps, not only the
// catalog's), with the options' limits and strictness.
func (o DecodeOptions) DecodeBody(m *gsf.Message, v any) error {
	if o.Strict {
		return m.Body.DecodeStrict(o.Limits, v)
	}
	return m.Body.DecodeWith(o.Limits, v)
}

// Decode is DecodeOptions{}.Decode: lenient, as the reference.
func Decode(m *gsf.Message) (any, *Entry, error) { return DecodeOptions{}.Decode(m) }

// LayoutField is one line of a body's or object type's layout in catalog.txt: a field name and
// its wire type in the catalog's notation, or (Inline) an object type whose fields come inline.
type LayoutField struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Inline bool   `json:"inline,omitempty"`
}

// Layout returns the fields of a body (by Go type name, for example "LoginRequest") or an
// object type ("Player") in wire order, as catalog.txt lists them.
func Layout(name string) ([]LayoutField, bool) {
	c := catalog()
	def := c.Objects[name]
	if def == nil {
		e, ok := ByName(name)
		if !ok {
			return nil, false
		}
		def = c.Message(e.Name)
	}
	out := make([]LayoutField, 0, len(def.Fields))
	for _, f := range def.Fields {
		if f.Type == nil {
			out = append(out, LayoutField{Name: f.Inline, Type: f.Inline, Inline: true})
			continue
		}
		out = append(out, LayoutField{Name: f.Name, Type: f.Type.String()})
	}
	return out, true
}
