package multiplayer3

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gamewire/gamewire/explain"
)

// Format is the name of the format in explanations ("multiplayer3").
const Format = "multiplayer3"

// Explain explains one ENet packet of a NetworkedMultiplayerENet peer received on channel:
// a SYS message on ChannelSys, else the [source][target] header and the MultiplayerAPI packet
// with every argument's Variant fields. On a malformed packet the frame's Err says where and
// why (wrapping the *PacketError), and the fields before it are given.
func Explain(channel uint8, data []byte) *explain.Frame {
	f := &explain.Frame{Format: Format, Bits: int64(len(data)) * 8, Fields: []*explain.Field{}}
	if channel == ChannelSys {
		msg, id, err := ParseSys(data)
		if len(data) >= 4 {
			m := SysMessage(binary.LittleEndian.Uint32(data))
			f.Fields = append(f.Fields, field("message", "u32", uint64(m), m.String(), 0, 4))
		}
		if len(data) >= 8 {
			f.Fields = append(f.Fields, field("peer", "u32", int64(int32(binary.LittleEndian.Uint32(data[4:]))), fmt.Sprint(int32(binary.LittleEndian.Uint32(data[4:]))), 4, 4))
		}
		if err != nil {
			f.Err = ferr(err)
			f.Summary = "SYS (malformed)"
			return f
		}
		f.Summary = fmt.Sprintf("SYS %s %d", msg, id)
		return f
	}
	src, dst, pkt, err := ParseHeader(data)
	if err != nil {
		f.Err = ferr(err)
		f.Summary = "packet (malformed)"
		return f
	}
	f.Fields = append(f.Fields,
		field("source", "u32", int64(src), fmt.Sprintf("peer %d", src), 0, 4),
		field("target", "i32", int64(dst), targetText(dst), 4, 4))
	inner := ExplainPacket(pkt)
	for _, fl := range inner.Fields {
		shift(fl, HeaderBytes*8)
	}
	f.Fields = append(f.Fields, inner.Fields...)
	if inner.Err != nil {
		inner.Err.Bit += HeaderBytes * 8
		if pe := (*PacketError)(nil); errors.As(inner.Err.Err, &pe) {
			pe.Offset += HeaderBytes
			inner.Err.Msg = pe.Error()
		}
		f.Err = inner.Err
	}
	f.Summary = fmt.Sprintf("%d → %s: %s", src, targetText(dst), inner.Summary)
	return f
}

func targetText(t int32) string {
	switch {
	case t == 0:
		return "all peers"
	case t < 0:
		return fmt.Sprintf("all but peer %d", -int64(t))
	}
	return fmt.Sprintf("peer %d", t)
}

func shift(f *explain.Field, by int64) {
	f.Bit += by
	for _, c := range f.Children {
		shift(c, by)
	}
}

func field(name, typ string, v any, text string, off, n int) *explain.Field {
	return &explain.Field{Name: name, Type: typ, Value: v, Text: text, Bit: int64(off) * 8, Bits: int64(n) * 8}
}

func ferr(err error) *explain.Error {
	e := &explain.Error{Msg: err.Error(), Err: err}
	var pe *PacketError
	if errors.As(err, &pe) {
		e.Bit = pe.Offset * 8
	}
	return e
}

// ExplainPacket explains a MultiplayerAPI packet (without the transport header), field by
// field; Explain calls it for the data channels.
func ExplainPacket(pkt []byte) *explain.Frame {
	f := &explain.Frame{Format: Format, Bits: int64(len(pkt)) * 8, Fields: []*explain.Field{}}
	p, err := Parse(pkt)
	if len(pkt) == 0 {
		f.Err = ferr(err)
		f.Summary = "empty packet"
		return f
	}
	cmd := Command(pkt[0])
	f.Fields = append(f.Fields, field("command", "u8", uint64(pkt[0]), cmd.String(), 0, 1))
	f.Summary = cmd.String()
	if err != nil {
		// Explain what parses of a malformed packet: its fixed fields, as far as they go.
		f.Err = ferr(err)
		var pe *PacketError
		if errors.As(err, &pe) && p != nil {
			explainPartial(f, pkt, p, int(pe.Offset))
		}
		return f
	}
	switch cmd {
	case CmdRemoteCall, CmdRemoteSet:
		explainCall(f, pkt, p)
	case CmdSimplifyPath:
		f.Fields = append(f.Fields,
			field("cache_id", "u32", uint64(p.CacheID), fmt.Sprint(p.CacheID), 1, 4),
			field("path", "cstring", p.Path, fmt.Sprintf("%q", p.Path), 5, len(p.Path)+1))
		f.Summary = fmt.Sprintf("SIMPLIFY_PATH %d = %s", p.CacheID, p.Path)
	case CmdConfirmPath:
		f.Fields = append(f.Fields, field("path", "cstring", p.Path, fmt.Sprintf("%q", p.Path), 1, len(p.Path)+1))
		f.Summary = "CONFIRM_PATH " + p.Path
	case CmdRaw:
		f.Fields = append(f.Fields, &explain.Field{Name: "data", Type: "bytes", Text: plural(len(p.Data), "byte"), Bit: 8, Bits: int64(len(p.Data)) * 8})
		f.Summary = "RAW " + plural(len(p.Data), "byte")
	}
	return f
}

// explainPartial adds the fields of a malformed packet that lie before the error: a call's
// target, name, argument count and the arguments that decoded.
func explainPartial(f *explain.Frame, pkt []byte, p *Packet, errOff int) {
	switch p.Command {
	case CmdRemoteCall, CmdRemoteSet, CmdSimplifyPath:
	default:
		return
	}
	if len(pkt) < 5 || errOff < 5 {
		return
	}
	f.Fields = append(f.Fields, field("target", "u32", uint64(binary.LittleEndian.Uint32(pkt[1:])), "", 1, 4))
	if p.Command == CmdSimplifyPath || p.ArgsOffset == 0 {
		return
	}
	what := "method"
	if p.Command == CmdRemoteSet {
		what = "property"
	}
	f.Fields = append(f.Fields, field(what, "cstring", p.Name, fmt.Sprintf("%q", p.Name), 5, len(p.Name)+1))
	if p.Command == CmdRemoteCall {
		f.Fields = append(f.Fields, field("argc", "u8", uint64(pkt[p.ArgsOffset-1]), fmt.Sprint(pkt[p.ArgsOffset-1]), p.ArgsOffset-1, 1))
	}
	off := p.ArgsOffset
	for i, a := range p.Args {
		f.Fields = append(f.Fields, variantField(fmt.Sprintf("args[%d]", i), a, off))
		off += len(a)
	}
}

func explainCall(f *explain.Frame, pkt []byte, p *Packet) {
	target := binary.LittleEndian.Uint32(pkt[1:])
	if p.PathOffset != 0 {
		f.Fields = append(f.Fields, field("target", "u32", uint64(target), fmt.Sprintf("full path at offset %d (0x80000000 | %d)", p.PathOffset, p.PathOffset), 1, 4))
	} else {
		f.Fields = append(f.Fields, field("target", "u32", uint64(target), fmt.Sprintf("path cache id %d", target), 1, 4))
	}
	what := "method"
	if p.Command == CmdRemoteSet {
		what = "property"
	}
	f.Fields = append(f.Fields, field(what, "cstring", p.Name, fmt.Sprintf("%q", p.Name), 5, len(p.Name)+1))
	if p.Command == CmdRemoteCall {
		f.Fields = append(f.Fields, field("argc", "u8", uint64(len(p.Args)), fmt.Sprint(len(p.Args)), p.ArgsOffset-1, 1))
	}
	off := p.ArgsOffset
	for i, a := range p.Args {
		name := fmt.Sprintf("args[%d]", i)
		if p.Command == CmdRemoteSet {
			name = "value"
		}
		f.Fields = append(f.Fields, variantField(name, a, off))
		off += len(a)
	}
	if p.PathOffset != 0 {
		f.Fields = append(f.Fields, field("path", "cstring", p.Path, fmt.Sprintf("%q", p.Path), p.PathOffset, len(p.Path)+1))
	}
	node := p.Path
	if node == "" {
		node = fmt.Sprintf("cache %d", p.CacheID)
	}
	if p.Command == CmdRemoteCall {
		f.Summary = fmt.Sprintf("REMOTE_CALL %s.%s(%s)", node, p.Name, plural(len(p.Args), "arg"))
	} else {
		f.Summary = fmt.Sprintf("REMOTE_SET %s.%s", node, p.Name)
	}
}

// variantField is one Godot 3 Variant (which decoded) at byte off of the packet, as godot
// explains it in the model: the Variant's field of its type, holding its header and parts.
func variantField(name string, b []byte, off int) *explain.Field {
	fr, _ := anyArgs.Explain(b, explain.NewBudget(explain.NoLimit)) // the packet bounds it
	fr.Shift(int64(off) * 8)
	if len(fr.Fields) == 0 {
		return &explain.Field{Name: name, Type: "Variant", Bit: int64(off) * 8, Bits: int64(len(b)) * 8}
	}
	v := fr.Fields[0]
	v.Name = name
	return v
}

// plural returns n and the noun, with an s unless n is 1: "1 byte", "2 bytes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
