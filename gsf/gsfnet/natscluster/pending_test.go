package natscluster

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestPendingBounded: a node that floods events while it answers a state request slowly (or
// never) makes no more than maxPending of them wait; when its state arrives the view is what the
// state says, and malformed control messages are dropped.
func TestPendingBounded(t *testing.T) {
	// OnEvent set: the node's events wait in n.events (it is not started) and wake evWake.
	n := quietNode(t, 2*time.Minute, func(o *Options) { o.OnEvent = func(Event) {} })
	nc := n.nc

	// The flooding node's state requests wait here.
	requests := make(chan *nats.Msg, 4)
	sub, err := nc.ChanSubscribe(n.pfx+".state.evil", requests)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })

	const events = 5 * maxPending
	ctl := func(m ctlMsg) *nats.Msg {
		m.Node, m.Inst = "evil", "i1"
		b, _ := json.Marshal(m)
		return &nats.Msg{Subject: n.ctlSubj + m.Kind + ".evil", Data: b}
	}
	for i := range uint64(events) {
		// Numbered from 2: a gap at once, so that the node asks for the state.
		n.onControl(ctl(ctlMsg{Kind: "on", Seq: i + 2, Sess: i, User: "u" + strconv.FormatUint(i, 10)}))
	}
	for _, bad := range []string{"", "{", `{"n":""}`, `{"n":"evil","k":"on","q":"x"}`, "\x00\xff", `[1,2]`} {
		n.onControl(&nats.Msg{Subject: n.ctlSubj + "on.evil", Data: []byte(bad)})
	}
	n.mu.Lock()
	v := n.peers["evil"]
	waiting, fetching := len(v.pending), v.fetching
	n.mu.Unlock()
	if !fetching || waiting == 0 || waiting > maxPending {
		t.Fatalf("fetching %v with %d events waiting, want at most %d", fetching, waiting, maxPending)
	}

	// The state arrives: it covers every event so far.
	var req *nats.Msg
	select {
	case req = <-requests:
	case <-time.After(5 * time.Second):
		t.Fatal("no state request")
	}
	st, _ := json.Marshal(stateMsg{Node: "evil", Inst: "i1", Seq: events + 1, Sessions: []sessionEntry{{ID: 7, User: "alice"}}})
	select { // the node is not started: its events wait, and evWake says when one comes
	case <-n.evWake:
	default:
	}
	if err := req.Respond(st); err != nil {
		t.Fatal(err)
	}
	// Taking the state puts alice online: an event.
	select {
	case <-n.evWake:
	case <-time.After(30 * time.Second):
		t.Fatal("the state was not taken")
	}
	n.mu.Lock()
	fetching = v.fetching
	n.mu.Unlock()
	if fetching {
		t.Fatal("an event came, but the node still waits for the state")
	}
	if got := n.Online("alice"); len(got) != 1 || got[0].Node != "evil" {
		t.Errorf("alice is at %v, want at node evil", got)
	}
	if got := n.Online("u5"); len(got) != 0 {
		t.Errorf("u5, who the state does not have, is at %v", got)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(v.pending) != 0 || v.seq != events+1 {
		t.Errorf("after the state: %d events waiting, at number %d, want 0 at %d", len(v.pending), v.seq, events+1)
	}
}

// FuzzControl feeds arbitrary control messages, as another node (or anything that can publish on
// the cluster's subjects) might send them, to a node: it must never panic, and what it knows of
// other nodes stays consistent with its directory.
func FuzzControl(f *testing.F) {
	for _, s := range []string{
		`{"n":"b","i":"1","k":"hb","q":0}`,
		`{"n":"b","i":"1","k":"on","q":1,"s":3,"u":"alice"}`,
		`{"n":"b","i":"1","k":"join","q":2,"s":3,"g":"room"}`,
		`{"n":"b","i":"1","k":"leave","q":3,"s":3,"g":"room"}`,
		`{"n":"b","i":"1","k":"off","q":4,"s":3}`,
		`{"n":"b","i":"1","k":"close","q":5,"s":3}`,
		`{"n":"b","i":"2","k":"bye"}`,
		`{"n":"a","i":"x","k":"on","q":1}`,
		`{"n":"b","i":"1","k":"nonsense","q":18446744073709551615,"s":0}`,
		`{"n":"","k":"on"}`, `{`, ``, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	// State requests fail at once (no node answers them), so every input is handled in full.
	n := quietNode(f, 50*time.Millisecond)
	f.Fuzz(func(t *testing.T, data []byte) {
		n.onControl(&nats.Msg{Subject: n.ctlSubj + "x.b", Data: data})
		n.mu.Lock()
		defer n.mu.Unlock()
		for id, v := range n.peers {
			if id != v.node || len(v.pending) > maxPending {
				t.Fatalf("peer %q: view of %q with %d events waiting", id, v.node, len(v.pending))
			}
			for sid, s := range v.sessions {
				for g := range s.groups {
					if _, ok := n.dir.groups[g][Location{Node: id, Session: sid, User: s.user}]; !ok {
						t.Fatalf("session %d of %q in group %q is not in the directory", sid, id, g)
					}
				}
				if s.user != "" {
					if _, ok := n.dir.users[s.user][Location{Node: id, Session: sid, User: s.user}]; !ok {
						t.Fatalf("session %d of %q with user %q is not in the directory", sid, id, s.user)
					}
				}
			}
		}
	})
}
