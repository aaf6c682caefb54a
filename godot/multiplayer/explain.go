package multiplayer

import (
	"encoding/binary"
	"fmt"

	"github.com/gamewire/gamewire/godot"
)

// Explain returns every field of a SceneMultiplayer packet, in order, with its offset, length
// and meaning: the command byte and its flags, SYS sub-commands (with a RELAY's inner packet
// explained in turn), the path cache, REMOTE_CALL headers and each argument's compressed
// Variant, RAW payloads, and the replication packets SPAWN, DESPAWN and SYNC (plain and delta).
// On a malformed packet it returns the fields read so far and a *PacketError.
func Explain(pkt []byte) ([]godot.Field, error) {
	e := &explainer{}
	err := e.packet(pkt, 0, 0)
	return e.fields, err
}

type explainer struct {
	fields []godot.Field
}

func (e *explainer) add(off, n, depth int, kind, format string, args ...any) {
	e.fields = append(e.fields, godot.Field{Offset: off, Len: n, Depth: depth, Kind: kind, Text: fmt.Sprintf(format, args...)})
}

func (e *explainer) packet(p []byte, base, depth int) error {
	if len(p) == 0 {
		return perr(0, base, ErrTruncated, "empty packet")
	}
	cmd := Command(p[0] & cmdMask)
	switch cmd {
	case CmdRemoteCall:
		return e.remoteCall(p, base, depth)
	case CmdSimplifyPath:
		e.add(base, 1, depth, "u8", "command %#02x: SIMPLIFY_PATH", p[0])
		sp, err := ParseSimplifyPath(p)
		if err != nil {
			return shift(err, base)
		}
		e.add(base+1, 32, depth, "utf8", "RPC checksum %q (MD5 of the node's RPC method names)", sp.Checksum)
		e.add(base+33, 1, depth, "nul", "terminator")
		e.add(base+34, 4, depth, "u32", "path cache id %d", sp.CacheID)
		e.add(base+38, len(p)-38, depth, "utf8", "node path %q relative to /root, NUL-terminated", sp.Path)
		return nil
	case CmdConfirmPath:
		e.add(base, 1, depth, "u8", "command %#02x: CONFIRM_PATH", p[0])
		valid, id, err := ParseConfirmPath(p)
		if err != nil {
			return shift(err, base)
		}
		e.add(base+1, 1, depth, "u8", "valid = %t (the checksums matched)", valid)
		e.add(base+2, 4, depth, "u32", "path cache id %d being confirmed", id)
		return nil
	case CmdRaw:
		e.add(base, 1, depth, "u8", "command %#02x: RAW (send_bytes)", p[0])
		if len(p) < 2 {
			return perr(CmdRaw, base+1, ErrTruncated, "no payload")
		}
		e.add(base+1, len(p)-1, depth, "bytes", "payload, %d bytes (peer_packet)", len(p)-1)
		return nil
	case CmdSpawn:
		return e.spawn(p, base, depth)
	case CmdDespawn:
		e.add(base, 1, depth, "u8", "command %#02x: DESPAWN", p[0])
		if len(p) < 5 {
			return perr(CmdDespawn, base+len(p), ErrTruncated, "need 5 bytes")
		}
		e.add(base+1, 4, depth, "u32", "net id %d of the node to free", binary.LittleEndian.Uint32(p[1:]))
		return nil
	case CmdSync:
		return e.sync(p, base, depth)
	}
	return e.sys(p, base, depth)
}

func shift(err error, base int) error {
	if pe, ok := err.(*PacketError); ok {
		c := *pe
		c.Offset += base
		return &c
	}
	return err
}

func (e *explainer) remoteCall(p []byte, base, depth int) error {
	rc, err := ParseRemoteCall(p)
	meta := p[0]
	form := "arguments follow an argument count"
	if meta&bytesOrNoArg != 0 {
		form = "no argument count: no arguments, or one PackedByteArray's raw bytes"
	}
	e.add(base, 1, depth, "u8", "command %#02x: REMOTE_CALL; node id in %d bytes, method id in %d bytes, %s",
		meta, 1<<((meta&nodeMask)>>nodeShift), 1+int(meta>>methodShift&1), form)
	if err != nil {
		return shift(err, base)
	}
	off := 1
	if rc.HasPath {
		e.add(base+off, 4, depth, "u32", "%#08x: the node path follows at offset %d", rc.NodeID, rc.NodeID&^pathFlag)
	} else {
		e.add(base+off, rc.NodeIDSize, depth, "u"+fmt.Sprint(8*rc.NodeIDSize), "node: path cache id %d of the sender", rc.NodeID)
	}
	off += rc.NodeIDSize
	what := "index in the node's sorted @rpc methods"
	if rc.MethodID&nodeConfigID != 0 {
		what = "0x8000 | index in the node's sorted rpc_config() methods"
	}
	e.add(base+off, rc.MethodIDSize, depth, "u"+fmt.Sprint(8*rc.MethodIDSize), "method id %d (%s)", rc.MethodID, what)
	off += rc.MethodIDSize
	if rc.BytesOnly {
		if rc.Argc == 1 {
			e.add(base+off, len(rc.Args), depth, "bytes", "one PackedByteArray argument, %d raw bytes", len(rc.Args))
		}
	} else {
		e.add(base+off, 1, depth, "u8", "argument count %d", rc.Argc)
		parts, err := rc.splitArgs(nil)
		at := rc.ArgsOffset
		for i, part := range parts {
			if verr := e.variant(part, base+at, depth+1, fmt.Sprintf("argument %d", i)); verr != nil {
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
		e.add(base+ofs, len(p)-ofs, depth, "utf8", "node path %q relative to /root, NUL-terminated", rc.Path)
	}
	return nil
}

// variant explains one compressed variant (encode_and_compress_variant).
func (e *explainer) variant(c []byte, base, depth int, name string) error {
	switch godot.Type(c[0] & 0x3f) {
	case godot.TypeBool:
		e.add(base, 1, depth, "u8", "%s: bool %t, compressed (%#02x: type 1, bit 7 the value)", name, c[0]&0x80 != 0, c[0])
		return nil
	case godot.TypeInt:
		e.add(base, 1, depth, "u8", "%s: int compressed to %d bytes (%#02x: type 2, bits 6-7 the size)", name, len(c)-1, c[0])
		e.add(base+1, len(c)-1, depth, fmt.Sprintf("int%d", 8*(len(c)-1)), "%d", compressedInt(c))
		return nil
	}
	fields, err := argDecOptions.Explain(c)
	if err == nil {
		if _, n, derr := argDecOptions.Decode(c); derr != nil {
			err = derr
		} else if n != len(c) {
			err = fmt.Errorf("the value takes %d bytes, its header says %d", n, len(c))
		}
	}
	e.add(base, 0, depth, "", "%s: a plain Variant", name)
	for _, f := range fields {
		// godot's Explain may name padding that the input lacks (it is optional on decode);
		// keep the fields inside the packet.
		if f.Offset+f.Len > len(c) {
			if f.Offset >= len(c) {
				continue
			}
			f.Len = len(c) - f.Offset
		}
		f.Offset += base
		f.Depth += depth
		e.fields = append(e.fields, f)
	}
	if err != nil {
		pe := perr(0, base, ErrBadVariant, "%s: %v", name, err)
		pe.Cause = err
		return pe
	}
	return nil
}

func (e *explainer) variants(cmd Command, p []byte, base, depth int, what string) error {
	for i, off := 0, 0; off < len(p); i++ {
		n, err := compressedLen(p[off:])
		if err != nil {
			return perr(cmd, base+off, ErrBadVariant, "%s %d: %v", what, i, err)
		}
		if verr := e.variant(p[off:off+n], base+off, depth, fmt.Sprintf("%s %d", what, i)); verr != nil {
			verr.(*PacketError).Command = cmd
			return verr
		}
		off += n
	}
	return nil
}

func (e *explainer) spawn(p []byte, base, depth int) error {
	e.add(base, 1, depth, "u8", "command %#02x: SPAWN (MultiplayerSpawner)", p[0])
	if len(p) < 18 {
		return perr(CmdSpawn, base+len(p), ErrTruncated, "%d bytes, need 18", len(p))
	}
	sceneID := p[1]
	if sceneID == 0xff {
		e.add(base+1, 1, depth, "u8", "scene id 255: a custom spawn_function")
	} else {
		e.add(base+1, 1, depth, "u8", "scene id %d: index in the spawner's spawnable scenes", sceneID)
	}
	e.add(base+2, 4, depth, "u32", "spawner's path cache id %d", binary.LittleEndian.Uint32(p[2:]))
	e.add(base+6, 4, depth, "u32", "net id %d of the spawned node", binary.LittleEndian.Uint32(p[6:]))
	s := int(binary.LittleEndian.Uint32(p[10:]))
	e.add(base+10, 4, depth, "u32", "%d synchronizer net ids", s)
	l := int(binary.LittleEndian.Uint32(p[14:]))
	e.add(base+14, 4, depth, "u32", "node name length %d, NUL included", l)
	off := 18
	if s < 0 || s > (len(p)-off)/4 {
		return perr(CmdSpawn, base+10, ErrTruncated, "%d synchronizer ids do not fit", s)
	}
	for i := 0; i < s; i++ {
		e.add(base+off, 4, depth, "u32", "synchronizer %d net id %d", i, binary.LittleEndian.Uint32(p[off:]))
		off += 4
	}
	if l < 1 || l > len(p)-off {
		return perr(CmdSpawn, base+14, ErrTruncated, "name of %d bytes does not fit", l)
	}
	e.add(base+off, l, depth, "utf8", "node name %q", cstring(p[off:off+l]))
	off += l
	if sceneID == 0xff {
		if len(p)-off < 4 {
			return perr(CmdSpawn, base+off, ErrTruncated, "custom spawn argument size")
		}
		a := int(binary.LittleEndian.Uint32(p[off:]))
		e.add(base+off, 4, depth, "u32", "custom spawn argument, %d bytes", a)
		off += 4
		if a < 0 || a > len(p)-off {
			return perr(CmdSpawn, base+off-4, ErrTruncated, "custom spawn argument of %d bytes", a)
		}
		if err := e.variants(CmdSpawn, p[off:off+a], base+off, depth+1, "spawn argument"); err != nil {
			return err
		}
		off += a
	}
	return e.variants(CmdSpawn, p[off:], base+off, depth+1, "spawn state value")
}

func (e *explainer) sync(p []byte, base, depth int) error {
	delta := p[0]&(1<<4) != 0
	if delta {
		e.add(base, 1, depth, "u8", "command %#02x: SYNC, delta (bit 4): ON_CHANGE properties", p[0])
		if len(p) < 11 { // the receiver checks this before telling the forms apart
			return perr(CmdSync, base+len(p), ErrTruncated, "%d bytes, need 11", len(p))
		}
		for off := 1; off < len(p); {
			if len(p)-off < 16 {
				return perr(CmdSync, base+off, ErrTruncated, "delta entry header")
			}
			e.add(base+off, 4, depth, "u32", "net id %s", netID(binary.LittleEndian.Uint32(p[off:])))
			e.add(base+off+4, 8, depth, "u64", "changed mask %#x", binary.LittleEndian.Uint64(p[off+4:]))
			size := int(binary.LittleEndian.Uint32(p[off+12:]))
			e.add(base+off+12, 4, depth, "u32", "state size %d", size)
			off += 16
			if size < 0 || size > len(p)-off {
				return perr(CmdSync, base+off-4, ErrTruncated, "state of %d bytes", size)
			}
			if err := e.variants(CmdSync, p[off:off+size], base+off, depth+1, "changed property"); err != nil {
				return err
			}
			off += size
		}
		return nil
	}
	e.add(base, 1, depth, "u8", "command %#02x: SYNC (ALWAYS properties)", p[0])
	if len(p) < 11 {
		return perr(CmdSync, base+len(p), ErrTruncated, "%d bytes, need 11", len(p))
	}
	e.add(base+1, 2, depth, "u16", "sync time %d", binary.LittleEndian.Uint16(p[1:]))
	for off := 3; off < len(p); {
		if len(p)-off < 8 {
			return perr(CmdSync, base+off, ErrTruncated, "entry header")
		}
		e.add(base+off, 4, depth, "u32", "net id %s", netID(binary.LittleEndian.Uint32(p[off:])))
		size := int(binary.LittleEndian.Uint32(p[off+4:]))
		e.add(base+off+4, 4, depth, "u32", "state size %d", size)
		off += 8
		if size < 0 || size > len(p)-off {
			return perr(CmdSync, base+off-4, ErrTruncated, "state of %d bytes", size)
		}
		if err := e.variants(CmdSync, p[off:off+size], base+off, depth+1, "property"); err != nil {
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

func (e *explainer) sys(p []byte, base, depth int) error {
	e.add(base, 1, depth, "u8", "command %#02x: SYS", p[0])
	if len(p) < 2 {
		return perr(CmdSys, base+1, ErrTruncated, "no SYS command")
	}
	sub := SysCommand(p[1])
	if sub == SysAuth {
		if len(p) == 2 {
			e.add(base+1, 1, depth, "u8", "AUTH, no data: authentication completed (complete_auth)")
		} else {
			e.add(base+1, 1, depth, "u8", "AUTH with data (send_auth)")
			e.add(base+2, len(p)-2, depth, "bytes", "authentication data, %d bytes", len(p)-2)
		}
		return nil
	}
	if len(p) < sysCmdSize {
		return perr(CmdSys, base+len(p), ErrTruncated, "%d bytes, need 6", len(p))
	}
	id := int32(binary.LittleEndian.Uint32(p[2:]))
	switch sub {
	case SysAddPeer:
		e.add(base+1, 1, depth, "u8", "ADD_PEER (server to client)")
		e.add(base+2, 4, depth, "int32", "peer %d connected", id)
	case SysDelPeer:
		e.add(base+1, 1, depth, "u8", "DEL_PEER (server to client)")
		e.add(base+2, 4, depth, "int32", "peer %d disconnected", id)
	case SysRelay:
		e.add(base+1, 1, depth, "u8", "RELAY")
		e.add(base+2, 4, depth, "int32", "peer %d: the destination (client to server; 0 all, -n all but n) or the source (server to client)", id)
		if len(p) < sysCmdSize+1 {
			return perr(CmdSys, base+len(p), ErrTruncated, "RELAY without a packet")
		}
		e.add(base+6, 0, depth, "", "relayed packet, %d bytes:", len(p)-6)
		return e.packet(p[6:], base+6, depth+1)
	default:
		e.add(base+1, 1, depth, "u8", "unknown SYS command %d", p[1])
		return perr(CmdSys, base+1, ErrBadPacket, "unknown SYS command %d", p[1])
	}
	if len(p) > sysCmdSize {
		e.add(base+6, len(p)-6, depth, "bytes", "%d trailing bytes, ignored", len(p)-6)
	}
	return nil
}
