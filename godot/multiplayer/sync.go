package multiplayer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/gamewire/gamewire/godot"
)

// SyncState is one MultiplayerSynchronizer on the server: its config and the current value of
// every property. For a synchronizer whose authority is the server, Set and SetState change
// what the next SYNC, delta SYNC and spawn state carry; for one whose authority is a client,
// the values are what that client last sent, read with Get and Unmarshal. Its methods may be
// called from any goroutine.
type SyncState struct {
	r      *replicator
	cfg    *SyncConfig
	lists  propLists
	entity *Entity // nil for a synchronizer added with Server.AddSynchronizer
	node   *Node   // its node, for the path cache
	auth   int32   // the resolved authority

	// guarded by r.sc.mu
	vals        [][]byte     // each property's compressed variant, in config order
	types       []godot.Type // each property's Default's type (TypeNil: any)
	netID       uint32       // spawn net id, or cache id | 0x80000000 once path based; 0 unassigned
	lastSync    time.Duration
	lastWatch   time.Duration
	watchers    []watcher // one per watched property
	syncStarted bool
	lastInbound uint16
	gone        bool
	cbGen       uint64 // the packet whose callbacks already include this synchronizer
	// tooLarge and deltaTooLarge: the state (delta) exceeds the packet size and was logged
	// once; they reset when it fits again.
	tooLarge, deltaTooLarge bool
}

type watcher struct {
	val     []byte
	changed time.Duration
	set     bool
}

var nilVariant = []byte{0, 0, 0, 0} // the compressed form of null: a plain Nil

func newSyncState(r *replicator, cfg *SyncConfig, e *Entity, node *Node, auth int32) *SyncState {
	s := &SyncState{r: r, cfg: cfg, lists: listsOf(cfg), entity: e, node: node, auth: auth}
	s.vals = make([][]byte, len(cfg.Properties))
	s.types = make([]godot.Type, len(cfg.Properties))
	for i, p := range cfg.Properties {
		s.vals[i] = nilVariant
		if p.Default != nil {
			if b, err := r.sc.encoding.AppendCompressed(nil, p.Default); err == nil { // validated
				s.vals[i] = b
				s.types[i] = godot.Type(b[0] & 0x3f)
			}
		}
	}
	s.watchers = make([]watcher, len(s.lists.watch))
	return s
}

// Path returns the synchronizer's node path relative to /root.
func (s *SyncState) Path() string { return s.node.path }

// Entity returns the entity the synchronizer belongs to, or nil for one added with
// Server.AddSynchronizer.
func (s *SyncState) Entity() *Entity { return s.entity }

// Authority returns the peer id of the synchronizer's multiplayer authority.
func (s *SyncState) Authority() int32 { return s.auth }

// Config returns the synchronizer's declaration.
func (s *SyncState) Config() *SyncConfig { return s.cfg }

func (s *SyncState) index(name string) int {
	for i, p := range s.cfg.Properties {
		if p.Path == name || p.Name() == name {
			return i
		}
	}
	return -1
}

// Set sets the property named name (its Name, "position", or its Path, ".:position") to v,
// encoded as the engine encodes a Variant (any Go value godot.Marshal takes).
func (s *SyncState) Set(name string, v any) error {
	i := s.index(name)
	if i < 0 {
		return fmt.Errorf("multiplayer: synchronizer %q has no property %q", s.node.path, name)
	}
	s.r.sc.mu.Lock()
	defer s.r.sc.mu.Unlock()
	r := s.r
	var err error
	if r.scratch, err = r.sc.encoding.AppendCompressed(r.scratch[:0], v); err != nil {
		return fmt.Errorf("multiplayer: synchronizer %q property %q: %w", s.node.path, name, err)
	}
	if err := s.checkType(i, r.scratch); err != nil {
		return err
	}
	// A watched property's old bytes may be a watcher's snapshot: it gets new ones. Others
	// are written over the old bytes when they fit, which nothing else holds (packets copy).
	old := s.vals[i]
	if s.cfg.Properties[i].Mode != ReplicateOnChange && &old[0] != &nilVariant[0] && cap(old) >= len(r.scratch) {
		s.vals[i] = append(old[:0], r.scratch...)
	} else {
		s.vals[i] = bytes.Clone(r.scratch)
	}
	return nil
}

// SetState sets the properties from the fields of the struct (or map with string keys) that v
// holds or points to: a field named by its `godot:"name"` tag, or else by its Go name compared
// without regard to case, sets the property of that Name. Fields and keys that name no property
// are ignored; properties that no field names keep their values.
func (s *SyncState) SetState(v any) error {
	vals := map[int][]byte{}
	err := eachField(v, func(name string, fv reflect.Value) error {
		i := s.indexFold(name)
		if i < 0 {
			return nil
		}
		b, err := s.r.sc.encoding.AppendCompressed(nil, fv.Interface())
		if err != nil {
			return fmt.Errorf("multiplayer: synchronizer %q property %q: %w", s.node.path, name, err)
		}
		if err := s.checkType(i, b); err != nil {
			return err
		}
		vals[i] = b
		return nil
	})
	if err != nil {
		return err
	}
	s.r.sc.mu.Lock()
	for i, b := range vals {
		s.vals[i] = b
	}
	s.r.sc.mu.Unlock()
	return nil
}

func (s *SyncState) indexFold(name string) int {
	if i := s.index(name); i >= 0 {
		return i
	}
	for i, p := range s.cfg.Properties {
		if strings.EqualFold(p.Name(), name) {
			return i
		}
	}
	return -1
}

// checkType refuses a value (compressed, b) whose Variant type differs from the property's
// Default's: a typed GDScript property would not take it. Int and float take each other, as do
// String and StringName; a property without a Default takes anything.
func (s *SyncState) checkType(i int, b []byte) error {
	want, have := s.types[i], godot.Type(b[0]&0x3f)
	switch {
	case want == have, want == godot.TypeNil || have == godot.TypeNil:
		return nil
	case (want == godot.TypeInt || want == godot.TypeFloat) && (have == godot.TypeInt || have == godot.TypeFloat):
		return nil
	case (want == godot.TypeString || want == godot.TypeStringName) && (have == godot.TypeString || have == godot.TypeStringName):
		return nil
	}
	return fmt.Errorf("multiplayer: synchronizer %q property %q is a %v, not a %v: %w",
		s.node.path, s.cfg.Properties[i].Name(), want, have, godot.ErrTypeMismatch)
}

// eachField calls fn with the name and value of every exported field of the struct v (or
// points to), or every entry of a map with string keys.
func eachField(v any, fn func(name string, fv reflect.Value) error) error {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Struct:
		t := rv.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name := sf.Name
			if tag, _, _ := strings.Cut(sf.Tag.Get("godot"), ","); tag == "-" {
				continue
			} else if tag != "" {
				name = tag
			}
			if err := fn(name, rv.Field(i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		for it := rv.MapRange(); it.Next(); {
			if err := fn(it.Key().String(), it.Value()); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("multiplayer: a state must be a struct or a map with string keys, not %T", v)
}

// Get returns the value of the property named name (its Name or Path), decoded into the
// generic value model (godot.Decode's types).
func (s *SyncState) Get(name string) (any, error) {
	i := s.index(name)
	if i < 0 {
		return nil, fmt.Errorf("multiplayer: synchronizer %q has no property %q", s.node.path, name)
	}
	s.r.sc.mu.Lock()
	b := s.vals[i]
	s.r.sc.mu.Unlock()
	v, _, err := s.r.sc.encoding.DecodeCompressed(b)
	return v, err
}

// Unmarshal decodes the synchronizer's current values into the struct (or map with string
// keys) that v points to, as godot.Unmarshal decodes each value: the property of each Name goes
// into the field named by its `godot:"name"` tag or, failing that, its Go name compared without
// regard to case. Properties without a field are skipped; a value that does not fit its field
// fails with a *godot.DecodeError.
func (s *SyncState) Unmarshal(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("multiplayer: Unmarshal needs a non-nil pointer, not %T", v)
	}
	s.r.sc.mu.Lock()
	vals := append([][]byte(nil), s.vals...)
	s.r.sc.mu.Unlock()
	dec := s.r.sc.dec
	var buf [12]byte
	el := rv.Elem()
	if el.Kind() == reflect.Map {
		if el.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("multiplayer: Unmarshal into %T: map keys must be strings", v)
		}
		if el.IsNil() {
			el.Set(reflect.MakeMap(el.Type()))
		}
		for i, p := range s.cfg.Properties {
			ptr := reflect.New(el.Type().Elem())
			if err := dec.Unmarshal(plainVariant(vals[i], &buf), ptr.Interface()); err != nil {
				return fmt.Errorf("multiplayer: property %q: %w", p.Name(), err)
			}
			el.SetMapIndex(reflect.ValueOf(p.Name()).Convert(el.Type().Key()), ptr.Elem())
		}
		return nil
	}
	if el.Kind() != reflect.Struct {
		return fmt.Errorf("multiplayer: Unmarshal into %T: want a pointer to a struct or a map", v)
	}
	return eachField(el.Addr().Interface(), func(name string, fv reflect.Value) error {
		i := s.indexFold(name)
		if i < 0 {
			return nil
		}
		if bytes.Equal(vals[i], nilVariant) {
			return nil // never set: the field keeps its value
		}
		if err := dec.Unmarshal(plainVariant(vals[i], &buf), fv.Addr().Interface()); err != nil {
			return fmt.Errorf("multiplayer: property %q: %w", s.cfg.Properties[i].Name(), err)
		}
		return nil
	})
}

// appendProps appends the compressed values of the properties idx, in order.
func (s *SyncState) appendProps(b []byte, idx []int) []byte {
	for _, i := range idx {
		b = append(b, s.vals[i]...)
	}
	return b
}

func (s *SyncState) propsSize(idx []int) int {
	n := 0
	for _, i := range idx {
		n += len(s.vals[i])
	}
	return n
}

// updateOutbound is MultiplayerSynchronizer::update_outbound_sync_time.
func (s *SyncState) updateOutbound(now time.Duration) bool {
	if s.lastSync == now {
		return true
	}
	if now < s.lastSync+s.cfg.Interval {
		return false
	}
	s.lastSync = now
	return true
}

// updateInbound is MultiplayerSynchronizer::update_inbound_sync_time: a state older than the
// last one (modulo 2^16, within half the range) is dropped.
func (s *SyncState) updateInbound(t uint16) bool {
	if !s.syncStarted {
		s.syncStarted = true
	} else if t <= s.lastInbound && s.lastInbound-t < 32767 {
		return false
	}
	s.lastInbound = t
	return true
}

// deltaState is MultiplayerSynchronizer::get_delta_state: the watched properties changed since
// last (a peer's last delta), and their mask.
func (s *SyncState) deltaState(now, last time.Duration) (mask uint64, idx []int) {
	switch {
	case s.lastWatch == now:
	case now < last+s.cfg.DeltaInterval:
		return 0, nil
	default:
		for w, i := range s.lists.watch {
			wt := &s.watchers[w]
			if !wt.set || !bytes.Equal(wt.val, s.vals[i]) {
				wt.val, wt.changed, wt.set = s.vals[i], now, true
			}
		}
		s.lastWatch = now
	}
	for w, i := range s.lists.watch {
		if s.watchers[w].changed <= last {
			continue
		}
		mask |= 1 << w
		idx = append(idx, i)
	}
	return mask, idx
}

// ---------------------------------------------------------------------------------------------
// receiving SYNC

// ErrNotAuthority: a SYNC or delta SYNC for a synchronizer whose authority is not the sender
// (the engine's "Ignoring sync data from non-authority or for missing node."), or a SPAWN or
// DESPAWN for a spawner whose authority is not the sender.
var ErrNotAuthority = errors.New("sender is not the authority")

// receiveSync is SceneReplicationInterface::on_sync_receive; sc.mu is held. It returns the
// callbacks to run after the lock is released, and the first error.
func (r *replicator) receiveSync(p *Peer, pkt []byte) (after []func(), err error) {
	if len(pkt) < 11 {
		return nil, perr(CmdSync, len(pkt), ErrTruncated, "%s, need 11", plural(len(pkt), "byte"))
	}
	r.gen++ // one OnSync per synchronizer per packet, however many entries name it
	if pkt[0]&(1<<4) != 0 {
		return r.receiveDelta(p, pkt)
	}
	t := binary.LittleEndian.Uint16(pkt[1:])
	for off := 3; off+8 < len(pkt); {
		netID := binary.LittleEndian.Uint32(pkt[off:])
		size := binary.LittleEndian.Uint32(pkt[off+4:])
		off += 8
		if size > uint32(len(pkt)-off) {
			return after, perr(CmdSync, off-4, ErrBadPacket, "state of %s, %d left", plural(int(size), "byte"), len(pkt)-off)
		}
		data := pkt[off : off+int(size)]
		s := r.findSync(p, netID)
		if s == nil {
			off += int(size) // not received yet
			continue
		}
		if s.auth != p.id {
			off += int(size)
			if err == nil {
				err = perr(CmdSync, off-int(size)-8, ErrNotAuthority, "synchronizer %q has authority %d", s.node.path, s.auth)
			}
			continue
		}
		if !s.updateInbound(t) {
			off += int(size) // too old
			continue
		}
		if e := r.applyState(s, data, s.lists.sync, off, false); e != nil {
			return after, e
		}
		off += int(size)
		after = s.appendOnSync(after, p)
	}
	return after, err
}

func (r *replicator) receiveDelta(p *Peer, pkt []byte) (after []func(), err error) {
	for off := 1; off+16 < len(pkt); {
		netID := binary.LittleEndian.Uint32(pkt[off:])
		mask := binary.LittleEndian.Uint64(pkt[off+4:])
		size := binary.LittleEndian.Uint32(pkt[off+12:])
		off += 16
		if size > uint32(len(pkt)-off) {
			return after, perr(CmdSync, off-4, ErrBadPacket, "delta of %s, %d left", plural(int(size), "byte"), len(pkt)-off)
		}
		data := pkt[off : off+int(size)]
		s := r.findSync(p, netID)
		if s == nil || s.auth != p.id {
			if err == nil {
				err = perr(CmdSync, off-16, ErrNotAuthority, "delta for net id %#x: non-authority or invalid synchronizer", netID)
			}
			off += int(size)
			continue
		}
		var idx []int
		for w, i := range s.lists.watch {
			if mask&(1<<w) != 0 {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return after, perr(CmdSync, off-12, ErrBadPacket, "delta mask %#x names no watched property", mask)
		}
		if e := r.applyState(s, data, idx, off, true); e != nil {
			return after, e
		}
		off += int(size)
		after = s.appendOnSync(after, p)
	}
	return after, err
}

// applyState decodes len(idx) compressed variants from data and stores them as the properties
// idx. A delta's values must fill data exactly; a SYNC's may be followed by bytes the engine
// ignores.
func (r *replicator) applyState(s *SyncState, data []byte, idx []int, base int, exact bool) error {
	vals := make([][]byte, len(idx))
	off := 0
	for k := range idx {
		n, err := compressedLenOpts(data[off:], r.sc.dec)
		if err == nil {
			_, _, err = r.sc.encoding.DecodeCompressed(data[off : off+n])
		}
		if err != nil {
			pe := perr(CmdSync, base+off, ErrBadVariant, "synchronizer %q property %q: %v", s.node.path, s.cfg.Properties[idx[k]].Name(), err)
			pe.Cause = err
			return pe
		}
		vals[k] = bytes.Clone(data[off : off+n])
		off += n
	}
	if exact && off != len(data) {
		return perr(CmdSync, base+off, ErrBadPacket, "synchronizer %q: %s after the state", s.node.path, plural(len(data)-off, "byte"))
	}
	for k, i := range idx {
		s.vals[i] = vals[k]
	}
	return nil
}

// appendOnSync adds the synchronizer's OnSync call to after, once per packet.
func (s *SyncState) appendOnSync(after []func(), p *Peer) []func() {
	if s.cfg.OnSync == nil || s.cbGen == s.r.gen {
		return after
	}
	s.cbGen = s.r.gen
	return append(after, func() { s.cfg.OnSync(p, s) })
}

// findSync is _find_synchronizer: a path-based net id names the sender's cached node.
func (r *replicator) findSync(p *Peer, netID uint32) *SyncState {
	if netID&pathFlag == 0 {
		return nil // the server spawns nothing a client sends ids for
	}
	n := p.remote[netID&^pathFlag]
	if n == nil {
		return nil
	}
	return r.byNode[n]
}
