package multiplayer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/gamewire/gamewire/godot"
)

// Command is the SceneMultiplayer command in bits 0–2 of a packet's first byte.
type Command uint8

// The SceneMultiplayer commands (modules/multiplayer/scene_multiplayer.h).
const (
	CmdRemoteCall   Command = 0
	CmdSimplifyPath Command = 1
	CmdConfirmPath  Command = 2
	CmdRaw          Command = 3
	CmdSpawn        Command = 4
	CmdDespawn      Command = 5
	CmdSync         Command = 6
	CmdSys          Command = 7
)

var commandNames = [...]string{"REMOTE_CALL", "SIMPLIFY_PATH", "CONFIRM_PATH", "RAW", "SPAWN", "DESPAWN", "SYNC", "SYS"}

// String returns the engine's name of the command, such as "REMOTE_CALL".
func (c Command) String() string {
	if int(c) < len(commandNames) {
		return commandNames[c]
	}
	return fmt.Sprintf("Command(%d)", uint8(c))
}

// SysCommand is the second byte of a SYS packet.
type SysCommand uint8

// The SYS sub-commands.
const (
	SysAuth    SysCommand = 0
	SysAddPeer SysCommand = 1
	SysDelPeer SysCommand = 2
	SysRelay   SysCommand = 3
)

var sysNames = [...]string{"AUTH", "ADD_PEER", "DEL_PEER", "RELAY"}

// String returns the engine's name of the sub-command, such as "RELAY".
func (c SysCommand) String() string {
	if int(c) < len(sysNames) {
		return sysNames[c]
	}
	return fmt.Sprintf("SysCommand(%d)", uint8(c))
}

const (
	cmdMask      = 7
	sysCmdSize   = 6
	checksumLen  = 32
	simplifyHead = 1 + checksumLen + 1 + 4 // command, checksum, NUL, cache id
	pathFlag     = 0x80000000
	nodeConfigID = 0x8000 // method ids of Node.rpc_config() entries

	// meta byte of REMOTE_CALL
	nodeShift    = 4
	nodeMask     = 3 << nodeShift
	methodShift  = 6
	bytesOrNoArg = 0x80
)

// Packet errors. Every error from parsing or processing a packet is a *PacketError that wraps
// one of these, testable with errors.Is.
var (
	// ErrTruncated: the packet ends before a field it must hold (the engine's "Invalid packet
	// received. Size too small.").
	ErrTruncated = errors.New("packet too short")
	// ErrBadPacket: a field holds a value the engine refuses (a CONFIRM_PATH that is not 6 bytes,
	// a path offset past the end, an unknown SYS command, an empty message …).
	ErrBadPacket = errors.New("malformed packet")
	// ErrBadVariant: an RPC argument does not decode (the engine's "Unable to decode state
	// variable").
	ErrBadVariant = errors.New("undecodable argument")
	// ErrUnknownNode: the RPC's node path is not a declared node.
	ErrUnknownNode = errors.New("node not found")
	// ErrUnknownCacheID: a cached node id that the sender never announced with SIMPLIFY_PATH.
	ErrUnknownCacheID = errors.New("unknown path cache id")
	// ErrDuplicateCacheID: a SIMPLIFY_PATH reuses a cache id of the same sender.
	ErrDuplicateCacheID = errors.New("duplicate path cache id")
	// ErrUnknownMethod: the method id is not in the node's RPC table.
	ErrUnknownMethod = errors.New("method id not in the node's RPC table")
	// ErrNotAllowed: the RPC's mode refuses the sender (disabled, or authority and the sender is
	// not the node's authority).
	ErrNotAllowed = errors.New("RPC not allowed")
	// ErrArgs: the arguments do not fit the handler (count or types).
	ErrArgs = errors.New("RPC arguments do not fit the handler")
	// ErrChecksum: the sender's RPC checksum for a node differs from ours. The engine stores the
	// mapping anyway and only reports it, and so does this package.
	ErrChecksum = errors.New("RPC checksum mismatch")
	// ErrNotFromServer: a SYS command that only peer 1 may send came from another peer.
	ErrNotFromServer = errors.New("SYS command only the server may send")
	// ErrUnknownPeer: a packet names a peer that is not connected.
	ErrUnknownPeer = errors.New("unknown peer")
	// ErrUnauthenticated: a packet other than AUTH from a peer that has not completed
	// authentication; the engine drops it.
	ErrUnauthenticated = errors.New("peer not authenticated")
	// ErrReplication: a Client does not act on SPAWN, DESPAWN and SYNC (it decodes and explains
	// them). A Server replicates (see Spawn, SyncState).
	ErrReplication = errors.New("replication packets are not supported by this peer")
	// ErrHandlerPanic: an RPC handler panicked; the panic is reported (with its stack) instead
	// of ending the server.
	ErrHandlerPanic = errors.New("RPC handler panicked")
	// ErrTooLarge: a packet exceeds a size limit (received: the path-cache bound; sent: the
	// MaxMessageBytes that the other end accepts).
	ErrTooLarge = errors.New("packet too large")
)

// PacketError is the error for a packet that cannot be parsed or is refused. Offset is the byte
// offset of the offending field from the start of the packet; Peer is the sender (0 if not
// known).
type PacketError struct {
	Peer    int32
	Command Command
	Offset  int64
	Detail  string
	Err     error
	// Cause is the underlying error where there is one, such as the *godot.DecodeError of an
	// argument that does not decode.
	Cause error
}

func (e *PacketError) Error() string {
	s := fmt.Sprintf("multiplayer: %s packet", e.Command)
	if e.Peer != 0 {
		s += fmt.Sprintf(" from peer %d", e.Peer)
	}
	s += fmt.Sprintf(" at offset %d: %v", e.Offset, e.Err)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel error and the cause, so that errors.Is and errors.As see both.
func (e *PacketError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

func perr(cmd Command, off int, err error, detail string, args ...any) *PacketError {
	if len(args) > 0 {
		detail = fmt.Sprintf(detail, args...)
	}
	return &PacketError{Command: cmd, Offset: int64(off), Err: err, Detail: detail}
}

// ---------------------------------------------------------------------------------------------
// encode_and_compress_variant

// AppendCompressed appends v as MultiplayerAPI::encode_and_compress_variant writes it: a bool
// as one byte (0x01 false, 0x81 true), an int as a meta byte and the smallest of 1, 2, 4 or 8
// little-endian bytes that holds it, and every other value as its plain Godot 4 Variant
// encoding. Integers and bools inside containers keep their plain form, as in the engine.
func AppendCompressed(b []byte, v any) ([]byte, error) { return Encoding{}.AppendCompressed(b, v) }

// Encoding holds the settings that change how arguments are encoded and decoded. The zero value
// is the engine's default: an official (single-precision) build with allow_object_decoding off.
type Encoding struct {
	// AllowObjectDecoding is SceneMultiplayer.allow_object_decoding: full objects (class name and
	// properties) in arguments are decoded (as *godot.Object data; nothing is instantiated)
	// instead of refused. Both ends must agree.
	AllowObjectDecoding bool
	// DoublePrecision encodes the real_t types (Vector2, Transform3D …) as a Godot build with
	// precision=double does. Decoding reads both forms.
	DoublePrecision bool
}

// encModes are the encode modes of single and double precision, made once.
var encModes = [2]godot.EncodeMode{mustEncodeMode(false), mustEncodeMode(true)}

func mustEncodeMode(double bool) godot.EncodeMode {
	m, _ := godot.EncodeOptions{DoublePrecision: double}.EncodeMode() // valid options: no error
	return m
}

func (e Encoding) encOptions() godot.EncodeMode {
	if e.DoublePrecision {
		return encModes[1]
	}
	return encModes[0]
}

func (e Encoding) decOptions() godot.DecodeMode {
	m, _ := godot.DecodeOptions{MaxElements: 1 << 16, AllowObjects: e.AllowObjectDecoding}.DecodeMode() // valid options: no error
	return m
}

// AppendCompressed is the package's AppendCompressed with e's settings.
func (e Encoding) AppendCompressed(b []byte, v any) ([]byte, error) {
	// The commonest argument types, as the encoder and the compression below would write them.
	switch v := v.(type) {
	case int:
		return appendCompressedInt(b, int64(v)), nil
	case int64:
		return appendCompressedInt(b, v), nil
	case bool:
		if v {
			return append(b, 0x81), nil
		}
		return append(b, 0x01), nil
	case []byte:
		b = binary.LittleEndian.AppendUint32(b, uint32(godot.TypePackedByteArray))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
		return append(b, make([]byte, -len(v)&3)...), nil
	}
	return e.appendCompressedSlow(b, v)
}

// appendCompressedSlow is AppendCompressed through the Variant encoder.
func (e Encoding) appendCompressedSlow(b []byte, v any) ([]byte, error) {
	start := len(b)
	b, err := e.encOptions().Append(b, v)
	if err != nil {
		return b, err
	}
	switch b[start] {
	case byte(godot.TypeBool):
		val := b[start+4] != 0
		b = b[:start]
		if val {
			return append(b, 0x81), nil
		}
		return append(b, 0x01), nil
	case byte(godot.TypeInt):
		var n int64
		if b[start+2]&1 != 0 { // 64-bit flag
			n = int64(binary.LittleEndian.Uint64(b[start+4:]))
		} else {
			n = int64(int32(binary.LittleEndian.Uint32(b[start+4:])))
		}
		return appendCompressedInt(b[:start], n), nil
	}
	return b, nil
}

func appendCompressedInt(b []byte, n int64) []byte {
	switch {
	case n >= math.MinInt8 && n <= math.MaxInt8:
		return append(b, 0x02, byte(n))
	case n >= math.MinInt16 && n <= math.MaxInt16:
		return binary.LittleEndian.AppendUint16(append(b, 0x42), uint16(n))
	case n >= math.MinInt32 && n <= math.MaxInt32:
		return binary.LittleEndian.AppendUint32(append(b, 0x82), uint32(n))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xc2), uint64(n))
}

// argDecOptions are the options arguments are decoded with by default: the engine's defaults (no
// full objects, nesting up to 1024 levels), with the element limit lowered to what fits a packet.
var argDecOptions = Encoding{}.decOptions()

// compressedLen returns the length of the compressed variant at the start of data.
func compressedLen(data []byte) (int, error) { return compressedLenOpts(data, argDecOptions) }

func compressedLenOpts(data []byte, dec godot.DecodeMode) (int, error) {
	if len(data) < 1 {
		return 0, godot.ErrTruncated
	}
	typ := data[0] & 0x3f
	if typ >= 39 {
		return 0, fmt.Errorf("type id %d: %w", typ, godot.ErrUnknownType)
	}
	switch godot.Type(typ) {
	case godot.TypeBool:
		return 1, nil
	case godot.TypeInt:
		n := 1 + 1<<(data[0]>>6)
		if len(data) < n {
			return 0, godot.ErrTruncated
		}
		return n, nil
	}
	if n, ok := fixedVariantLen(data); ok {
		return n, nil // checked when it is decoded
	}
	_, n, err := dec.Decode(data)
	return n, err
}

// realComponents is the number of real_t components of each math type (4 or 8 bytes each),
// and intComponents of the integer and Color types (always 4 bytes).
var realComponents = map[godot.Type]int{
	godot.TypeVector2: 2, godot.TypeRect2: 4, godot.TypeVector3: 3, godot.TypeTransform2D: 6,
	godot.TypeVector4: 4, godot.TypePlane: 4, godot.TypeQuaternion: 4, godot.TypeAABB: 6,
	godot.TypeBasis: 9, godot.TypeTransform3D: 12, godot.TypeProjection: 16,
}

var intComponents = map[godot.Type]int{
	godot.TypeNil: 0, godot.TypeBool: 1, godot.TypeVector2i: 2, godot.TypeRect2i: 4, godot.TypeVector3i: 3,
	godot.TypeVector4i: 4, godot.TypeColor: 4, godot.TypeRID: 2, godot.TypeCallable: 0,
}

// packedElem is the element size of the packed numeric arrays (single precision).
var packedElem = map[godot.Type]int{
	godot.TypePackedInt32Array: 4, godot.TypePackedInt64Array: 8, godot.TypePackedFloat32Array: 4,
	godot.TypePackedFloat64Array: 8, godot.TypePackedVector2Array: 8, godot.TypePackedVector3Array: 12,
	godot.TypePackedColorArray: 16, godot.TypePackedVector4Array: 16,
}

// fixedVariantLen returns the length of a plain Variant of a type whose length the header (and,
// for strings, the length field) gives, without decoding it; ok is false for other types, or
// when data is too short, and the caller decodes instead. The bytes are checked later, when the
// value is decoded from exactly that slice.
func fixedVariantLen(data []byte) (n int, ok bool) {
	if len(data) < 4 {
		return 0, false
	}
	h := binary.LittleEndian.Uint32(data)
	t := godot.Type(h & 0xff)
	wide := h&(1<<16) != 0
	switch {
	case t == godot.TypeInt || t == godot.TypeFloat:
		n = 8
		if wide {
			n = 12
		}
	case t == godot.TypeString || t == godot.TypeStringName || t == godot.TypePackedByteArray:
		if len(data) < 8 {
			return 0, false
		}
		l := int(binary.LittleEndian.Uint32(data[4:]))
		if l < 0 || l > len(data) {
			return 0, false
		}
		n = 8 + (l+3)&^3
	case packedElem[t] > 0:
		if len(data) < 8 {
			return 0, false
		}
		l := int(binary.LittleEndian.Uint32(data[4:]))
		size := packedElem[t]
		if wide && (t == godot.TypePackedVector2Array || t == godot.TypePackedVector3Array || t == godot.TypePackedVector4Array) {
			size *= 2
		}
		if l < 0 || l > len(data)/size {
			return 0, false
		}
		n = 8 + l*size
	default:
		if c, isReal := realComponents[t]; isReal {
			size := 4
			if wide {
				size = 8
			}
			n = 4 + c*size
		} else if c, isInt := intComponents[t]; isInt && !wide {
			n = 4 + 4*c
			if t == godot.TypeRID {
				n = 12
			}
		} else {
			return 0, false
		}
	}
	if n > len(data) {
		return 0, false
	}
	return n, true
}

// DecodeCompressed decodes one compressed variant from the start of data, as
// MultiplayerAPI::decode_and_decompress_variant does, and returns it (in the types of
// godot.DecodeMode.Decode) with the number of bytes it took. Full objects are refused, as the
// engine's default allow_object_decoding = false does.
func DecodeCompressed(data []byte) (v any, n int, err error) {
	return Encoding{}.DecodeCompressed(data)
}

// DecodeCompressed is the package's DecodeCompressed with e's settings.
func (e Encoding) DecodeCompressed(data []byte) (v any, n int, err error) {
	if len(data) < 1 {
		return nil, 0, godot.ErrTruncated
	}
	typ := data[0] & 0x3f
	if typ >= 39 {
		return nil, 0, fmt.Errorf("type id %d: %w", typ, godot.ErrUnknownType)
	}
	switch godot.Type(typ) {
	case godot.TypeBool:
		return data[0]&0x80 != 0, 1, nil
	case godot.TypeInt:
		n, err := compressedLen(data)
		if err != nil {
			return nil, 0, err
		}
		return compressedInt(data[:n]), n, nil
	}
	return e.decOptions().Decode(data)
}

func compressedInt(d []byte) int64 {
	switch len(d) {
	case 2:
		return int64(int8(d[1]))
	case 3:
		return int64(int16(binary.LittleEndian.Uint16(d[1:])))
	case 5:
		return int64(int32(binary.LittleEndian.Uint32(d[1:])))
	}
	return int64(binary.LittleEndian.Uint64(d[1:]))
}

// plainVariant returns the plain Variant bytes of the compressed variant c (exactly one), using
// buf for the bool and int forms.
func plainVariant(c []byte, buf *[12]byte) []byte {
	switch godot.Type(c[0] & 0x3f) {
	case godot.TypeBool:
		*buf = [12]byte{0: byte(godot.TypeBool)}
		if c[0]&0x80 != 0 {
			buf[4] = 1
		}
		return buf[:8]
	case godot.TypeInt:
		n := compressedInt(c)
		*buf = [12]byte{0: byte(godot.TypeInt)}
		if n == int64(int32(n)) {
			binary.LittleEndian.PutUint32(buf[4:], uint32(n))
			return buf[:8]
		}
		buf[2] = 1
		binary.LittleEndian.PutUint64(buf[4:], uint64(n))
		return buf[:12]
	}
	return c
}

// AppendArgs appends the arguments of a REMOTE_CALL as MultiplayerAPI::encode_and_compress_variants
// writes them and reports whether the meta byte's bit 7 (no argument count) must be set: no
// arguments → nothing; one []byte → its raw bytes; otherwise a count byte and the compressed
// variants. More than 255 arguments fail, as in the engine.
func AppendArgs(b []byte, args []any) (out []byte, bytesOnly bool, err error) {
	return Encoding{}.AppendArgs(b, args)
}

// AppendArgs is the package's AppendArgs with e's settings.
func (e Encoding) AppendArgs(b []byte, args []any) (out []byte, bytesOnly bool, err error) {
	if len(args) == 0 {
		return b, true, nil
	}
	if len(args) == 1 {
		if raw, ok := args[0].([]byte); ok {
			return append(b, raw...), true, nil
		}
	}
	if len(args) > 255 {
		return b, false, fmt.Errorf("multiplayer: %d arguments (at most 255): %w", len(args), ErrArgs)
	}
	start := len(b)
	b = append(b, byte(len(args)))
	for i, a := range args {
		if b, err = e.AppendCompressed(b, a); err != nil {
			return b[:start], false, fmt.Errorf("multiplayer: argument %d: %w", i, err)
		}
	}
	return b, false, nil
}

// ---------------------------------------------------------------------------------------------
// REMOTE_CALL

// RemoteCall is a parsed REMOTE_CALL packet. Its byte slices alias the packet.
type RemoteCall struct {
	// NodeID is the sender's path-cache id of the node, or, in the path form, 0x80000000 | the
	// offset of Path. NodeIDSize is 1, 2 or 4.
	NodeID     uint32
	NodeIDSize int
	// MethodID is the index in the node's RPC table (0x8000 | index for Node.rpc_config()
	// entries); MethodIDSize is 1 or 2.
	MethodID     uint16
	MethodIDSize int
	// Path is the node path relative to /root, in the path form.
	Path    string
	HasPath bool
	// BytesOnly is the meta byte's bit 7: Args is empty (no arguments) or the raw bytes of one
	// PackedByteArray.
	BytesOnly bool
	// Argc is the argument count; Args the compressed variants (or raw bytes), ArgsOffset where
	// they start in the packet.
	Argc       int
	Args       []byte
	ArgsOffset int
}

// ParseRemoteCall parses a REMOTE_CALL packet the way SceneRPCInterface::process_rpc reads it.
// The arguments are not decoded (see RemoteCall.Values).
func ParseRemoteCall(p []byte) (RemoteCall, error) {
	var rc RemoteCall
	if len(p) < 1 || Command(p[0]&cmdMask) != CmdRemoteCall {
		return rc, perr(CmdRemoteCall, 0, ErrBadPacket, "not a REMOTE_CALL")
	}
	meta := p[0]
	rc.NodeIDSize = 1 << ((meta & nodeMask) >> nodeShift)
	if rc.NodeIDSize > 4 {
		return rc, perr(CmdRemoteCall, 0, ErrBadPacket, "node id compression 3")
	}
	rc.MethodIDSize = 1 + int(meta>>methodShift&1)
	rc.BytesOnly = meta&bytesOrNoArg != 0
	off := 1
	if len(p) < off+rc.NodeIDSize+rc.MethodIDSize {
		return rc, perr(CmdRemoteCall, len(p), ErrTruncated, "")
	}
	switch rc.NodeIDSize {
	case 1:
		rc.NodeID = uint32(p[off])
	case 2:
		rc.NodeID = uint32(binary.LittleEndian.Uint16(p[off:]))
	case 4:
		rc.NodeID = binary.LittleEndian.Uint32(p[off:])
	}
	off += rc.NodeIDSize
	if rc.MethodIDSize == 1 {
		rc.MethodID = uint16(p[off])
	} else {
		rc.MethodID = binary.LittleEndian.Uint16(p[off:])
	}
	off += rc.MethodIDSize
	end := len(p)
	if rc.NodeIDSize == 4 && rc.NodeID&pathFlag != 0 {
		ofs := int(rc.NodeID &^ pathFlag)
		if ofs >= len(p) {
			return rc, perr(CmdRemoteCall, 1, ErrBadPacket, "path offset %d beyond the packet's %s", ofs, plural(len(p), "byte"))
		}
		if ofs < off {
			return rc, perr(CmdRemoteCall, 1, ErrBadPacket, "path offset %d inside the header", ofs)
		}
		rc.HasPath = true
		rc.Path = cstring(p[ofs:])
		end = ofs
	}
	if rc.BytesOnly {
		rc.ArgsOffset = off
		rc.Args = p[off:end]
		if len(rc.Args) > 0 {
			rc.Argc = 1
		}
		return rc, nil
	}
	if off >= end {
		return rc, perr(CmdRemoteCall, off, ErrTruncated, "no argument count")
	}
	rc.Argc = int(p[off])
	off++
	rc.ArgsOffset = off
	rc.Args = p[off:end]
	return rc, nil
}

// cstring returns the UTF-8 text up to the first NUL (or the end).
func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// splitArgs returns the compressed variants of rc's arguments, one slice each.
func (rc *RemoteCall) splitArgs(dst [][]byte) ([][]byte, error) {
	return rc.splitArgsOpts(dst, argDecOptions)
}

func (rc *RemoteCall) splitArgsOpts(dst [][]byte, dec godot.DecodeMode) ([][]byte, error) {
	if rc.BytesOnly {
		if rc.Argc == 1 {
			dst = append(dst, rc.Args)
		}
		return dst, nil
	}
	off := 0
	for i := 0; i < rc.Argc; i++ {
		if off >= len(rc.Args) {
			return dst, perr(CmdRemoteCall, rc.ArgsOffset+off, ErrTruncated, "argument %d of %d missing", i, rc.Argc)
		}
		n, err := compressedLenOpts(rc.Args[off:], dec)
		if err != nil {
			pe := perr(CmdRemoteCall, rc.ArgsOffset+off, ErrBadVariant, "argument %d: %v", i, err)
			pe.Cause = err
			return dst, pe
		}
		dst = append(dst, rc.Args[off:off+n])
		off += n
	}
	return dst, nil
}

// Values decodes the arguments: a BytesOnly call with bytes yields one []byte.
func (rc *RemoteCall) Values() ([]any, error) {
	if rc.BytesOnly {
		if rc.Argc == 1 {
			return []any{append([]byte(nil), rc.Args...)}, nil
		}
		return nil, nil
	}
	parts, err := rc.splitArgs(nil)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		if out[i], _, err = DecodeCompressed(p); err != nil {
			pe := perr(CmdRemoteCall, 0, ErrBadVariant, "argument %d: %v", i, err)
			pe.Cause = err
			return nil, pe
		}
	}
	return out, nil
}

// AppendRemoteCall appends a REMOTE_CALL packet as SceneRPCInterface::_send_rpc builds it. With
// path == "" the node is given by its cache id nodeID, in 1, 2 or 4 bytes as it fits (or always
// 4 if wide is set, the form the engine uses when some target has not confirmed the path);
// with a path the node id is 0x80000000 | offset and the path follows the arguments. The method
// id takes 2 bytes if it exceeds 255 (always for Node.rpc_config() entries).
func AppendRemoteCall(b []byte, nodeID uint32, wide bool, method uint16, path string, args []any) ([]byte, error) {
	return Encoding{}.AppendRemoteCall(b, nodeID, wide, method, path, args)
}

// AppendRemoteCall is the package's AppendRemoteCall with e's settings.
func (e Encoding) AppendRemoteCall(b []byte, nodeID uint32, wide bool, method uint16, path string, args []any) ([]byte, error) {
	start := len(b)
	nodeSize := 4
	if path == "" && !wide {
		switch {
		case nodeID <= 0xff:
			nodeSize = 1
		case nodeID <= 0xffff:
			nodeSize = 2
		}
	}
	meta := byte(CmdRemoteCall) | byte(nodeSize>>1)<<nodeShift
	methodSize := 1
	if method > 0xff {
		methodSize = 2
		meta |= 1 << methodShift
	}
	b = append(b, meta)
	nodeAt := len(b)
	b = append(b, make([]byte, nodeSize)...)
	if methodSize == 1 {
		b = append(b, byte(method))
	} else {
		b = binary.LittleEndian.AppendUint16(b, method)
	}
	b, bytesOnly, err := e.AppendArgs(b, args)
	if err != nil {
		return b[:start], err
	}
	if bytesOnly {
		b[start] |= bytesOrNoArg
	}
	if path != "" {
		nodeID = pathFlag | uint32(len(b)-start)
		b = append(append(b, path...), 0)
	}
	switch nodeSize {
	case 1:
		b[nodeAt] = byte(nodeID)
	case 2:
		binary.LittleEndian.PutUint16(b[nodeAt:], uint16(nodeID))
	default:
		binary.LittleEndian.PutUint32(b[nodeAt:], nodeID)
	}
	return b, nil
}

// ---------------------------------------------------------------------------------------------
// path cache, RAW, SYS

// AppendSimplifyPath appends a SIMPLIFY_PATH packet: the node's RPC checksum (32 lowercase hex
// digits), a NUL, the cache id and the NUL-terminated path relative to /root.
func AppendSimplifyPath(b []byte, checksum string, cacheID uint32, path string) []byte {
	b = append(b, byte(CmdSimplifyPath))
	b = append(b, checksum...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, cacheID)
	b = append(b, path...)
	return append(b, 0)
}

// SimplifyPath is a parsed SIMPLIFY_PATH packet.
type SimplifyPath struct {
	Checksum string
	CacheID  uint32
	Path     string
}

// ParseSimplifyPath parses a SIMPLIFY_PATH packet as SceneCacheInterface::process_simplify_path
// does: at least 38 bytes, the path up to the first NUL or the end.
func ParseSimplifyPath(p []byte) (SimplifyPath, error) {
	if len(p) < simplifyHead {
		return SimplifyPath{}, perr(CmdSimplifyPath, len(p), ErrTruncated, "%s, need %d", plural(len(p), "byte"), simplifyHead)
	}
	return SimplifyPath{
		Checksum: cstring(p[1 : 1+checksumLen]),
		CacheID:  binary.LittleEndian.Uint32(p[34:]),
		Path:     cstring(p[simplifyHead:]),
	}, nil
}

// AppendConfirmPath appends a CONFIRM_PATH packet: 02, valid (1 if the checksums matched), the
// cache id being confirmed.
func AppendConfirmPath(b []byte, valid bool, cacheID uint32) []byte {
	v := byte(0)
	if valid {
		v = 1
	}
	return binary.LittleEndian.AppendUint32(append(b, byte(CmdConfirmPath), v), cacheID)
}

// ParseConfirmPath parses a CONFIRM_PATH packet, which must be exactly 6 bytes.
func ParseConfirmPath(p []byte) (valid bool, cacheID uint32, err error) {
	if len(p) != 6 {
		return false, 0, perr(CmdConfirmPath, 0, ErrBadPacket, "%s, must be 6", plural(len(p), "byte"))
	}
	return p[1] != 0, binary.LittleEndian.Uint32(p[2:]), nil
}

// AppendSys appends a SYS packet with a peer id (ADD_PEER, DEL_PEER, RELAY) and, for RELAY, the
// inner packet.
func AppendSys(b []byte, cmd SysCommand, peer int32, inner []byte) []byte {
	b = binary.LittleEndian.AppendUint32(append(b, byte(CmdSys), byte(cmd)), uint32(peer))
	return append(b, inner...)
}

// AppendAuth appends a SYS AUTH packet: 07 00 and the data (empty data is the completion
// notice).
func AppendAuth(b []byte, data []byte) []byte {
	return append(append(b, byte(CmdSys), byte(SysAuth)), data...)
}

// AppendRaw appends a RAW packet (send_bytes): 03 and the bytes.
func AppendRaw(b []byte, data []byte) []byte { return append(append(b, byte(CmdRaw)), data...) }
