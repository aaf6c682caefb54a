// Package natscluster spans the named groups and user keys of gsfnet servers over several
// processes (nodes) with NATS: a notify to a group reaches its members on every node, a notify
// to a user key reaches the user wherever the user is connected, and every node knows who is
// online where.
//
// # Use
//
// A node is a gsfnet.Server with a Node as its Cluster. Code written for one server works
// unchanged: named groups (Server.Group), user keys (Session.SetUser) and notifies to them
// (Group.Notify, Server.NotifyUser) simply reach further.
//
//	nc, err := nats.Connect("nats://127.0.0.1:4222")
//	node, err := natscluster.New(nc, &natscluster.Options{Node: "a"})
//	srv := &gsfnet.Server{Handler: mux, Cluster: node}
//	go srv.ListenAndServe()
//	...
//	s.SetUser("player-42")                         // in a login handler
//	srv.Group("room:7").Add(s)                     // join a room
//	srv.Group("room:7").Notify(gsf.SvcClient, msgType, body) // every member, every node
//	srv.NotifyUser("player-99", gsf.SvcClient, msgType, body) // wherever player-99 is
//	node.Online("player-99")                       // where is it connected?
//
// # How it works
//
// Messages to a group travel on the subject PREFIX.g.GROUP; a node subscribes to it while at
// least one of its sessions is a member, and delivers what arrives to its own members, so that
// each member gets a group notify once. Every node keeps a directory of every node's sessions,
// with their user keys and groups: a node publishes each change of its own sessions as an event
// numbered in sequence, and a heartbeat with its latest number every HeartbeatInterval. A node
// that sees a gap in a peer's numbers, a peer it does not know, or a peer that restarted asks
// that peer for its whole state, so every directory converges within a heartbeat of the last
// change. A notify to a user key goes to the nodes the directory names for it, on
// PREFIX.u.NODE. A node whose heartbeats stop for DeadAfter (a crash, or its NATS connection is
// lost) is dropped from the directory: its sessions leave presence and every group. When its
// connection comes back it is known again at its next heartbeat, with the sessions it still has.
//
// # Delivery guarantee
//
// Core NATS delivers at most once: a notify reaches every member of a group or the sessions of
// a user key exactly once while NATS and the nodes are up and connected, in the order one node
// sent them. A notify sent while the sender's NATS connection is down reaches the sender's own
// sessions only, and Notify returns an error wrapping ErrDisconnected; one sent while a
// receiving node's connection is down is lost for that node. Nothing is kept to be delivered
// late. A game may rely on order per sender and on no
// duplicates, not on delivery across an outage: state that a client must not miss (an
// inventory, a trade) belongs in a response or is sent again when the client asks. The
// directory is eventually consistent: a session that just bound its key is reachable from other
// nodes once the event has arrived there (typically well under a millisecond on a LAN), and a
// crashed node's sessions stay listed for up to DeadAfter.
//
// docs/cluster.md discusses how this scales and what to shard instead.
package natscluster
