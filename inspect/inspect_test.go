package inspect

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/inspect/internal/samples"
)

// seedGSF is the 22-byte GetClientVersionInfo request of the protocol documentation (seed 000).
const seedGSF = samples.GSFRequest

// find returns the first node, depth first, whose name is name.
func find(nodes []*Node, name string) *Node {
	for _, n := range nodes {
		if n.Name == name {
			return n
		}
		if c := find(n.Children, name); c != nil {
			return c
		}
	}
	return nil
}

// leaves returns the leaves in tree order.
func leaves(nodes []*Node, out []*Node) []*Node {
	for _, n := range nodes {
		if len(n.Children) == 0 {
			out = append(out, n)
		} else {
			out = leaves(n.Children, out)
		}
	}
	return out
}

// checkTiles checks that the leaves cover [0, end) bits without gaps or overlaps, in order, and
// that every node's byte range holds its bits.
func checkTiles(t *testing.T, ex *Explanation, end int) {
	t.Helper()
	pos := 0
	for _, l := range leaves(ex.Nodes, nil) {
		if l.Bit != pos {
			t.Fatalf("leaf %q at bit %d, want %d", l.Name, l.Bit, pos)
		}
		pos += l.Bits
	}
	if pos != end {
		t.Fatalf("leaves end at bit %d, want %d", pos, end)
	}
	var walk func([]*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			if n.Off != n.Bit/8 || n.Off+n.Len != (n.Bit+n.Bits+7)/8 {
				t.Errorf("%q: bytes %d+%d do not hold bits %d+%d", n.Name, n.Off, n.Len, n.Bit, n.Bits)
			}
			walk(n.Children)
		}
	}
	walk(ex.Nodes)
}

func TestGSFSeed(t *testing.T) {
	ex, err := Explain(Request{Format: "gsf", Input: seedGSF, Options: map[string]string{"body": "clientName:string"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Errors) != 0 || ex.Size != 22 || !ex.BitLevel || ex.Input != "hex" {
		t.Fatalf("errors %v, size %d, bit level %v, input %q", ex.Errors, ex.Size, ex.BitLevel, ex.Input)
	}
	checkTiles(t, ex, 176)
	for _, c := range []struct {
		name, value string
		bit, bits   int
	}{
		{"svcClass", "18 (USER_SERVER)", 16, 11},
		{"msgType", "566 (GET_CLIENT_VERSION_INFO)", 27, 20},
		{"requestId", "1", 47, 6},
		{"clientName", `"AmazingWorld"`, 60, 108},
	} {
		n := find(ex.Nodes, c.name)
		if n == nil {
			t.Fatalf("no %s field", c.name)
		}
		if n.Value != c.value || n.Bit != c.bit || n.Bits != c.bits {
			t.Errorf("%s = %q at bit %d+%d; want %q at %d+%d", c.name, n.Value, n.Bit, n.Bits, c.value, c.bit, c.bits)
		}
	}
	// Detection finds GSF too.
	auto, err := Explain(Request{Input: seedGSF})
	if err != nil || auto.Format != "gsf" {
		t.Fatalf("detected %q, %v", auto.Format, err)
	}
}

func TestGSFTruncated(t *testing.T) {
	ex, err := Explain(Request{Format: "gsf", Input: seedGSF[:3*13]})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Errors) != 1 || ex.Errors[0].Off != 13 {
		t.Fatalf("errors %+v; want one at byte 13, the end of the input", ex.Errors)
	}
	if n := find(ex.Nodes, "length prefix"); n == nil || n.Bits != 8 {
		t.Fatalf("length prefix not explained: %+v", n)
	}
	// The header is in the bytes there are.
	if n := find(ex.Nodes, "msgType"); n == nil || n.Value != "566 (GET_CLIENT_VERSION_INFO)" {
		t.Fatalf("msgType: %+v", n)
	}
	if ex.Nodes[0].Error == "" {
		t.Error("the frame does not carry the error")
	}
}

var everyType = samples.Godot4EveryType

func TestGodotEveryType(t *testing.T) {
	v, want := everyType()
	b, err := godot.EncodeMode{}.Append(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Explain(Request{Format: "godot4", Input: hex.EncodeToString(b)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Errors) != 0 {
		t.Fatalf("errors: %v", ex.Errors)
	}
	checkTiles(t, ex, 8*len(b))
	top := ex.Nodes[0]
	if top.Type != "Array" || top.Len != len(b) {
		t.Fatalf("top: %s of %d bytes, want Array of %d", top.Type, top.Len, len(b))
	}
	var got []string
	for _, c := range top.Children {
		if strings.HasPrefix(c.Name, "[") {
			got = append(got, c.Type+"="+c.Value)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("elements:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestGodotTruncated(t *testing.T) {
	v, _ := everyType()
	b, _ := godot.EncodeMode{}.Append(nil, v)
	cut := 100
	ex, err := Explain(Request{Format: "godot4", Input: hex.EncodeToString(b[:cut])})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Errors) != 1 {
		t.Fatalf("errors %v, want 1", ex.Errors)
	}
	e := ex.Errors[0]
	if e.Off > cut || e.Off < cut-16 || !strings.Contains(e.Msg, "truncated") {
		t.Errorf("error %+v, want a truncation near byte %d", e, cut)
	}
	// What decoded before the error is still there.
	if n := find(ex.Nodes, "[4]"); n == nil || n.Value != `"héllo"` {
		t.Errorf("[4] = %+v, want the String", n)
	}
	// The Variant that did not decode carries the error.
	if n := find(ex.Nodes, "[8]"); n == nil || n.Type != "Rect2i" || !strings.Contains(n.Error, "truncated") {
		t.Errorf("[8] = %+v, want the Rect2i with the error", n)
	}
}

func TestGodotFramings(t *testing.T) {
	enc3, _ := godot.EncodeOptions{Dialect: godot.Godot3}.EncodeMode()
	one, _ := enc3.Append(nil, "hi")
	var stream []byte
	for range 2 {
		stream = append(stream, byte(len(one)), 0, 0, 0)
		stream = append(stream, one...)
	}
	ex, err := Explain(Request{Format: "godot3", Input: hex.EncodeToString(stream), Options: map[string]string{"framing": "streampeer"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Nodes) != 2 || len(ex.Errors) != 0 {
		t.Fatalf("%d messages, errors %v", len(ex.Nodes), ex.Errors)
	}
	checkTiles(t, ex, 8*len(stream))
	if v := find(ex.Nodes[1].Children, "value"); v == nil || v.Value != `"hi"` || v.Off != 4+len(stream)/2 {
		t.Errorf("second value: %+v", v)
	}
	// A prefix that promises more than there is.
	ex, _ = Explain(Request{Format: "godot3", Input: hex.EncodeToString(stream[:len(stream)-2]), Options: map[string]string{"framing": "streampeer"}})
	if len(ex.Errors) != 1 || ex.Errors[0].Off != len(stream)/2 {
		t.Errorf("errors %+v, want one at byte %d", ex.Errors, len(stream)/2)
	}
	// Without framing, values follow each other.
	ex, _ = Explain(Request{Format: "godot3", Input: hex.EncodeToString(append(one, one...))})
	if len(ex.Nodes) != 2 || len(ex.Errors) != 0 {
		t.Errorf("unframed: %d values, errors %v", len(ex.Nodes), ex.Errors)
	}
}

func TestBits(t *testing.T) {
	ex, err := Explain(Request{Format: "bits", Input: "20c25c", Options: map[string]string{"fields": "null,null,flags:int32,svcClass:int32"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := find(ex.Nodes, "svcClass"); n == nil || n.Value != "18" || n.Bit != 8 || n.Bits != 11 {
		t.Errorf("svcClass: %+v", n)
	}
	ex, _ = Explain(Request{Format: "bits", Input: "20", Options: map[string]string{"fields": "null,null,flags:int32,svcClass:int32"}})
	if len(ex.Errors) != 1 || ex.Errors[0].Bit != 8 {
		t.Errorf("errors %+v, want one at bit 8", ex.Errors)
	}
	if _, err := Explain(Request{Format: "bits", Input: "20"}); err == nil {
		t.Error("no field list accepted")
	}
	if _, err := Explain(Request{Format: "bits", Input: "20", Options: map[string]string{"fields": "bool", "offset": "3x"}}); err == nil {
		t.Error("start bit 3x accepted")
	}
	ex, _ = Explain(Request{Format: "bits", Input: "20", Options: map[string]string{"fields": "bool", "offset": "2"}})
	if len(ex.Nodes) != 1 || ex.Nodes[0].Bit != 2 || ex.Nodes[0].Value != "true" {
		t.Errorf("from bit 2: %+v", ex.Nodes)
	}
}

func TestReadInput(t *testing.T) {
	want, _ := hex.DecodeString(strings.ReplaceAll(seedGSF, " ", ""))
	for _, c := range []struct{ name, text, how string }{
		{"hex", seedGSF, "hex"},
		{"base64", "FSDCXARtDAwYQW1hemluZ1dvcmxkAA==", "base64"},
		{"xxd", "00000000: 1520 c25c 046d 0c0c 1841 6d61 7a69 6e67  . .\\.m...Amazing\n00000010: 576f 726c 6400                           World.\n", "hex dump"},
		{"hexdump -C", "00000000  15 20 c2 5c 04 6d 0c 0c  18 41 6d 61 7a 69 6e 67  |. .\\.m...Amazing|\n00000010  57 6f 72 6c 64 00                                 |World.|\n00000016\n", "hex dump"},
		{"od", "0000000 15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67\n0000020 57 6f 72 6c 64 00\n0000026\n", "hex dump"},
		{"wireshark", "0000   15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67   . .\\.m...Amazing\n0010   57 6f 72 6c 64 00                                 World.\n", "hex dump"},
	} {
		got, how, err := ReadInput(c.text, "auto")
		if c.name == "od" {
			// od numbers offsets in octal unless told -Ax; this one is -Ao: not a hex dump.
			if err == nil && bytes.Equal(got, want) {
				t.Errorf("od -Ao read as a hex dump")
			}
			continue
		}
		if err != nil || !bytes.Equal(got, want) || how != c.how {
			t.Errorf("%s: %x as %q, %v; want %x as %q", c.name, got, how, err, want, c.how)
		}
	}
	od := "000000 15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67\n000010 57 6f 72 6c 64 00\n000016\n"
	if got, how, err := ReadInput(od, "auto"); err != nil || !bytes.Equal(got, want) || how != "hex dump" {
		t.Errorf("od -Ax: %x as %q, %v", got, how, err)
	}
	if _, _, err := ReadInput("15 20 c", "auto"); err == nil || !strings.Contains(err.Error(), "looks like hex") {
		t.Errorf("odd hex: %v", err)
	}
	if _, _, err := ReadInput("hello there!", "auto"); err == nil {
		t.Error("text read as bytes")
	}
}

func TestRegisterDuplicate(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second gsf was registered")
		}
	}()
	Register(Format{Name: "gsf", Explain: explainGSF})
}

// TestGSFManyFrames: frames are explained a part at a time, numbered through, and a long input
// stops at MaxNodes with a note.
func TestGSFManyFrames(t *testing.T) {
	one, _ := hex.DecodeString(strings.ReplaceAll(seedGSF, " ", ""))
	data := bytes.Repeat(one, 600)
	ex, err := Explain(Request{Format: "gsf", Input: string(data), Encoding: "raw"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Nodes) != 600 || len(ex.Errors) != 0 || ex.Nodes[599].Name != "frame 600" || ex.Nodes[599].Off != 22*599 {
		t.Fatalf("%d frames, errors %v, last %+v", len(ex.Nodes), ex.Errors, ex.Nodes[len(ex.Nodes)-1])
	}
	checkTiles(t, ex, 8*len(data))
	ex, _ = Explain(Request{Format: "gsf", Input: string(data[:len(data)-3]), Encoding: "raw"})
	if len(ex.Errors) != 1 || !strings.Contains(ex.Errors[0].Msg, "frame at byte 13178 ") {
		t.Errorf("errors %v, want the last frame's, at byte 13178", ex.Errors)
	}
	big := bytes.Repeat(one, 1<<20/len(one))
	ex, _ = Explain(Request{Format: "gsf", Input: string(big), Encoding: "raw"})
	if ex.Fields > MaxNodes || ex.Fields < MaxNodes-100 || len(ex.Notes) != 1 || !strings.Contains(ex.Notes[0], "stops after 100000 fields") {
		t.Errorf("1 MiB of frames: %d fields, notes %q", ex.Fields, ex.Notes)
	}
}

func TestGodot3EveryType(t *testing.T) {
	v := []any{
		nil, true, int64(1) << 40, 0.1, "s", godot.Vector2{X: 1, Y: 2},
		godot.Rect2{Size: godot.Vector2{X: 1, Y: 1}}, godot.Vector3{X: 1, Y: 2, Z: 3},
		godot.Transform2D{X: godot.Vector2{X: 1}, Y: godot.Vector2{Y: 1}},
		godot.Plane{Normal: godot.Vector3{Z: 1}}, godot.Quaternion{W: 1}, godot.AABB{},
		godot.Basis{X: godot.Vector3{X: 1}, Y: godot.Vector3{Y: 1}, Z: godot.Vector3{Z: 1}},
		godot.Transform3D{}, godot.Color{A: 1}, godot.ParseNodePath("a/b"), godot.RID(1),
		&godot.Object{Class: "Node"}, &godot.Dictionary{}, []any{}, []byte{9}, []int32{1},
		[]float32{1}, []string{"x"}, []godot.Vector2{{}}, []godot.Vector3{{}}, []godot.Color{{}},
	}
	// Godot 3 writes a RID as its bare header: the id is lost (RID(0)).
	want := "Nil=null bool=true int=1099511627776 float=0.1 String=\"s\" Vector2=Vector2(1, 2) " +
		"Rect2=Rect2(0, 0, 1, 1) Vector3=Vector3(1, 2, 3) Transform2D=Transform2D(1, 0, 0, 1, 0, 0) " +
		"Plane=Plane(0, 0, 1, 0) Quat=Quat(0, 0, 0, 1) AABB=AABB(0, 0, 0, 0, 0, 0) " +
		"Basis=Basis(1, 0, 0, 0, 1, 0, 0, 0, 1) Transform=Transform(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) " +
		"Color=Color(0, 0, 0, 1) NodePath=^\"a/b\" RID=RID(0) Object=Node {0 properties} " +
		"Dictionary={0 entries} Array=[0 elements] PoolByteArray=[09] PoolIntArray=[1] " +
		"PoolRealArray=[1] PoolStringArray=[\"x\"] PoolVector2Array=[Vector2(0, 0)] " +
		"PoolVector3Array=[Vector3(0, 0, 0)] PoolColorArray=[Color(0, 0, 0, 0)]"
	enc3, _ := godot.EncodeOptions{Dialect: godot.Godot3}.EncodeMode()
	b, err := enc3.Append(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Explain(Request{Format: "godot3", Input: hex.EncodeToString(b)})
	if err != nil || len(ex.Errors) != 0 {
		t.Fatal(err, ex.Errors)
	}
	checkTiles(t, ex, 8*len(b))
	var got []string
	for _, c := range ex.Nodes[0].Children {
		if strings.HasPrefix(c.Name, "[") {
			got = append(got, c.Type+"="+c.Value)
		}
	}
	if g := strings.Join(got, " "); g != want {
		t.Errorf("elements:\n%s\nwant:\n%s", g, want)
	}
}

// TestGSFCatalog: without a field list, the body is described by the message catalog, as
// "gamewire gsf decode" does: the seed's body is a GetClientVersionInfoRequest, and a notify's
// nested objects are nodes within their parents.
func TestGSFCatalog(t *testing.T) {
	ex, err := Explain(Request{Format: "gsf", Input: seedGSF})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Errors) != 0 {
		t.Fatalf("errors %v", ex.Errors)
	}
	checkTiles(t, ex, 176)
	body := find(ex.Nodes, "GetClientVersionInfoRequest")
	if body == nil || body.Type != "message" {
		t.Fatalf("body node %+v", body)
	}
	n := find(body.Children, "ClientName")
	if n == nil || n.Value != `"AmazingWorld"` || n.Bit != 60 || n.Bits != 108 {
		t.Fatalf("ClientName node %+v", n)
	}
	// A CLIENT/CHAT notify: OIDs are objects with their four numbers inside.
	chat := "1e 22 bf 04 26 68 69 20 61 6c 6c 49 82 60 8a 92 18 32 6c 38 20 67 72 65 65 74 69 6e 67 80 00"
	ex, err = Explain(Request{Format: "gsf", Input: chat})
	if err != nil || len(ex.Errors) != 0 {
		t.Fatalf("%v %v", err, ex.Errors)
	}
	checkTiles(t, ex, 8*31)
	sender := find(find(ex.Nodes, "ChatNotify").Children, "SenderID")
	if sender == nil || find(sender.Children, "Number") == nil || find(sender.Children, "Number").Value != "77" {
		t.Fatalf("SenderID node %+v", sender)
	}
}

// TestMultiplayer explains packets the real Godot 4.6 engine sent (godot/multiplayer's
// recorded capture): every byte belongs to a field, and a cut packet shows its error at the
// offset where the packet ends.
func TestMultiplayer(t *testing.T) {
	for _, hexIn := range []string{
		"020101000000", // SYS ADD_PEER
		"0001080142ff7f",
		"20080000800801814d61696e00", // SIMPLIFY_PATH
	} {
		ex, err := Explain(Request{Format: "godot-mp", Input: hexIn})
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Errors) != 0 {
			t.Fatalf("%s: errors %v", hexIn, ex.Errors)
		}
		checkTiles(t, ex, 8*len(hexIn)/2)
	}
	ex, err := Explain(Request{Format: "godot-mp", Input: "0001080103"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Errors) != 1 {
		t.Fatalf("a cut argument: errors %v", ex.Errors)
	}
}

// TestENet: ENet plugs in with one registration; the tree comes from enet.Explain's frame.
func TestENet(t *testing.T) {
	// A datagram to no peer yet (0xFFF) holding a PING (acknowledge, channel 0xff, sequence 1).
	ex, err := Explain(Request{Format: "enet", Input: "0fff 85ff0001"})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Format != "enet" || ex.Fields < 4 || len(ex.Errors) != 0 || find(ex.Nodes, "peerID") == nil {
		t.Fatalf("format %q, %d fields, errors %v", ex.Format, ex.Fields, ex.Errors)
	}
	checkTiles(t, ex, 8*ex.Size)
	for _, n := range leaves(ex.Nodes, nil) {
		if n.Bit < 0 || n.Bit+n.Bits > 8*ex.Size {
			t.Errorf("%s at bits %d+%d outside %d bytes", n.Name, n.Bit, n.Bits, ex.Size)
		}
	}
}

// TestGodot3Multiplayer: Godot 3's multiplayer packets plug in with one registration too.
func TestGodot3Multiplayer(t *testing.T) {
	// A SYS ADD_PEER of peer 7 on channel 0.
	ex, err := Explain(Request{Format: "godot3-mp", Input: "00000000 07000000", Options: map[string]string{"channel": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Errors) != 0 || find(ex.Nodes, "peer") == nil || find(ex.Nodes, "peer").Value != "7" {
		t.Fatalf("errors %v, nodes %+v", ex.Errors, ex.Nodes)
	}
	checkTiles(t, ex, 8*ex.Size)
}
