package multiplayer

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// godotRequest is the upgrade request WSLPeer::connect_to_url writes (spec §2.1), byte for byte.
func godotRequest(host, key string) string {
	return "GET / HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
}

// verifyGodotResponse applies the checks of WSLPeer::_verify_server_response (wsl_peer.cpp) to
// a response header block, as a native Godot 4.6 client does.
func verifyGodotResponse(t *testing.T, resp, key string) {
	t.Helper()
	if len(resp) > 4096 {
		t.Fatalf("response headers are %d bytes, the client allows 4096", len(resp))
	}
	lines := strings.Split(strings.TrimSuffix(resp, "\r\n\r\n"), "\r\n")
	if len(lines) < 4 {
		t.Fatalf("%d lines, need 4", len(lines))
	}
	status := strings.Split(lines[0], " ")
	if len(status) < 2 || status[0] != "HTTP/1.1" || status[1] != "101" {
		t.Fatalf("status line %q", lines[0])
	}
	headers := map[string]string{}
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok || value == "" {
			t.Fatalf("header line %q has no value", l)
		}
		name = strings.ToLower(name)
		value = strings.TrimSpace(value)
		if old, dup := headers[name]; dup {
			value = old + "," + value
		}
		headers[name] = value
	}
	if strings.ToLower(headers["connection"]) != "upgrade" {
		t.Errorf("Connection %q, must be exactly upgrade", headers["connection"])
	}
	if strings.ToLower(headers["upgrade"]) != "websocket" {
		t.Errorf("Upgrade %q", headers["upgrade"])
	}
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if headers["sec-websocket-accept"] != base64.StdEncoding.EncodeToString(sum[:]) {
		t.Errorf("Sec-WebSocket-Accept %q", headers["sec-websocket-accept"])
	}
	if _, ok := headers["sec-websocket-protocol"]; ok {
		t.Error("unrequested Sec-WebSocket-Protocol")
	}
	if _, ok := headers["sec-websocket-extensions"]; ok {
		t.Error("unrequested Sec-WebSocket-Extensions")
	}
}

// readFrame reads one server frame and checks the rules wslay applies on the client side:
// FIN set, RSV bits clear, unmasked.
func readFrame(t *testing.T, r *bufio.Reader) (opcode byte, payload []byte) {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		t.Fatal(err)
	}
	if h[0]&0x80 == 0 {
		t.Error("fragmented frame")
	}
	if h[0]&0x70 != 0 {
		t.Errorf("RSV bits set: %#x", h[0])
	}
	if h[1]&0x80 != 0 {
		t.Error("masked server frame: a Godot client closes with 1002")
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(r, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(r, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		t.Fatal(err)
	}
	return h[0] & 0x0f, payload
}

// writeFrame writes a masked client frame, as wslay does.
func writeFrame(w io.Writer, opcode byte, payload []byte) error {
	b := []byte{0x80 | opcode}
	switch n := len(payload); {
	case n < 126:
		b = append(b, 0x80|byte(n))
	case n <= 0xffff:
		b = append(b, 0x80|126, byte(n>>8), byte(n))
	default:
		b = append(b, 0x80|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	mask := []byte{0x12, 0x34, 0x56, 0x78}
	b = append(b, mask...)
	for i, c := range payload {
		b = append(b, c^mask[i%4])
	}
	_, err := w.Write(b)
	return err
}

// rawGodotConn connects to s like a native Godot client and returns the connection, after the
// response has been verified.
func rawGodotConn(t *testing.T, s *Server) (net.Conn, *bufio.Reader, string) {
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	conn, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	key := "dGhlIHNhbXBsZSBub25jZQ=="
	if _, err := io.WriteString(conn, godotRequest(hs.Listener.Addr().String(), key)); err != nil {
		t.Fatal(err)
	}
	// The client reads byte by byte up to the blank line.
	r := bufio.NewReader(conn)
	var resp strings.Builder
	for !strings.HasSuffix(resp.String(), "\r\n\r\n") {
		c, err := r.ReadByte()
		if err != nil {
			t.Fatalf("reading the response: %v (so far %q)", err, resp.String())
		}
		resp.WriteByte(c)
		if resp.Len() > 4096 {
			t.Fatal("response headers too big")
		}
	}
	verifyGodotResponse(t, resp.String(), key)
	return conn, r, resp.String()
}

func TestHandshakeNativeClient(t *testing.T) {
	n := MustNode("Main", RPC{Name: "hello", Mode: ModeAnyPeer, Handler: func(p *Peer, b []byte) {}})
	got65534 := make(chan int, 1)
	s := &Server{Nodes: []*Node{n}, NewPeerID: func(*http.Request) int32 { return 0x12345678 },
		OnBytes: func(p *Peer, data []byte) { got65534 <- len(data) }}
	t.Cleanup(func() { s.Shutdown(t.Context()) })
	conn, r, resp := rawGodotConn(t, s)
	// The exact response: status line, the three headers the client checks, and the Date the
	// net/http server adds; nothing else (no subprotocol, no extension, one Connection line).
	lines := strings.Split(strings.TrimSuffix(resp, "\r\n\r\n"), "\r\n")
	want := []string{"HTTP/1.1 101 Switching Protocols", "Connection: Upgrade", "Sec-Websocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Upgrade: websocket"}
	got := []string{lines[0]}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "Date: ") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(lines) != 5 {
		t.Errorf("response:\n%s\nwant (plus Date):\n%s", resp, strings.Join(want, "\n"))
	}
	// First message: the 4-byte id, binary, unmasked, one frame.
	op, id := readFrame(t, r)
	if op != 2 || string(id) != "\x78\x56\x34\x12" {
		t.Fatalf("first frame opcode %d payload % x", op, id)
	}
	// The largest message a Godot client may send (65535 bytes, its outbound buffer) is
	// accepted: a raw packet to the server comes back as OnBytes.
	big := make([]byte, 65535)
	big[0] = byte(CmdRaw)
	if err := writeFrame(conn, 2, big); err != nil {
		t.Fatal(err)
	}
	if n := wait(t, got65534); n != 65534 {
		t.Fatalf("raw payload %d", n)
	}
	// A 65535-byte server message (the client's inbound limit) is one unmasked frame.
	payload := make([]byte, 65534)
	payload[0] = 7
	if err := s.SendBytes(0x12345678, payload); err != nil {
		t.Fatal(err)
	}
	op, msg := readFrame(t, r)
	if op != 2 || len(msg) != 65535 || msg[0] != byte(CmdRaw) {
		t.Fatalf("opcode %d, %d bytes", op, len(msg))
	}
	// One byte more than the engine's buffer closes the connection with 1009, as wslay does.
	if err := writeFrame(conn, 2, make([]byte, 65536)); err != nil {
		t.Fatal(err)
	}
	op, msg = readFrame(t, r)
	if op != 8 || len(msg) < 2 || binary.BigEndian.Uint16(msg) != 1009 {
		t.Fatalf("want Close 1009, got opcode %d % x", op, msg)
	}
}

// TestHandshakeOrigin: a web export's browser sends an Origin header; it is refused unless
// OriginPatterns allows it (the coder/websocket default), and a native client sends none.
func TestHandshakeOrigin(t *testing.T) {
	for _, tc := range []struct {
		patterns []string
		ok       bool
	}{{nil, false}, {[]string{"127.0.0.1:*"}, true}} {
		s := &Server{OriginPatterns: tc.patterns}
		hs := httptest.NewServer(s)
		conn, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		req := strings.Replace(godotRequest(hs.Listener.Addr().String(), "dGhlIHNhbXBsZSBub25jZQ=="),
			"\r\n\r\n", "\r\nOrigin: http://127.0.0.1:1234\r\n\r\n", 1)
		io.WriteString(conn, req)
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		line, _ := bufio.NewReader(conn).ReadString('\n')
		if got := strings.HasPrefix(line, "HTTP/1.1 101 "); got != tc.ok {
			t.Errorf("patterns %v: status %q", tc.patterns, line)
		}
		conn.Close()
		s.Shutdown(t.Context())
		hs.Close()
	}
}

// TestHandshakeSubprotocol: a Godot client with supported_protocols gets exactly one of them
// back; the server adds none that was not asked for.
func TestHandshakeSubprotocol(t *testing.T) {
	for _, tc := range []struct {
		asked string
		want  string
	}{{"", ""}, {"other", ""}, {"game, chat", "game"}, {"chat", "chat"}} {
		s := &Server{Subprotocols: []string{"game", "chat"}}
		hs := httptest.NewServer(s)
		conn, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		req := godotRequest(hs.Listener.Addr().String(), "dGhlIHNhbXBsZSBub25jZQ==")
		if tc.asked != "" {
			req = strings.Replace(req, "\r\n\r\n", "\r\nSec-WebSocket-Protocol: "+tc.asked+"\r\n\r\n", 1)
		}
		io.WriteString(conn, req)
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		r := bufio.NewReader(conn)
		var resp strings.Builder
		for !strings.HasSuffix(resp.String(), "\r\n\r\n") {
			c, err := r.ReadByte()
			if err != nil {
				t.Fatal(err)
			}
			resp.WriteByte(c)
		}
		got := ""
		for _, l := range strings.Split(resp.String(), "\r\n") {
			if v, ok := strings.CutPrefix(strings.ToLower(l), "sec-websocket-protocol: "); ok {
				got = v
			}
		}
		if got != tc.want {
			t.Errorf("asked %q: got protocol %q, want %q\n%s", tc.asked, got, tc.want, resp.String())
		}
		conn.Close()
		s.Shutdown(t.Context())
		hs.Close()
	}
}

// unwrapOnly is middleware's ResponseWriter: it hides Hijack but unwraps to one that has it.
type unwrapOnly struct{ w http.ResponseWriter }

func (u unwrapOnly) Header() http.Header         { return u.w.Header() }
func (u unwrapOnly) Write(b []byte) (int, error) { return u.w.Write(b) }
func (u unwrapOnly) WriteHeader(code int)        { u.w.WriteHeader(code) }
func (u unwrapOnly) Unwrap() http.ResponseWriter { return u.w }

// TestHandshakeBehindMiddleware: the server upgrades through middleware whose ResponseWriter
// only unwraps to a Hijacker, as the WebSocket library does.
func TestHandshakeBehindMiddleware(t *testing.T) {
	s := &Server{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.ServeHTTP(unwrapOnly{w}, r) }))
	defer hs.Close()
	defer s.Close()
	dial(t, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
}
