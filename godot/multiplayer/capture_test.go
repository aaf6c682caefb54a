package multiplayer

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The packets the real engine sent in the scenarios whose bytes the Go client must reproduce,
// recorded so that the comparison also runs where the engine cannot (the engine tests check
// that the recording still matches what the engine sends). Rewrite with
// go test ./godot/multiplayer -run TestEngine -mp.update.
const capturePath = "testdata/engine/capture.txt"

var updateCapture = flag.Bool("mp.update", false, "rewrite "+capturePath+" from the engine run")

// capturePeers are the scenario clients whose packets are recorded.
var capturePeers = []int32{1001, 2001, 2002, 4001}

func readCapture(t *testing.T) map[int32][][]byte {
	t.Helper()
	f, err := os.Open(capturePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int32][][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, h, ok := strings.Cut(line, " ")
		peer, err1 := strconv.Atoi(id)
		b, err2 := hex.DecodeString(h)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("%s: bad line %q", capturePath, line)
		}
		out[int32(peer)] = append(out[int32(peer)], b)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// writeCapture records the engine run's packets (after the engine tests have run).
func writeCapture(r *engineRun) error {
	var b bytes.Buffer
	b.WriteString("# Packets the real Godot 4.6 engine (web build) sent to the Go server, per client peer id,\n")
	b.WriteString("# in the scenarios of testdata/engine/main.gd. NodePath padding bytes are the engine's\n")
	b.WriteString("# uninitialised memory and are masked when compared. Rewrite: go test -run TestEngine -mp.update\n")
	for _, id := range capturePeers {
		for _, p := range r.ss.rec.packets(id) {
			fmt.Fprintf(&b, "%d %x\n", id, p)
		}
	}
	return os.WriteFile(capturePath, b.Bytes(), 0o644)
}

// TestRecordedEngineBytes: the Go client, making the scenarios' calls, sends the packets the
// engine sent, as recorded; this runs without the engine.
func TestRecordedEngineBytes(t *testing.T) {
	capture := readCapture(t)
	for _, id := range capturePeers {
		if len(capture[id]) == 0 {
			t.Fatalf("no recorded packets of peer %d", id)
		}
	}
	samePackets(t, "rpc scenario", capture[1001], goRPCScenario(t, len(capture[1001])))
	a, b := goRelayScenario(t, len(capture[2001]), len(capture[2002]))
	samePackets(t, "relay client A", capture[2001], a)
	samePackets(t, "relay client B", capture[2002], b)
	samePackets(t, "auth", capture[4001], goAuthScenario(t, len(capture[4001])))
	// The recording holds what the engine tests pin: rpc() unwrapped, send_bytes() relayed.
	if !slices.ContainsFunc(capture[1001], func(p []byte) bool { return bytes.Equal(p, []byte{0, 1, 4, 1, 2, 5}) }) {
		t.Error("the recording lacks loc.rpc(5)")
	}
}
