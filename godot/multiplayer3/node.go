package multiplayer3

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/internal/rpcfunc"
)

// Mode is a Godot 3 rpc or rset mode (MultiplayerAPI.RPCMode), with the engine's numbers.
type Mode uint8

// The modes, as GDScript 3's keywords declare them. The zero value, ModeDisabled, is what a
// function without a keyword has: it cannot be called remotely.
const (
	ModeDisabled   Mode = iota // no keyword
	ModeRemote                 // remote: any peer may call
	ModeMaster                 // master: runs only on the node's network master
	ModePuppet                 // puppet: runs only on the others, and only when the master calls
	ModeRemoteSync             // remotesync: remote, and rpc() also runs it locally
	ModeMasterSync             // mastersync: master, and rpc() also runs it locally on the master
	ModePuppetSync             // puppetsync: puppet, and rpc() also runs it locally
)

// String returns the mode as GDScript 3 spells it ("remotesync"), or "disabled".
func (m Mode) String() string {
	switch m {
	case ModeDisabled:
		return "disabled"
	case ModeRemote:
		return "remote"
	case ModeMaster:
		return "master"
	case ModePuppet:
		return "puppet"
	case ModeRemoteSync:
		return "remotesync"
	case ModeMasterSync:
		return "mastersync"
	case ModePuppetSync:
		return "puppetsync"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// canCall reports whether a call or set from peer from may run on a node whose master is
// master, on the peer self (the engine's _can_call_mode).
func (m Mode) canCall(self, master, from int32) bool {
	switch m {
	case ModeRemote, ModeRemoteSync:
		return true
	case ModeMaster, ModeMasterSync:
		return self == master
	case ModePuppet, ModePuppetSync:
		return self != master && from == master
	}
	return false
}

// callLocal reports whether rpc() (to all peers, or to self) also runs the function here, and
// whether it then skips the remote call (the engine's _should_call_local).
func (m Mode) callLocal(isMaster bool) (local, skipRemote bool) {
	switch m {
	case ModeMasterSync:
		return true, isMaster
	case ModeRemoteSync, ModePuppetSync:
		return true, false
	case ModeMaster:
		return isMaster, isMaster
	case ModePuppet:
		return !isMaster, false
	}
	return false, false
}

// RPC declares a function (or, with Property, a property set with rset) of a node as a Godot 3
// script declares it, and the Go function that runs when a peer calls it.
//
// Handler is nil (the function can be called on others but not received) or a Go function whose
// first parameter is *Peer, the caller (get_rpc_sender_id()), and whose other parameters receive
// the arguments, each decoded with godot's Godot 3 Unmarshal, so that
// func(p *Peer, name string, pos godot.Vector2) just works; a parameter of type any receives the
// generic value. A property's handler takes exactly one value parameter. The function may return
// nothing or an error, which is reported like a refused packet.
type RPC struct {
	Name string
	Mode Mode
	// Property marks a property (rset) rather than a function (rpc).
	Property bool
	Handler  any
}

// Node is a node that the GDScript side has, at a path relative to /root ("Main",
// "Main/Lobby"), with its functions and properties. Godot 3 calls functions by name, so only the
// names the peers call matter; a name that a peer calls and the node does not declare is refused
// as the engine refuses a function without an rpc keyword. A Node is immutable and may be shared.
type Node struct {
	path   string
	master int32
	funcs  map[string]*method
	props  map[string]*method
}

type method struct {
	RPC
	fn *rpcfunc.Func // nil: no handler
}

var peerType = reflect.TypeFor[*Peer]()

// NewNode declares a node at path (relative to /root, without a leading slash) with its
// functions and properties.
func NewNode(path string, rpcs ...RPC) (*Node, error) {
	if path == "" || strings.HasPrefix(path, "/") || checkName("node path", path) != nil {
		return nil, fmt.Errorf("multiplayer3: node path %q: want a non-empty UTF-8 path relative to /root", path)
	}
	n := &Node{path: path, master: ServerID, funcs: map[string]*method{}, props: map[string]*method{}}
	for _, r := range rpcs {
		if r.Name == "" || checkName("name", r.Name) != nil {
			return nil, fmt.Errorf("multiplayer3: node %q: an RPC named %q", path, r.Name)
		}
		if r.Mode > ModePuppetSync {
			return nil, fmt.Errorf("multiplayer3: node %q: %s has mode %d", path, r.Name, r.Mode)
		}
		table := n.funcs
		if r.Property {
			table = n.props
		}
		if _, dup := table[r.Name]; dup {
			return nil, fmt.Errorf("multiplayer3: node %q: %s declared twice", path, r.Name)
		}
		m := &method{RPC: r}
		if err := m.bind(); err != nil {
			return nil, fmt.Errorf("multiplayer3: node %q: %s: %w", path, r.Name, err)
		}
		table[r.Name] = m
	}
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

// WithMaster returns a copy of n whose network master is peer id (1, the server, by default),
// as set_network_master does.
func (n *Node) WithMaster(id int32) *Node {
	c := *n
	c.master = id
	return &c
}

// Path returns the node's path relative to /root.
func (n *Node) Path() string { return n.path }

// Master returns the peer id of the node's network master.
func (n *Node) Master() int32 { return n.master }

func (n *Node) lookup(name string, property bool) *method {
	if property {
		return n.props[name]
	}
	return n.funcs[name]
}

func (m *method) bind() error {
	f, err := rpcfunc.Bind(m.Handler, peerType)
	if err != nil {
		return err
	}
	m.fn = f
	if m.fn != nil && m.Property && len(m.fn.Params) != 1 {
		return errors.New("a property's handler takes *Peer and the value")
	}
	return nil
}

// call decodes the arguments into the handler's parameters and calls it. A count that differs
// from the handler's fails, as the engine's call does ("RPC - … Method expected N arguments").
func (m *method) call(p *Peer, args [][]byte, dec godot.DecodeMode) error {
	return m.callWith(nil, p, args, dec)
}

// callWith is call with the handler's arguments built in scratch (reused when long enough; it
// holds nothing afterwards), which the caller owns for the call.
func (m *method) callWith(scratch []reflect.Value, p *Peer, args [][]byte, dec godot.DecodeMode) error {
	if m.fn == nil {
		return nil
	}
	if len(args) != len(m.fn.Params) {
		return fmt.Errorf("%w: %s takes %s, got %d", ErrArgs, m.Name, plural(len(m.fn.Params), "argument"), len(args))
	}
	in := scratch[:0]
	if cap(in) < 1+len(args) {
		in = make([]reflect.Value, 1+len(args))
	}
	in = in[:1+len(args)]
	defer clear(in) // the handler's arguments are not kept past the call
	in[0] = reflect.ValueOf(p)
	for i, a := range args {
		ptr := reflect.New(m.fn.Params[i])
		if err := dec.Unmarshal(a, ptr.Interface()); err != nil {
			return fmt.Errorf("%w: %s argument %d: %w", ErrArgs, m.Name, i, err)
		}
		in[1+i] = ptr.Elem()
	}
	return m.invoke(in)
}

// callValues calls the handler with Go values (a local call of a sync mode): they are encoded
// and decoded as they would be on the wire, so the handler sees what a remote call gives.
func (m *method) callValues(p *Peer, vals []any, dec godot.DecodeMode) error {
	if m.fn == nil {
		return nil
	}
	args := make([][]byte, len(vals))
	for i, v := range vals {
		b, err := enc3.Append(nil, v)
		if err != nil {
			return err
		}
		args[i] = b
	}
	return m.call(p, args, dec)
}

// invoke calls the handler; a panic is returned as an error wrapping ErrHandlerPanic, so that
// one peer's call cannot take the server down.
func (m *method) invoke(in []reflect.Value) error {
	if err := m.fn.Call(in); err != nil {
		// pe is declared here, where a call failed: errors.As makes it escape, which would
		// otherwise cost every call an allocation.
		var pe *rpcfunc.PanicError
		if errors.As(err, &pe) {
			return fmt.Errorf("multiplayer3: %s: %w: %v\n%s", m.Name, ErrHandlerPanic, pe.Value, pe.Stack)
		}
		return fmt.Errorf("multiplayer3: %s: %w", m.Name, err)
	}
	return nil
}
