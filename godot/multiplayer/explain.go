package multiplayer

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/godot"
)

// Explain explains a SceneMultiplayer packet as one [explain.Frame] (Format "multiplayer"): the
// command byte and its flags, SYS sub-commands (with a RELAY's inner packet explained in turn as
// a "relayed packet" field), the path cache, REMOTE_CALL headers and each argument's compressed
// Variant (an "argument N" field holding it, a plain Variant explained by package godot), RAW
// payloads, and the replication packets SPAWN, DESPAWN and SYNC (plain and delta). The fields
// count against budget (nil: explain.DefaultMaxFields); validation runs to the end whatever
// the budget. On a malformed packet the frame holds the fields read so far and Err, and the
// *PacketError is returned too.
func Explain(pkt []byte, budget *explain.Budget) (*explain.Frame, error) {
	if budget == nil {
		budget = explain.NewBudget(0)
	}
	fr := &explain.Frame{Format: "multiplayer", Bits: 8 * int64(len(pkt)), Fields: []*explain.Field{}}
	e := &explainer{budget: budget, frame: fr}
	err := e.packet(pkt, 0, nil)
	if err != nil {
		xe := &explain.Error{Bit: 8 * int64(len(pkt)), Msg: err.Error(), Err: err}
		var pe *PacketError
		if errors.As(err, &pe) {
			xe.Bit = 8 * pe.Offset
		}
		fr.Err = xe
		fr.Summary = "malformed packet"
	} else if len(fr.Fields) > 0 {
		fr.Summary = fr.Fields[0].Text
		if len(fr.Fields) > 1 && fr.Fields[1].Name == "SYS command" {
			fr.Summary += " " + fr.Fields[1].Text
		}
	}
	fr.Truncated = budget.Spent()
	fr.CoverAll()
	return fr, err
}

type explainer struct {
	budget *explain.Budget
	frame  *explain.Frame
}

// dropped stands for a composite field that the budget left out: its parts are left out too.
var dropped = &explain.Field{}

// group adds a composite field (its range grows to cover its children); it returns dropped
// when the budget left it out.
func (e *explainer) group(parent *explain.Field, off, n int, typ, name, text string) *explain.Field {
	if f := e.add(parent, off, n, typ, name, nil, text); f != nil {
		return f
	}
	return dropped
}

// add adds a field of n bytes at off under parent (nil: the top), cut at the packet's end.
func (e *explainer) add(parent *explain.Field, off, n int, typ, name string, value any, text string) *explain.Field {
	if parent == dropped {
		e.budget.Take()
		return nil
	}
	f := &explain.Field{Name: name, Type: typ, Value: value, Text: text, Bit: 8 * int64(off), Bits: 8 * int64(n)}
	if end := e.frame.Bits; f.Bit+f.Bits > end {
		f.Bits = max(end-f.Bit, 0)
	}
	if parent == nil {
		if !e.budget.AddTo(e.frame, f) {
			return nil
		}
		return f
	}
	if !e.budget.Add(parent, f) {
		return nil
	}
	return f
}

func (e *explainer) packet(p []byte, base int, par *explain.Field) error {
	if len(p) == 0 {
		return perr(0, base, ErrTruncated, "empty packet")
	}
	cmd := Command(p[0] & cmdMask)
	switch cmd {
	case CmdRemoteCall:
		return e.remoteCall(p, base, par)
	case CmdSimplifyPath:
		e.add(par, base, 1, "u8", "command", uint64(p[0]), fmt.Sprintf("%#02x: SIMPLIFY_PATH", p[0]))
		sp, err := ParseSimplifyPath(p)
		if err != nil {
			return shift(err, base)
		}
		e.add(par, base+1, 32, "utf8", "RPC checksum", sp.Checksum, fmt.Sprintf("%q (MD5 of the node's RPC method names)", sp.Checksum))
		e.add(par, base+33, 1, "nul", "terminator", nil, "")
		e.add(par, base+34, 4, "u32", "path cache id", uint64(sp.CacheID), "")
		e.add(par, base+38, len(p)-38, "utf8", "node path", sp.Path, fmt.Sprintf("%q relative to /root, NUL-terminated", sp.Path))
		return nil
	case CmdConfirmPath:
		e.add(par, base, 1, "u8", "command", uint64(p[0]), fmt.Sprintf("%#02x: CONFIRM_PATH", p[0]))
		valid, id, err := ParseConfirmPath(p)
		if err != nil {
			return shift(err, base)
		}
		e.add(par, base+1, 1, "u8", "valid", valid, fmt.Sprintf("%t (the checksums matched)", valid))
		e.add(par, base+2, 4, "u32", "path cache id", uint64(id), fmt.Sprintf("%d being confirmed", id))
		return nil
	case CmdRaw:
		e.add(par, base, 1, "u8", "command", uint64(p[0]), fmt.Sprintf("%#02x: RAW (send_bytes)", p[0]))
		if len(p) < 2 {
			return perr(CmdRaw, base+1, ErrTruncated, "no payload")
		}
		e.add(par, base+1, len(p)-1, "bytes", "payload", nil, plural(len(p)-1, "byte")+" (peer_packet)")
		return nil
	case CmdSpawn:
		return e.spawn(p, base, par)
	case CmdDespawn:
		e.add(par, base, 1, "u8", "command", uint64(p[0]), fmt.Sprintf("%#02x: DESPAWN", p[0]))
		if len(p) < 5 {
			return perr(CmdDespawn, base+len(p), ErrTruncated, "need 5 bytes")
		}
		id := binary.LittleEndian.Uint32(p[1:])
		e.add(par, base+1, 4, "u32", "net id", uint64(id), fmt.Sprintf("%d, the node to free", id))
		return nil
	case CmdSync:
		return e.sync(p, base, par)
	}
	return e.sys(p, base, par)
}

func shift(err error, base int) error {
	if pe, ok := err.(*PacketError); ok {
		c := *pe
		c.Offset += int64(base)
		return &c
	}
	return err
}

func (e *explainer) remoteCall(p []byte, base int, par *explain.Field) error {
	rc, err := ParseRemoteCall(p)
	meta := p[0]
	form := "arguments follow an argument count"
	if meta&bytesOrNoArg != 0 {
		form = "no argument count: no arguments, or one PackedByteArray's raw bytes"
	}
	e.add(par, base, 1, "u8", "command", uint64(meta), fmt.Sprintf("%#02x: REMOTE_CALL; node id in %s, method id in %s, %s",
		meta, plural(1<<((meta&nodeMask)>>nodeShift), "byte"), plural(1+int(meta>>methodShift&1), "byte"), form))
	if err != nil {
		return shift(err, base)
	}
	off := 1
	if rc.HasPath {
		e.add(par, base+off, 4, "u32", "node", uint64(rc.NodeID), fmt.Sprintf("%#08x: the node path follows at offset %d", rc.NodeID, rc.NodeID&^pathFlag))
	} else {
		e.add(par, base+off, rc.NodeIDSize, "u"+fmt.Sprint(8*rc.NodeIDSize), "node", uint64(rc.NodeID), fmt.Sprintf("path cache id %d of the sender", rc.NodeID))
	}
	off += rc.NodeIDSize
	what := "index in the node's sorted @rpc methods"
	if rc.MethodID&nodeConfigID != 0 {
		what = "0x8000 | index in the node's sorted rpc_config() methods"
	}
	e.add(par, base+off, rc.MethodIDSize, "u"+fmt.Sprint(8*rc.MethodIDSize), "method id", uint64(rc.MethodID), fmt.Sprintf("%d (%s)", rc.MethodID, what))
	off += rc.MethodIDSize
	if rc.BytesOnly {
		if rc.Argc == 1 {
			e.add(par, base+off, len(rc.Args), "bytes", "argument 0", nil, fmt.Sprintf("one PackedByteArray argument, %d raw bytes", len(rc.Args)))
		}
	} else {
		e.add(par, base+off, 1, "u8", "argument count", uint64(rc.Argc), "")
		parts, err := rc.splitArgs(nil)
		at := rc.ArgsOffset
		for i, part := range parts {
			if verr := e.variant(part, base+at, par, fmt.Sprintf("argument %d", i)); verr != nil {
				verr.(*PacketError).Command = CmdRemoteCall
				return verr
			}
			at += len(part)
		}
		if err != nil {
			return shift(err, base)
		}
	}
	if rc.HasPath {
		ofs := int(rc.NodeID &^ pathFlag)
		e.add(par, base+ofs, len(p)-ofs, "utf8", "node path", rc.Path, fmt.Sprintf("%q relative to /root, NUL-terminated", rc.Path))
	}
	return nil
}

// variant explains one compressed variant (encode_and_compress_variant) as a field named name.
func (e *explainer) variant(c []byte, base int, par *explain.Field, name string) error {
	switch godot.Type(c[0] & 0x3f) {
	case godot.TypeBool:
		g := e.group(par, base, 1, "bool", name, fmt.Sprintf("bool %t, compressed", c[0]&0x80 != 0))
		e.add(g, base, 1, "u8", "header", uint64(c[0]), fmt.Sprintf("%#02x: type 1, bit 7 the value", c[0]))
		if g != dropped {
			g.Value = c[0]&0x80 != 0
		}
		return nil
	case godot.TypeInt:
		v := compressedInt(c)
		g := e.group(par, base, len(c), "int", name, fmt.Sprintf("int %d, compressed to %s", v, plural(len(c)-1, "byte")))
		e.add(g, base, 1, "u8", "header", uint64(c[0]), fmt.Sprintf("%#02x: type 2, bits 6-7 the size", c[0]))
		e.add(g, base+1, len(c)-1, fmt.Sprintf("int%d", 8*(len(c)-1)), "value", v, "")
		if g != dropped {
			g.Value = v
		}
		return nil
	}
	fr, err := argDecOptions.Explain(c, e.budget)
	if err == nil {
		if _, n, derr := argDecOptions.Decode(c); derr != nil {
			err = derr
		} else if n != len(c) {
			err = fmt.Errorf("the value takes %s, its header says %d", plural(n, "byte"), len(c))
		}
	}
	fr.Shift(8 * int64(base))
	if len(fr.Fields) > 0 {
		v := fr.Fields[0]
		v.Name = name
		if v.Text != "" {
			v.Text = v.Type + " " + v.Text
		}
		if par == nil {
			e.frame.Fields = append(e.frame.Fields, v) // counted by godot's Explain
		} else if par != dropped {
			par.Children = append(par.Children, v)
			par.Cover()
		}
	}
	if err != nil {
		pe := perr(0, base, ErrBadVariant, "%s: %v", name, err)
		pe.Cause = err
		return pe
	}
	return nil
}

func (e *explainer) variants(cmd Command, p []byte, base int, par *explain.Field, what string) error {
	for i, off := 0, 0; off < len(p); i++ {
		n, err := compressedLen(p[off:])
		if err != nil {
			return perr(cmd, base+off, ErrBadVariant, "%s %d: %v", what, i, err)
		}
		if verr := e.variant(p[off:off+n], base+off, par, fmt.Sprintf("%s %d", what, i)); verr != nil {
			verr.(*PacketError).Command = cmd
			return verr
		}
		off += n
	}
	return nil
}

func (e *explainer) spawn(p []byte, base int, par *explain.Field) error {
	e.add(par, base, 1, "u8", "command", uint64(p[0]), fmt.Sprintf("%#02x: SPAWN (MultiplayerSpawner)", p[0]))
	if len(p) < 18 {
		return perr(CmdSpawn, base+len(p), ErrTruncated, "%s, need 18", plural(len(p), "byte"))
	}
	sceneID := p[1]
	if sceneID == 0xff {
		e.add(par, base+1, 1, "u8", "scene id", uint64(sceneID), "255: a custom spawn_function")
	} else {
		e.add(par, base+1, 1, "u8", "scene id", uint64(sceneID), fmt.Sprintf("%d: index in the spawner's spawnable scenes", sceneID))
	}
	e.add(par, base+2, 4, "u32", "spawner's path cache id", uint64(binary.LittleEndian.Uint32(p[2:])), "")
	e.add(par, base+6, 4, "u32", "net id", uint64(binary.LittleEndian.Uint32(p[6:])), fmt.Sprintf("%d, the spawned node", binary.LittleEndian.Uint32(p[6:])))
	s := int(binary.LittleEndian.Uint32(p[10:]))
	e.add(par, base+10, 4, "u32", "synchronizer count", uint64(uint32(s)), "")
	l := int(binary.LittleEndian.Uint32(p[14:]))
	e.add(par, base+14, 4, "u32", "node name length", uint64(uint32(l)), fmt.Sprintf("%d, NUL included", l))
	off := 18
	if s < 0 || s > (len(p)-off)/4 {
		return perr(CmdSpawn, base+10, ErrTruncated, "%d synchronizer ids do not fit", s)
	}
	for i := 0; i < s; i++ {
		e.add(par, base+off, 4, "u32", fmt.Sprintf("synchronizer %d net id", i), uint64(binary.LittleEndian.Uint32(p[off:])), "")
		off += 4
	}
	if l < 1 || l > len(p)-off {
		return perr(CmdSpawn, base+14, ErrTruncated, "name of %s does not fit", plural(int(l), "byte"))
	}
	name := cstring(p[off : off+l])
	e.add(par, base+off, l, "utf8", "node name", name, fmt.Sprintf("%q", name))
	off += l
	if sceneID == 0xff {
		if len(p)-off < 4 {
			return perr(CmdSpawn, base+off, ErrTruncated, "custom spawn argument size")
		}
		a := int(binary.LittleEndian.Uint32(p[off:]))
		e.add(par, base+off, 4, "u32", "custom spawn argument size", uint64(uint32(a)), "")
		off += 4
		if a < 0 || a > len(p)-off {
			return perr(CmdSpawn, base+off-4, ErrTruncated, "custom spawn argument of %s", plural(int(a), "byte"))
		}
		if err := e.variants(CmdSpawn, p[off:off+a], base+off, par, "spawn argument"); err != nil {
			return err
		}
		off += a
	}
	return e.variants(CmdSpawn, p[off:], base+off, par, "spawn state value")
}

func (e *explainer) sync(p []byte, base int, par *explain.Field) error {
	delta := p[0]&(1<<4) != 0
	if delta {
		e.add(par, base, 1, "u8", "command", uint64(p[0]), fmt.Sprintf("%#02x: SYNC, delta (bit 4): ON_CHANGE properties", p[0]))
		if len(p) < 11 { // the receiver checks this before telling the forms apart
			return perr(CmdSync, base+len(p), ErrTruncated, "%s, need 11", plural(len(p), "byte"))
		}
		for i, off := 0, 1; off < len(p); i++ {
			if len(p)-off < 16 {
				return perr(CmdSync, base+off, ErrTruncated, "delta entry header")
			}
			size := int(binary.LittleEndian.Uint32(p[off+12:]))
			g := e.group(par, base+off, 16, "entry", fmt.Sprintf("entry %d", i), "")
			id := binary.LittleEndian.Uint32(p[off:])
			e.add(g, base+off, 4, "u32", "net id", uint64(id), netID(id))
			mask := binary.LittleEndian.Uint64(p[off+4:])
			e.add(g, base+off+4, 8, "u64", "changed mask", mask, fmt.Sprintf("%#x", mask))
			e.add(g, base+off+12, 4, "u32", "state size", uint64(uint32(size)), "")
			off += 16
			if size < 0 || size > len(p)-off {
				return perr(CmdSync, base+off-4, ErrTruncated, "state of %s", plural(int(size), "byte"))
			}
			if err := e.variants(CmdSync, p[off:off+size], base+off, g, "changed property"); err != nil {
				return err
			}
			off += size
		}
		return nil
	}
	e.add(par, base, 1, "u8", "command", uint64(p[0]), fmt.Sprintf("%#02x: SYNC (ALWAYS properties)", p[0]))
	if len(p) < 11 {
		return perr(CmdSync, base+len(p), ErrTruncated, "%s, need 11", plural(len(p), "byte"))
	}
	e.add(par, base+1, 2, "u16", "sync time", uint64(binary.LittleEndian.Uint16(p[1:])), "")
	for i, off := 0, 3; off < len(p); i++ {
		if len(p)-off < 8 {
			return perr(CmdSync, base+off, ErrTruncated, "entry header")
		}
		g := e.group(par, base+off, 8, "entry", fmt.Sprintf("entry %d", i), "")
		id := binary.LittleEndian.Uint32(p[off:])
		e.add(g, base+off, 4, "u32", "net id", uint64(id), netID(id))
		size := int(binary.LittleEndian.Uint32(p[off+4:]))
		e.add(g, base+off+4, 4, "u32", "state size", uint64(uint32(size)), "")
		off += 8
		if size < 0 || size > len(p)-off {
			return perr(CmdSync, base+off-4, ErrTruncated, "state of %s", plural(int(size), "byte"))
		}
		if err := e.variants(CmdSync, p[off:off+size], base+off, g, "property"); err != nil {
			return err
		}
		off += size
	}
	return nil
}

func netID(id uint32) string {
	if id&0x80000000 != 0 {
		return fmt.Sprintf("%#08x (path cache id %d of a synchronizer not spawned by a spawner)", id, id&^0x80000000)
	}
	return fmt.Sprint(id)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (e *explainer) sys(p []byte, base int, par *explain.Field) error {
	e.add(par, base, 1, "u8", "command", uint64(p[0]), fmt.Sprintf("%#02x: SYS", p[0]))
	if len(p) < 2 {
		return perr(CmdSys, base+1, ErrTruncated, "no SYS command")
	}
	sub := SysCommand(p[1])
	if sub == SysAuth {
		if len(p) == 2 {
			e.add(par, base+1, 1, "u8", "SYS command", uint64(sub), "AUTH, no data: authentication completed (complete_auth)")
		} else {
			e.add(par, base+1, 1, "u8", "SYS command", uint64(sub), "AUTH with data (send_auth)")
			e.add(par, base+2, len(p)-2, "bytes", "authentication data", nil, plural(len(p)-2, "byte"))
		}
		return nil
	}
	if len(p) < sysCmdSize {
		return perr(CmdSys, base+len(p), ErrTruncated, "%s, need 6", plural(len(p), "byte"))
	}
	id := int32(binary.LittleEndian.Uint32(p[2:]))
	switch sub {
	case SysAddPeer:
		e.add(par, base+1, 1, "u8", "SYS command", uint64(sub), "ADD_PEER (server to client)")
		e.add(par, base+2, 4, "int32", "peer", int64(id), fmt.Sprintf("%d connected", id))
	case SysDelPeer:
		e.add(par, base+1, 1, "u8", "SYS command", uint64(sub), "DEL_PEER (server to client)")
		e.add(par, base+2, 4, "int32", "peer", int64(id), fmt.Sprintf("%d disconnected", id))
	case SysRelay:
		e.add(par, base+1, 1, "u8", "SYS command", uint64(sub), "RELAY")
		e.add(par, base+2, 4, "int32", "peer", int64(id), fmt.Sprintf("%d: the destination (client to server; 0 all, -n all but n) or the source (server to client)", id))
		if len(p) < sysCmdSize+1 {
			return perr(CmdSys, base+len(p), ErrTruncated, "RELAY without a packet")
		}
		g := e.group(par, base+6, len(p)-6, "packet", "relayed packet", plural(len(p)-6, "byte"))
		return e.packet(p[6:], base+6, g)
	default:
		e.add(par, base+1, 1, "u8", "SYS command", uint64(sub), fmt.Sprintf("unknown SYS command %d", p[1]))
		return perr(CmdSys, base+1, ErrBadPacket, "unknown SYS command %d", p[1])
	}
	if len(p) > sysCmdSize {
		e.add(par, base+6, len(p)-6, "bytes", "trailing", nil, plural(len(p)-6, "trailing byte")+", ignored")
	}
	return nil
}
