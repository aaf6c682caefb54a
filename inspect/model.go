package inspect

import (
	"fmt"
	"sort"
)

// Node is one field of an explanation. A node with children spans them all; the leaves tile the
// bits they explain. Bit and Bits locate the field in the input from its first bit (bit 0 is
// the most significant bit of byte 0, as BitProtocol reads them); Off and Len are the bytes that
// hold those bits.
type Node struct {
	ID       int     `json:"id"`              // position in a pre-order walk of the tree, from 0
	Name     string  `json:"name"`            // the field's name or role, e.g. "header", "x", "[2]"
	Type     string  `json:"type"`            // wire type, e.g. "u32", "float32", "Vector3", "int32"
	Value    string  `json:"value,omitempty"` // what the field holds, as text
	Off      int     `json:"off"`
	Len      int     `json:"len"`
	Bit      int     `json:"bit"`
	Bits     int     `json:"bits"`
	Children []*Node `json:"children,omitempty"`
	// Error, when set, says why this field (and what follows it) did not decode.
	Error string `json:"error,omitempty"`
}

// Error is a decoding error at its place in the input.
type Error struct {
	Off int `json:"off"` // byte offset where decoding stopped
	Bit int `json:"bit"` // the same place, in bits
	// Len, when set, is the number of bytes the error covers (a malformed frame that decoding
	// went on after); unset, the error covers the rest of the bytes.
	Len int    `json:"len,omitempty"`
	Msg string `json:"msg"`
}

// Explanation is what the inspector shows for one input.
type Explanation struct {
	Format   string `json:"format"`   // the registry name of the format used
	Title    string `json:"title"`    // its human name
	BitLevel bool   `json:"bitLevel"` // fields may start or end inside a byte
	// Input says how the text given was read: "hex", "hex dump", "base64" or "raw".
	Input  string   `json:"input"`
	Size   int      `json:"size"` // bytes of Data
	Data   []byte   `json:"data"` // the bytes the nodes and errors refer to: the input, or Part of it
	Nodes  []*Node  `json:"nodes"`
	Errors []Error  `json:"errors,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	// Fields is the number of nodes in the tree.
	Fields int `json:"fields"`
	// Part, when set, says what Data is when it is not the input itself, such as "stream 1
	// client→server 127.0.0.1:40000 → 127.0.0.1:5000" of a capture; Source is then the input.
	Part   string `json:"part,omitempty"`
	Source []byte `json:"source,omitempty"`
	// Options, when set, are the options of this input (a capture's streams), with the
	// Value each had: the page offers these instead of the format's.
	Options []Option `json:"options,omitempty"`
}

// MaxNodes bounds the nodes of an explanation. An input with more fields (a megabyte of small
// frames) is explained up to that point and a note says where the tree stops; the hex view still
// shows every byte.
const MaxNodes = 100_000

// bitNode makes a node for a bit range.
func bitNode(name, typ, value string, bit, n int) *Node {
	off := bit / 8
	end := (bit + n + 7) / 8
	if n == 0 {
		end = off
	}
	return &Node{Name: name, Type: typ, Value: value, Off: off, Len: end - off, Bit: bit, Bits: n}
}

// finish numbers the nodes, fixes the spans of containers to cover their children, and counts.
func (ex *Explanation) finish() {
	id := 0
	var walk func(n *Node)
	walk = func(n *Node) {
		n.ID = id
		id++
		for _, c := range n.Children {
			walk(c)
		}
		if len(n.Children) > 0 {
			lo, hi := n.Bit, n.Bit+n.Bits
			if n.Bits == 0 {
				lo, hi = n.Children[0].Bit, n.Children[0].Bit
			}
			for _, c := range n.Children {
				lo = min(lo, c.Bit)
				hi = max(hi, c.Bit+c.Bits)
			}
			*n = *withBits(n, lo, hi-lo)
		}
	}
	for _, n := range ex.Nodes {
		walk(n)
	}
	ex.Fields = id
	sort.SliceStable(ex.Errors, func(i, j int) bool { return ex.Errors[i].Bit < ex.Errors[j].Bit })
}

func withBits(n *Node, bit, bits int) *Node {
	c := bitNode(n.Name, n.Type, n.Value, bit, bits)
	c.ID, c.Children, c.Error = n.ID, n.Children, n.Error
	return c
}

// addError records err at the byte offset off (bit offset bit).
func (ex *Explanation) addError(bit int, err error) {
	ex.Errors = append(ex.Errors, Error{Off: bit / 8, Bit: bit, Msg: err.Error()})
}

// limitNote is the note added when the tree reached MaxNodes.
func limitNote(atByte int) string {
	return fmt.Sprintf("the field tree stops after %d fields, at byte %d; the hex view shows every byte", MaxNodes, atByte)
}
