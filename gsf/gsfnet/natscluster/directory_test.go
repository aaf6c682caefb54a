package natscluster

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkDirectoryMemory measures what the directory holds per session of another node: a
// session with a user key and one group, as a node learns it from events. It reports the heap
// bytes per session.
func BenchmarkDirectoryMemory(b *testing.B) {
	const sessions = 100_000
	for range b.N {
		n := &Node{peers: map[string]*view{}, dir: directory{
			users:  make(map[string]map[Location]struct{}),
			groups: make(map[string]map[Location]struct{}),
		}}
		v := &view{node: "peer-1", sessions: make(map[uint64]*sessionState)}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range sessions {
			id := uint64(i + 1)
			n.applyLocked(v, ctlMsg{Kind: "on", Sess: id, User: fmt.Sprintf("player-%07d", i)})
			n.applyLocked(v, ctlMsg{Kind: "join", Sess: id, Group: fmt.Sprintf("zone-%d", i%100)})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/sessions, "B/session")
		runtime.KeepAlive(n)
		runtime.KeepAlive(v)
	}
}

// TestApplyIsIdempotent: a state fetched while events arrive may replay a change; applying a
// change twice must change nothing, and removing a session must leave no trace.
func TestApplyIsIdempotent(t *testing.T) {
	n := &Node{peers: map[string]*view{}, dir: directory{
		users:  make(map[string]map[Location]struct{}),
		groups: make(map[string]map[Location]struct{}),
	}}
	v := &view{node: "p", sessions: make(map[uint64]*sessionState)}
	for range 2 {
		n.applyLocked(v, ctlMsg{Kind: "on", Sess: 1, User: "u"})
		n.applyLocked(v, ctlMsg{Kind: "join", Sess: 1, Group: "g"})
	}
	if len(n.dir.users["u"]) != 1 || len(n.dir.groups["g"]) != 1 {
		t.Fatalf("directory after repeated changes: %v", n.dir)
	}
	// A new user key moves the group entry with it.
	n.applyLocked(v, ctlMsg{Kind: "on", Sess: 1, User: "w"})
	if len(n.dir.users["u"]) != 0 || len(n.dir.users["w"]) != 1 {
		t.Fatalf("users after a new key: %v", n.dir.users)
	}
	for l := range n.dir.groups["g"] {
		if l.User != "w" {
			t.Fatalf("group entry keeps the old key: %v", l)
		}
	}
	n.removeSessionLocked(v, 1)
	if len(n.dir.users) != 0 || len(n.dir.groups) != 0 || len(v.sessions) != 0 {
		t.Fatalf("left behind: %v, %v", n.dir, v.sessions)
	}
}
