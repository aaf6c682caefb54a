package multiplayer

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/godot"
)

// argValues are the arguments of the engine tests: a GDScript expression and the Go value that
// must encode to the same bytes. They cover every Variant type but Object (whose instance ids
// differ from run to run; a null Signal stands in for Signal), the compressed int forms at their
// boundaries, typed containers and nesting.
var argValues = []struct {
	gd string
	v  any
}{
	{"true", true}, {"false", false},
	{"0", 0}, {"-1", -1}, {"127", 127}, {"-128", -128}, {"128", 128}, {"-129", -129},
	{"32767", 32767}, {"-32768", -32768}, {"32768", 32768}, {"-32769", -32769},
	{"2147483647", math.MaxInt32}, {"-2147483648", math.MinInt32}, {"2147483648", int64(math.MaxInt32) + 1},
	{"-2147483649", int64(math.MinInt32) - 1}, {"1099511627776", int64(1) << 40},
	{"9223372036854775807", int64(math.MaxInt64)}, {"-9223372036854775807 - 1", int64(math.MinInt64)},
	{"1.5", 1.5}, {"0.1", 0.1}, {"INF", math.Inf(1)},
	{`""`, ""}, {`"hello"`, "hello"}, {`"héllo ✓ 🎮"`, "héllo ✓ 🎮"},
	{`&"name"`, godot.StringName("name")},
	{`NodePath("Main/Sub:prop")`, godot.ParseNodePath("Main/Sub:prop")},
	{"Vector2(1.5, -2)", godot.Vector2{X: 1.5, Y: -2}},
	{"Vector2i(3, -4)", godot.Vector2i{X: 3, Y: -4}},
	{"Rect2(1, 2, 3, 4)", godot.Rect2{Position: godot.Vector2{X: 1, Y: 2}, Size: godot.Vector2{X: 3, Y: 4}}},
	{"Rect2i(1, 2, 3, 4)", godot.Rect2i{Position: godot.Vector2i{X: 1, Y: 2}, Size: godot.Vector2i{X: 3, Y: 4}}},
	{"Vector3(1, 2, 3)", godot.Vector3{X: 1, Y: 2, Z: 3}},
	{"Vector3i(1, -2, 3)", godot.Vector3i{X: 1, Y: -2, Z: 3}},
	{"Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6))", godot.Transform2D{X: godot.Vector2{X: 1, Y: 2}, Y: godot.Vector2{X: 3, Y: 4}, Origin: godot.Vector2{X: 5, Y: 6}}},
	{"Vector4(1, 2, 3, 4)", godot.Vector4{X: 1, Y: 2, Z: 3, W: 4}},
	{"Vector4i(1, 2, 3, -4)", godot.Vector4i{X: 1, Y: 2, Z: 3, W: -4}},
	{"Plane(0, 1, 0, 5)", godot.Plane{Normal: godot.Vector3{Y: 1}, D: 5}},
	{"Quaternion(0, 0, 0, 1)", godot.Quaternion{W: 1}},
	{"AABB(Vector3(1, 2, 3), Vector3(4, 5, 6))", godot.AABB{Position: godot.Vector3{X: 1, Y: 2, Z: 3}, Size: godot.Vector3{X: 4, Y: 5, Z: 6}}},
	{"Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))", godot.Basis{X: godot.Vector3{X: 1, Y: 2, Z: 3}, Y: godot.Vector3{X: 4, Y: 5, Z: 6}, Z: godot.Vector3{X: 7, Y: 8, Z: 9}}},
	{"Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12))", godot.Transform3D{
		Basis: godot.Basis{X: godot.Vector3{X: 1, Y: 2, Z: 3}, Y: godot.Vector3{X: 4, Y: 5, Z: 6}, Z: godot.Vector3{X: 7, Y: 8, Z: 9}}, Origin: godot.Vector3{X: 10, Y: 11, Z: 12}}},
	{"Projection(Vector4(1, 2, 3, 4), Vector4(5, 6, 7, 8), Vector4(9, 10, 11, 12), Vector4(13, 14, 15, 16))", godot.Projection{
		X: godot.Vector4{X: 1, Y: 2, Z: 3, W: 4}, Y: godot.Vector4{X: 5, Y: 6, Z: 7, W: 8}, Z: godot.Vector4{X: 9, Y: 10, Z: 11, W: 12}, W: godot.Vector4{X: 13, Y: 14, Z: 15, W: 16}}},
	{"Color(0.5, 0.25, 1, 1)", godot.Color{R: 0.5, G: 0.25, B: 1, A: 1}},
	{"RID()", godot.RID(0)},
	{"Callable()", godot.Callable{}},
	{"Signal()", godot.Signal{}},
	{"null", nil},
	{`{"a": 1, "b": [1, 2.5, "x"], "c": {"d": Vector2(1, 1), 7: true}}`, godot.NewDictionary("a", 1, "b", []any{1, 2.5, "x"},
		"c", godot.NewDictionary("d", godot.Vector2{X: 1, Y: 1}, 7, true))},
	{`[1, "two", null, [3]]`, []any{1, "two", nil, []any{3}}},
	{`Array([1, 2, 3], TYPE_INT, &"", null)`, &godot.TypedArray{Elem: godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: godot.TypeInt}, Values: []any{1, 2, 3}}},
	{`Dictionary({"a": 1}, TYPE_STRING, &"", null, TYPE_INT, &"", null)`, &godot.Dictionary{
		Key:     godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: godot.TypeString},
		Value:   godot.ContainerType{Kind: godot.ContainerBuiltin, Builtin: godot.TypeInt},
		Entries: []godot.Entry{{Key: "a", Value: 1}}}},
	{"PackedInt32Array([1, -2])", []int32{1, -2}},
	{"PackedInt64Array([1, 1099511627776])", []int64{1, 1 << 40}},
	{"PackedFloat32Array([1.5, -2])", []float32{1.5, -2}},
	{"PackedFloat64Array([0.1, 2])", []float64{0.1, 2}},
	{`PackedStringArray(["a", "", "ü"])`, []string{"a", "", "ü"}},
	{"PackedVector2Array([Vector2(1, 2)])", []godot.Vector2{{X: 1, Y: 2}}},
	{"PackedVector3Array([Vector3(1, 2, 3)])", []godot.Vector3{{X: 1, Y: 2, Z: 3}}},
	{"PackedColorArray([Color(1, 0, 0, 1)])", []godot.Color{{R: 1, A: 1}}},
	{"PackedVector4Array([Vector4(1, 2, 3, 4)])", []godot.Vector4{{X: 1, Y: 2, Z: 3, W: 4}}},
}

// vmanyArgs are the twelve arguments of the engine's vmany call.
var vmanyArgs = []any{0, -1, 127, 128, -129, 32768, int64(2147483648), true, false, 1.5, "s", []any{1, []any{2, godot.NewDictionary("k", nil)}}}

// recorder keeps the packets a server receives and sends, per peer, and what its handlers saw.
type recorder struct {
	mu     sync.Mutex
	in     map[int32][][]byte
	out    map[int32][][]byte
	events []string
	values map[int32][]any
	errs   map[int32][]error
	pongs  map[int32]int // pongs answering the server's pings, by peer
	// changed is signalled at every packet traced.
	changed testSignal
}

func newRecorder() *recorder {
	return &recorder{in: map[int32][][]byte{}, out: map[int32][][]byte{}, values: map[int32][]any{}, errs: map[int32][]error{}, pongs: map[int32]int{}}
}

func (r *recorder) trace(dir string, peer int32, pkt []byte) {
	defer r.changed.signal()
	r.mu.Lock()
	defer r.mu.Unlock()
	c := bytes.Clone(pkt)
	if dir == "in" {
		r.in[peer] = append(r.in[peer], c)
	} else {
		r.out[peer] = append(r.out[peer], c)
	}
}

func (r *recorder) event(format string, args ...any) {
	r.mu.Lock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *recorder) has(e string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.events {
		if x == e {
			return true
		}
	}
	return false
}

func (r *recorder) packets(peer int32) [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.in[peer]...)
}

// idFromPath gives each scenario's client the id that ends its URL path, so that packets that
// carry peer ids (RELAY) are the same in the engine's run and the Go client's.
func idFromPath(r *http.Request) int32 {
	n, _ := strconv.Atoi(path.Base(r.URL.Path))
	return int32(n)
}

// scenarioNodes returns the server's declaration of the scenario nodes, with handlers that
// drive the engine script (see testdata/engine/main.gd).
func scenarioNodes(rec *recorder, s **Server) (mainNode, own *Node) {
	var ownNode *Node
	var main *Node
	record := func(p *Peer, name string, args ...any) {
		rec.mu.Lock()
		rec.values[p.ID()] = append(rec.values[p.ID()], append([]any{name}, args...))
		rec.mu.Unlock()
	}
	main = MustNode("Main",
		RPC{Name: "done", Mode: ModeAnyPeer, Handler: func(p *Peer) {
			rec.event("done %d", p.ID())
			for i, a := range argValues {
				if err := p.RPC(main, "echo", i, a.v); err != nil {
					rec.event("echo error %v", err)
				}
			}
			p.SendBytes([]byte{0xaa, 0xbb})
			p.RPC(ownNode, "owned") // refused by the client: it is the node's authority
			// A path-form call relayed from a peer 7 that the client never heard of.
			inner, _ := AppendRemoteCall(nil, 0, true, 0, "Own", nil)
			(*s).sc.mu.Lock()
			(*s).sc.write(p.tr, p.id, AppendSys(nil, SysRelay, 7, inner))
			// A SIMPLIFY_PATH with a wrong checksum: the engine answers CONFIRM_PATH valid = 0,
			// keeps the mapping, and runs a later call through that cache id.
			(*s).sc.write(p.tr, p.id, AppendSimplifyPath(nil, strings.Repeat("0", 32), 99, "Main"))
			echoID, _ := main.MethodID("echo")
			via99, _ := AppendRemoteCall(nil, 99, false, echoID, "", []any{-1, "via 99"})
			(*s).sc.write(p.tr, p.id, via99)
			(*s).sc.mu.Unlock()
			p.RPC(main, "finish")
		}},
		RPC{Name: "echo"},
		RPC{Name: "finish"},
		RPC{Name: "go_on"},
		RPC{Name: "loc", Mode: ModeAnyPeer, CallLocal: true, Handler: func(p *Peer, x int) { record(p, "loc", x) }},
		RPC{Name: "only_server", Handler: func(p *Peer) { rec.event("only_server ran") }},
		RPC{Name: "relay_me", Mode: ModeAnyPeer, Handler: func(p *Peer, x string) { record(p, "relay_me", x) }},
		RPC{Name: "v0", Mode: ModeAnyPeer, Handler: func(p *Peer) { record(p, "v0") }},
		RPC{Name: "v1", Mode: ModeAnyPeer, Handler: func(p *Peer, x any) {
			rec.mu.Lock()
			first := len(rec.values[p.ID()]) == 0
			rec.mu.Unlock()
			record(p, "v1", x)
			if first {
				p.RPC(main, "go_on")
			}
		}},
		RPC{Name: "v2", Mode: ModeAnyPeer, Handler: func(p *Peer, a int, b []byte) { record(p, "v2", a, b) }},
		RPC{Name: "vmany", Mode: ModeAnyPeer, Handler: func(p *Peer, a0, a1, a2, a3, a4, a5, a6 int64, a7, a8 bool, a9 float32, a10 string, a11 []any) {
			record(p, "vmany", a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)
		}},
	)
	ownNode = MustNode("Own", RPC{Name: "anyone", Mode: ModeAnyPeer}, RPC{Name: "owned"},
		RPC{Name: "cfg", Mode: ModeAnyPeer, NodeConfig: true, Handler: func(p *Peer, x int) { record(p, "cfg", x) }})
	return main, ownNode
}

// scenarioServers mounts the servers of every scenario on one mux.
type scenarioServers struct {
	rec     *recorder
	main    *Node
	own     *Node
	servers map[string]*Server
	url     string
}

func startScenarioServers(t interface{ Cleanup(func()) }) *scenarioServers {
	rec := newRecorder()
	ss := &scenarioServers{rec: rec, servers: map[string]*Server{}}
	onErr := func(p *Peer, err error) {
		rec.mu.Lock()
		rec.errs[p.ID()] = append(rec.errs[p.ID()], err)
		rec.mu.Unlock()
	}
	base := func() *Server {
		// Pings every 20 ms: the engine's peers must answer the server's ping frames.
		return &Server{NewPeerID: idFromPath, Trace: rec.trace, OnError: onErr, OriginPatterns: []string{"*"},
			PingInterval: 20 * time.Millisecond, PingTimeout: 5 * time.Second, onPong: func(id int32) {
				rec.mu.Lock()
				rec.pongs[id]++
				rec.mu.Unlock()
			},
			OnConnect:    func(p *Peer) { rec.event("connect %d", p.ID()) },
			OnDisconnect: func(p *Peer) { rec.event("disconnect %d", p.ID()) },
			OnBytes:      func(p *Peer, b []byte) { rec.event("bytes %d %x", p.ID(), b) },
			OnAuthFailed: func(p *Peer) { rec.event("authfail %d", p.ID()) },
		}
	}
	var rpcSrv *Server
	ss.main, ss.own = scenarioNodes(rec, &rpcSrv)
	rpcSrv = base()
	rpcSrv.Nodes = []*Node{ss.main, ss.own}
	ss.servers["rpc"] = rpcSrv

	relay := base()
	relay.Nodes = []*Node{ss.main, ss.own}
	ss.servers["relay"] = relay

	disc := base()
	disc.OnConnect = func(p *Peer) {
		rec.event("connect %d", p.ID())
		time.AfterFunc(100*time.Millisecond, func() { disc.Disconnect(p.ID()) })
	}
	ss.servers["disconnect"] = disc

	auth := base()
	auth.Nodes = []*Node{ss.main, ss.own}
	auth.AuthTimeout = 500 * time.Millisecond
	auth.OnAuthenticating = func(p *Peer) { p.SendAuth([]byte("hi")) }
	auth.Auth = func(p *Peer, data []byte) {
		rec.event("auth %d %s", p.ID(), data)
		if string(data) == "secret" {
			p.CompleteAuth()
		} else {
			auth.Disconnect(p.ID())
		}
	}
	ss.servers["auth"] = auth

	never := base()
	never.Nodes = []*Node{ss.main, ss.own}
	never.OnAuthenticating = func(p *Peer) { p.SendAuth([]byte("hi")) }
	never.Auth = func(p *Peer, data []byte) { rec.event("auth %d %s", p.ID(), data) }
	ss.servers["authnever"] = never

	// The put_var scenario: read every value the engine sends, then send the Go encoding of
	// each back.
	varsValues := append(sliceValues(), []byte{1, 2, 3})
	vars := &VarServer{VarOptions: VarOptions{OriginPatterns: []string{"*"}}, Handler: func(ctx context.Context, c *VarConn) {
		for range varsValues {
			b, err := c.ReadMessage(ctx)
			if err != nil {
				rec.event("vars read: %v", err)
				return
			}
			var v any
			err = c.dec.Unmarshal(b, &v)
			rec.mu.Lock()
			rec.in[-1] = append(rec.in[-1], b)
			rec.values[-1] = append(rec.values[-1], v)
			if err != nil {
				rec.errs[-1] = append(rec.errs[-1], err)
			}
			rec.mu.Unlock()
		}
		for _, v := range varsValues {
			if err := c.Encode(ctx, v); err != nil {
				rec.event("vars write: %v", err)
				return
			}
		}
		c.ReadMessage(ctx) // until the client closes
	}}

	sync := base()
	sync.Nodes = []*Node{ss.main, ss.own, MustNode("Main/Sync"), MustNode("Main/Spawner")} // no RPCs
	ss.servers["sync"] = sync

	mux := http.NewServeMux()
	mux.Handle("/vars/", vars)
	for name, s := range ss.servers {
		mux.Handle("/"+name+"/", s)
	}
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, s := range ss.servers {
			s.Shutdown(ctx)
		}
		hs.Close()
	})
	ss.url = "ws" + strings.TrimPrefix(hs.URL, "http")
	return ss
}

// maskPacket returns a copy of a REMOTE_CALL packet with the bytes that the engine leaves
// uninitialised (NodePath name padding inside arguments) zeroed; other packets are returned as
// they are.
func maskPacket(p []byte) []byte {
	rc, err := ParseRemoteCall(p)
	if err != nil || rc.BytesOnly {
		return p
	}
	parts, err := rc.splitArgs(nil)
	if err != nil {
		return p
	}
	out := bytes.Clone(p)
	off := rc.ArgsOffset
	for _, part := range parts {
		if t := godot.Type(part[0] & 0x3f); t != godot.TypeBool && t != godot.TypeInt {
			ranges, _ := godot.DecodeMode{}.UninitializedBytes(part)
			for _, r := range ranges {
				clear(out[off+r[0] : off+r[1]])
			}
		}
		off += len(part)
	}
	return out
}

func hexPackets(ps [][]byte) string {
	var b strings.Builder
	for i, p := range ps {
		fmt.Fprintf(&b, "%3d %s\n", i, hex.EncodeToString(p))
	}
	return b.String()
}

// samePackets compares two packet sequences, masking uninitialised bytes.
func samePackets(t *testing.T, what string, engine, goClient [][]byte) {
	t.Helper()
	ok := len(engine) == len(goClient)
	for i := 0; ok && i < len(engine); i++ {
		ok = bytes.Equal(maskPacket(engine[i]), maskPacket(goClient[i]))
	}
	if !ok {
		t.Errorf("%s: the Go client's packets differ from the engine's\nengine:\n%sGo:\n%s", what, hexPackets(engine), hexPackets(goClient))
	}
}

// fakeT lets the shared engine-run servers use startScenarioServers; its cleanups never run
// (the servers live as long as the test binary).
type fakeT struct{ testing.T }

func (*fakeT) Cleanup(func()) {}

func sliceValues() []any {
	var vs []any
	for _, a := range argValues {
		vs = append(vs, a.v)
	}
	return vs
}
