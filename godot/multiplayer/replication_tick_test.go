package multiplayer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gamewire/gamewire/godot"
)

// capTransport keeps what is sent to it.
type capTransport struct {
	nullTransport
	pkts [][]byte
}

func (t *capTransport) send(pkt []byte) bool     { t.pkts = append(t.pkts, pkt); return true }
func (t *capTransport) sendLazy(pkt []byte) bool { return t.send(pkt) }
func (t *capTransport) sendWait(pkt []byte, _ <-chan struct{}) bool {
	return t.send(pkt)
}

func (t *capTransport) take() [][]byte { p := t.pkts; t.pkts = nil; return p }

// tickScene is a server without a network (ticks by hand) with the peers ids, each with a
// capturing transport.
func tickScene(t *testing.T, spawners []*Spawner, ids ...int32) (*Server, map[int32]*capTransport) {
	t.Helper()
	s := &Server{Replication: Replication{TickInterval: NoLimit}, Spawners: spawners}
	if err := s.init(); err != nil {
		t.Fatal(err)
	}
	trs := map[int32]*capTransport{}
	for _, id := range ids {
		tr := &capTransport{}
		trs[id] = tr
		p := s.sc.newPeer(id, tr)
		s.sc.mu.Lock()
		s.sc.addPeer(p)
		s.sc.mu.Unlock()
	}
	return s, trs
}

// TestSyncSplitAndIntervals: SYNC packets are split at max_sync_packet_size with whole entries;
// a synchronizer's replication_interval and delta_interval space out its SYNCs and deltas,
// while sync_time counts every tick with something visible.
func TestSyncSplitAndIntervals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fast := &Scene{Path: "res://fast.tscn", Synchronizers: []*SyncConfig{{Path: "S", Properties: []Property{
			{Path: ".:position", Mode: ReplicateAlways, Default: godot.Vector2{}}}}}}
		slow := &Scene{Path: "res://slow.tscn", Synchronizers: []*SyncConfig{{Path: "S", Interval: 100 * time.Millisecond,
			DeltaInterval: 250 * time.Millisecond, Properties: []Property{
				{Path: ".:position", Mode: ReplicateAlways, Default: godot.Vector2{}},
				{Path: ".:hp", Mode: ReplicateOnChange, Default: 1}}}}}
		sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{fast, slow}}
		s, trs := tickScene(t, []*Spawner{sp}, 2)
		for i := range 100 {
			if _, err := s.Spawn(sp, "res://fast.tscn", "F"+string(rune('A'+i/26))+string(rune('a'+i%26)), nil); err != nil {
				t.Fatal(err)
			}
		}
		slowE, err := s.Spawn(sp, "res://slow.tscn", "Slow", nil)
		if err != nil {
			t.Fatal(err)
		}
		trs[2].take()

		// entries holds, per SYNC packet, the net ids it carries.
		entries := func(pkts [][]byte) (syncs [][]uint32, deltas [][]uint32, times []uint16) {
			for _, p := range pkts {
				var ids []uint32
				switch p[0] {
				case 0x06:
					if len(p) > DefaultMaxSyncPacketBytes {
						t.Errorf("a SYNC of %d bytes", len(p))
					}
					times = append(times, binary.LittleEndian.Uint16(p[1:]))
					for off := 3; off < len(p); {
						ids = append(ids, binary.LittleEndian.Uint32(p[off:]))
						off += 8 + int(binary.LittleEndian.Uint32(p[off+4:]))
					}
					syncs = append(syncs, ids)
				case 0x16:
					for off := 1; off < len(p); {
						ids = append(ids, binary.LittleEndian.Uint32(p[off:]))
						off += 16 + int(binary.LittleEndian.Uint32(p[off+12:]))
					}
					deltas = append(deltas, ids)
				}
			}
			return
		}
		slowSync := slowE.Synchronizers()[0]
		slowID := func() uint32 { s.sc.mu.Lock(); defer s.sc.mu.Unlock(); return slowSync.netID }()
		has := func(lists [][]uint32, id uint32) bool {
			for _, l := range lists {
				for _, x := range l {
					if x == id {
						return true
					}
				}
			}
			return false
		}
		// Tick 1: everything; 101 entries of 20 bytes (header 8 + Vector2 12) split in 2 packets.
		s.Tick()
		syncs, deltas, times := entries(trs[2].take())
		n := 0
		for _, l := range syncs {
			n += len(l)
		}
		if len(syncs) != 2 || n != 101 || times[0] != 1 || times[1] != 1 || !has(deltas, slowID) {
			t.Fatalf("tick 1: %d SYNC packets with %d entries, times %v, deltas %v", len(syncs), n, times, deltas)
		}
		// 50 ms later: the slow synchronizer waits for its 100 ms; sync_time still counts.
		time.Sleep(50 * time.Millisecond) // fake time: the bubble's clock
		slowSync.Set("hp", 2)
		s.Tick()
		syncs, deltas, times = entries(trs[2].take())
		if has(syncs, slowID) || has(deltas, slowID) || times[0] != 2 {
			t.Errorf("tick 2 (50 ms): slow in SYNC %t, in delta %t, time %v", has(syncs, slowID), has(deltas, slowID), times)
		}
		// 100 ms after its last SYNC: a SYNC; its delta waits for 250 ms.
		time.Sleep(50 * time.Millisecond) // fake time: the bubble's clock
		s.Tick()
		syncs, deltas, _ = entries(trs[2].take())
		if !has(syncs, slowID) || has(deltas, slowID) {
			t.Errorf("tick 3 (100 ms): slow in SYNC %t, in delta %t", has(syncs, slowID), has(deltas, slowID))
		}
		time.Sleep(150 * time.Millisecond) // fake time: the bubble's clock
		s.Tick()
		_, deltas, _ = entries(trs[2].take())
		if !has(deltas, slowID) {
			t.Errorf("tick 4 (250 ms): no delta of the changed hp")
		}
	})
}

// TestUpdateVisibility: a filter that changes its mind, applied with UpdateVisibility, despawns
// the entity on the peer that lost sight of it and spawns it again later.
func TestUpdateVisibility(t *testing.T) {
	visible := true
	sc := &Scene{Path: "res://x.tscn", Synchronizers: []*SyncConfig{{Path: "S",
		Properties: []Property{{Path: ".:v", Spawn: true, Mode: ReplicateAlways, Default: 1}},
		// Updated when asked, not every tick (it lets peer 0 see it: every tick would show it
		// to every peer again).
		Visible: func(peer int32, e *Entity) bool { return peer != 3 || visible }, VisibilityUpdate: VisibilityManual}}}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{sc}}
	s, trs := tickScene(t, []*Spawner{sp}, 2, 3)
	e, err := s.Spawn(sp, "res://x.tscn", "X", nil)
	if err != nil {
		t.Fatal(err)
	}
	count := func(tr *capTransport, cmd byte) int {
		n := 0
		for _, p := range tr.take() {
			if p[0] == cmd {
				n++
			}
		}
		return n
	}
	if count(trs[2], 4) != 1 || count(trs[3], 4) != 1 {
		t.Fatal("not spawned on both")
	}
	visible = false
	e.UpdateVisibility()
	s.Tick()
	if p := trs[3].take(); len(p) != 1 || p[0][0] != 5 {
		t.Errorf("peer 3 got %x, want one DESPAWN (and no SYNC)", p)
	}
	if count(trs[2], 5) != 0 {
		t.Error("peer 2 got a DESPAWN")
	}
	visible = true
	e.UpdateVisibility()
	if count(trs[3], 4) != 1 {
		t.Error("peer 3 did not get the SPAWN again")
	}
}

// TestSyncTooLargeLoggedOnce: a state larger than max_sync_packet_size is not sent, as the
// engine does, and logged once rather than every tick.
func TestSyncTooLargeLoggedOnce(t *testing.T) {
	sc := &Scene{Path: "res://x.tscn", Synchronizers: []*SyncConfig{{Path: "S",
		Properties: []Property{{Path: ".:blob", Mode: ReplicateAlways, Default: make([]byte, 2000)}}}}}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{sc}}
	s, trs := tickScene(t, []*Spawner{sp}, 2)
	var logs bytes.Buffer
	s.sc.log = slog.New(slog.NewTextHandler(&logs, nil))
	if _, err := s.Spawn(sp, "res://x.tscn", "X", nil); err != nil {
		t.Fatal(err)
	}
	trs[2].take()
	for range 10 {
		s.Tick()
	}
	for _, p := range trs[2].take() {
		if p[0] == 6 {
			t.Errorf("a SYNC of %d bytes was sent", len(p))
		}
	}
	if n := strings.Count(logs.String(), "exceeds max_sync_packet_size"); n != 1 {
		t.Errorf("logged %d times:\n%s", n, logs.String())
	}
}

// TestRPCVisibility: an RPC on a spawned entity's root goes only to the peers that have the
// entity, as the engine's is_rpc_visible decides.
func TestRPCVisibility(t *testing.T) {
	root := MustNode(".", RPC{Name: "ping"})
	sc := &Scene{Path: "res://x.tscn", Nodes: []*Node{root}, Synchronizers: []*SyncConfig{{Path: "S",
		Properties: []Property{{Path: ".:v", Spawn: true, Mode: ReplicateAlways, Default: 1}},
		Visible:    func(peer int32, e *Entity) bool { return peer == e.Owner() }}}}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{sc}}
	s, trs := tickScene(t, []*Spawner{sp}, 2, 3)
	e, err := s.Spawn(sp, "res://x.tscn", "X", &SpawnOptions{Owner: 2})
	if err != nil {
		t.Fatal(err)
	}
	trs[2].take()
	trs[3].take()
	if e.Node(".") == nil || e.Node("S") != nil {
		t.Fatal("Entity.Node")
	}
	if err := s.RPC(e.Node("."), "ping"); err != nil {
		t.Fatal(err)
	}
	if p := trs[2].take(); len(p) != 2 || p[0][0] != byte(CmdSimplifyPath) || p[1][0]&cmdMask != byte(CmdRemoteCall) {
		t.Errorf("peer 2 got %x, want SIMPLIFY_PATH and the call", p)
	}
	if p := trs[3].take(); len(p) != 0 {
		t.Errorf("peer 3, which does not have the entity, got %x", p)
	}
}

// TestSetChecksTypes: a value of another Variant type than the property's default is refused,
// as a typed GDScript property would refuse it; int and float take each other.
func TestSetChecksTypes(t *testing.T) {
	sc := &Scene{Path: "res://x.tscn", Synchronizers: []*SyncConfig{{Path: "S", Properties: []Property{
		{Path: ".:position", Mode: ReplicateAlways, Default: godot.Vector2{}},
		{Path: ".:hp", Mode: ReplicateAlways, Default: 0},
		{Path: ".:anything", Mode: ReplicateAlways},
	}}}}
	sp := &Spawner{Path: "W/Sp", SpawnPath: "W/E", Scenes: []*Scene{sc}}
	s, _ := tickScene(t, []*Spawner{sp})
	e, err := s.Spawn(sp, "res://x.tscn", "X", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := e.Sync("S")
	if err := st.Set("position", "up"); !errors.Is(err, godot.ErrTypeMismatch) {
		t.Errorf("a String into a Vector2: %v", err)
	}
	if err := st.SetState(map[string]any{"hp": "x"}); !errors.Is(err, godot.ErrTypeMismatch) {
		t.Errorf("a String into an int by SetState: %v", err)
	}
	for _, ok := range []struct {
		name string
		v    any
	}{{"position", godot.Vector2{X: 1}}, {"hp", 2.5}, {"hp", int64(3)}, {"anything", "x"}, {"anything", godot.Vector3{}}} {
		if err := st.Set(ok.name, ok.v); err != nil {
			t.Errorf("Set(%s, %v): %v", ok.name, ok.v, err)
		}
	}
}
