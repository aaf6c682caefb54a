package multiplayer3

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gamewire/gamewire/godot"
)

// The ENet channels of NetworkedMultiplayerENet (SYSCH_CONFIG, SYSCH_RELIABLE,
// SYSCH_UNRELIABLE). A peer with a larger channel_count sends on the extra channels with
// set_transfer_channel; they carry the same header as channels 1 and 2.
const (
	ChannelSys        uint8 = 0 // ADD_PEER and REMOVE_PEER, from the server only, reliable
	ChannelReliable   uint8 = 1 // TRANSFER_MODE_RELIABLE
	ChannelUnreliable uint8 = 2 // TRANSFER_MODE_UNRELIABLE (unsequenced) and UNRELIABLE_ORDERED
	// Channels is the default channel_count, and the fewest the engine accepts.
	Channels = 3
)

// HeaderBytes is the size of the [u32 source][u32 target] header of every packet on the data
// channels, and of a SYS message.
const HeaderBytes = 8

// ServerID is the server's peer id. Clients choose their own ids (31 bits, at least 2) and send
// them as the ENet CONNECT data.
const ServerID = 1

// SysMessage is a message on ChannelSys: [u32 message][u32 peer id], little-endian.
type SysMessage uint32

// The SYS messages (SYSMSG_ADD_PEER, SYSMSG_REMOVE_PEER).
const (
	SysAddPeer    SysMessage = 0
	SysRemovePeer SysMessage = 1
)

// String returns the message's name in the engine ("ADD_PEER", "REMOVE_PEER").
func (m SysMessage) String() string {
	switch m {
	case SysAddPeer:
		return "ADD_PEER"
	case SysRemovePeer:
		return "REMOVE_PEER"
	}
	return fmt.Sprintf("SYS(%d)", uint32(m))
}

// AppendSys appends the SYS message msg about peer id.
func AppendSys(b []byte, msg SysMessage, id int32) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(msg))
	return binary.LittleEndian.AppendUint32(b, uint32(id))
}

// ParseSys parses a packet of ChannelSys. The engine reads the first 8 bytes of a packet of 8
// or more and ignores unknown messages; ParseSys refuses both longer packets (ErrTrailingData)
// and unknown messages (ErrBadPacket), which no engine sends.
func ParseSys(data []byte) (SysMessage, int32, error) {
	if len(data) < HeaderBytes {
		return 0, 0, perr(CmdSys, len(data), ErrTruncated, "SYS message of %s, want 8", plural(len(data), "byte"))
	}
	msg := SysMessage(binary.LittleEndian.Uint32(data))
	id := int32(binary.LittleEndian.Uint32(data[4:]))
	if msg != SysAddPeer && msg != SysRemovePeer {
		return 0, 0, perr(CmdSys, 0, ErrBadPacket, "unknown SYS message %d", uint32(msg))
	}
	if len(data) > HeaderBytes {
		return 0, 0, perr(CmdSys, HeaderBytes, ErrTrailingData, "%s after the SYS message", plural(len(data)-HeaderBytes, "byte"))
	}
	return msg, id, nil
}

// AppendHeader appends the header of a data packet: the sender's id and the target, which is
// a peer id, 0 for every peer, or -id for every peer but id.
func AppendHeader(b []byte, source, target int32) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(source))
	return binary.LittleEndian.AppendUint32(b, uint32(target))
}

// ParseHeader splits a packet of a data channel into its header and the MultiplayerAPI packet
// it carries.
func ParseHeader(data []byte) (source, target int32, payload []byte, err error) {
	if len(data) < HeaderBytes {
		return 0, 0, nil, perr(CmdNone, len(data), ErrTruncated, "%s, the header needs 8", plural(len(data), "byte"))
	}
	return int32(binary.LittleEndian.Uint32(data)), int32(binary.LittleEndian.Uint32(data[4:])), data[HeaderBytes:], nil
}

// Command is a MultiplayerAPI packet's first byte (NETWORK_COMMAND_*).
type Command uint8

// The commands. CmdSys and CmdNone are not on the wire: they label errors about SYS messages
// and about the transport header.
const (
	CmdRemoteCall   Command = 0
	CmdRemoteSet    Command = 1
	CmdSimplifyPath Command = 2
	CmdConfirmPath  Command = 3
	CmdRaw          Command = 4

	CmdSys  Command = 0xfe
	CmdNone Command = 0xff
)

// String returns the command's name in the engine ("REMOTE_CALL", …).
func (c Command) String() string {
	switch c {
	case CmdRemoteCall:
		return "REMOTE_CALL"
	case CmdRemoteSet:
		return "REMOTE_SET"
	case CmdSimplifyPath:
		return "SIMPLIFY_PATH"
	case CmdConfirmPath:
		return "CONFIRM_PATH"
	case CmdRaw:
		return "RAW"
	case CmdSys:
		return "SYS"
	case CmdNone:
		return "transport"
	}
	return fmt.Sprintf("command(%d)", uint8(c))
}

// pathFlag marks a REMOTE_CALL/REMOTE_SET target that is the offset of the full node path
// rather than a path cache id.
const pathFlag = 0x80000000

// Packet is a MultiplayerAPI packet, parsed. The fields its Command has are set; byte slices
// point into the parsed input.
type Packet struct {
	Command Command
	// CacheID is the path cache id: the id a SIMPLIFY_PATH announces, or the cached node of a
	// REMOTE_CALL or REMOTE_SET whose PathOffset is 0.
	CacheID uint32
	// Path is the node path (relative to /root) of SIMPLIFY_PATH and CONFIRM_PATH, and of a
	// REMOTE_CALL or REMOTE_SET that sends it in full.
	Path string
	// PathOffset is, for a REMOTE_CALL or REMOTE_SET that sends its path in full, where the path
	// starts (the target field is 0x80000000 | PathOffset); 0 when it uses CacheID.
	PathOffset int
	// Name is the method (REMOTE_CALL) or property (REMOTE_SET) name.
	Name string
	// Args are the REMOTE_CALL's arguments, or the REMOTE_SET's one value, each the bytes of one
	// Godot 3 Variant; ArgsOffset is where the first starts (after REMOTE_CALL's count byte).
	Args       [][]byte
	ArgsOffset int
	// Data is a RAW packet's payload (send_bytes).
	Data []byte

	argBuf [4][]byte // Args of up to 4 arguments, without an allocation of their own
}

// NoLimit, as the value of a limit, means none (godot.NoLimit).
const NoLimit = godot.NoLimit

// DecodeOptions configure the decoding of packets. The zero value decodes as the engine's
// defaults do; a limit of 0 means godot's default and NoLimit none.
type DecodeOptions struct {
	// AllowObjects accepts full objects in arguments, as allow_object_decoding does.
	AllowObjects bool
	// MaxDepth, MaxElements and MaxAllocBytes bound each argument as godot.DecodeOptions'
	// fields do.
	MaxDepth, MaxElements, MaxAllocBytes int
}

// DecodeMode parses packets with options checked once by DecodeOptions.DecodeMode. It is
// immutable and safe for concurrent use; the zero value parses with the default options.
type DecodeMode struct {
	set  bool
	args godot.DecodeMode
}

// DecodeMode checks o and returns the mode that parses with it. A negative limit other than
// NoLimit fails.
func (o DecodeOptions) DecodeMode() (DecodeMode, error) {
	m, err := godot.DecodeOptions{Dialect: godot.Godot3, AllowObjects: o.AllowObjects, MaxDepth: o.MaxDepth,
		MaxElements: o.MaxElements, MaxAllocBytes: o.MaxAllocBytes}.DecodeMode()
	if err != nil {
		return DecodeMode{}, fmt.Errorf("multiplayer3: %w", err)
	}
	return DecodeMode{set: true, args: m}, nil
}

// godot returns the Godot 3 Variant decoder of the mode.
func (m DecodeMode) godot() godot.DecodeMode {
	if !m.set {
		return defaultArgs
	}
	return m.args
}

func mustDecodeMode(o godot.DecodeOptions) godot.DecodeMode {
	m, err := o.DecodeMode()
	if err != nil {
		panic(err)
	}
	return m
}

func mustEncodeMode(o godot.EncodeOptions) godot.EncodeMode {
	m, err := o.EncodeMode()
	if err != nil {
		panic(err)
	}
	return m
}

var (
	// defaultArgs decodes arguments as the engine does by default; anyArgs also full objects
	// (for Values and Explain, which show what a packet holds).
	defaultArgs = mustDecodeMode(godot.DecodeOptions{Dialect: godot.Godot3})
	anyArgs     = mustDecodeMode(godot.DecodeOptions{Dialect: godot.Godot3, AllowObjects: true})
	enc3        = mustEncodeMode(godot.EncodeOptions{Dialect: godot.Godot3})
)

// Parse parses a MultiplayerAPI packet (without the transport header) with the default
// options.
func Parse(pkt []byte) (*Packet, error) { return DecodeMode{}.Parse(pkt) }

// Parse parses a MultiplayerAPI packet (without the transport header) as the engine's
// _process_packet reads it, and checks that every argument decodes as a Godot 3 Variant. It is
// stricter than the engine in two ways that no engine output trips: bytes no field accounts for
// fail with ErrTrailingData, and unknown commands fail with ErrBadPacket (the engine ignores
// both). Errors are *PacketErrors; Parse never panics.
func (m DecodeMode) Parse(pkt []byte) (*Packet, error) {
	if len(pkt) == 0 {
		return nil, perr(CmdNone, 0, ErrTruncated, "empty packet")
	}
	p := &Packet{}
	return p, m.parseInto(p, pkt)
}

// parseInto is Parse into a Packet of the caller's (pkt not empty), which the scene keeps
// between packets instead of allocating one for each.
func (m DecodeMode) parseInto(p *Packet, pkt []byte) error {
	cmd := Command(pkt[0])
	*p = Packet{Command: cmd}
	switch cmd {
	case CmdRemoteCall, CmdRemoteSet:
		return m.parseCall(p, pkt)
	case CmdSimplifyPath:
		if len(pkt) < 5 {
			return perr(cmd, len(pkt), ErrTruncated, "%s, need 5 and a path", plural(len(pkt), "byte"))
		}
		p.CacheID = binary.LittleEndian.Uint32(pkt[1:])
		path, n, err := cstring(cmd, pkt, 5)
		if err != nil {
			return err
		}
		p.Path = path
		return trailing(cmd, pkt, 5+n)
	case CmdConfirmPath:
		if len(pkt) < 2 {
			return perr(cmd, len(pkt), ErrTruncated, "no path")
		}
		path, n, err := cstring(cmd, pkt, 1)
		if err != nil {
			return err
		}
		p.Path = path
		return trailing(cmd, pkt, 1+n)
	case CmdRaw:
		if len(pkt) < 2 {
			return perr(cmd, 1, ErrTruncated, "RAW without a payload")
		}
		p.Data = pkt[1:]
		return nil
	}
	return perr(cmd, 0, ErrBadPacket, "unknown command %d", pkt[0])
}

// cstring reads a NUL-terminated UTF-8 string at off; n counts the NUL.
func cstring(cmd Command, pkt []byte, off int) (s string, n int, err error) {
	if off >= len(pkt) {
		return "", 0, perr(cmd, off, ErrTruncated, "string missing")
	}
	i := bytes.IndexByte(pkt[off:], 0)
	if i < 0 {
		return "", 0, perr(cmd, len(pkt), ErrTruncated, "string without its NUL")
	}
	b := pkt[off : off+i]
	if !utf8.Valid(b) {
		return "", 0, perr(cmd, off, ErrBadPacket, "string is not UTF-8")
	}
	return string(b), i + 1, nil
}

func trailing(cmd Command, pkt []byte, end int) error {
	if end < len(pkt) {
		return perr(cmd, end, ErrTrailingData, "%s after the packet's last field", plural(len(pkt)-end, "byte"))
	}
	return nil
}

func (m DecodeMode) parseCall(p *Packet, pkt []byte) error {
	cmd := p.Command
	if len(pkt) < 6 {
		return perr(cmd, len(pkt), ErrTruncated, "%s, need 6", plural(len(pkt), "byte"))
	}
	target := binary.LittleEndian.Uint32(pkt[1:])
	name, n, err := cstring(cmd, pkt, 5)
	if err != nil {
		return err
	}
	p.Name = name
	off := 5 + n
	end := len(pkt) // where the arguments end
	if target&pathFlag != 0 {
		ofs := int(target &^ pathFlag)
		if ofs >= len(pkt) || ofs < off {
			return perr(cmd, 1, ErrBadPacket, "path offset %d outside the packet's %s", ofs, plural(len(pkt), "byte"))
		}
		path, pn, err := cstring(cmd, pkt, ofs)
		if err != nil {
			return err
		}
		if err := trailing(cmd, pkt, ofs+pn); err != nil {
			return err
		}
		p.Path, p.PathOffset = path, ofs
		end = ofs
	} else {
		p.CacheID = target
	}
	argc := 1
	if cmd == CmdRemoteCall {
		if off >= end {
			return perr(cmd, off, ErrTruncated, "argument count missing")
		}
		argc = int(pkt[off])
		off++
	}
	p.ArgsOffset = off
	switch {
	case argc > len(p.argBuf):
		p.Args = make([][]byte, 0, argc)
	case argc > 0:
		p.Args = p.argBuf[:0]
	}
	dec := m.godot()
	for i := range argc {
		if off >= end {
			return perr(cmd, off, ErrTruncated, "argument %d of %d missing", i, argc)
		}
		_, vn, err := dec.Decode(pkt[off:end])
		if err != nil {
			e := perr(cmd, off, ErrBadVariant, "argument %d: %v", i, err)
			e.Cause = err
			return e
		}
		p.Args = append(p.Args, pkt[off:off+vn])
		off += vn
	}
	return trailing(cmd, pkt[:end], off)
}

// Values decodes the packet's arguments (REMOTE_CALL) or value (REMOTE_SET) as Godot 3
// Variants.
func (p *Packet) Values() ([]any, error) {
	vs := make([]any, len(p.Args))
	for i, a := range p.Args {
		v, _, err := anyArgs.Decode(a)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
}

// Target is where a REMOTE_CALL or REMOTE_SET goes: a node by its path cache id, or, when Path
// is set, by its full path (the form the engine uses until the peer has confirmed the path).
type Target struct {
	CacheID uint32
	Path    string
}

func checkName(what, s string) error {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == 0 || c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return nil
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("multiplayer3: %s %q holds a NUL", what, s)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("multiplayer3: %s %q is not UTF-8", what, s)
	}
	return nil
}

// AppendRemoteCall appends a REMOTE_CALL of method name on the node t names, with args encoded
// as Godot 3 Variants (see godot.EncodeMode.Append for the Go values it takes), as rpc() writes
// it: [0][u32 target][name NUL][u8 argc][args…] and, in path form, [path NUL], with target
// 0x80000000 | the path's offset.
func AppendRemoteCall(b []byte, t Target, name string, args ...any) ([]byte, error) {
	if len(args) > 255 {
		return b, fmt.Errorf("multiplayer3: %d arguments, the engine's limit is 255", len(args))
	}
	return appendCall(b, CmdRemoteCall, t, name, args)
}

// AppendRemoteSet appends a REMOTE_SET of property name to value on the node t names, as
// rset() writes it: [1][u32 target][name NUL][value] and, in path form, [path NUL].
func AppendRemoteSet(b []byte, t Target, name string, value any) ([]byte, error) {
	return appendCall(b, CmdRemoteSet, t, name, []any{value})
}

func appendCall(b []byte, cmd Command, t Target, name string, args []any) ([]byte, error) {
	if err := checkName("method name", name); err != nil {
		return b, err
	}
	if err := checkName("node path", t.Path); err != nil {
		return b, err
	}
	start := len(b)
	out := append(b, byte(cmd))
	out = binary.LittleEndian.AppendUint32(out, t.CacheID)
	out = append(out, name...)
	out = append(out, 0)
	if cmd == CmdRemoteCall {
		out = append(out, byte(len(args)))
	}
	for i, a := range args {
		var err error
		out, err = enc3.Append(out, a)
		if err != nil {
			return b[:start], fmt.Errorf("multiplayer3: %s %s argument %d: %w", cmd, name, i, err)
		}
	}
	if t.Path != "" {
		binary.LittleEndian.PutUint32(out[start+1:], pathFlag|uint32(len(out)-start))
		out = append(out, t.Path...)
		out = append(out, 0)
	}
	return out, nil
}

// AppendSimplifyPath appends the SIMPLIFY_PATH that announces path cache id for path:
// [2][u32 id][path NUL].
func AppendSimplifyPath(b []byte, id uint32, path string) ([]byte, error) {
	if err := checkName("node path", path); err != nil {
		return b, err
	}
	b = append(b, byte(CmdSimplifyPath))
	b = binary.LittleEndian.AppendUint32(b, id)
	return append(append(b, path...), 0), nil
}

// AppendConfirmPath appends the CONFIRM_PATH that answers a SIMPLIFY_PATH: [3][path NUL].
func AppendConfirmPath(b []byte, path string) ([]byte, error) {
	if err := checkName("node path", path); err != nil {
		return b, err
	}
	return append(append(append(b, byte(CmdConfirmPath)), path...), 0), nil
}

// AppendRaw appends a RAW packet (send_bytes): [4][data]. The engine refuses to send an empty
// one.
func AppendRaw(b []byte, data []byte) []byte {
	return append(append(b, byte(CmdRaw)), data...)
}
