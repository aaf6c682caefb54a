package multiplayer3

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"

	"github.com/gamewire/gamewire/enet"
)

// ClientOptions configure a Client. The zero value connects as a Godot 3 client with a default
// NetworkedMultiplayerENet does, with no nodes.
type ClientOptions struct {
	// Nodes are the nodes the client has (the same paths and names as the server's).
	Nodes []*Node
	// ID is the client's peer id, sent as the CONNECT data; 0 means a random 31-bit id of at
	// least 2, as the engine's _gen_unique_id.
	ID int32
	// AllowObjects accepts full objects in arguments (allow_object_decoding).
	AllowObjects bool
	// OnConnect reports the server once connected (connected_to_server) and the clients the
	// server announces (network_peer_connected); OnDisconnect their departures, the server's
	// last (server_disconnected).
	OnConnect    func(p *Peer)
	OnDisconnect func(p *Peer)
	// OnBytes, OnError and Trace: as the Server's fields.
	OnBytes func(p *Peer, data []byte)
	OnError func(p *Peer, err error)
	Trace   func(dir string, peer int32, channel uint8, pkt []byte)
	// HostOptions configure the client's ENet host; the Compressor must be the server's
	// (CompressionMode.Compressor).
	HostOptions enet.HostOptions
	// Logger receives the client's logs. nil means slog.Default().
	Logger *slog.Logger
}

// Client is a Go peer that connects to a Godot 3 server (or a Server) as a Godot 3 client with
// NetworkedMultiplayerENet does, for bots, load tests and tests. It sends byte for byte what the
// engine sends for the same calls.
//
// Its callbacks and handlers run on one goroutine, in the order the packets arrived, the SYS
// messages of the packets that arrived together first (as the engine's poll()). It reads them
// with enet.Peer.ReceiveInto into one buffer for each such batch (of at most 256 packets): no
// allocation per packet; a batch past 64 KiB gets a buffer of its own, dropped after it.
type Client struct {
	sc     *scene
	ep     *enet.Peer
	server *Peer
	done   chan struct{}
	once   sync.Once
}

// Dial connects to the Godot 3 server at addr (host:port, UDP) and returns once the ENet
// connection is up (connected_to_server). The protocol has no acceptance message: a server that
// refuses the id (in use, or below 2) drops the connection right after, which closes Done (a
// Godot server sends nothing, so the client times out; a gamewire Server sends a DISCONNECT).
func Dial(ctx context.Context, addr string, opts *ClientOptions) (*Client, error) {
	if opts == nil {
		opts = &ClientOptions{}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	id := opts.ID
	if id == 0 {
		for id < 2 {
			id = int32(rand.Uint32() & 0x7fffffff)
		}
	}
	if id < 2 {
		return nil, fmt.Errorf("multiplayer3: client id %d: ids below 2 are refused", id)
	}
	h := hooks{onConnect: opts.OnConnect, onDisconnect: opts.OnDisconnect, onBytes: opts.OnBytes, onError: opts.OnError, trace: opts.Trace, log: logger}
	sc, err := newScene(id, true, opts.Nodes, h, DecodeOptions{AllowObjects: opts.AllowObjects})
	if err != nil {
		return nil, err
	}
	ho := opts.HostOptions
	if ho.Logger == nil && opts.Logger != nil {
		ho.Logger = opts.Logger
	}
	ep, err := enet.Dial(ctx, "udp", addr, &enet.DialOptions{HostOptions: ho, Channels: Channels, Data: uint32(id)})
	if err != nil {
		return nil, fmt.Errorf("multiplayer3: dial %s: %w", addr, err)
	}
	c := &Client{sc: sc, ep: ep, done: make(chan struct{})}
	c.server = sc.newPeer(ServerID, enetLink{ep})
	sc.mu.Lock()
	sc.server = c.server
	sc.mu.Unlock()
	sc.addPeer(c.server)
	go c.readLoop()
	return c, nil
}

func (c *Client) readLoop() {
	defer close(c.done)
	r := batchReceiver{ep: c.ep}
	for {
		// As the engine's poll(): the packets that have arrived are taken together, and the
		// SYS messages among them take effect before the others run, so that a call naming a
		// client that an ADD_PEER in the same batch announces finds it.
		batch, err := r.next(context.Background(), maxBatch)
		if err != nil {
			break
		}
		for _, sys := range []bool{true, false} {
			for _, b := range batch {
				if (b.channel == ChannelSys) == sys {
					c.sc.receive(c.server, b.channel, r.data(b), deliveryOf(b.flags))
				}
			}
		}
	}
	sc := c.sc
	sc.mu.Lock()
	sc.closed = true
	var others []*Peer
	for _, id := range sc.sortedPeers() {
		if id != ServerID {
			others = append(others, sc.peers[id])
		}
	}
	sc.mu.Unlock()
	for _, p := range others {
		sc.removePeer(p)
	}
	sc.removePeer(c.server)
	sc.local.cancel()
}

// maxBatch bounds the packets the client takes at once.
const maxBatch = 256

// ID returns the client's peer id.
func (c *Client) ID() int32 { return c.sc.self }

// Server returns the server, peer 1.
func (c *Client) Server() *Peer { return c.server }

// Peers returns the ids of the connected peers: the server and the clients it announced.
func (c *Client) Peers() []int32 {
	c.sc.mu.Lock()
	defer c.sc.mu.Unlock()
	return c.sc.sortedPeers()
}

// RPC calls the named function of node n on every peer (rpc()); the server relays it to the
// other clients.
func (c *Client) RPC(n *Node, method string, args ...any) error {
	return c.RPCID(0, n, method, args...)
}

// RPCID calls the named function of node n as rpc_id(id, …) does: id is the server (1),
// another client (relayed by the server), 0 for all, or -id for all but id.
func (c *Client) RPCID(id int32, n *Node, method string, args ...any) error {
	return c.sc.rpc(id, n, method, false, false, args)
}

// RPCUnreliableID is RPCID sent unreliably, unsequenced on channel 2 (rpc_unreliable_id).
func (c *Client) RPCUnreliableID(id int32, n *Node, method string, args ...any) error {
	return c.sc.rpc(id, n, method, false, true, args)
}

// RSetID sets the named property of node n on peer id, as rset_id.
func (c *Client) RSetID(id int32, n *Node, property string, value any) error {
	return c.sc.rpc(id, n, property, true, false, []any{value})
}

// SendBytes sends a RAW packet (send_bytes) reliably to peer id (1 the server, 0 all).
func (c *Client) SendBytes(id int32, data []byte) error {
	return c.sc.sendBytes(id, data, reliable)
}

// Done is closed once the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close disconnects from the server (close_connection) once what is queued is sent, and waits
// until the connection has ended.
func (c *Client) Close() error {
	var err error
	c.once.Do(func() {
		err = c.ep.Close()
		<-c.done
	})
	return err
}
