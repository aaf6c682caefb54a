package multiplayer3

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot"
)

// sessionValues are the values of node.gd's values(), as Go values of package godot.
func sessionValues() []any {
	d := godot.NewDictionary()
	d.Set("k", int64(1))
	d.Set(int64(2), []any{int64(3)})
	return []any{nil, true, false, int64(42), int64(-7), int64(1099511627776), 1.5, 0.1, "héllo", "",
		godot.Vector2{X: 1.5, Y: -2}, godot.Rect2{Position: godot.Vector2{X: 1, Y: 2}, Size: godot.Vector2{X: 3, Y: 4}},
		godot.Vector3{X: 1, Y: 2, Z: 3},
		godot.Transform2D{X: godot.Vector2{X: 1, Y: 2}, Y: godot.Vector2{X: 3, Y: 4}, Origin: godot.Vector2{X: 5, Y: 6}},
		godot.Plane{Normal: godot.Vector3{X: 1, Y: 2, Z: 3}, D: 4},
		godot.Quaternion{W: 1},
		godot.AABB{Position: godot.Vector3{X: 1, Y: 2, Z: 3}, Size: godot.Vector3{X: 4, Y: 5, Z: 6}},
		identity(),
		godot.Transform3D{Basis: identity(), Origin: godot.Vector3{X: 7, Y: 8, Z: 9}},
		godot.Color{R: 0.25, G: 0.5, B: 0.75, A: 1},
		godot.NodePath{Names: []string{"a", "b"}, SubNames: []string{"c"}},
		d, []any{int64(1), "two", 3.5},
		[]byte{1, 2, 3}, []int32{1, -2}, []float32{1.5}, []string{"ab", ""},
		[]godot.Vector2{{X: 1, Y: 2}}, []godot.Vector3{{X: 1, Y: 2, Z: 3}}, []godot.Color{{R: 1, A: 1}},
		godot.RID(0), anyObjectID{}}
}

// anyObjectID stands for an Object sent as its instance id, which differs from run to run.
type anyObjectID struct{}

func identity() godot.Basis {
	return godot.Basis{X: godot.Vector3{X: 1}, Y: godot.Vector3{Y: 1}, Z: godot.Vector3{Z: 1}}
}

// sessionPacket is one packet of a recorded session, as an ENet peer delivered it.
type sessionPacket struct {
	conn int
	dir  string
	enetPacket
}

func sessionPackets(t testing.TB, s *session) []sessionPacket {
	t.Helper()
	streams := map[string]*enetStream{}
	var out []sessionPacket
	for i, d := range s.Datagrams {
		k := fmt.Sprint(d.Conn, d.Dir)
		st := streams[k]
		if st == nil {
			st = &enetStream{comp: compressionModes[s.Compression]()}
			streams[k] = st
		}
		pkts, _, err := st.add(d.bytes())
		if err != nil {
			t.Fatalf("datagram %d (%s of connection %d): %v", i, d.Dir, d.Conn, err)
		}
		for _, p := range pkts {
			out = append(out, sessionPacket{d.Conn, d.Dir, p})
		}
	}
	return out
}

// masked returns a copy of pkt with the NodePath padding of its arguments zeroed: the engine
// never writes those bytes (they hold leftovers of earlier packets), gamewire writes zeros.
func masked(pkt []byte, p *Packet) []byte {
	out := bytes.Clone(pkt)
	off := p.ArgsOffset
	for _, a := range p.Args {
		rs, _ := anyArgs.UninitializedBytes(a)
		for _, r := range rs {
			clear(out[off+r[0] : off+r[1]])
		}
		off += len(a)
	}
	return out
}

// reencode writes p again with the package's encoders.
func reencode(p *Packet) ([]byte, error) {
	switch p.Command {
	case CmdRemoteCall, CmdRemoteSet:
		vs, err := p.Values()
		if err != nil {
			return nil, err
		}
		tg := Target{CacheID: p.CacheID, Path: p.Path}
		if p.Command == CmdRemoteSet {
			return AppendRemoteSet(nil, tg, p.Name, vs[0])
		}
		return AppendRemoteCall(nil, tg, p.Name, vs...)
	case CmdSimplifyPath:
		return AppendSimplifyPath(nil, p.CacheID, p.Path)
	case CmdConfirmPath:
		return AppendConfirmPath(nil, p.Path)
	case CmdRaw:
		return AppendRaw(nil, p.Data), nil
	}
	return nil, fmt.Errorf("command %v", p.Command)
}

// checkSession asserts that every packet the engines sent parses, and that writing it again
// gives the same bytes; that the values client A sent are what gamewire encodes for the same Go
// values; and that every kind of packet occurred.
func checkSession(t *testing.T, s *session) {
	t.Helper()
	pkts := sessionPackets(t, s)
	seen := map[string]int{}
	a := -1 // the connection of client A, which ran start()
	for n := range s.ClientIDs {
		if slices.ContainsFunc(s.Logs[fmt.Sprintf("client%d", n)], func(l string) bool { return strings.Contains(l, "CALL start") }) {
			a = n
		}
	}
	if a < 0 {
		t.Fatalf("no client ran start(): logs %v", s.Logs)
	}
	want := sessionValues()
	var values int
	for i, sp := range pkts {
		where := fmt.Sprintf("packet %d (%s of connection %d, channel %d, %s)", i, sp.dir, sp.conn, sp.Channel, sp.Flags)
		if sp.Channel == ChannelSys {
			msg, id, err := ParseSys(sp.Data)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			if sp.dir != "s2c" || sp.Flags != "reliable" {
				t.Errorf("%s: a SYS message not from the server, reliably", where)
			}
			if got := AppendSys(nil, msg, id); !bytes.Equal(got, sp.Data) {
				t.Errorf("%s: AppendSys = %x, engine %x", where, got, sp.Data)
			}
			seen[msg.String()]++
			continue
		}
		src, dst, payload, err := ParseHeader(sp.Data)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		if got := AppendHeader(nil, src, dst); !bytes.Equal(got, sp.Data[:8]) {
			t.Errorf("%s: AppendHeader = %x, engine %x", where, got, sp.Data[:8])
		}
		wantChannel := ChannelReliable
		if sp.Flags != "reliable" {
			wantChannel = ChannelUnreliable
			seen["unreliable "+sp.Flags]++
		}
		if sp.Channel != wantChannel {
			t.Errorf("%s: a %s packet on channel %d", where, sp.Flags, sp.Channel)
		}
		p, err := Parse(payload)
		if err != nil {
			t.Errorf("%s: Parse(%x): %v", where, payload, err)
			continue
		}
		seen[p.Command.String()]++
		if p.PathOffset != 0 {
			seen["path form"]++
		}
		if src != 1 && dst != 1 {
			seen["relayed"]++
		}
		got, err := reencode(p)
		if err != nil {
			t.Errorf("%s: writing %x again: %v", where, payload, err)
			continue
		}
		if m := masked(payload, p); !bytes.Equal(got, m) {
			t.Errorf("%s: written again\n%x\nengine (padding masked)\n%x", where, got, m)
		}
		fr := Explain(sp.Channel, sp.Data)
		if fr.Err != nil {
			t.Errorf("%s: Explain: %v", where, fr.Err)
		}
		// The values client A sent to the server with t_value, in order.
		if sp.conn == a && sp.dir == "c2s" && dst == 1 && p.Command == CmdRemoteCall && p.Name == "t_value" && values < len(want) {
			tg := Target{CacheID: p.CacheID, Path: p.Path}
			w := want[values]
			if _, ok := w.(anyObjectID); ok {
				vs, _ := p.Values()
				id, ok := vs[0].(godot.ObjectID)
				if !ok || id == 0 {
					t.Errorf("%s: an Object argument decoded as %#v, want a godot.ObjectID", where, vs[0])
				}
				w = id
			}
			enc, err := AppendRemoteCall(nil, tg, "t_value", w)
			if err != nil {
				t.Errorf("%s: AppendRemoteCall(%#v): %v", where, w, err)
			} else if m := masked(payload, p); !bytes.Equal(enc, m) {
				t.Errorf("%s: AppendRemoteCall(t_value, %#v)\n%x\nengine\n%x", where, w, enc, m)
			}
			values++
		}
	}
	if values != len(want) {
		t.Errorf("found %d of the %d t_value calls", values, len(want))
	}
	for _, k := range []string{"REMOTE_CALL", "REMOTE_SET", "SIMPLIFY_PATH", "CONFIRM_PATH", "RAW", "ADD_PEER", "path form", "relayed", "unreliable unsequenced"} {
		if seen[k] == 0 {
			t.Errorf("the session has no %s packet (%v)", k, seen)
		}
	}
	t.Logf("%d packets: %v", len(pkts), seen)
}

// TestRecordedSession checks the recorded sessions, one per compression mode: every packet
// parses and is written again byte for byte, and a compressed session carries the packets of the
// uncompressed one.
func TestRecordedSession(t *testing.T) {
	for mode := range compressionModes {
		t.Run(compressionNames[mode], func(t *testing.T) {
			s := loadSession(t, mode)
			if s.Compression != mode {
				t.Fatalf("the file holds compression mode %d", s.Compression)
			}
			checkSession(t, s)
			if mode == 0 {
				return
			}
			compressed := 0
			for _, d := range s.Datagrams {
				if b := d.bytes(); len(b) >= 2 && binary.BigEndian.Uint16(b)&enetHeaderFlagCompressed != 0 {
					compressed++
				}
			}
			if compressed == 0 {
				t.Errorf("no datagram of the %s session is compressed", compressionNames[mode])
			}
			plain := loadSession(t, 0)
			for _, r := range []string{"A", "B"} {
				for _, dir := range []string{"c2s", "s2c"} {
					compareFlows(t, r+" "+dir, flow(t, s, r, dir), flow(t, plain, r, dir))
				}
			}
		})
	}
}

// TestEngineSession records a fresh session on the engine and checks it as the recorded one.
func TestEngineSession(t *testing.T) {
	if *record {
		t.Skip("recording")
	}
	checkSession(t, runEngineSession(t, 0))
}
