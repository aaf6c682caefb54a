package multiplayer3

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/enet"
	"github.com/gamewire/gamewire/internal/harness/godot3"
)

var record = flag.Bool("record", false, "run the real Godot 3 engine and write the recordings in testdata/")

//go:embed testdata/engine/node.gd
var nodeGD []byte

//go:embed testdata/engine/main.gd
var mainGD string

// session is a recorded engine session: a Godot 3.2.3 server and two Godot 3.2.3 clients
// through the logging relay, running the script of testdata/engine/node.gd.
type session struct {
	Engine      string              `json:"engine"`
	Compression int                 `json:"compression"`
	ClientIDs   []int32             `json:"client_ids"` // by relay connection
	Logs        map[string][]string `json:"logs"`       // "server", "client0", "client1": the LOG lines
	Datagrams   []datagram          `json:"datagrams"`
}

// engineScript returns main.gd for a role.
func engineScript(role string, port, compression int) string {
	r := strings.NewReplacer("@ROLE@", role, "@PORT@", strconv.Itoa(port), "@COMPRESSION@", strconv.Itoa(compression))
	return r.Replace(mainGD)
}

func logLines(out []byte) []string {
	var ls []string
	for l := range strings.SplitSeq(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, "LOG "); ok {
			ls = append(ls, rest)
		}
	}
	return ls
}

// runEngineSession runs the server and two clients on the engine (about 2 s).
func runEngineSession(t *testing.T, compression int) *session {
	t.Helper()
	godot3.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	port, err := freeUDPPort(ctx)
	if err != nil {
		t.Fatal(err)
	}
	relay, err := newUDPRelay(fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"node.gd": nodeGD}
	type result struct {
		res *godot3.Result
		err error
	}
	var wg sync.WaitGroup
	results := make([]result, 3)
	run := func(i int, role string, port int) {
		defer wg.Done()
		r, err := godot3.Run(ctx, engineScript(role, port, compression), files)
		results[i] = result{r, err}
	}
	wg.Add(1)
	go run(0, "server", port)
	// The server needs a moment to bind before the clients' CONNECTs; ENet resends a CONNECT
	// that found no one, so this only saves a resend.
	time.Sleep(300 * time.Millisecond)
	wg.Add(1)
	go run(1, "client", relay.port())
	// The first client connects first: the second starts once the first has acknowledged
	// the server's VERIFY_CONNECT (an ACKNOWLEDGE, command 1, from the relay's first client).
	acked := func(d datagram) bool {
		cmds, err := enetWalk(d.bytes(), compressionModes[compression]())
		return err == nil && d.Conn == 0 && d.Dir == "c2s" && slices.ContainsFunc(cmds, func(c enetCommand) bool { return c.Command == 1 })
	}
	if err := relay.waitFor(ctx, acked); err != nil {
		cancel() // ends the engines
		wg.Wait()
		t.Fatal("the first engine client did not connect:", err)
	}
	wg.Add(1)
	go run(2, "client", relay.port())
	wg.Wait()
	dgs := relay.close()
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("engine %d: %v", i, r.err)
		}
		if se := r.res.ScriptErrors(); len(se) > 0 {
			t.Fatalf("engine %d: script errors: %v", i, se)
		}
	}
	v, _ := godot3.Version()
	s := &session{Engine: v, Compression: compression, Logs: map[string][]string{}, Datagrams: dgs}
	s.Logs["server"] = logLines(results[0].res.Output())
	ids := map[int32]string{}
	for i, r := range results[1:] {
		for l := range strings.SplitSeq(string(r.res.Output()), "\n") {
			if rest, ok := strings.CutPrefix(l, "ID client "); ok {
				id, _ := strconv.Atoi(rest)
				ids[int32(id)] = fmt.Sprint(i)
			}
		}
	}
	s.ClientIDs = connectIDs(dgs, compressionModes[compression]())
	for n, id := range s.ClientIDs {
		i, ok := ids[id]
		if !ok {
			t.Fatalf("relay connection %d carries client id %d, which no client printed", n, id)
		}
		k, _ := strconv.Atoi(i)
		s.Logs[fmt.Sprintf("client%d", n)] = logLines(results[1+k].res.Output())
	}
	return s
}

// connectIDs returns each relay connection's client id, from the data of its ENet CONNECT.
func connectIDs(dgs []datagram, comp enet.Compressor) []int32 {
	var ids []int32
	for _, d := range dgs {
		if d.Dir != "c2s" || d.Conn < len(ids) {
			continue
		}
		cmds, err := enetWalk(d.bytes(), comp)
		if err != nil {
			continue
		}
		for _, c := range cmds {
			if c.Command == enetCommandConnect && d.Conn == len(ids) {
				ids = append(ids, int32(c.ConnectData))
			}
		}
	}
	return ids
}

func sessionFile(compression int) string {
	return filepath.Join("testdata", fmt.Sprintf("session-compression%d.json", compression))
}

func loadSession(t testing.TB, compression int) *session {
	t.Helper()
	b, err := os.ReadFile(sessionFile(compression))
	if err != nil {
		t.Fatal(err)
	}
	var s session
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestRecordEngineSession records testdata/session-compression*.json with -record: the session
// in each of NetworkedMultiplayerENet's five compression modes.
func TestRecordEngineSession(t *testing.T) {
	if !*record {
		t.Skip("run with -record to record the engine sessions again")
	}
	for mode := range compressionModes {
		s := runEngineSession(t, mode)
		checkSession(t, s)
		b, err := json.MarshalIndent(s, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sessionFile(mode), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// compressionModes are the compressors of NetworkedMultiplayerENet's compression_mode values, by
// number.
var compressionModes = []func() enet.Compressor{
	CompressNone.Compressor, CompressRangeCoder.Compressor, CompressFastLZ.Compressor,
	CompressZlib.Compressor, CompressZstd.Compressor,
}
