package multiplayer

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/coder/websocket"
	"github.com/gamewire/gamewire/godot"
)

// VarConn is a WebSocket connection that carries one Variant per message, the way a Godot 4
// WebSocketPeer's put_var/get_var (and var_to_bytes + send/get_packet) do: each binary message
// is one plain Variant, without a length prefix. It is the godot.FramingPacket framing over
// WebSocket messages.
//
// One goroutine may read and another write at the same time.
type VarConn struct {
	c    *websocket.Conn
	enc  godot.EncodeMode
	dec  godot.DecodeMode
	wbuf []byte
}

// VarOptions configures VarConns.
type VarOptions struct {
	// Enc and Dec are the Variant encoding and decoding modes (Godot 4, no full objects,
	// by default).
	Enc godot.EncodeMode
	Dec godot.DecodeMode
	// MaxMessageBytes bounds a received message; a longer one closes the connection (1009).
	// 0 means DefaultMaxMessageBytes, a Godot WebSocketPeer's default inbound buffer.
	MaxMessageBytes int
	// OriginPatterns: as Server.OriginPatterns.
	OriginPatterns []string
}

func (o *VarOptions) conn(c *websocket.Conn) *VarConn {
	c.SetReadLimit(int64(limit(o.MaxMessageBytes, DefaultMaxMessageBytes)))
	return &VarConn{c: c, enc: o.Enc, dec: o.Dec}
}

// AcceptVars upgrades an HTTP request from a Godot WebSocketPeer to a VarConn.
func AcceptVars(w http.ResponseWriter, r *http.Request, opts *VarOptions) (*VarConn, error) {
	if opts == nil {
		opts = &VarOptions{}
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: opts.OriginPatterns})
	if err != nil {
		return nil, err
	}
	return opts.conn(c), nil
}

// DialVars connects to a WebSocket server that exchanges Variants (a Godot WebSocketPeer
// server, or a VarServer).
func DialVars(ctx context.Context, url string, opts *VarOptions) (*VarConn, error) {
	if opts == nil {
		opts = &VarOptions{}
	}
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	return opts.conn(c), nil
}

// Encode sends v as one message (put_var).
func (c *VarConn) Encode(ctx context.Context, v any) error {
	b, err := c.enc.Append(c.wbuf[:0], v)
	if err != nil {
		return err
	}
	c.wbuf = b
	return c.c.Write(ctx, websocket.MessageBinary, b)
}

// ReadMessage returns the next message's bytes.
func (c *VarConn) ReadMessage(ctx context.Context) ([]byte, error) {
	_, b, err := c.c.Read(ctx)
	return b, err
}

// Decode reads the next message and unmarshals its Variant into v (get_var). A message that
// does not decode is consumed and its error returned (a *godot.DecodeError); the next Decode
// reads the next message. Bytes after the Variant are ignored, as the engine ignores them.
func (c *VarConn) Decode(ctx context.Context, v any) error {
	b, err := c.ReadMessage(ctx)
	if err != nil {
		return err
	}
	_, n, err := c.dec.Decode(b)
	if err != nil {
		return err
	}
	return c.dec.Unmarshal(b[:n], v)
}

// Close closes the connection with the status code and reason.
func (c *VarConn) Close(code websocket.StatusCode, reason string) error {
	return c.c.Close(code, reason)
}

// VarServer is an http.Handler that accepts WebSocketPeer connections and serves each with
// Handler on the request's goroutine; the connection is closed when Handler returns.
type VarServer struct {
	Handler func(ctx context.Context, c *VarConn)
	VarOptions
	// Logger receives upgrade failures. nil means slog.Default().
	Logger *slog.Logger
}

// ServeHTTP upgrades the request and runs Handler.
func (s *VarServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := AcceptVars(w, r, &s.VarOptions)
	if err != nil {
		l := s.Logger
		if l == nil {
			l = slog.Default()
		}
		l.Info("multiplayer: upgrade refused", "remote", r.RemoteAddr, "err", fmt.Sprint(err))
		return
	}
	defer c.c.CloseNow()
	s.Handler(r.Context(), c)
	c.Close(websocket.StatusNormalClosure, "")
}
