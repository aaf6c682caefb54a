package natscluster

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/gamewire/gamewire/gsf/gsfnet"
)

// Defaults of Options.
const (
	DefaultPrefix            = "gamewire"
	DefaultHeartbeatInterval = time.Second
	// DefaultDeadAfter is 3 heartbeats: a node is dropped 3 s after its last heartbeat.
	DefaultDeadAfter = 3 * DefaultHeartbeatInterval
	// DefaultRequestTimeout bounds a state request to another node and a remote join or leave.
	DefaultRequestTimeout = 2 * time.Second
	// DefaultStallTimeout is the default of Options.StallTimeout.
	DefaultStallTimeout = 500 * time.Millisecond
	// DefaultDeliveryTimeout is the default of Options.DeliveryTimeout.
	DefaultDeliveryTimeout = time.Second
)

// Errors.
var (
	// ErrClosed is returned by the methods of a closed Node.
	ErrClosed = errors.New("natscluster: node closed")
	// ErrDisconnected is returned by a notify to other nodes while the node's NATS connection
	// is down or stalled (its pings go unanswered for StallTimeout): the notify reached this
	// node's sessions only. (A notify is not kept to be sent
	// later: a chat line or a position that arrives minutes late is worse than one that is
	// lost.)
	ErrDisconnected = errors.New("natscluster: not connected to NATS")
	// ErrNotStarted is returned before the node's server has started serving.
	ErrNotStarted = errors.New("natscluster: node not started (set it as a gsfnet.Server's Cluster and Serve)")
)

// Options configure a Node.
type Options struct {
	// Node is the node's id, unique in the cluster: letters, digits, '-' and '_'. Required.
	Node string
	// Prefix starts every subject the cluster uses (default DefaultPrefix). Clusters that share
	// a NATS account need different prefixes.
	Prefix string
	// HeartbeatInterval is how often the node announces itself (default
	// DefaultHeartbeatInterval).
	HeartbeatInterval time.Duration
	// DeadAfter is how long after a node's last heartbeat the others drop it, with its sessions
	// (default 3 × HeartbeatInterval; at least 2 × HeartbeatInterval).
	DeadAfter time.Duration
	// RequestTimeout bounds requests to other nodes (default DefaultRequestTimeout).
	RequestTimeout time.Duration
	// StallTimeout is how long a ping to the NATS server may go unanswered before the node
	// counts its connection as stalled (a server stopped or overloaded: the connection stays
	// open, and what is sent waits in buffers). While it is stalled, notifies to other nodes
	// return ErrDisconnected and are not sent. The node pings every StallTimeout/2, so a
	// stall is noticed within 1.5 × StallTimeout (default DefaultStallTimeout). A negative
	// value turns the check off.
	StallTimeout time.Duration
	// DeliveryTimeout is how late a notify from another node may reach this node: one sent
	// longer ago is dropped, not delivered (the notifies sent during a stall before it was
	// noticed arrive when the server resumes). Lateness is measured against the sender's
	// clock, corrected by the smallest delay seen on its recent control messages (heartbeats,
	// session events), so clocks need not
	// agree (default DefaultDeliveryTimeout; a negative value delivers however late).
	DeliveryTimeout time.Duration
	// OnEvent, if set, is called with every presence event, one at a time in the order the node
	// learnt them, from a goroutine of the node's. It must not block for long.
	OnEvent func(Event)
	// Logger gets the node's logs (default slog.Default()).
	Logger *slog.Logger
}

// EventKind says what an Event reports.
type EventKind int

// The event kinds.
const (
	NodeUp     EventKind = iota + 1 // a node became known
	NodeDown                        // a node left or its heartbeats stopped; its sessions' Offline and GroupLeave events come first
	Online                          // a session was bound to a user key
	Offline                         // a session was unbound from its user key or closed
	GroupJoin                       // a session joined a group
	GroupLeave                      // a session left a group
)

var eventKindNames = [...]string{"", "NodeUp", "NodeDown", "Online", "Offline", "GroupJoin", "GroupLeave"}

// String returns the kind's name.
func (k EventKind) String() string {
	if k > 0 && int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// An Event is a change of presence somewhere in the cluster, this node included.
type Event struct {
	Kind    EventKind
	Node    string // the node the session is on, or the node that came or went
	Session uint64 // the session's id on its node (0 for NodeUp and NodeDown)
	User    string // the session's user key (Online, Offline; "" for a session without one)
	Group   string // GroupJoin, GroupLeave
}

// A Location is a session somewhere in the cluster.
type Location struct {
	Node    string
	Session uint64
	User    string
}

// A Node is a gsfnet server's membership in a cluster; set it as the server's Cluster. Its
// methods are safe for concurrent use.
type Node struct {
	nc   *nats.Conn
	opts Options
	log  *slog.Logger
	inst string // this run of the node: another value after a restart

	// subjects
	pfx, ctlSubj, stateSubj, userSubj, opSubj string

	mu      sync.Mutex
	srv     *gsfnet.Server
	closed  bool
	seq     uint64
	self    *view
	peers   map[string]*view
	dir     directory
	subs    []*nats.Subscription
	groupSu map[string]*nats.Subscription // group subscriptions while the node has members
	events  []Event                       // waiting for the dispatcher
	clocks  map[string]*clockEstimate     // per peer node, what its heartbeats took
	stalled atomic.Bool                   // the NATS server does not answer pings
	late    atomic.Uint64                 // notifies dropped for DeliveryTimeout
	lateLog time.Time                     // when late notifies were last logged
	warnMu  sync.Mutex                    // guards warns
	warns   map[string]*warnCount         // warnLimited's counts, by message
	evWake  chan struct{}
	stop    chan struct{}
	done    sync.WaitGroup
}

// view is what a node knows of one node's sessions.
type view struct {
	node     string
	inst     string
	seq      uint64
	lastSeen time.Time
	sessions map[uint64]*sessionState
	// State requests: at most one at a time; events that arrive meanwhile wait in pending.
	fetching bool
	pending  []ctlMsg
}

type sessionState struct {
	user   string
	groups map[string]struct{}
}

// directory indexes every known session by user key and by group.
type directory struct {
	users  map[string]map[Location]struct{}
	groups map[string]map[Location]struct{}
}

var nodeIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// New makes a node on the NATS connection nc. It joins the cluster when the server it is set on
// starts serving (gsfnet.Server.Cluster), and leaves it with Close. The connection should
// reconnect for ever (nats.MaxReconnects(-1)) so that an outage of the NATS server is ridden out.
// opts must not be nil: Options.Node is required.
func New(nc *nats.Conn, o *Options) (*Node, error) {
	if nc == nil {
		return nil, errors.New("natscluster: nil NATS connection")
	}
	if o == nil {
		return nil, errors.New("natscluster: nil Options (Options.Node is required)")
	}
	opts := *o
	if !nodeIDRE.MatchString(opts.Node) {
		return nil, fmt.Errorf("natscluster: node id %q: want 1 to 64 letters, digits, '-' or '_'", opts.Node)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.HeartbeatInterval <= 0 {
		opts.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if opts.DeadAfter <= 0 {
		opts.DeadAfter = 3 * opts.HeartbeatInterval
	}
	opts.DeadAfter = max(opts.DeadAfter, 2*opts.HeartbeatInterval)
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.StallTimeout == 0 {
		opts.StallTimeout = DefaultStallTimeout
	}
	if opts.DeliveryTimeout == 0 {
		opts.DeliveryTimeout = DefaultDeliveryTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	p := opts.Prefix
	n := &Node{
		nc:        nc,
		opts:      opts,
		log:       log.With("node", opts.Node),
		inst:      strconv.FormatUint(rand.Uint64(), 36),
		pfx:       p,
		ctlSubj:   p + ".c.",
		stateSubj: p + ".state." + opts.Node,
		userSubj:  p + ".u." + opts.Node,
		opSubj:    p + ".op." + opts.Node,
		self:      &view{node: opts.Node, sessions: make(map[uint64]*sessionState)},
		peers:     make(map[string]*view),
		groupSu:   make(map[string]*nats.Subscription),
		clocks:    make(map[string]*clockEstimate),
		evWake:    make(chan struct{}, 1),
		stop:      make(chan struct{}),
		dir: directory{
			users:  make(map[string]map[Location]struct{}),
			groups: make(map[string]map[Location]struct{}),
		},
	}
	return n, nil
}

// ID returns the node's id.
func (n *Node) ID() string { return n.opts.Node }

// Start joins the cluster; gsfnet.Server calls it when it starts serving.
func (n *Node) Start(srv *gsfnet.Server) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return ErrClosed
	}
	if n.srv != nil {
		if n.srv != srv {
			return errors.New("natscluster: node already serves another server")
		}
		return nil
	}
	n.srv = srv
	subs := []struct {
		subj string
		h    nats.MsgHandler
	}{
		{n.ctlSubj + ">", n.onControl},
		{n.stateSubj, n.onStateRequest},
		{n.userSubj, n.onUserFrame},
		{n.opSubj, n.onOp},
	}
	for _, s := range subs {
		sub, err := n.nc.Subscribe(s.subj, s.h)
		if err != nil {
			n.unsubscribeLocked()
			return fmt.Errorf("natscluster: subscribe %s: %w", s.subj, err)
		}
		sub.SetPendingLimits(-1, 64<<20)
		n.subs = append(n.subs, sub)
	}
	n.done.Add(2)
	go n.heartbeats()
	go n.dispatch()
	if n.opts.StallTimeout > 0 {
		n.done.Add(1)
		go n.watchStall()
	}
	n.publishLocked(ctlMsg{Kind: "hb", Seq: n.seq})
	return nil
}

// Sync waits until the NATS server has processed everything the node sent so far: its
// subscriptions are active and its events published. Tests use it; a game rarely needs it.
func (n *Node) Sync(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, n.opts.RequestTimeout)
		defer cancel()
	}
	return n.nc.FlushWithContext(ctx)
}

// Close leaves the cluster: the other nodes drop this node's sessions at once, instead of
// after DeadAfter. It does not close the NATS connection or the server.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	started := n.srv != nil
	if started {
		n.publishLocked(ctlMsg{Kind: "bye"})
	}
	n.unsubscribeLocked()
	close(n.stop)
	n.mu.Unlock()
	n.done.Wait()
	if started {
		_ = n.nc.FlushTimeout(n.opts.RequestTimeout)
	}
	return nil
}

func (n *Node) unsubscribeLocked() {
	for _, s := range n.subs {
		_ = s.Unsubscribe()
	}
	n.subs = nil
	for g, s := range n.groupSu {
		_ = s.Unsubscribe()
		delete(n.groupSu, g)
	}
}

// ---- control messages ----

// ctlMsg is a control message: an event of a node's sessions, a heartbeat, or a goodbye.
type ctlMsg struct {
	Node  string `json:"n"`
	Inst  string `json:"i"`
	Kind  string `json:"k"` // "hb", "bye", "on", "off", "join", "leave", "close"
	Seq   uint64 `json:"q"`
	Sent  int64  `json:"t,omitempty"` // when the node sent it, Unix nanoseconds (every kind: each one on time is a clock sample)
	Sess  uint64 `json:"s,omitempty"`
	User  string `json:"u,omitempty"`
	Group string `json:"g,omitempty"`
}

// publishLocked sends a control message of this node. n.mu is held, so that messages leave in
// the order of their numbers.
func (n *Node) publishLocked(m ctlMsg) {
	m.Node, m.Inst, m.Sent = n.opts.Node, n.inst, time.Now().UnixNano()
	b, _ := json.Marshal(m)
	if err := n.nc.Publish(n.ctlSubj+m.Kind+"."+n.opts.Node, b); err != nil {
		n.log.Warn("natscluster: publish", "kind", m.Kind, "err", err)
	}
}

// localEvent numbers and applies a change of this node's own sessions, and publishes it.
func (n *Node) localEvent(m ctlMsg) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || n.srv == nil {
		return
	}
	n.seq++
	m.Seq = n.seq
	n.self.seq = n.seq
	n.applyLocked(n.self, m)
	n.publishLocked(m)
}

func (n *Node) heartbeats() {
	defer n.done.Done()
	t := time.NewTicker(n.opts.HeartbeatInterval)
	defer t.Stop()
	for first := true; ; first = false {
		if !first {
			select {
			case <-n.stop:
				return
			case <-t.C:
			}
		}
		// The first one at once: the other nodes learn of this one, and have a sample of its
		// clock, before the first interval is over.
		n.mu.Lock()
		n.publishLocked(ctlMsg{Kind: "hb", Seq: n.seq})
		n.reapLocked(time.Now())
		n.mu.Unlock()
	}
}

// reapLocked drops the nodes whose heartbeats stopped.
func (n *Node) reapLocked(now time.Time) {
	for id, v := range n.peers {
		if now.Sub(v.lastSeen) > n.opts.DeadAfter {
			n.log.Info("natscluster: node is gone", "peer", id, "lastSeen", v.lastSeen)
			n.dropPeerLocked(v)
		}
	}
}

func (n *Node) dropPeerLocked(v *view) {
	for id := range v.sessions {
		n.removeSessionLocked(v, id)
	}
	delete(n.peers, v.node)
	n.emitLocked(Event{Kind: NodeDown, Node: v.node})
}

func (n *Node) onControl(msg *nats.Msg) {
	var m ctlMsg
	if err := json.Unmarshal(msg.Data, &m); err != nil || m.Node == "" {
		n.warnLimited("natscluster: bad control messages", "subject", msg.Subject, "err", err)
		return
	}
	if m.Node == n.opts.Node {
		if m.Inst != n.inst {
			n.warnLimited("natscluster: another node uses this node's id", "id", m.Node)
		}
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	if m.Sent != 0 {
		// Every control message is a sample of the peer's clock offset and latency, not only
		// heartbeats: a node that starts and is stalled before its first heartbeat arrived
		// would otherwise take the stalled heartbeat's delay for the usual one, and deliver
		// the notifies held up with it (TestStalledNATS saw this in CI).
		now := time.Now().UnixNano()
		c := n.clockLocked(m.Node)
		if v := n.peers[m.Node]; v != nil && v.inst != m.Inst {
			*c = clockEstimate{} // restarted, perhaps on another machine
		}
		c.add(now, now-m.Sent)
	}
	v := n.peers[m.Node]
	if m.Kind == "bye" {
		if v != nil && v.inst == m.Inst {
			n.dropPeerLocked(v)
		}
		return
	}
	if v != nil && v.inst != m.Inst {
		// The node restarted: what it had is gone.
		n.dropPeerLocked(v)
		v = nil
	}
	if v == nil {
		v = &view{node: m.Node, inst: m.Inst, sessions: make(map[uint64]*sessionState)}
		n.peers[m.Node] = v
		n.emitLocked(Event{Kind: NodeUp, Node: m.Node})
		if m.Kind == "hb" && m.Seq == 0 {
			v.lastSeen = time.Now()
			return // a node with nothing to tell
		}
		v.fetching = true
		v.queue(m)
		v.lastSeen = time.Now()
		go n.fetchState(m.Node, m.Inst)
		return
	}
	v.lastSeen = time.Now()
	if v.fetching {
		v.queue(m)
		return
	}
	n.handleInOrderLocked(v, m)
}

// handleInOrderLocked applies a peer's message when it is the next in its sequence, ignores
// one already seen, and asks for the peer's whole state on a gap.
func (n *Node) handleInOrderLocked(v *view, m ctlMsg) {
	if m.Kind == "hb" {
		if m.Seq > v.seq {
			n.refetchLocked(v)
		}
		return
	}
	switch {
	case m.Seq <= v.seq:
		return
	case m.Seq == v.seq+1:
		v.seq = m.Seq
		n.applyLocked(v, m)
	default:
		v.queue(m)
		n.refetchLocked(v)
	}
}

// maxPending bounds the events of a node that wait for its state to arrive: a node that sends
// events faster than it answers a state request would otherwise make the list grow without end.
const maxPending = 1 << 14

// queue keeps an event of v's node until its state arrives. When maxPending are waiting, those
// are dropped: the state that arrives covers what they did up to its number, and a gap in the
// numbers after it (the next event, or a heartbeat's number) asks for the state again.
func (v *view) queue(m ctlMsg) {
	if len(v.pending) >= maxPending {
		clear(v.pending)
		v.pending = v.pending[:0]
	}
	v.pending = append(v.pending, m)
}

func (n *Node) refetchLocked(v *view) {
	if v.fetching {
		return
	}
	v.fetching = true
	go n.fetchState(v.node, v.inst)
}

// stateMsg is a node's whole state, the answer to a state request.
type stateMsg struct {
	Node     string         `json:"n"`
	Inst     string         `json:"i"`
	Seq      uint64         `json:"q"`
	Sessions []sessionEntry `json:"s"`
}

type sessionEntry struct {
	ID     uint64   `json:"id"`
	User   string   `json:"u,omitempty"`
	Groups []string `json:"g,omitempty"`
}

func (n *Node) onStateRequest(msg *nats.Msg) {
	n.mu.Lock()
	st := stateMsg{Node: n.opts.Node, Inst: n.inst, Seq: n.seq, Sessions: make([]sessionEntry, 0, len(n.self.sessions))}
	for id, s := range n.self.sessions {
		e := sessionEntry{ID: id, User: s.user}
		for g := range s.groups {
			e.Groups = append(e.Groups, g)
		}
		st.Sessions = append(st.Sessions, e)
	}
	n.mu.Unlock()
	b, _ := json.Marshal(st)
	if err := msg.Respond(b); err != nil {
		n.warnLimited("natscluster: answering a state request", "err", err)
	}
}

// fetchState asks a peer for its whole state and replaces what this node knows of it.
func (n *Node) fetchState(node, inst string) {
	var st stateMsg
	msg, err := n.nc.Request(n.pfx+".state."+node, nil, n.opts.RequestTimeout)
	if err == nil {
		err = json.Unmarshal(msg.Data, &st)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	v := n.peers[node]
	if n.closed || v == nil || v.inst != inst {
		return
	}
	v.fetching = false
	if err != nil || st.Inst != inst {
		// Try again at the next heartbeat or event.
		n.log.Debug("natscluster: state request failed", "peer", node, "err", err)
		v.pending = v.pending[:0]
		return
	}
	// Replace the view: sessions that are gone or changed first, then the new ones.
	want := make(map[uint64]sessionEntry, len(st.Sessions))
	for _, e := range st.Sessions {
		want[e.ID] = e
	}
	for id, s := range v.sessions {
		e, ok := want[id]
		if !ok {
			n.removeSessionLocked(v, id)
			continue
		}
		if s.user != e.User {
			n.applyLocked(v, ctlMsg{Kind: "off", Sess: id})
		}
		in := make(map[string]bool, len(e.Groups))
		for _, g := range e.Groups {
			in[g] = true
		}
		for g := range s.groups {
			if !in[g] {
				n.applyLocked(v, ctlMsg{Kind: "leave", Sess: id, Group: g})
			}
		}
	}
	for _, e := range st.Sessions {
		if e.User != "" {
			n.applyLocked(v, ctlMsg{Kind: "on", Sess: e.ID, User: e.User})
		}
		for _, g := range e.Groups {
			n.applyLocked(v, ctlMsg{Kind: "join", Sess: e.ID, Group: g})
		}
	}
	v.seq = st.Seq
	pending := v.pending
	v.pending = nil
	sort.Slice(pending, func(i, j int) bool { return pending[i].Seq < pending[j].Seq })
	for _, m := range pending {
		if v.fetching {
			v.pending = append(v.pending, m)
			continue
		}
		n.handleInOrderLocked(v, m)
	}
}

// applyLocked applies one change of a node's sessions to its view and the directory, and emits
// the events it makes. Changes that change nothing (a join of a group the session is in) are
// ignored, so that a state fetched meanwhile and the events after it agree.
func (n *Node) applyLocked(v *view, m ctlMsg) {
	s := v.sessions[m.Sess]
	loc := func(s *sessionState) Location { return Location{Node: v.node, Session: m.Sess, User: s.user} }
	switch m.Kind {
	case "on":
		if s == nil {
			s = &sessionState{}
			v.sessions[m.Sess] = s
		}
		if s.user == m.User {
			return
		}
		old := s.user
		if old != "" {
			n.dir.remove(n.dir.users, old, loc(s))
		}
		// Group entries carry the user key: move them.
		for g := range s.groups {
			n.dir.remove(n.dir.groups, g, loc(s))
		}
		s.user = m.User
		for g := range s.groups {
			n.dir.add(n.dir.groups, g, loc(s))
		}
		n.dir.add(n.dir.users, s.user, loc(s))
		if old != "" {
			n.emitLocked(Event{Kind: Offline, Node: v.node, Session: m.Sess, User: old})
		}
		n.emitLocked(Event{Kind: Online, Node: v.node, Session: m.Sess, User: s.user})
	case "off":
		if s == nil || s.user == "" {
			return
		}
		user := s.user
		n.dir.remove(n.dir.users, user, loc(s))
		for g := range s.groups {
			n.dir.remove(n.dir.groups, g, loc(s))
		}
		s.user = ""
		for g := range s.groups {
			n.dir.add(n.dir.groups, g, loc(s))
		}
		n.emitLocked(Event{Kind: Offline, Node: v.node, Session: m.Sess, User: user})
		n.forgetIfEmptyLocked(v, m.Sess)
	case "join":
		if s == nil {
			s = &sessionState{}
			v.sessions[m.Sess] = s
		}
		if _, ok := s.groups[m.Group]; ok {
			return
		}
		if s.groups == nil {
			s.groups = make(map[string]struct{})
		}
		s.groups[m.Group] = struct{}{}
		n.dir.add(n.dir.groups, m.Group, loc(s))
		n.emitLocked(Event{Kind: GroupJoin, Node: v.node, Session: m.Sess, User: s.user, Group: m.Group})
	case "leave":
		if s == nil {
			return
		}
		if _, ok := s.groups[m.Group]; !ok {
			return
		}
		delete(s.groups, m.Group)
		n.dir.remove(n.dir.groups, m.Group, loc(s))
		n.emitLocked(Event{Kind: GroupLeave, Node: v.node, Session: m.Sess, User: s.user, Group: m.Group})
		n.forgetIfEmptyLocked(v, m.Sess)
	case "close":
		n.removeSessionLocked(v, m.Sess)
	}
}

func (n *Node) forgetIfEmptyLocked(v *view, id uint64) {
	if s := v.sessions[id]; s != nil && s.user == "" && len(s.groups) == 0 {
		delete(v.sessions, id)
	}
}

// removeSessionLocked removes a session from presence and its groups.
func (n *Node) removeSessionLocked(v *view, id uint64) {
	s := v.sessions[id]
	if s == nil {
		return
	}
	gs := make([]string, 0, len(s.groups))
	for g := range s.groups {
		gs = append(gs, g)
	}
	sort.Strings(gs)
	for _, g := range gs {
		n.applyLocked(v, ctlMsg{Kind: "leave", Sess: id, Group: g})
	}
	n.applyLocked(v, ctlMsg{Kind: "off", Sess: id})
	delete(v.sessions, id)
}

func (d directory) add(m map[string]map[Location]struct{}, key string, l Location) {
	set := m[key]
	if set == nil {
		set = make(map[Location]struct{})
		m[key] = set
	}
	set[l] = struct{}{}
}

func (d directory) remove(m map[string]map[Location]struct{}, key string, l Location) {
	if set := m[key]; set != nil {
		delete(set, l)
		if len(set) == 0 {
			delete(m, key)
		}
	}
}

// ---- presence ----

func (n *Node) emitLocked(e Event) {
	if n.opts.OnEvent == nil {
		return
	}
	n.events = append(n.events, e)
	select {
	case n.evWake <- struct{}{}:
	default:
	}
}

func (n *Node) dispatch() {
	defer n.done.Done()
	for {
		select {
		case <-n.stop:
			return
		case <-n.evWake:
		}
		n.mu.Lock()
		evs := n.events
		n.events = nil
		n.mu.Unlock()
		for _, e := range evs {
			n.opts.OnEvent(e)
		}
	}
}

// Online returns where the sessions bound to the user key are, on every node this node knows,
// itself included, sorted by node and session.
func (n *Node) Online(key string) []Location {
	n.mu.Lock()
	defer n.mu.Unlock()
	return sortedLocations(n.dir.users[key])
}

// Users returns the user keys online in the cluster, sorted.
func (n *Node) Users() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]string, 0, len(n.dir.users))
	for k := range n.dir.users {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// GroupMembers returns the members of the named group on every node, sorted by node and
// session.
func (n *Node) GroupMembers(group string) []Location {
	n.mu.Lock()
	defer n.mu.Unlock()
	return sortedLocations(n.dir.groups[group])
}

// Nodes returns the ids of the nodes this node knows, itself included, sorted.
func (n *Node) Nodes() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := []string{n.opts.Node}
	for id := range n.peers {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func sortedLocations(set map[Location]struct{}) []Location {
	out := make([]Location, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Node != out[j].Node {
			return out[i].Node < out[j].Node
		}
		return out[i].Session < out[j].Session
	})
	return out
}

// ---- gsfnet.Cluster ----

// GroupJoined implements gsfnet.Cluster.
func (n *Node) GroupJoined(group string, s *gsfnet.Session) {
	n.localEvent(ctlMsg{Kind: "join", Sess: s.ID(), Group: group})
	n.mu.Lock()
	defer n.mu.Unlock()
	n.syncGroupSubLocked(group)
}

// GroupLeft implements gsfnet.Cluster.
func (n *Node) GroupLeft(group string, s *gsfnet.Session) {
	n.localEvent(ctlMsg{Kind: "leave", Sess: s.ID(), Group: group})
	n.mu.Lock()
	defer n.mu.Unlock()
	n.syncGroupSubLocked(group)
}

// UserBound implements gsfnet.Cluster.
func (n *Node) UserBound(s *gsfnet.Session, key string) {
	if key == "" {
		n.localEvent(ctlMsg{Kind: "off", Sess: s.ID()})
		return
	}
	n.localEvent(ctlMsg{Kind: "on", Sess: s.ID(), User: key})
}

// SessionClosed implements gsfnet.Cluster.
func (n *Node) SessionClosed(s *gsfnet.Session) {
	n.mu.Lock()
	_, known := n.self.sessions[s.ID()]
	n.mu.Unlock()
	if known {
		n.localEvent(ctlMsg{Kind: "close", Sess: s.ID()})
	}
}

// syncGroupSubLocked subscribes to a group's subject while this node has members in it.
func (n *Node) syncGroupSubLocked(group string) {
	if n.closed || n.srv == nil {
		return
	}
	has := false
	for l := range n.dir.groups[group] {
		if l.Node == n.opts.Node {
			has = true
			break
		}
	}
	sub := n.groupSu[group]
	switch {
	case has && sub == nil:
		sub, err := n.nc.Subscribe(n.groupSubject(group), func(msg *nats.Msg) { n.onGroupFrame(group, msg) })
		if err != nil {
			n.log.Error("natscluster: subscribe to a group", "group", group, "err", err)
			return
		}
		sub.SetPendingLimits(-1, 64<<20)
		n.groupSu[group] = sub
	case !has && sub != nil:
		_ = sub.Unsubscribe()
		delete(n.groupSu, group)
	}
}

const (
	hdrOrigin      = "Gw-Origin"
	hdrExcept      = "Gw-Except"
	hdrDiscardable = "Gw-Discardable"
	hdrUser        = "Gw-User"
	hdrSent        = "Gw-Sent" // the sender's clock when it sent, Unix nanoseconds
)

// PublishGroup implements gsfnet.Cluster.
func (n *Node) PublishGroup(group string, except *gsfnet.Session, frame []byte, discardable bool) error {
	if err := n.usable(); err != nil {
		return err
	}
	msg := nats.NewMsg(n.groupSubject(group))
	msg.Data = frame
	msg.Header.Set(hdrOrigin, n.opts.Node)
	msg.Header.Set(hdrSent, strconv.FormatInt(time.Now().UnixNano(), 10))
	if except != nil {
		msg.Header.Set(hdrExcept, n.opts.Node+":"+strconv.FormatUint(except.ID(), 10))
	}
	if discardable {
		msg.Header.Set(hdrDiscardable, "1")
	}
	return n.nc.PublishMsg(msg)
}

func (n *Node) onGroupFrame(group string, msg *nats.Msg) {
	if msg.Header.Get(hdrOrigin) == n.opts.Node {
		return // delivered locally by the sender
	}
	var except uint64
	if x := msg.Header.Get(hdrExcept); x != "" {
		if node, id, ok := strings.Cut(x, ":"); ok && node == n.opts.Node {
			except, _ = strconv.ParseUint(id, 10, 64)
		}
	}
	if n.tooLate(msg) {
		return
	}
	n.mu.Lock()
	srv := n.srv
	n.mu.Unlock()
	srv.DeliverGroup(group, except, msg.Data, msg.Header.Get(hdrDiscardable) == "1")
}

// PublishUser implements gsfnet.Cluster.
func (n *Node) PublishUser(key string, frame []byte, discardable bool) (int, error) {
	if err := n.usable(); err != nil {
		return 0, err
	}
	n.mu.Lock()
	perNode := make(map[string]int)
	for l := range n.dir.users[key] {
		if l.Node != n.opts.Node {
			perNode[l.Node]++
		}
	}
	n.mu.Unlock()
	total := 0
	var errs []error
	for node, cnt := range perNode {
		msg := nats.NewMsg(n.pfx + ".u." + node)
		msg.Data = frame
		msg.Header.Set(hdrUser, key)
		msg.Header.Set(hdrOrigin, n.opts.Node)
		msg.Header.Set(hdrSent, strconv.FormatInt(time.Now().UnixNano(), 10))
		if discardable {
			msg.Header.Set(hdrDiscardable, "1")
		}
		if err := n.nc.PublishMsg(msg); err != nil {
			errs = append(errs, err)
			continue
		}
		total += cnt
	}
	return total, errors.Join(errs...)
}

func (n *Node) onUserFrame(msg *nats.Msg) {
	if n.tooLate(msg) {
		return
	}
	n.mu.Lock()
	srv := n.srv
	n.mu.Unlock()
	srv.DeliverUser(msg.Header.Get(hdrUser), msg.Data, msg.Header.Get(hdrDiscardable) == "1")
}

// usable says whether the node can send to other nodes now.
func (n *Node) usable() error {
	n.mu.Lock()
	closed, started := n.closed, n.srv != nil
	n.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case !started:
		return ErrNotStarted
	case !n.nc.IsConnected() || n.stalled.Load():
		return ErrDisconnected
	}
	return nil
}

// watchStall pings the NATS server every StallTimeout/2 and marks the connection stalled
// while a ping goes unanswered for StallTimeout.
func (n *Node) watchStall() {
	defer n.done.Done()
	t := time.NewTicker(n.opts.StallTimeout / 2)
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		if !n.nc.IsConnected() {
			continue // disconnected is reported as such; a reconnect starts afresh
		}
		start := time.Now()
		err := n.nc.FlushTimeout(n.opts.StallTimeout)
		stalled := err != nil && n.nc.IsConnected()
		if n.stalled.Swap(stalled) != stalled {
			if stalled {
				n.log.Warn("natscluster: NATS connection stalled: notifies to other nodes fail with ErrDisconnected", "waited", time.Since(start), "err", err)
			} else {
				n.log.Info("natscluster: NATS connection answers again")
			}
		}
	}
}

// warnLimited logs a warning that messages from the network can cause at will at most once a
// second per kind (msg), with how many times it happened since: the log does not grow faster
// than what arrives.
func (n *Node) warnLimited(msg string, args ...any) {
	n.warnMu.Lock()
	if n.warns == nil {
		n.warns = make(map[string]*warnCount)
	}
	w := n.warns[msg]
	if w == nil {
		w = &warnCount{}
		n.warns[msg] = w
	}
	w.count++
	now := time.Now()
	if now.Sub(w.last) < time.Second {
		n.warnMu.Unlock()
		return
	}
	count := w.count
	w.last, w.count = now, 0
	n.warnMu.Unlock()
	n.log.Warn(msg, append(args, "times", count)...)
}

type warnCount struct {
	last  time.Time
	count int
}

// LateDropped returns how many notifies from other nodes this node dropped because they
// arrived later than DeliveryTimeout.
func (n *Node) LateDropped() uint64 { return n.late.Load() }

// tooLate reports whether a notify from another node arrived later than DeliveryTimeout
// after it was sent, and counts and logs (at most once a second) the ones it drops.
func (n *Node) tooLate(msg *nats.Msg) bool {
	if n.opts.DeliveryTimeout < 0 {
		return false
	}
	sent, err := strconv.ParseInt(msg.Header.Get(hdrSent), 10, 64)
	if err != nil {
		return false // a node that does not say when it sent
	}
	now := time.Now()
	delay := now.UnixNano() - sent
	n.mu.Lock()
	defer n.mu.Unlock()
	if c := n.clocks[msg.Header.Get(hdrOrigin)]; c != nil {
		if usual, ok := c.estimate(now.UnixNano()); ok {
			delay -= usual // the clock offset and the usual latency
		}
	}
	if time.Duration(delay) <= n.opts.DeliveryTimeout {
		return false
	}
	dropped := n.late.Add(1)
	if now.Sub(n.lateLog) >= time.Second {
		n.lateLog = now
		n.log.Warn("natscluster: dropped notifies that arrived later than DeliveryTimeout", "from", msg.Header.Get(hdrOrigin),
			"late", time.Duration(delay), "droppedInAll", dropped)
	}
	return true
}

// clockEstimate keeps the smallest delay (receive time less send time, by two clocks) of a
// peer's heartbeats per quarter of the last minute: their minimum is the clocks' offset plus
// the usual latency. A minute, so that the heartbeats held up by a stall (which arrive late
// with the notifies) do not hide the usual delay; a step of the peer's clock backwards makes
// its notifies look late for up to that minute.
type clockEstimate struct {
	min    [4]int64
	bucket [4]int64 // which quarter-minute min[i] is for; 0: none
}

const clockBucket = int64(15 * time.Second)

func (c *clockEstimate) add(now, d int64) {
	b := now/clockBucket + 1
	i := b % int64(len(c.min))
	if c.bucket[i] != b {
		c.bucket[i], c.min[i] = b, d
		return
	}
	c.min[i] = min(c.min[i], d)
}

// estimate returns the smallest delay of the last minute, and false when there is none.
func (c *clockEstimate) estimate(now int64) (int64, bool) {
	b := now/clockBucket + 1
	var m int64
	ok := false
	for i, cb := range c.bucket {
		if cb != 0 && b-cb < int64(len(c.min)) && (!ok || c.min[i] < m) {
			m, ok = c.min[i], true
		}
	}
	return m, ok
}

// maxClocks bounds the peers whose clocks a node keeps (the node ids a NATS account may
// publish heartbeats for).
const maxClocks = 4096

// clockLocked returns the clock estimate of a peer node.
func (n *Node) clockLocked(node string) *clockEstimate {
	c := n.clocks[node]
	if c == nil {
		if len(n.clocks) >= maxClocks {
			for k := range n.clocks { // forget one at random
				delete(n.clocks, k)
				break
			}
		}
		c = new(clockEstimate)
		n.clocks[node] = c
	}
	return c
}

// groupSubject returns the subject of a group: its name when that is a valid subject token,
// otherwise "~" and the name in unpadded base64url.
func (n *Node) groupSubject(group string) string {
	return n.pfx + ".g." + subjectToken(group)
}

var plainToken = regexp.MustCompile(`^[A-Za-z0-9_-]{1,200}$`)

func subjectToken(s string) string {
	if plainToken.MatchString(s) {
		return s
	}
	return "~" + base64.RawURLEncoding.EncodeToString([]byte(s))
}

// ---- joining and leaving for a user anywhere ----

type opMsg struct {
	Op    string `json:"op"` // "join" or "leave"
	Group string `json:"g"`
	User  string `json:"u"`
}

type opReply struct {
	N   int    `json:"n"`
	Err string `json:"err,omitempty"`
}

// JoinUser adds every session bound to the user key, on whichever node it is, to the named
// group, and returns how many sessions joined. The node holding a session makes the change, so
// that joins and leaves of one session from several nodes take effect in one order everywhere.
func (n *Node) JoinUser(ctx context.Context, group, key string) (int, error) {
	return n.userOp(ctx, opMsg{Op: "join", Group: group, User: key})
}

// LeaveUser removes every session bound to the user key, on whichever node it is, from the
// named group, and returns how many sessions left.
func (n *Node) LeaveUser(ctx context.Context, group, key string) (int, error) {
	return n.userOp(ctx, opMsg{Op: "leave", Group: group, User: key})
}

func (n *Node) userOp(ctx context.Context, op opMsg) (int, error) {
	if err := n.usable(); err != nil {
		return 0, err
	}
	n.mu.Lock()
	nodes := make(map[string]bool)
	for l := range n.dir.users[op.User] {
		nodes[l.Node] = true
	}
	n.mu.Unlock()
	total := n.applyOp(op) // this node's own sessions, known or not yet in the directory
	delete(nodes, n.opts.Node)
	body, _ := json.Marshal(op)
	var errs []error
	for node := range nodes {
		rctx, cancel := context.WithTimeout(ctx, n.opts.RequestTimeout)
		msg, err := n.nc.RequestWithContext(rctx, n.pfx+".op."+node, body)
		cancel()
		var r opReply
		if err == nil {
			err = json.Unmarshal(msg.Data, &r)
		}
		if err == nil && r.Err != "" {
			err = errors.New(r.Err)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("natscluster: %s on node %s: %w", op.Op, node, err))
			continue
		}
		total += r.N
	}
	return total, errors.Join(errs...)
}

func (n *Node) onOp(msg *nats.Msg) {
	var op opMsg
	var r opReply
	if err := json.Unmarshal(msg.Data, &op); err != nil {
		r.Err = "bad request: " + err.Error()
	} else {
		r.N = n.applyOp(op)
	}
	b, _ := json.Marshal(r)
	_ = msg.Respond(b)
}

// applyOp joins or leaves a group for this node's sessions of a user key.
func (n *Node) applyOp(op opMsg) int {
	n.mu.Lock()
	srv := n.srv
	n.mu.Unlock()
	if srv == nil {
		return 0
	}
	g := srv.Group(op.Group)
	cnt := 0
	for _, s := range srv.UserSessions(op.User) {
		switch op.Op {
		case "join":
			if g.Add(s) {
				cnt++
			}
		case "leave":
			g.Remove(s)
			cnt++
		}
	}
	return cnt
}
