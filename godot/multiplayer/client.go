package multiplayer

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/gamewire/gamewire/enet"
)

// ClientOptions configures a Client. The zero value connects like a Godot client with the
// default SceneMultiplayer (relay on, no authentication) and no nodes.
type ClientOptions struct {
	// Nodes are the nodes the client has (the same paths and RPC names as the server's).
	Nodes []*Node
	// NoRelay turns server_relay off: calls to peers other than 1 go to the server unwrapped,
	// and ADD_PEER/DEL_PEER are refused.
	NoRelay bool
	// Encoding: as the Server's field.
	Encoding Encoding
	// Auth, AuthTimeout, OnAuthFailed: as the Server's fields, for the server (peer 1).
	Auth         func(p *Peer, data []byte)
	AuthTimeout  time.Duration
	OnAuthFailed func(p *Peer)
	// OnConnect and OnDisconnect report peer 1 (connected_to_server; server_disconnected) and the
	// peers the server announces.
	OnConnect    func(p *Peer)
	OnDisconnect func(p *Peer)
	// OnBytes receives RAW packets; OnError refused packets; Trace every packet.
	OnBytes func(p *Peer, data []byte)
	OnError func(p *Peer, err error)
	Trace   func(dir string, peer int32, pkt []byte)
	// PingInterval and PingTimeout: as the Server's fields, for the server (WebSocket only: ENet
	// pings by itself): a server that stops answering is left within their sum.
	PingInterval time.Duration
	PingTimeout  time.Duration
	// MaxMessageBytes, MaxQueuePackets, MaxQueueBytes, WriteTimeout: as the Server's fields.
	MaxMessageBytes int
	MaxQueuePackets int
	MaxQueueBytes   int
	WriteTimeout    time.Duration
	// ENet configures the client's ENet host for DialENet (nil: every default), and
	// ENetChannels is create_client's channel_count: the custom channels asked for besides
	// SYSCH_MAX (0 asks for 255 channels in all, as Godot does).
	ENet         *enet.HostOptions
	ENetChannels int
	// HTTPHeader is sent with the upgrade request (handshake_headers).
	HTTPHeader http.Header
	// Subprotocols are offered in the upgrade request (supported_protocols).
	Subprotocols []string
	// HTTPClient is used for the upgrade; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Logger receives the client's logs. nil means slog.Default().
	Logger *slog.Logger
}

// Client is a Go peer that connects to a Godot multiplayer server (or a Server) the way a
// Godot client with WebSocketMultiplayerPeer does, for bots and tests. It sends byte for byte
// what the engine sends for the same calls.
//
// Over WebSocket, RPC, RPCID and SendBytes write their packet on the calling goroutine when no
// other write is under way, so that they return once the kernel has taken it (a server that
// does not read holds them up to WriteTimeout, then the connection is dropped); calls made by the
// client's handlers, and calls made while another write is under way, are written by the
// connection's writer goroutine.
type Client struct {
	id       int32
	sc       *scene
	server   *Peer
	tr       transport
	closeNow func() // drops the connection at once
	admitted func() // the callbacks of admitting the server, run by run

	connectedOnce sync.Once
	connected     chan struct{}
	done          chan struct{}
}

// Dial connects to url (ws://host:port/path), reads the peer id the server assigns and starts
// serving the connection. It returns once the id has arrived; use Connected to wait for
// authentication to finish.
func Dial(ctx context.Context, url string, opts *ClientOptions) (*Client, error) {
	if opts == nil {
		opts = &ClientOptions{}
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	capture := &captureTransport{rt: hc.Transport}
	if capture.rt == nil {
		capture.rt = http.DefaultTransport
	}
	hcc := *hc
	hcc.Transport = capture
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: opts.HTTPHeader, HTTPClient: &hcc, Subprotocols: opts.Subprotocols})
	if err != nil {
		return nil, fmt.Errorf("multiplayer: dial %s: %w", url, err)
	}
	if capture.body == nil {
		conn.CloseNow()
		return nil, fmt.Errorf("multiplayer: dial %s: the upgraded connection was not found", url)
	}
	tr := newWSTransport(conn, capture.body, nil, nil, wsOptions{maxMessage: limit(opts.MaxMessageBytes, DefaultMaxMessageBytes),
		maxPackets: limit(opts.MaxQueuePackets, DefaultMaxQueuePackets), maxBytes: limit(opts.MaxQueueBytes, DefaultMaxQueueBytes),
		writeTimeout: timeout(opts.WriteTimeout, DefaultWriteTimeout),
		pingInterval: timeout(opts.PingInterval, DefaultPingInterval), pingTimeout: timeout(opts.PingTimeout, DefaultPingTimeout)})
	stop := context.AfterFunc(ctx, tr.closeNow)
	msg, _, err := tr.fr.next()
	stop()
	if err != nil {
		close(tr.rdone) // a Close the server sent is answered without waiting for more
		conn.CloseNow()
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("multiplayer: reading the peer id: %w", err)
	}
	if len(msg) != 4 || int32(binary.LittleEndian.Uint32(msg)) < 2 {
		tr.close(1000, "")
		close(tr.rdone) // the Close goes out without waiting for the server's
		<-tr.done
		return nil, fmt.Errorf("multiplayer: invalid ID received from server (% x): %w", msg, ErrBadPacket)
	}
	c, err := newClient(int32(binary.LittleEndian.Uint32(msg)), tr, opts)
	if err != nil {
		conn.CloseNow()
		return nil, err
	}
	c.closeNow = tr.closeNow
	tr.startPing()
	go c.run(func() {
		tr.readLoop(func(msg []byte) bool {
			tr.setHandling(true) // calls made by the handlers go to the writer goroutine
			c.sc.receive(c.server, msg)
			tr.setHandling(false)
			return true
		})
	}, func() {
		tr.close(-1, "")
		<-tr.done
	})
	return c, nil
}

// captureTransport keeps the connection of a WebSocket upgrade response (net/http hands it
// over as the response's body), for the client to read and write frames on after the
// library's handshake.
type captureTransport struct {
	rt   http.RoundTripper
	body io.ReadWriteCloser
}

// RoundTrip implements http.RoundTripper.
func (c *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		return resp, err
	}
	if rwc, ok := resp.Body.(io.ReadWriteCloser); ok {
		c.body = rwc
	}
	return resp, nil
}

// newClient makes the client of id over tr, the transport to the server.
func newClient(id int32, tr transport, opts *ClientOptions) (*Client, error) {
	c := &Client{id: id, tr: tr, connected: make(chan struct{}), done: make(chan struct{})}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	h := hooks{auth: opts.Auth, onDisconnect: opts.OnDisconnect, onAuthFail: opts.OnAuthFailed,
		onBytes: opts.OnBytes, onError: opts.OnError, trace: opts.Trace, log: logger}
	h.onConnect = func(p *Peer) {
		if p.id == 1 {
			c.connectedOnce.Do(func() { close(c.connected) })
		}
		if opts.OnConnect != nil {
			opts.OnConnect(p)
		}
	}
	var err error
	if c.sc, err = newScene(c.id, !opts.NoRelay, opts.Nodes, h, timeout(opts.AuthTimeout, DefaultAuthTimeout), opts.Encoding); err != nil {
		return nil, err
	}
	c.sc.maxPacket = limit(opts.MaxMessageBytes, DefaultMaxMessageBytes)
	c.server = c.sc.newPeer(1, tr)
	c.sc.server = c.server
	c.sc.mu.Lock()
	c.admitted = c.sc.addPeer(c.server) // before Dial returns: SendAuth may follow at once
	c.sc.mu.Unlock()
	return c, nil
}

// run runs the callbacks of admitting the server, reads with read until the connection ends, and then forgets every
// peer; end runs between the two.
func (c *Client) run(read, end func()) {
	defer close(c.done)
	if c.admitted != nil {
		c.admitted()
	}
	read()
	end()
	// The server went away: forget the relayed peers, then the server.
	c.sc.mu.Lock()
	var others []*Peer
	for id, p := range c.sc.peers {
		if id != 1 {
			others = append(others, p)
		}
	}
	c.sc.mu.Unlock()
	for _, p := range others {
		c.sc.removePeer(p)
	}
	c.sc.removePeer(c.server)
}

// ID returns the client's unique id, assigned by the server.
func (c *Client) ID() int32 { return c.id }

// Server returns peer 1.
func (c *Client) Server() *Peer { return c.server }

// Connected is closed when the server is admitted as peer 1 (connected_to_server): at once
// without authentication, else when both sides have completed it.
func (c *Client) Connected() <-chan struct{} { return c.connected }

// Done is closed when the connection has ended and the disconnect callbacks have run.
func (c *Client) Done() <-chan struct{} { return c.done }

// Peers returns the ids of the connected peers: 1 and the peers the server announced.
func (c *Client) Peers() []int32 {
	c.sc.mu.Lock()
	defer c.sc.mu.Unlock()
	ids := make([]int32, 0, len(c.sc.peers))
	for id := range c.sc.peers {
		ids = append(ids, id)
	}
	return ids
}

// RPC calls the named method of node n on every connected peer (Node.rpc).
func (c *Client) RPC(n *Node, method string, args ...any) error {
	if t, ok := c.tr.(*wsTransport); ok && t.holdCaller() {
		defer t.release()
	}
	return c.sc.rpc(0, n, method, args)
}

// RPCID calls the named method of node n as Node.rpc_id(id, …) does: on the server for 1, on
// another client through the server's relay, on all peers for 0, on all but -id for id < 0.
func (c *Client) RPCID(id int32, n *Node, method string, args ...any) error {
	if t, ok := c.tr.(*wsTransport); ok && t.holdCaller() {
		defer t.release()
	}
	return c.sc.rpc(id, n, method, args)
}

// SendBytes sends data as SceneMultiplayer.send_bytes(data, id) does: id 1 goes straight to the
// server; any other id (0, the default in GDScript, included) is relayed.
func (c *Client) SendBytes(id int32, data []byte) error {
	if t, ok := c.tr.(*wsTransport); ok && t.holdCaller() {
		defer t.release()
	}
	return c.sc.sendBytes(id, data)
}

// Close closes the connection with Close 1000 (disconnect_peer(1)) after the queued packets and
// waits until it has ended or ctx is done.
func (c *Client) Close(ctx context.Context) error {
	c.tr.close(1000, "")
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		c.closeNow()
		<-c.done
		return ctx.Err()
	}
}
