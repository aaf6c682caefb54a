// Package schema parses catalog.txt, the field lists of the GSF message catalog, for the code
// generator, the layout tests and the schema-driven describer of package messages.
package schema

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// Kind is the kind of a block of the catalog.
type Kind string

// The kinds of blocks.
const (
	Request  Kind = "request"
	Response Kind = "response"
	Notify   Kind = "notify"
	Object   Kind = "object"
)

// Def is one block: a message body or an object type.
type Def struct {
	Kind    Kind
	Class   string // service class name (messages only)
	MsgType string // message type name (messages only)
	Name    string // the Go type name
	Fields  []Field
	Line    int
}

// Field is one field of a Def.
type Field struct {
	Name   string
	Type   *Type // nil for an inline object
	Inline string
}

// TypeKind is the shape of a wire type.
type TypeKind uint8

// The shapes of wire types.
const (
	Leaf     TypeKind = iota // Type.Leaf names it
	Enum                     // a string carrying an enum name; Type.Name is the enum
	Obj                      // an object; Type.Name names it, Type.Ptr says the Go field is a pointer
	Nullable                 // ?Elem
	Slice                    // []Elem
	Map                      // map[]Elem
)

// Type is a parsed wire type.
type Type struct {
	Kind TypeKind
	Leaf string // bool byte int16 int32 int64 char float32 float64 string bytes date
	Name string
	Ptr  bool
	Elem *Type
}

var leaves = map[string]bool{"bool": true, "byte": true, "int16": true, "int32": true, "int64": true, "char": true,
	"float32": true, "float64": true, "string": true, "bytes": true, "date": true}

// Enums are the enums that travel as name strings.
var Enums = map[string]string{"SessionStatus": "sessionStatus", "ChatChannelTypeValue": "chatChannelTypeValue", "OnlineStatusValue": "onlineStatusValue"}

// ParseType parses a wire type.
func ParseType(s string) (*Type, error) {
	switch {
	case strings.HasPrefix(s, "[]"):
		e, err := ParseType(s[2:])
		return &Type{Kind: Slice, Elem: e}, err
	case strings.HasPrefix(s, "map[]"):
		e, err := ParseType(s[5:])
		return &Type{Kind: Map, Elem: e}, err
	case strings.HasPrefix(s, "?"):
		e, err := ParseType(s[1:])
		if err == nil && e.Kind != Leaf {
			err = fmt.Errorf("nullable %s: only leaf types are nullable", s)
		}
		return &Type{Kind: Nullable, Elem: e}, err
	case strings.HasPrefix(s, "*"):
		t, err := ParseType(s[1:])
		if err == nil && t.Kind != Obj {
			err = fmt.Errorf("pointer %s: only objects", s)
		}
		if t != nil {
			t.Ptr = true
		}
		return t, err
	case leaves[s]:
		return &Type{Kind: Leaf, Leaf: s}, nil
	case Enums[s] != "":
		return &Type{Kind: Enum, Name: s}, nil
	case s != "" && s[0] >= 'A' && s[0] <= 'Z':
		return &Type{Kind: Obj, Name: s}, nil
	}
	return nil, fmt.Errorf("unknown wire type %q", s)
}

// String returns the wire type in the catalog's notation.
func (t *Type) String() string {
	switch t.Kind {
	case Leaf:
		return t.Leaf
	case Enum:
		return t.Name
	case Obj:
		if t.Ptr {
			return "*" + t.Name
		}
		return t.Name
	case Nullable:
		return "?" + t.Elem.String()
	case Slice:
		return "[]" + t.Elem.String()
	case Map:
		return "map[]" + t.Elem.String()
	}
	return "?"
}

// Catalog is the parsed catalog.
type Catalog struct {
	Defs    []*Def
	Objects map[string]*Def
}

// Parse parses catalog.txt and checks that every object it refers to is defined.
func Parse(data []byte) (*Catalog, error) {
	c := &Catalog{Objects: map[string]*Def{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var cur *Def
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") || strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Fields(line)
		if line[0] == '\t' {
			if cur == nil {
				return nil, fmt.Errorf("catalog line %d: a field outside a block", n)
			}
			if strings.HasPrefix(parts[0], "...") && len(parts) == 1 {
				cur.Fields = append(cur.Fields, Field{Name: parts[0][3:], Inline: parts[0][3:]})
				continue
			}
			if len(parts) != 2 {
				return nil, fmt.Errorf("catalog line %d: want NAME TYPE", n)
			}
			t, err := ParseType(parts[1])
			if err != nil {
				return nil, fmt.Errorf("catalog line %d: %w", n, err)
			}
			cur.Fields = append(cur.Fields, Field{Name: parts[0], Type: t})
			continue
		}
		d := &Def{Kind: Kind(parts[0]), Line: n}
		switch d.Kind {
		case Request, Response, Notify:
			if len(parts) != 4 {
				return nil, fmt.Errorf("catalog line %d: want %s CLASS TYPE NAME", n, parts[0])
			}
			d.Class, d.MsgType, d.Name = parts[1], parts[2], parts[3]
		case Object:
			if len(parts) != 2 {
				return nil, fmt.Errorf("catalog line %d: want object NAME", n)
			}
			d.Name = parts[1]
			c.Objects[d.Name] = d
		default:
			return nil, fmt.Errorf("catalog line %d: unknown block %q", n, parts[0])
		}
		c.Defs = append(c.Defs, d)
		cur = d
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var check func(t *Type) error
	check = func(t *Type) error {
		if t.Elem != nil {
			return check(t.Elem)
		}
		if t.Kind == Obj && c.Objects[t.Name] == nil {
			return fmt.Errorf("object %s is not defined", t.Name)
		}
		return nil
	}
	for _, d := range c.Defs {
		for _, f := range d.Fields {
			var err error
			if f.Type == nil {
				if c.Objects[f.Inline] == nil {
					err = fmt.Errorf("object %s is not defined", f.Inline)
				}
			} else {
				err = check(f.Type)
			}
			if err != nil {
				return nil, fmt.Errorf("catalog line %d (%s.%s): %w", d.Line, d.Name, f.Name, err)
			}
		}
	}
	return c, nil
}

// Message returns the block of a message body by its Go name, or nil.
func (c *Catalog) Message(name string) *Def {
	for _, d := range c.Defs {
		if d.Kind != Object && d.Name == name {
			return d
		}
	}
	return nil
}

// Flat returns the fields of d with inline objects expanded, in wire order.
func (c *Catalog) Flat(d *Def) []Field {
	var out []Field
	for _, f := range d.Fields {
		if f.Type == nil {
			out = append(out, c.Flat(c.Objects[f.Inline])...)
			continue
		}
		out = append(out, f)
	}
	return out
}
