package multiplayer

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/explain"
)

func TestExplainPackets(t *testing.T) {
	for _, tc := range []struct {
		hex  string
		want []string // substrings of the explanation, in order
		json string
	}{
		// The engine's first call of the spec's appendix: SIMPLIFY_PATH and the path-form RPC.
		{"01" + hex.EncodeToString([]byte("5d41402abc4b2a76b9719d911017c592")) + "00" + "01000000" + hex.EncodeToString([]byte("RpcTarget")) + "00",
			[]string{"SIMPLIFY_PATH", `RPC checksum: "5d41402abc4b2a76b9719d911017c592"`, "path cache id: 1", `node path: "RpcTarget"`},
			`{"command":"SIMPLIFY_PATH","checksum":"5d41402abc4b2a76b9719d911017c592","cache_id":1,"path":"RpcTarget"}`},
		{"2015000080000202" + "2a" + "040000000200000068690000" + hex.EncodeToString([]byte("RpcTarget")) + "00",
			[]string{"REMOTE_CALL; node id in 4 bytes", "path follows at offset 21", "method id: 0", "argument count: 2",
				"argument 0: int 42, compressed to 1 byte", "value: 42", `argument 1: String "hi"`, `node path: "RpcTarget"`},
			`{"command":"REMOTE_CALL","path":"RpcTarget","method_id":0,"args":[{"type":"int","value":42},{"type":"String","value":"hi"}]}`},
		{"020101000000", []string{"CONFIRM_PATH", "valid: true", "path cache id: 1"}, `{"command":"CONFIRM_PATH","cache_id":1,"valid":true}`},
		{"800100", []string{"no argument count"}, `{"command":"REMOTE_CALL","node_id":1,"method_id":0}`},
		{"07030000000003010203", []string{"SYS", "RELAY", "peer: 0", "relayed packet", "RAW"},
			`{"command":"SYS","sys":"RELAY","peer":0,"inner":{"command":"RAW","data":"010203"}}`},
		{"07000102", []string{"AUTH with data"}, `{"command":"SYS","sys":"AUTH","data":"0102"}`},
		{"070109000000", []string{"ADD_PEER", "peer: 9 connected"}, `{"command":"SYS","sys":"ADD_PEER","peer":9}`},
		// SPAWN: scene 0, spawner cache 2, net id 5, one synchronizer 7, name "P\0", state 3 and true.
		{"04" + "00" + "02000000" + "05000000" + "01000000" + "02000000" + "07000000" + "5000" + "0203" + "81",
			[]string{"SPAWN", "scene id: 0", "spawner's path cache id: 2", "net id: 5", "synchronizer 0 net id: 7", `node name: "P"`, "spawn state value 0: int 3", "spawn state value 1: bool true"},
			`{"command":"SPAWN","cache_id":2,"scene_id":0,"net_id":5,"sync_ids":[7],"name":"P","state":[{"type":"int","value":3},{"type":"bool","value":true}]}`},
		{"0505000000", []string{"DESPAWN", "net id: 5"}, `{"command":"DESPAWN","net_id":5}`},
		// The engine's delta SYNC of label = "changed" (synchronizer at path cache id 1).
		{"160100008001000000000000001000000004000000070000006368616e67656400", []string{"delta", "path cache id 1", "changed mask: 0x1", "state size: 16", "changed property 0", `"changed"`},
			`{"command":"SYNC","flags":16,"entries":[{"net_id":2147483649,"changed_mask":1,"values":[{"type":"String","value":"changed"}]}]}`},
		{"06" + "0700" + "03000080" + "02000000" + "0201", []string{"SYNC (ALWAYS", "sync time: 7", "path cache id 3", "state size: 2", "property 0: int 1"},
			`{"command":"SYNC","sync_time":7,"entries":[{"net_id":2147483651,"values":[{"type":"int","value":1}]}]}`},
		{"16" + "05000000" + "0200000000000000" + "01000000" + "81", []string{"delta", "changed mask: 0x2", "changed property 0: bool true"},
			`{"command":"SYNC","flags":16,"entries":[{"net_id":5,"changed_mask":2,"values":[{"type":"bool","value":true}]}]}`},
	} {
		p, err := hex.DecodeString(tc.hex)
		if err != nil {
			continue
		}
		fr, err := Explain(p, nil)
		if err != nil {
			t.Errorf("%s: %v", tc.hex, err)
			continue
		}
		var b strings.Builder
		explain.WriteText(&b, p, fr)
		text := b.String()
		at := 0
		for _, w := range tc.want {
			i := strings.Index(text[at:], w)
			if i < 0 {
				t.Errorf("%s: explanation lacks %q after offset %d:\n%s", tc.hex, w, at, text)
				break
			}
			at += i
		}
		info, err := Decode(p)
		if err != nil {
			t.Errorf("%s: %v", tc.hex, err)
			continue
		}
		js, _ := json.Marshal(info)
		if string(js) != tc.json {
			t.Errorf("%s: JSON\n got %s\nwant %s", tc.hex, js, tc.json)
		}
	}
}

func TestExplainErrors(t *testing.T) {
	for _, h := range []string{"", "01", "0201", "20ffffff7f00", "07", "070109", "0709000000000000", "04000000", "0605", "16000000000000000000", "0001000182", "000100013f"} {
		p, _ := hex.DecodeString(h)
		fr, err := Explain(p, nil)
		if fr.Err == nil || !errors.Is(fr.Err, err) {
			t.Errorf("%q: frame error %v, error %v", h, fr.Err, err)
		}
		var pe *PacketError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v is not a *PacketError", h, err)
		}
		if _, err := Decode(p); err == nil {
			t.Errorf("%q: Decode accepted it", h)
		}
	}
}
