package multiplayer

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/internal/rpcfunc"
)

// Mode is an RPC's rpc_mode: who may call it.
type Mode uint8

// The RPC modes (MultiplayerAPI.RPCMode). The zero value is ModeAuthority, the @rpc default.
const (
	ModeAuthority Mode = iota // "authority": only the node's multiplayer authority may call
	ModeAnyPeer               // "any_peer": every peer may call
	ModeDisabled              // not callable remotely
)

// String returns the mode as the engine's messages write it.
func (m Mode) String() string {
	switch m {
	case ModeAuthority:
		return "authority"
	case ModeAnyPeer:
		return "any_peer"
	}
	return "disabled"
}

// TransferMode is an RPC's transfer mode. WebSocket delivers everything reliably and in order,
// so it is only recorded, as the engine records it.
type TransferMode uint8

// The transfer modes. The zero value is TransferReliable, the @rpc default.
const (
	TransferReliable TransferMode = iota
	TransferUnreliable
	TransferUnreliableOrdered
)

// RPC declares one method of a node as GDScript's @rpc annotation does, and the Go function that
// runs when a peer calls it.
//
// Handler is nil (the method can then be called on others but not received) or a function whose
// first parameter is *Peer, the caller (multiplayer.get_remote_sender_id()), and whose other
// parameters receive the arguments, each decoded with godot.Unmarshal, so that
// func(p *Peer, name string, pos godot.Vector2) just works; a parameter of type any receives
// the generic value. A single PackedByteArray argument ([]byte) arrives as the engine sends it,
// without a header. The function may return nothing or an error, which is reported like a
// refused packet.
type RPC struct {
	Name      string
	Mode      Mode
	CallLocal bool // call_local: calls made here also run the handler here
	Transfer  TransferMode
	Channel   int
	// NodeConfig marks a method declared with Node.rpc_config() rather than @rpc: such methods
	// come first in the RPC table, sorted, with ids 0x8000 | index (always two bytes on the
	// wire).
	NodeConfig bool
	Handler    any
}

// Node is a node that the GDScript side has, at a path relative to /root ("Main",
// "Main/Lobby"), with its RPC methods. Both sides must declare the same method names: the wire
// carries a method's index in the sorted table, and SIMPLIFY_PATH carries an MD5 of the names
// that the engine checks. A Node is immutable and may be shared by servers and clients.
type Node struct {
	path     string
	methods  []*method // the RPC table, in table order
	byName   map[string]*method
	checksum string
	// authority is the peer id of the node's multiplayer authority (1 unless set).
	authority int32
	// entity is set on the root node of a spawned entity: its RPCs go only to the peers that
	// have the entity (SceneReplicationInterface::is_rpc_visible).
	entity *Entity
}

type method struct {
	RPC
	id uint16
	fn *rpcfunc.Func // nil: no handler
}

var peerType = reflect.TypeFor[*Peer]()

// NewNode declares a node at path (relative to /root, without a leading slash) with its RPC
// methods. It builds the RPC table as SceneRPCInterface does: Node.rpc_config() entries sorted
// by name with ids 0x8000 | index, then the script's @rpc methods sorted by name with ids 0, 1,
// 2 …; names sort by code point (byte order of UTF-8, case-sensitive: "A" < "_" < "a").
func NewNode(path string, rpcs ...RPC) (*Node, error) {
	if path == "" || strings.HasPrefix(path, "/") || strings.ContainsRune(path, 0) {
		return nil, fmt.Errorf("multiplayer: node path %q: want a non-empty path relative to /root", path)
	}
	n := &Node{path: path, byName: map[string]*method{}, authority: 1}
	var nodeCfg, script []*method
	for _, r := range rpcs {
		if r.Name == "" {
			return nil, fmt.Errorf("multiplayer: node %q: an RPC without a name", path)
		}
		if _, dup := n.byName[r.Name]; dup {
			return nil, fmt.Errorf("multiplayer: node %q: RPC %q declared twice", path, r.Name)
		}
		if r.Mode > ModeDisabled || r.Transfer > TransferUnreliableOrdered {
			return nil, fmt.Errorf("multiplayer: node %q: RPC %q: bad mode or transfer mode", path, r.Name)
		}
		m := &method{RPC: r}
		if err := m.bind(); err != nil {
			return nil, fmt.Errorf("multiplayer: node %q: RPC %q: %w", path, r.Name, err)
		}
		n.byName[r.Name] = m
		if r.NodeConfig {
			nodeCfg = append(nodeCfg, m)
		} else {
			script = append(script, m)
		}
	}
	byName := func(a, b *method) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(nodeCfg, byName)
	slices.SortFunc(script, byName)
	for i, m := range nodeCfg {
		m.id = nodeConfigID | uint16(i)
	}
	for i, m := range script {
		m.id = uint16(i)
	}
	n.methods = append(nodeCfg, script...)
	names := make([]string, len(n.methods))
	for i, m := range n.methods {
		names[i] = m.Name
	}
	n.checksum = Checksum(names)
	return n, nil
}

// MustNode is NewNode that panics on error, for declarations at package level.
func MustNode(path string, rpcs ...RPC) *Node {
	n, err := NewNode(path, rpcs...)
	if err != nil {
		panic(err)
	}
	return n
}

// WithAuthority returns a copy of n whose multiplayer authority is peer id (1, the server, by
// default), as set_multiplayer_authority does.
func (n *Node) WithAuthority(id int32) *Node {
	c := *n
	c.authority = id
	return &c
}

// Path returns the node's path relative to /root.
func (n *Node) Path() string { return n.path }

// Checksum returns the node's RPC checksum, as SIMPLIFY_PATH carries it.
func (n *Node) Checksum() string { return n.checksum }

// Authority returns the peer id of the node's multiplayer authority.
func (n *Node) Authority() int32 { return n.authority }

// MethodID returns the wire id of the named method and whether the node has it.
func (n *Node) MethodID(name string) (uint16, bool) {
	m, ok := n.byName[name]
	if !ok {
		return 0, false
	}
	return m.id, true
}

func (n *Node) methodByID(id uint16) *method {
	if id&nodeConfigID != 0 {
		for _, m := range n.methods {
			if m.id == id {
				return m
			}
		}
		return nil
	}
	i := int(id)
	for _, m := range n.methods {
		if m.id&nodeConfigID != 0 {
			i++
			continue
		}
		break
	}
	if i < len(n.methods) && n.methods[i].id == id {
		return n.methods[i]
	}
	return nil
}

// Checksum returns the RPC checksum of a node whose RPC table holds names in table order:
// the MD5 of the names concatenated, as 32 lowercase hex digits (SceneRPCInterface::get_rpc_md5).
func Checksum(names []string) string {
	h := md5.New()
	for _, s := range names {
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (m *method) bind() error {
	f, err := rpcfunc.Bind(m.Handler, peerType)
	if err != nil {
		return err
	}
	m.fn = f
	return nil
}

// call decodes the arguments into the handler's parameters and calls it. An argument count
// that differs from the handler's fails, as the engine's call does ("RPC - …").
func (m *method) call(p *Peer, rc *RemoteCall, dec godot.DecodeMode) error {
	if m.fn == nil {
		return nil
	}
	var stack [8][]byte
	parts, err := rc.splitArgsOpts(stack[:0], dec)
	if err != nil {
		return err
	}
	if len(parts) != len(m.fn.Params) {
		return perr(CmdRemoteCall, rc.ArgsOffset, ErrArgs, "%s takes %s, got %d", m.Name, plural(len(m.fn.Params), "argument"), len(parts))
	}
	fr := m.fn.Frame()
	defer m.fn.Release(fr)
	fr.In[0] = reflect.ValueOf(p)
	if cap(fr.Scratch) < 12 {
		fr.Scratch = make([]byte, 12)
	}
	buf := (*[12]byte)(fr.Scratch[:12])
	var rawBuf []byte
	for i, part := range parts {
		ptr := fr.Ptr(i)
		var plain []byte
		if rc.BytesOnly {
			if b, ok := ptr.(*[]byte); ok {
				*b = append([]byte(nil), part...)
				continue
			}
			rawBuf, _ = godot.Append(rawBuf[:0], part)
			plain = rawBuf
		} else if fastArg(ptr, part) {
			continue
		} else if b, ok := ptr.(*[]byte); ok && len(part) >= 8 && binary.LittleEndian.Uint32(part) == uint32(godot.TypePackedByteArray) &&
			int(binary.LittleEndian.Uint32(part[4:])) <= len(part)-8 {
			// A PackedByteArray into a []byte, as the decoder would (splitArgs checked the
			// variant): its bytes, copied, since the handler may keep them.
			*b = make([]byte, binary.LittleEndian.Uint32(part[4:]))
			copy(*b, part[8:])
			continue
		} else {
			plain = plainVariant(part, buf)
		}
		if err := dec.Unmarshal(plain, ptr); err != nil {
			pe := perr(CmdRemoteCall, rc.ArgsOffset, ErrArgs, "%s argument %d: %v", m.Name, i, err)
			pe.Cause = err
			return pe
		}
	}
	return m.invoke(fr.In)
}

// fastArg decodes the compressed variant part into *ptr where that takes no decoder: an int
// into an int or int64, a bool into a bool, as the decoder would. It reports whether it did.
func fastArg(ptr any, part []byte) bool {
	switch godot.Type(part[0] & 0x3f) {
	case godot.TypeInt:
		switch p := ptr.(type) {
		case *int64:
			*p = compressedInt(part)
			return true
		case *int:
			if n := compressedInt(part); int64(int(n)) == n {
				*p = int(n)
				return true
			}
		}
	case godot.TypeBool:
		if p, ok := ptr.(*bool); ok {
			*p = part[0]&0x80 != 0
			return true
		}
	}
	return false
}

// invoke calls the handler; a panic is returned as an error wrapping ErrHandlerPanic, so that
// one peer's call cannot take the server down.
func (m *method) invoke(in []reflect.Value) error {
	err := m.fn.Call(in)
	if err == nil {
		return nil
	}
	var pe *rpcfunc.PanicError
	if errors.As(err, &pe) {
		return fmt.Errorf("multiplayer: RPC %s: %w: %v\n%s", m.Name, ErrHandlerPanic, pe.Value, pe.Stack)
	}
	return fmt.Errorf("multiplayer: RPC %s: %w", m.Name, err)
}
