package gsfnet

import (
	"fmt"
	"sync"

	"github.com/gamewire/gamewire/gsf"
)

// A Cluster connects the named groups and the user directory of a Server to those of other
// servers (nodes), so that a group notify reaches the group's members on every node and a
// notify to a user reaches the user wherever the user is connected. Package
// gsf/gsfnet/natscluster implements it on NATS; a Server without a Cluster keeps both in the
// process.
//
// The server calls the methods below; an implementation delivers what other nodes send with
// Server.DeliverGroup and Server.DeliverUser. The server calls GroupJoined, GroupLeft,
// UserBound and SessionClosed in the order the changes happen for each session, and never
// while it holds a lock that DeliverGroup or DeliverUser take; the methods must not block on
// the network.
type Cluster interface {
	// Start is called by the server's first Serve (or ListenAndServe), before any session
	// exists.
	Start(srv *Server) error
	// GroupJoined and GroupLeft report that a session of this node joined or left the named
	// group.
	GroupJoined(group string, s *Session)
	GroupLeft(group string, s *Session)
	// UserBound reports that a session of this node is now bound to the user key (Session.SetUser);
	// key "" unbinds it.
	UserBound(s *Session, key string)
	// SessionClosed reports that a session of this node closed; it has left its groups and its
	// user key before.
	SessionClosed(s *Session)
	// PublishGroup sends an encoded frame to the members of the named group on the other nodes,
	// except the session except of this node (which may be nil).
	PublishGroup(group string, except *Session, frame []byte, discardable bool) error
	// PublishUser sends an encoded frame to the sessions bound to key on the other nodes, and
	// returns how many sessions the directory knows there.
	PublishUser(key string, frame []byte, discardable bool) (int, error)
}

// clusterState is the Server's part of named groups and user keys.
type clusterState struct {
	mu      sync.Mutex
	groups  map[string]*Group
	users   map[string]map[*Session]struct{}
	started bool
}

// Group returns the server's group of the given name, creating it on first use. Unlike a
// Group made as a variable, a named group spans the cluster when the server has a Cluster:
// Notify, Send and SendExcept reach its members on every node, while Add, Remove, Len and
// Sessions concern the sessions of this server. Without a Cluster it behaves like any Group.
func (srv *Server) Group(name string) *Group {
	cs := &srv.cluster
	cs.mu.Lock()
	defer cs.mu.Unlock()
	g := cs.groups[name]
	if g == nil {
		if cs.groups == nil {
			cs.groups = make(map[string]*Group)
		}
		g = &Group{name: name, srv: srv}
		cs.groups[name] = g
	}
	return g
}

// startCluster starts the server's Cluster once.
func (srv *Server) startCluster() error {
	if srv.Cluster == nil {
		return nil
	}
	cs := &srv.cluster
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.started {
		return nil
	}
	if err := srv.Cluster.Start(srv); err != nil {
		return fmt.Errorf("gsfnet: starting the cluster: %w", err)
	}
	cs.started = true
	return nil
}

// SetUser binds the session to a user key (what the game knows a player by: an account id, a
// player OID), so that Server.NotifyUser and Server.SendUser reach it, on this node or, with
// a Cluster, from any node. A session has at most one key; "" unbinds it. Several sessions may
// share a key (a player logged in twice). It reports false for a closed session.
func (s *Session) SetUser(key string) bool {
	srv := s.srv
	cs := &srv.cluster
	cs.mu.Lock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cs.mu.Unlock()
		return false
	}
	old := s.user
	s.user = key
	s.mu.Unlock()
	if old == key {
		cs.mu.Unlock()
		return true
	}
	if old != "" {
		cs.removeUser(old, s)
	}
	if key != "" {
		if cs.users == nil {
			cs.users = make(map[string]map[*Session]struct{})
		}
		m := cs.users[key]
		if m == nil {
			m = make(map[*Session]struct{})
			cs.users[key] = m
		}
		m[s] = struct{}{}
	}
	// Under cs.mu, so that the cluster sees a session's bindings in order.
	if srv.Cluster != nil {
		srv.Cluster.UserBound(s, key)
	}
	cs.mu.Unlock()
	return true
}

// User returns the user key the session is bound to, or "".
func (s *Session) User() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.user
}

func (cs *clusterState) removeUser(key string, s *Session) {
	if m := cs.users[key]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(cs.users, key)
		}
	}
}

// UserSessions returns the sessions of this server bound to key.
func (srv *Server) UserSessions(key string) []*Session {
	cs := &srv.cluster
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out := make([]*Session, 0, len(cs.users[key]))
	for s := range cs.users[key] {
		out = append(out, s)
	}
	return out
}

// NotifyUser queues a notify to every session bound to the user key; see SendUser.
func (srv *Server) NotifyUser(key string, class gsf.ServiceClass, msgType int32, body any) (int, error) {
	return srv.SendUser(key, gsf.NewNotify(class, msgType), body)
}

// SendUser queues a message to every session bound to the user key (Session.SetUser): those of
// this server and, with a Cluster, those on other nodes. It returns the number of sessions the
// message was queued for here plus the number the cluster's directory knows elsewhere. Like
// Session.Send it never blocks on the network. The error is that of encoding the message or of
// publishing it to the cluster.
func (srv *Server) SendUser(key string, h gsf.Header, body any) (int, error) {
	b, err := encodeFrame(nil, &h, body)
	if err != nil {
		return 0, err
	}
	defer putBuf(b)
	kind := frameKind(&h)
	n := srv.deliverUser(key, *b, kind)
	if srv.Cluster != nil {
		m, err := srv.Cluster.PublishUser(key, *b, kind == kindDiscardable)
		n += m
		if err != nil {
			return n, fmt.Errorf("gsfnet: cluster: %w", err)
		}
	}
	return n, nil
}

// DeliverUser queues an encoded frame to the sessions of this server bound to key, and returns
// their number. It is for Cluster implementations, which deliver with it what other nodes
// send; a frame is a whole GSF frame (length prefix, payload, terminator).
func (srv *Server) DeliverUser(key string, frame []byte, discardable bool) int {
	kind := kindMessage
	if discardable {
		kind = kindDiscardable
	}
	return srv.deliverUser(key, frame, kind)
}

func (srv *Server) deliverUser(key string, frame []byte, kind int) int {
	ss := srv.UserSessions(key)
	n := 0
	for _, s := range ss {
		if s.enqueue(frame, kind) == nil {
			n++
		}
	}
	return n
}

// DeliverGroup queues an encoded frame to the members of the named group on this server but
// the session whose ID is except (0 for none), and returns their number. It is for Cluster
// implementations, which deliver with it what other nodes publish.
func (srv *Server) DeliverGroup(group string, except uint64, frame []byte, discardable bool) int {
	srv.cluster.mu.Lock()
	g := srv.cluster.groups[group]
	srv.cluster.mu.Unlock()
	if g == nil {
		return 0
	}
	kind := kindMessage
	if discardable {
		kind = kindDiscardable
	}
	n := 0
	g.mu.RLock()
	defer g.mu.RUnlock()
	for s := range g.members {
		if s.id != except && s.enqueue(frame, kind) == nil {
			n++
		}
	}
	return n
}

// leaveCluster unbinds a closing session's user key and tells the cluster.
func (s *Session) leaveCluster() {
	srv := s.srv
	if srv.Cluster == nil && s.User() == "" {
		return // nothing to undo; spares the server-wide lock
	}
	cs := &srv.cluster
	cs.mu.Lock()
	s.mu.Lock()
	key := s.user
	s.user = ""
	s.mu.Unlock()
	if key != "" {
		cs.removeUser(key, s)
		if srv.Cluster != nil {
			srv.Cluster.UserBound(s, "")
		}
	}
	if srv.Cluster != nil {
		srv.Cluster.SessionClosed(s)
	}
	cs.mu.Unlock()
}
