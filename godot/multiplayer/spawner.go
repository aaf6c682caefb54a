package multiplayer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"
)

// replicator is SceneReplicationInterface on the server: the spawned entities, the
// synchronizers, and what each peer has been sent. All of it is guarded by sc.mu.
type replicator struct {
	sc        *scene
	syncMTU   int
	deltaMTU  int
	epoch     time.Time
	lastNetID uint32
	spawners  map[string]*Spawner
	spawned   []*Entity // spawned_nodes, in insertion order
	byPath    map[string]*Entity
	syncs     []*SyncState // sync_nodes whose authority is the server, in insertion order
	byNode    map[*Node]*SyncState
	peers     map[int32]*replPeer
	buf       []byte
	scratch   []byte // SyncState.Set's encoding
	stop      chan struct{}
	gen       uint64 // counts received SYNC packets (one OnSync per synchronizer per packet)
}

// replPeer is the engine's PeerInfo.
type replPeer struct {
	id        int32
	spawned   map[*Entity]bool
	syncs     []*SyncState       // sync_nodes visible to the peer, in the engine's set order
	syncAt    map[*SyncState]int // each one's index in syncs
	lastSent  uint16
	lastWatch map[*SyncState]time.Duration
}

func newReplicator(sc *scene, cfg Replication) *replicator {
	// No packet larger than the clients accept (MaxMessageBytes) is built.
	r := &replicator{sc: sc, syncMTU: min(limit(cfg.MaxSyncPacketBytes, DefaultMaxSyncPacketBytes), sc.maxPacket),
		deltaMTU: min(limit(cfg.MaxDeltaPacketBytes, DefaultMaxDeltaPacketBytes), sc.maxPacket),
		// The engine's clock counts from the engine's start: a synchronizer's first SYNC is
		// never "too soon". An epoch an hour back gives the same.
		epoch:    time.Now().Add(-time.Hour),
		spawners: map[string]*Spawner{}, byNode: map[*Node]*SyncState{}, peers: map[int32]*replPeer{},
		byPath: map[string]*Entity{}}
	for id := range sc.peers {
		r.peers[id] = newReplPeer(id)
	}
	return r
}

func newReplPeer(id int32) *replPeer {
	return &replPeer{id: id, spawned: map[*Entity]bool{}, lastWatch: map[*SyncState]time.Duration{}, syncAt: map[*SyncState]int{}}
}

// replicator returns the server's replicator, creating it (and its ticker) on first use.
func (s *Server) replicator() (*replicator, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	return s.replicatorLocked(), nil
}

// replicatorLocked is replicator with sc.mu held and the server initialised.
func (s *Server) replicatorLocked() *replicator {
	sc := s.sc
	if sc.repl == nil {
		sc.repl = newReplicator(sc, s.Replication)
		if every := s.Replication.TickInterval; every >= 0 {
			if every == 0 {
				every = DefaultTickInterval
			}
			sc.repl.stop = make(chan struct{})
			go s.ticker(sc.repl, every)
		}
	}
	return sc.repl
}

// initReplication adds the Spawners and Synchronizers; it runs once, when the server starts.
func (s *Server) initReplication() error {
	if len(s.Spawners) == 0 && len(s.Synchronizers) == 0 {
		return nil
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	r := s.replicatorLocked()
	err := func() error {
		for _, sp := range s.Spawners {
			if err := s.addSpawnerLocked(r, sp); err != nil {
				return err
			}
		}
		for _, c := range s.Synchronizers {
			if _, err := s.addSynchronizerLocked(r, c); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil && r.stop != nil {
		close(r.stop) // the server will not serve: its ticker ends
	}
	return err
}

// Synchronizer returns the state of the synchronizer at path (relative to /root) that is not
// in a spawned scene, or nil.
func (s *Server) Synchronizer(path string) *SyncState {
	if s.init() != nil {
		return nil
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	if s.sc.repl == nil {
		return nil
	}
	if n := s.sc.nodes[path]; n != nil {
		if st := s.sc.repl.byNode[n]; st != nil && st.entity == nil {
			return st
		}
	}
	return nil
}

func (s *Server) ticker(r *replicator, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		closing := s.closing
		s.mu.Unlock()
		if closing {
			return
		}
		r.tick()
	}
}

// Tick replicates once, as the engine does once per network frame: for every peer with
// visible synchronizers, a SYNC of the ALWAYS properties of those whose interval has passed and
// a delta SYNC of the changed ON_CHANGE properties. The server ticks by itself every
// Replication.TickInterval unless that is NoLimit.
func (s *Server) Tick() error {
	r, err := s.replicator()
	if err != nil {
		return err
	}
	r.tick()
	return nil
}

// ---------------------------------------------------------------------------------------------
// declarations

// AddSpawner declares a spawner whose authority is the server while the server runs (the
// Spawners field declares them up front). Entities are then spawned with Spawn.
func (s *Server) AddSpawner(sp *Spawner) error {
	r, err := s.replicator()
	if err != nil {
		return err
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	return s.addSpawnerLocked(r, sp)
}

func (s *Server) addSpawnerLocked(r *replicator, sp *Spawner) error {
	if sp.Path == "" || sp.SpawnPath == "" {
		return errors.New("multiplayer: a spawner needs its Path and SpawnPath")
	}
	if len(sp.Scenes) >= CustomScene {
		return fmt.Errorf("multiplayer: spawner %q: %d scenes (at most %d)", sp.Path, len(sp.Scenes), CustomScene-1)
	}
	if sp.SpawnLimit < 0 {
		return fmt.Errorf("multiplayer: spawner %q: negative spawn limit %d", sp.Path, sp.SpawnLimit)
	}
	seen := map[*Scene]bool{}
	for _, sc := range append(slices.Clone(sp.Scenes), sp.Custom) {
		if err := validateScene(sc, seen); err != nil {
			return fmt.Errorf("multiplayer: spawner %q: %w", sp.Path, err)
		}
	}
	n, err := NewNode(sp.Path)
	if err != nil {
		return err
	}
	sc := s.sc
	if _, dup := r.spawners[sp.Path]; dup {
		return fmt.Errorf("multiplayer: spawner %q added twice", sp.Path)
	}
	if old := sc.nodes[sp.Path]; old != nil {
		n = old // a spawner with a script that has RPCs, declared as a node
	} else {
		sc.nodes[sp.Path] = n
	}
	sp.node = n
	r.spawners[sp.Path] = sp
	return nil
}

// AddSynchronizer declares a synchronizer that no spawner spawns (its node is in the clients'
// scene) while the server runs (the Synchronizers field declares them up front), at cfg.Path
// relative to /root: its net id is path based, and its state is sent to a peer once the peer
// has confirmed the path. AuthorityOwner is not valid here.
func (s *Server) AddSynchronizer(cfg *SyncConfig) (*SyncState, error) {
	r, err := s.replicator()
	if err != nil {
		return nil, err
	}
	s.sc.mu.Lock()
	defer s.sc.mu.Unlock()
	return s.addSynchronizerLocked(r, cfg)
}

func (s *Server) addSynchronizerLocked(r *replicator, cfg *SyncConfig) (*SyncState, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("multiplayer: synchronizer %q: %w", cfg.Path, err)
	}
	if cfg.Authority == AuthorityOwner {
		return nil, fmt.Errorf("multiplayer: synchronizer %q: AuthorityOwner needs an entity", cfg.Path)
	}
	n, err := NewNode(cfg.Path)
	if err != nil {
		return nil, err
	}
	sc := s.sc
	if old := sc.nodes[cfg.Path]; old != nil {
		// A synchronizer whose script has RPCs, declared as a node: the same node.
		if r.byNode[old] != nil {
			return nil, fmt.Errorf("multiplayer: synchronizer %q declared twice", cfg.Path)
		}
		n = old
	}
	auth := int32(cfg.Authority)
	if auth == 0 {
		auth = 1
	}
	n.authority = auth
	sc.nodes[cfg.Path] = n
	st := newSyncState(r, cfg, nil, n, auth)
	r.startSync(st)
	return st, nil
}

// ---------------------------------------------------------------------------------------------
// entities

// Entity is a node that the server spawned with a spawner: on every peer it is visible to, the
// spawner instantiates the scene with the entity's name under the spawn path and applies the
// spawn state of its synchronizers.
type Entity struct {
	r       *replicator
	spawner *Spawner
	scene   *Scene
	sceneID uint8
	name    string
	path    string
	owner   int32
	arg     []byte // the custom spawn argument, compressed
	syncs   []*SyncState
	nodes   []*Node    // the entity's nodes in the path cache (RPC nodes, synchronizers, spawners)
	parent  *Entity    // the entity whose nested spawner spawned this one, or nil
	nested  []*Spawner // its copies of the scene's nested spawners

	// guarded by sc.mu
	netID    uint32
	gone     bool
	children []*Entity // entities its nested spawners spawned, in spawn order
}

// SpawnOptions are the optional parts of a spawn.
type SpawnOptions struct {
	// Owner is the peer the entity belongs to: the authority of its synchronizers declared
	// with AuthorityOwner, and the peer whose disconnection despawns it when the spawner has
	// DespawnOnDisconnect.
	Owner int32
	// Arg is the argument of a custom spawn (scene ""), passed to the clients' spawn_function.
	Arg any
	// Custom, for a custom spawn, is the scene the clients' spawn_function returns for Arg,
	// when it depends on the argument; nil means the spawner's Custom.
	Custom *Scene
	// State, when set, is the entity's initial state: a struct or map that SetState applies to
	// each of its synchronizers.
	State any
}

// Name returns the entity's node name.
func (e *Entity) Name() string { return e.name }

// Path returns the entity's node path relative to /root.
func (e *Entity) Path() string { return e.path }

// Owner returns SpawnOptions.Owner.
func (e *Entity) Owner() int32 { return e.owner }

// Spawner returns the spawner that spawned the entity.
func (e *Entity) Spawner() *Spawner { return e.spawner }

// NetID returns the entity's net id, which the server allocates as the engine does (one
// counter for entities and their synchronizers, when the entity is first sent), or 0 if it has
// not been sent to any peer yet.
func (e *Entity) NetID() uint32 {
	e.r.sc.mu.Lock()
	defer e.r.sc.mu.Unlock()
	return e.netID
}

// Sync returns the entity's synchronizer at path (relative to the entity, as in the Scene's
// SyncConfig), or nil.
func (e *Entity) Sync(path string) *SyncState {
	for _, s := range e.syncs {
		if s.cfg.Path == path {
			return s
		}
	}
	return nil
}

// Node returns the entity's node with RPCs at path (relative to the entity, "." for its root, as
// in the Scene's Nodes), to call its RPCs with Server.RPC; nil if the scene declares none there.
// RPCs on the entity's root go only to the peers that have the entity, as the engine sends them.
func (e *Entity) Node(path string) *Node {
	want := joinPath(e.path, path)
	for _, n := range e.nodes {
		if n.path == want && len(n.methods) > 0 {
			return n
		}
	}
	return nil
}

// SpawnerAt returns the entity's copy of the nested spawner at path (relative to the entity, as
// in the Scene's Spawners), to Spawn entities under the entity with; nil if the scene has none
// there.
func (e *Entity) SpawnerAt(path string) *Spawner {
	want := joinPath(e.path, path)
	for _, sp := range e.nested {
		if sp.Path == want {
			return sp
		}
	}
	return nil
}

// Parent returns the entity whose nested spawner spawned e, or nil.
func (e *Entity) Parent() *Entity { return e.parent }

// Synchronizers returns the entity's synchronizers in scene order.
func (e *Entity) Synchronizers() []*SyncState { return slices.Clone(e.syncs) }

// Spawn spawns an entity of the scene with the resource path scene (one of the spawner's
// Scenes; "" for a custom spawn with opts.Arg) named name under the spawner's SpawnPath. The
// peers it is visible to get the spawner's SIMPLIFY_PATH (once) and a SPAWN; later peers get
// it when they connect. The entity's nodes become known to the server's path cache.
func (s *Server) Spawn(sp *Spawner, scene, name string, opts *SpawnOptions) (*Entity, error) {
	if opts == nil {
		opts = &SpawnOptions{}
	}
	r, err := s.replicator()
	if err != nil {
		return nil, err
	}
	if name == "" || !validNodeName(name) {
		return nil, fmt.Errorf("multiplayer: spawn: invalid node name %q", name)
	}
	e := &Entity{r: r, spawner: sp, name: name, path: joinPath(sp.SpawnPath, name), owner: opts.Owner, parent: sp.entity}
	if scene == "" {
		custom := sp.Custom
		if opts.Custom != nil {
			if err := validateScene(opts.Custom, map[*Scene]bool{}); err != nil {
				return nil, fmt.Errorf("multiplayer: spawn: %w", err)
			}
			custom = opts.Custom
		}
		if custom == nil {
			return nil, fmt.Errorf("multiplayer: spawner %q has no custom spawn", sp.Path)
		}
		e.scene, e.sceneID = custom, CustomScene
		if e.arg, err = s.sc.encoding.AppendCompressed(nil, opts.Arg); err != nil {
			return nil, fmt.Errorf("multiplayer: spawn argument: %w", err)
		}
	} else {
		i := slices.IndexFunc(sp.Scenes, func(c *Scene) bool { return c.Path == scene })
		if i < 0 {
			return nil, fmt.Errorf("multiplayer: spawner %q has no scene %q", sp.Path, scene)
		}
		e.scene, e.sceneID = sp.Scenes[i], uint8(i)
	}
	for _, n := range e.scene.Nodes {
		c := *n
		c.path = joinPath(e.path, n.path)
		if c.path == e.path {
			c.entity = e
		}
		e.nodes = append(e.nodes, &c)
	}
	for _, c := range e.scene.Synchronizers {
		auth := int32(1)
		switch {
		case c.Authority == AuthorityOwner:
			if opts.Owner < 2 {
				auth = 1 // owned by the server
			} else {
				auth = opts.Owner
			}
		case c.Authority > 1:
			auth = int32(c.Authority)
		}
		n := &Node{path: joinPath(e.path, c.Path), byName: map[string]*method{}, checksum: Checksum(nil), authority: auth}
		e.nodes = append(e.nodes, n)
		e.syncs = append(e.syncs, newSyncState(r, c, e, n, auth))
	}
	for _, t := range e.scene.Spawners {
		e.nested = append(e.nested, &Spawner{Path: joinPath(e.path, t.Path), SpawnPath: joinPath(e.path, t.SpawnPath),
			Scenes: t.Scenes, Custom: t.Custom, DespawnOnDisconnect: t.DespawnOnDisconnect, SpawnLimit: t.SpawnLimit, entity: e})
	}
	for _, st := range e.syncs {
		for _, pr := range st.cfg.Properties {
			if pr.OwnerID {
				if err := st.Set(pr.Path, int64(max(opts.Owner, 1))); err != nil { // no owner: the server
					return nil, err
				}
			}
		}
	}
	if opts.State != nil {
		for _, st := range e.syncs {
			if err := st.SetState(opts.State); err != nil {
				return nil, err
			}
		}
	}
	sc := s.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if r.spawners[sp.Path] != sp {
		if sp.entity != nil {
			return nil, fmt.Errorf("multiplayer: spawner %q: its entity was despawned", sp.Path)
		}
		return nil, fmt.Errorf("multiplayer: spawner %q was not added to the server", sp.Path)
	}
	if sp.SpawnLimit > 0 && sp.live >= sp.SpawnLimit {
		return nil, fmt.Errorf("multiplayer: spawner %q: %w (%d)", sp.Path, ErrSpawnLimit, sp.SpawnLimit)
	}
	if r.byPath[e.path] != nil {
		// The clients' spawn path has a child of that name: they would refuse the SPAWN.
		return nil, fmt.Errorf("multiplayer: spawn: an entity %q exists", e.path)
	}
	for _, n := range e.nodes {
		if sc.nodes[n.path] != nil {
			return nil, fmt.Errorf("multiplayer: spawn: node %q exists", n.path)
		}
	}
	for _, c := range e.nested {
		if r.spawners[c.Path] != nil {
			return nil, fmt.Errorf("multiplayer: spawn: a spawner %q exists", c.Path)
		}
	}
	r.byPath[e.path] = e
	for _, n := range e.nodes {
		sc.nodes[n.path] = n
	}
	// The nested spawners: a spawner whose script has RPCs is one of the entity's nodes already.
	for _, c := range e.nested {
		if n := sc.nodes[c.Path]; n != nil {
			c.node = n
		} else {
			c.node = &Node{path: c.Path, byName: map[string]*method{}, checksum: Checksum(nil), authority: 1}
			sc.nodes[c.Path] = c.node
			e.nodes = append(e.nodes, c.node)
		}
		r.spawners[c.Path] = c
	}
	if e.parent != nil {
		e.parent.children = append(e.parent.children, e)
	}
	sp.live++
	// The synchronizers enter the tree (on_replication_start), then the node is ready and
	// spawned (_node_ready).
	for _, st := range e.syncs {
		r.startSync(st)
	}
	r.spawned = append(r.spawned, e)
	r.updateSpawnVisibility(0, e)
	return e, nil
}

// validNodeName reports whether name is a node name the engine accepts in a SPAWN
// (String::validate_node_name leaves it unchanged).
func validNodeName(name string) bool {
	for _, c := range name {
		switch c {
		case '.', ':', '@', '/', '"', '%':
			return false
		}
	}
	return true
}

// Despawn removes the entity: the peers that have it get a DESPAWN, and its nodes leave the
// path cache. A second Despawn does nothing.
func (e *Entity) Despawn() {
	sc := e.r.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	e.r.despawn(e)
}

// UpdateVisibility runs the entity's visibility filters again for each peer (the engine's
// update_visibility(peer) for every peer, which asks about each peer, not about peer 0): peers
// that can no longer see it get a DESPAWN, new ones a SPAWN.
func (e *Entity) UpdateVisibility() {
	sc := e.r.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if e.gone {
		return
	}
	for id := range e.r.peers {
		e.r.updateSpawnVisibility(id, e)
		for _, st := range e.syncs {
			e.r.updateSyncVisibility(id, st)
		}
	}
}

func (r *replicator) despawn(e *Entity) {
	if e.gone {
		return
	}
	e.gone = true
	// The entities of its nested spawners leave the tree first, the last one first, as the
	// engine's children exit before their parent (Node::_propagate_exit_tree): each one's
	// DESPAWN goes before the entity's.
	for i := len(e.children) - 1; i >= 0; i-- {
		r.despawn(e.children[i])
	}
	e.children = nil
	e.spawner.live--
	for _, c := range e.nested {
		if r.spawners[c.Path] == c {
			delete(r.spawners, c.Path)
		}
	}
	if p := e.parent; p != nil {
		if i := slices.Index(p.children, e); i >= 0 {
			p.children = slices.Delete(p.children, i, i+1)
		}
	}
	pkt := binary.LittleEndian.AppendUint32([]byte{byte(CmdDespawn)}, e.netID)
	for id, rp := range r.peers {
		if rp.spawned[e] {
			r.sc.sendCommand(id, pkt)
		}
	}
	if i := slices.Index(r.spawned, e); i >= 0 {
		r.spawned = swapRemove(r.spawned, i)
	}
	delete(r.byPath, e.path)
	for _, rp := range r.peers {
		delete(rp.spawned, e)
	}
	for _, st := range e.syncs {
		r.stopSync(st)
	}
	for _, n := range e.nodes {
		r.sc.removeNodeLocked(n)
	}
}

// swapRemove removes s[i] as Godot's HashSet::erase does: the last key moves into its place.
func swapRemove[T any](s []T, i int) []T {
	last := len(s) - 1
	s[i] = s[last]
	var zero T
	s[last] = zero
	return s[:last]
}

func (r *replicator) startSync(st *SyncState) {
	r.byNode[st.node] = st
	if st.auth != 1 {
		return // the server does not send what it is not the authority of
	}
	r.syncs = append(r.syncs, st)
	r.updateSyncVisibilityAll(st)
}

func (r *replicator) stopSync(st *SyncState) {
	st.gone = true
	delete(r.byNode, st.node)
	if i := slices.Index(r.syncs, st); i >= 0 {
		r.syncs = swapRemove(r.syncs, i)
	}
	for _, rp := range r.peers {
		rp.removeSync(st)
		delete(rp.lastWatch, st)
	}
}

func (r *replicator) visible(st *SyncState, peer int32) bool {
	return st.cfg.Visible == nil || st.cfg.Visible(peer, st.entity)
}

// updateSyncVisibility is _update_sync_visibility for one peer.
func (r *replicator) updateSyncVisibility(peer int32, st *SyncState) {
	rp := r.peers[peer]
	if st.auth != 1 || rp == nil {
		return
	}
	r.setSyncVisible(rp, st, r.visible(st, peer))
}

// updateSyncVisibilityAll is _update_sync_visibility(0): a peer gets the synchronizer if the
// filter lets peer 0 (every peer) or that peer see it.
func (r *replicator) updateSyncVisibilityAll(st *SyncState) {
	if st.auth != 1 {
		return
	}
	all := r.visible(st, 0)
	for id, rp := range r.peers {
		r.setSyncVisible(rp, st, all || r.visible(st, id))
	}
}

func (r *replicator) setSyncVisible(rp *replPeer, st *SyncState, vis bool) {
	_, has := rp.syncAt[st]
	switch {
	case vis && !has:
		rp.syncAt[st] = len(rp.syncs)
		rp.syncs = append(rp.syncs, st)
	case !vis && has:
		rp.removeSync(st)
		delete(rp.lastWatch, st)
	}
}

// removeSync takes st out of the peer's synchronizers as HashSet::erase does (the last one
// moves into its place), in constant time.
func (rp *replPeer) removeSync(st *SyncState) {
	i, ok := rp.syncAt[st]
	if !ok {
		return
	}
	delete(rp.syncAt, st)
	last := len(rp.syncs) - 1
	if i != last {
		rp.syncAt[rp.syncs[last]] = i
	}
	rp.syncs = swapRemove(rp.syncs, i)
}

// updateSpawnVisibility is _update_spawn_visibility: peer 0 means every peer. An entity is
// visible to a peer if one of its synchronizers whose authority is the server is (or it has
// none).
func (r *replicator) updateSpawnVisibility(peer int32, e *Entity) {
	vis := func(id int32) bool {
		v := true
		for _, st := range e.syncs {
			if st.auth != 1 {
				continue
			}
			if r.visible(st, id) {
				return true
			}
			v = false
		}
		return v
	}
	var toSpawn, toDespawn []int32
	check := func(id int32) {
		rp := r.peers[id]
		if rp == nil {
			return
		}
		v := vis(id)
		if e.parent != nil && !rp.spawned[e.parent] {
			v = false // the peer has not the node it would go under
		}
		if v == rp.spawned[e] {
			return
		}
		if v {
			toSpawn = append(toSpawn, id)
		} else {
			toDespawn = append(toDespawn, id)
		}
	}
	switch {
	case peer != 0:
		check(peer)
	case vis(0):
		// As the engine: the filters are asked about peer 0, every peer; when they let it
		// see the entity, the entity goes to every peer that has not got it (under its
		// parent), without asking about each, and none loses it.
		for id, rp := range r.peers {
			if !rp.spawned[e] && (e.parent == nil || rp.spawned[e.parent]) {
				toSpawn = append(toSpawn, id)
			}
		}
	default:
		for id := range r.peers {
			check(id)
		}
	}
	if len(toSpawn) > 0 {
		pkt := r.spawnPacket(e)
		for _, id := range toSpawn {
			r.sc.sendObjectCache(r.sc.peers[id], e.spawner.node)
			r.sc.sendCommand(id, pkt)
			r.peers[id].spawned[e] = true
		}
	}
	if len(toDespawn) > 0 {
		pkt := binary.LittleEndian.AppendUint32([]byte{byte(CmdDespawn)}, e.netID)
		for _, id := range toDespawn {
			// The peer frees the entity's nested entities with it: they are no longer its.
			forgetChildren(r.peers[id], e)
			delete(r.peers[id].spawned, e)
			r.sc.sendCommand(id, pkt)
		}
	}
	// The nested entities follow their parent to the peers that now have it.
	for _, id := range toSpawn {
		for _, c := range e.children {
			r.updateSpawnVisibility(id, c)
		}
	}
}

// forgetChildren marks the nested entities of e as not spawned to rp, without packets: the
// peer frees them with e.
func forgetChildren(rp *replPeer, e *Entity) {
	for _, c := range e.children {
		forgetChildren(rp, c)
		delete(rp.spawned, c)
	}
}

// spawnPacket is _make_spawn_packet: it allocates the entity's and its synchronizers' net ids
// the first time.
func (r *replicator) spawnPacket(e *Entity) []byte {
	if e.netID == 0 {
		r.lastNetID++
		e.netID = r.lastNetID
	}
	var ids []uint32
	for _, st := range e.syncs {
		if st.auth != 1 {
			continue
		}
		if st.netID == 0 {
			r.lastNetID++
			st.netID = r.lastNetID
		}
		ids = append(ids, st.netID)
	}
	cacheID := r.sc.makeObjectCache(e.spawner.node)
	b := make([]byte, 0, 18+4*len(ids)+len(e.name)+1+len(e.arg)+4+64)
	b = append(b, byte(CmdSpawn), e.sceneID)
	b = binary.LittleEndian.AppendUint32(b, cacheID)
	b = binary.LittleEndian.AppendUint32(b, e.netID)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ids)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(e.name)+1))
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint32(b, id)
	}
	b = append(append(b, e.name...), 0)
	if e.sceneID == CustomScene {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.arg)))
		b = append(b, e.arg...)
	}
	for _, st := range e.syncs {
		if st.auth == 1 {
			b = st.appendProps(b, st.lists.spawn)
		}
	}
	return b
}

// ---------------------------------------------------------------------------------------------
// peers

// onPeerAdd is on_peer_change(id, true): the new peer gets the entities and synchronizers
// visible to it.
func (r *replicator) onPeerAdd(id int32) {
	r.peers[id] = newReplPeer(id)
	for _, e := range r.spawned {
		r.updateSpawnVisibility(id, e)
	}
	for _, st := range r.syncs {
		r.updateSyncVisibility(id, st)
	}
}

// onPeerRemove is on_peer_change(id, false), followed by what games do in peer_disconnected:
// the entities the peer owned, of spawners with DespawnOnDisconnect, are despawned.
func (r *replicator) onPeerRemove(id int32) {
	delete(r.peers, id)
	for _, e := range slices.Clone(r.spawned) {
		if e.owner == id && e.spawner.DespawnOnDisconnect {
			r.despawn(e)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// the network frame

// tick is on_network_process.
func (r *replicator) tick() {
	sc := r.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	now := time.Since(r.epoch)
	for id, rp := range r.peers {
		if len(rp.syncs) == 0 {
			continue
		}
		rp.lastSent++
		r.sendSync(id, rp, rp.syncs, rp.lastSent, now)
		r.sendDelta(id, rp, rp.syncs, now)
	}
	// The synchronizers with a visibility filter run it again (update_visibility(0) in their
	// internal process, after the network frame).
	for _, st := range r.syncs {
		if st.cfg.Visible != nil && st.cfg.VisibilityUpdate != VisibilityManual {
			r.updateVisibility(st)
		}
	}
}

// updateVisibility is update_visibility(0) of one synchronizer whose authority is the server
// (what the engine runs every frame): its entity's spawn, then the synchronizer's own
// visibility, each asking the filter about peer 0 first.
func (r *replicator) updateVisibility(st *SyncState) {
	if st.gone {
		return
	}
	if e := st.entity; e != nil && !e.gone {
		r.updateSpawnVisibility(0, e)
	}
	r.updateSyncVisibilityAll(st)
}

// UpdateVisibility runs the synchronizer's visibility filter again for each peer (the engine's
// update_visibility(peer) for every peer): for a synchronizer of an entity, its spawn as
// Entity.UpdateVisibility; the peers it is visible to get its SYNCs from the next tick.
func (s *SyncState) UpdateVisibility() {
	sc := s.r.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if s.auth != 1 || s.gone {
		return
	}
	for id := range s.r.peers {
		if e := s.entity; e != nil && !e.gone {
			s.r.updateSpawnVisibility(id, e)
		}
		s.r.updateSyncVisibility(id, s)
	}
}

// verify is _verify_synchronizer: a synchronizer without a spawn net id is path based, and is
// sent to a peer only once the peer confirmed its path.
func (r *replicator) verify(id int32, st *SyncState) (uint32, bool) {
	if st.netID != 0 && st.netID&pathFlag == 0 {
		return st.netID, true
	}
	cid, confirmed := r.sc.sendObjectCache(r.sc.peers[id], st.node)
	if st.netID == 0 {
		st.netID = cid | pathFlag
	}
	return st.netID, confirmed
}

// sendSync is _send_sync. SYNC goes unreliable on channel 0 (what ENet carries; WebSocket
// delivers everything in order); SPAWN, DESPAWN and delta SYNC reliable.
func (r *replicator) sendSync(id int32, rp *replPeer, syncs []*SyncState, t uint16, now time.Duration) {
	r.sc.mode = packetMode{transfer: TransferUnreliable}
	defer func() { r.sc.mode = packetMode{} }()
	b := append(r.buf[:0], byte(CmdSync), byte(t), byte(t>>8))
	for _, st := range syncs {
		if !st.updateOutbound(now) {
			continue
		}
		netID, ok := r.verify(id, st)
		if !ok {
			continue
		}
		size := st.propsSize(st.lists.sync)
		if size > r.syncMTU {
			if !st.tooLarge { // once, not every tick
				st.tooLarge = true
				r.sc.log.Warn("multiplayer: a synchronizer's state exceeds max_sync_packet_size and is not sent",
					"path", st.node.path, "bytes", size, "max", r.syncMTU)
			}
			continue
		}
		st.tooLarge = false
		if len(b)+8+size > r.syncMTU {
			r.sc.sendUnreliable(id, slices.Clone(b))
			b = b[:3]
		}
		if size > 0 {
			b = binary.LittleEndian.AppendUint32(b, netID)
			b = binary.LittleEndian.AppendUint32(b, uint32(size))
			b = st.appendProps(b, st.lists.sync)
		}
	}
	if len(b) > 3 {
		r.sc.sendUnreliable(id, slices.Clone(b))
	}
	r.buf = b
}

// sendDelta is _send_delta.
func (r *replicator) sendDelta(id int32, rp *replPeer, syncs []*SyncState, now time.Duration) {
	b := append(r.buf[:0], byte(CmdSync)|1<<4)
	for _, st := range syncs {
		netID, ok := r.verify(id, st)
		if !ok {
			continue
		}
		mask, idx := st.deltaState(now, rp.lastWatch[st])
		if len(idx) == 0 {
			continue
		}
		size := st.propsSize(idx)
		if size > r.deltaMTU {
			if !st.deltaTooLarge {
				st.deltaTooLarge = true
				r.sc.log.Warn("multiplayer: a synchronizer's delta exceeds max_delta_packet_size and is not sent",
					"path", st.node.path, "bytes", size, "max", r.deltaMTU)
			}
			continue
		}
		st.deltaTooLarge = false
		if len(b)+16+size > r.deltaMTU {
			r.sc.sendCommand(id, slices.Clone(b))
			b = b[:1]
		}
		b = binary.LittleEndian.AppendUint32(b, netID)
		b = binary.LittleEndian.AppendUint64(b, mask)
		b = binary.LittleEndian.AppendUint32(b, uint32(size))
		b = st.appendProps(b, idx)
		rp.lastWatch[st] = now
	}
	if len(b) > 1 {
		r.sc.sendCommand(id, slices.Clone(b))
	}
	r.buf = b
}

// receive handles SPAWN, DESPAWN and SYNC from a peer; sc.mu is not held.
func (r *replicator) receive(p *Peer, pkt []byte) error {
	sc := r.sc
	switch Command(pkt[0] & cmdMask) {
	case CmdSpawn, CmdDespawn:
		// Every spawner here has the server as its authority: a client may not spawn.
		return perr(Command(pkt[0]&cmdMask), 0, ErrNotAuthority, "the server's spawners have authority 1")
	}
	sc.mu.Lock()
	after, err := r.receiveSync(p, pkt)
	sc.mu.Unlock()
	for _, f := range after {
		if f != nil {
			f()
		}
	}
	return err
}

// rpcVisible is is_rpc_visible: an RPC on a spawned entity's root goes to a peer only if the
// peer has the entity; sc.mu is held.
func (sc *scene) rpcVisible(n *Node, peer int32) bool {
	if n.entity == nil || sc.repl == nil {
		return true
	}
	rp := sc.repl.peers[peer]
	return rp != nil && rp.spawned[n.entity]
}
