package multiplayer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Replication defaults, as SceneMultiplayer's.
const (
	// DefaultTickInterval is the replication tick: the engine replicates once per process
	// frame, 60 times a second by default.
	DefaultTickInterval = time.Second / 60
	// DefaultMaxSyncPacketBytes is SceneMultiplayer.max_sync_packet_size: SYNC packets are
	// split at this size, and one synchronizer's state larger than it is not sent.
	DefaultMaxSyncPacketBytes = 1350
	// DefaultMaxDeltaPacketBytes is SceneMultiplayer.max_delta_packet_size, the same for
	// delta SYNC packets.
	DefaultMaxDeltaPacketBytes = 65535
	// MaxWatchedProperties is the most ON_CHANGE properties one synchronizer replicates (the
	// bits of the delta mask); the engine ignores the others, and so does the server.
	MaxWatchedProperties = 64
	// CustomScene is the scene id of an entity spawned by a spawner's custom spawn function
	// (MultiplayerSpawner.spawn with an argument).
	CustomScene = 0xff
)

// ErrSpawnLimit is Spawn's error when the spawner already has SpawnLimit entities.
var ErrSpawnLimit = errors.New("spawn limit reached")

// Replication holds the Server's replication settings (a Server field). The zero value is the
// engine's defaults.
type Replication struct {
	// TickInterval is how often the server replicates (the engine's network frame: one process
	// frame). 0 means DefaultTickInterval; NoLimit (any negative value) means the server does
	// not tick by itself: the program calls Server.Tick.
	TickInterval time.Duration
	// MaxSyncPacketBytes is max_sync_packet_size. 0 means DefaultMaxSyncPacketBytes; NoLimit
	// none.
	MaxSyncPacketBytes int
	// MaxDeltaPacketBytes is max_delta_packet_size. 0 means DefaultMaxDeltaPacketBytes; NoLimit
	// none. A SYNC larger than the server's MaxMessageBytes is never sent.
	MaxDeltaPacketBytes int
}

// ReplicationMode is a replicated property's replication_mode (SceneReplicationConfig).
type ReplicationMode uint8

// The replication modes, with the engine's values.
const (
	ReplicateNever    ReplicationMode = 0 // only in the spawn state, if Spawn
	ReplicateAlways   ReplicationMode = 1 // in every SYNC
	ReplicateOnChange ReplicationMode = 2 // "watched": in a delta SYNC when it changed
)

// String returns the mode as the editor names it.
func (m ReplicationMode) String() string {
	switch m {
	case ReplicateNever:
		return "never"
	case ReplicateAlways:
		return "always"
	case ReplicateOnChange:
		return "on_change"
	}
	return fmt.Sprintf("ReplicationMode(%d)", uint8(m))
}

// Property is one property of a replication config: its path relative to the synchronizer's
// root node (".:position", "Sprite:modulate"), whether it is in the spawn state, and its
// replication mode. A .tscn writes these as properties/N/path, properties/N/spawn and
// properties/N/replication_mode.
type Property struct {
	Path  string
	Spawn bool
	Mode  ReplicationMode
	// Default is the value the property has until it is set (the node's value in its scene
	// or script); nil is null, which a typed property on the client refuses.
	Default any
	// OwnerID says the property holds the entity's owner: Spawn sets it to SpawnOptions.Owner
	// (an int; 1, the server, without an owner) before applying SpawnOptions.State, as games do that give a node's authority
	// from a synchronized property (`var player := 1: set(id): $Input.set_multiplayer_authority(id)`).
	OwnerID bool
}

// Name returns the name the property's value goes by in Go: the part of Path after the node
// path (".:position" → "position", "Sprite:modulate" → "modulate").
func (p Property) Name() string {
	if _, after, ok := strings.Cut(p.Path, ":"); ok {
		return after
	}
	return p.Path
}

// VisibilityUpdate is a synchronizer's visibility_update_mode, with the engine's values.
type VisibilityUpdate uint8

// The visibility update modes.
const (
	// VisibilityIdle (VISIBILITY_PROCESS_IDLE, the default) runs the filter every tick, after
	// the tick's SYNCs, as the engine runs it every process frame after the network frame.
	VisibilityIdle VisibilityUpdate = 0
	// VisibilityPhysics (VISIBILITY_PROCESS_PHYSICS) runs it every tick too: the server has no
	// physics frame (at the engine's default 60 Hz both frames come as often).
	VisibilityPhysics VisibilityUpdate = 1
	// VisibilityManual (VISIBILITY_PROCESS_NONE) runs it only when the program asks.
	VisibilityManual VisibilityUpdate = 2
)

// Authority says which peer a synchronizer's multiplayer authority is.
type Authority int32

const (
	// AuthorityServer (the zero value) makes the server the authority: it sends the
	// synchronizer's state.
	AuthorityServer Authority = 0
	// AuthorityOwner makes the entity's owner (SpawnOptions.Owner) the authority: the owner's
	// client sends the state and the server receives it.
	AuthorityOwner Authority = -1
)

// SyncConfig declares a MultiplayerSynchronizer: its node path (relative to the spawned
// scene's root for a synchronizer in a Scene, or to /root for one added with
// Server.AddSynchronizer), its replication config, intervals, authority and visibility.
type SyncConfig struct {
	// Path is the synchronizer node's path ("ServerSync", "Input/Sync").
	Path string
	// Properties is the replication config, in config order.
	Properties []Property
	// Interval is replication_interval: at most one SYNC per interval (0: every tick).
	Interval time.Duration
	// DeltaInterval is delta_interval: at most one delta SYNC per interval (0: every tick).
	DeltaInterval time.Duration
	// Authority is the synchronizer's multiplayer authority: the server (the default), the
	// entity's owner, or a fixed peer id (> 1).
	Authority Authority
	// Visible, when set, is a visibility filter (add_visibility_filter): the synchronizer's
	// state, and the entity's spawn, go only to the peers for which it returns true. nil is
	// public visibility. As the engine, the server first asks it about peer 0, meaning every
	// peer, when an entity is spawned and in the update every tick: if it returns true for
	// 0, the entity and the synchronizer go to every peer without asking about each (a filter
	// that only turns some peers away, peer != x, turns none away then); otherwise it is asked
	// about each peer. It runs with the server's replication lock held: it must not call the
	// Server.
	Visible func(peer int32, e *Entity) bool
	// VisibilityUpdate is visibility_update_mode: whether the server runs Visible again by
	// itself every tick (the engine: every frame while the synchronizer has a filter) or only
	// when asked (Entity.UpdateVisibility, SyncState.UpdateVisibility).
	VisibilityUpdate VisibilityUpdate
	// OnSync, for a synchronizer whose authority is a client, is called after a SYNC or delta
	// SYNC from it has been applied (the synchronized / delta_synchronized signals). Read the
	// state with SyncState.Unmarshal.
	OnSync func(p *Peer, s *SyncState)
}

// Scene declares a scene that a spawner spawns: its resource path, its synchronizers in tree
// order, the nodes in it that have RPCs and the spawners in it (paths relative to the scene's
// root, "." for the root itself).
type Scene struct {
	Path          string
	Synchronizers []*SyncConfig
	Nodes         []*Node
	// Spawners are the MultiplayerSpawners inside the scene (nested spawners), with Path and
	// SpawnPath relative to the scene's root. Every entity of the scene gets its own copy of
	// each, at its path (Entity.SpawnerAt), to Spawn with; they go with the entity.
	Spawners []*Spawner
}

// Spawner declares a MultiplayerSpawner whose authority is the server.
type Spawner struct {
	// Path is the spawner node's path relative to /root ("World/PlayerSpawner").
	Path string
	// SpawnPath is the path, relative to /root, of the node the spawned entities become
	// children of ("World/Players"): the spawner's spawn_path resolved.
	SpawnPath string
	// Scenes are the spawnable scenes, in the spawner's order (the scene id is the index).
	Scenes []*Scene
	// Custom is the scene that the clients' spawn_function returns, for entities spawned with
	// an argument (scene id CustomScene); nil if the spawner has no spawn function, or if the
	// scene depends on the argument (then each Spawn says it: SpawnOptions.Custom).
	Custom *Scene
	// DespawnOnDisconnect despawns an entity when its owner disconnects, as games do in
	// peer_disconnected (the engine frees only the nodes a disconnected peer spawned itself).
	DespawnOnDisconnect bool
	// SpawnLimit is spawn_limit: at most this many of the spawner's entities at once (0: no
	// limit, the engine's default). Spawn refuses more with ErrSpawnLimit, as the clients
	// would refuse their SPAWN ("Spawn limit reached!").
	SpawnLimit int

	node   *Node
	live   int     // entities spawned and not despawned; guarded by sc.mu
	entity *Entity // the entity whose scene holds a nested spawner; nil for the Server's own
}

// validateScene checks the synchronizers of sc and of the scenes its nested spawners spawn
// (each scene once: a scene may spawn itself further down).
func validateScene(sc *Scene, seen map[*Scene]bool) error {
	if sc == nil || seen[sc] {
		return nil
	}
	seen[sc] = true
	for _, c := range sc.Synchronizers {
		if err := c.validate(); err != nil {
			return fmt.Errorf("scene %q synchronizer %q: %w", sc.Path, c.Path, err)
		}
	}
	for _, sp := range sc.Spawners {
		if sp == nil || sp.Path == "" || sp.SpawnPath == "" || strings.HasPrefix(sp.Path, "..") || strings.HasPrefix(sp.SpawnPath, "..") {
			return fmt.Errorf("scene %q: a nested spawner needs its Path and SpawnPath inside the scene", sc.Path)
		}
		if len(sp.Scenes) >= CustomScene {
			return fmt.Errorf("scene %q spawner %q: %d scenes (at most %d)", sc.Path, sp.Path, len(sp.Scenes), CustomScene-1)
		}
		if sp.SpawnLimit < 0 {
			return fmt.Errorf("scene %q spawner %q: negative spawn limit %d", sc.Path, sp.Path, sp.SpawnLimit)
		}
		for _, inner := range append(slices.Clone(sp.Scenes), sp.Custom) {
			if err := validateScene(inner, seen); err != nil {
				return fmt.Errorf("spawner %q: %w", sp.Path, err)
			}
		}
	}
	return nil
}

func (c *SyncConfig) validate() error {
	watched := 0
	seen := map[string]bool{}
	for _, p := range c.Properties {
		if p.Path == "" || !strings.Contains(p.Path, ":") {
			return fmt.Errorf("property %q: want a path with a property (\".:position\")", p.Path)
		}
		if seen[p.Path] {
			return fmt.Errorf("property %q listed twice", p.Path)
		}
		seen[p.Path] = true
		if p.Mode > ReplicateOnChange {
			return fmt.Errorf("property %q: bad replication mode %d", p.Path, p.Mode)
		}
		if p.Mode == ReplicateOnChange {
			watched++
		}
	}
	if c.VisibilityUpdate > VisibilityManual {
		return fmt.Errorf("bad visibility update mode %d", c.VisibilityUpdate)
	}
	if c.Interval < 0 || c.DeltaInterval < 0 {
		return fmt.Errorf("negative interval")
	}
	for _, p := range c.Properties {
		if _, err := AppendCompressed(nil, p.Default); err != nil {
			return fmt.Errorf("property %q: default: %w", p.Path, err)
		}
	}
	if c.Authority < AuthorityOwner || c.Authority == 1 {
		return fmt.Errorf("bad authority %d (AuthorityServer, AuthorityOwner or a peer id > 1)", c.Authority)
	}
	_ = watched // the engine ignores ON_CHANGE properties past the 64th; so does configOf
	return nil
}

// propLists are the config's spawn, sync (ALWAYS) and watch (ON_CHANGE) properties as indexes
// into Properties, in config order (SceneReplicationConfig::_update).
type propLists struct {
	spawn, sync, watch []int
}

func listsOf(c *SyncConfig) propLists {
	var l propLists
	for i, p := range c.Properties {
		if p.Spawn {
			l.spawn = append(l.spawn, i)
		}
		switch p.Mode {
		case ReplicateAlways:
			l.sync = append(l.sync, i)
		case ReplicateOnChange:
			if len(l.watch) < MaxWatchedProperties {
				l.watch = append(l.watch, i)
			}
		}
	}
	return l
}

func joinPath(a, b string) string {
	switch {
	case b == "" || b == ".":
		return a
	case a == "":
		return b
	}
	return a + "/" + b
}
