package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/internal/harness/godot3"
)

// lobbyClient3 runs the Godot 3 lobby scene (godot/multiplayer3/lobby/godot) as player name on
// the engine, connecting to port; it quits when a line holds quitOn.
const lobbyClient3 = `extends SceneTree

func _init():
	var lobby = load("res://lobby.tscn").instance()
	lobby.port = @PORT@
	lobby.compression_mode = @COMPRESSION@
	lobby.player_name = "@NAME@"
	lobby.connect("line", self, "_line")
	get_root().add_child(lobby)
	var t = Timer.new()
	t.wait_time = 15
	t.one_shot = true
	t.connect("timeout", self, "quit")
	get_root().add_child(t)
	t.start()

func _line(text):
	if text.find("@QUIT_ON@") >= 0:
		network_peer.close_connection()
		quit()
`

func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// An unmodified Godot 3.2.3 engine runs the lobby scene twice, as ann and bob, against the built
// "gamewire godot mp serve --godot 3 --transport enet": both join, are welcomed with the players
// so far, hear of each other and chat.
func TestGodotMPServeGodot3Lobby(t *testing.T) {
	godot3.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	port := freeUDPPort(t)
	// zstd: the server and the clients must agree on the mode, as two Godot peers must.
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	srv := startProc(ctx, t, "gamewire godot mp serve", gwBin, "godot", "mp", "serve", "--godot", "3", "--transport", "enet",
		"--addr", fmt.Sprintf("127.0.0.1:%d", port), "--compression", "zstd", "--trace", trace)
	srv.waitFor(t, regexp.MustCompile(`Godot 3 lobby server on enet \(udp\) 127\.0\.0\.1:\d+, compression zstd`))

	files := map[string][]byte{}
	for _, f := range []string{"lobby.gd", "lobby.tscn"} {
		b, err := os.ReadFile("../../godot/multiplayer3/lobby/godot/" + f)
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	client := func(name, quitOn string) (string, error) {
		s := strings.NewReplacer("@PORT@", fmt.Sprint(port), "@NAME@", name, "@QUIT_ON@", quitOn, "@COMPRESSION@", "4").Replace(lobbyClient3)
		res, err := godot3.Run(ctx, s, files)
		if res == nil {
			return "", err
		}
		return string(res.Output()), err
	}
	var wg sync.WaitGroup
	var annOut, bobOut string
	var annErr, bobErr error
	wg.Add(1)
	go func() { defer wg.Done(); annOut, annErr = client("ann", "says hello from bob") }()
	srv.waitFor(t, regexp.MustCompile(`lobby: join" peer=\d+ name=ann`))
	wg.Add(1)
	go func() { defer wg.Done(); bobOut, bobErr = client("bob", "says hello from bob") }()
	wg.Wait()
	if annErr != nil || bobErr != nil {
		t.Fatalf("ann: %v\n%s\nbob: %v\n%s", annErr, annOut, bobErr, bobOut)
	}
	ann := regexp.MustCompile(`lobby: welcome (\d+), players \{(\d+):ann\}`).FindStringSubmatch(annOut)
	if ann == nil || ann[1] != ann[2] {
		t.Fatalf("ann was not welcomed:\n%s", annOut)
	}
	bob := regexp.MustCompile(`lobby: welcome (\d+), players \{` + ann[1] + `:ann, (\d+):bob\}|lobby: welcome (\d+), players \{(\d+):bob, ` + ann[1] + `:ann\}`).FindStringSubmatch(bobOut)
	if bob == nil {
		t.Fatalf("bob was not welcomed with ann:\n%s", bobOut)
	}
	bobID := bob[1] + bob[3]
	for _, want := range []string{"lobby: bob joined as " + bobID, "lobby: ann (" + ann[1] + ") says hello from ann", "lobby: bob (" + bobID + ") says hello from bob"} {
		if !strings.Contains(annOut, want) {
			t.Errorf("ann's output lacks %q:\n%s", want, annOut)
		}
	}
	if want := "lobby: bob (" + bobID + ") says hello from bob"; !strings.Contains(bobOut, want) {
		t.Errorf("bob's output lacks %q:\n%s", want, bobOut)
	}
	// Both said goodbye with close_connection: the server sees them leave at once.
	srv.waitFor(t, regexp.MustCompile(`(?s)lobby: left" peer=\d+.*lobby: left" peer=\d+`))

	// "godot mp explain --godot 3" reads the trace back.
	out, errOut, code := gw(t, "", "godot", "mp", "explain", "--godot", "3", trace)
	if code != 0 {
		t.Fatalf("explain exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		": " + ann[1] + " → peer 1: SIMPLIFY_PATH 1 = Lobby\n  dir in\n  channel 1\n  peer " + ann[1] + "\n offset   len  type",
		ann[1] + " → peer 1: REMOTE_CALL Lobby.join(1 arg)", `"ann"`, "REMOTE_CALL cache 1.say(1 arg)",
		": SYS ADD_PEER " + bobID + "\n  dir out\n  channel 0\n  peer " + ann[1] + "\n",
		"1 → peer " + bobID + ": REMOTE_CALL Lobby.welcome(2 args)",
		"1 → all peers: REMOTE_CALL cache 1.said(3 args)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	out, errOut, code = gw(t, "", "godot", "mp", "explain", "--godot", "3", "--json", trace)
	if code != 0 {
		t.Fatalf("explain --json exit %d: %s", code, errOut)
	}
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var f explain.Frame
		if err := json.Unmarshal([]byte(line), &f); err != nil || f.Format != "multiplayer3" || f.Index != i || f.Err != nil {
			t.Fatalf("line %d: %v %+v", i, err, f)
		}
	}
}

// "godot mp explain --godot 3" prints the explain model's table (explain.WriteText), the
// packet's channel as its context and a decoding error where it occurs.
func TestGodotMPExplainGodot3Text(t *testing.T) {
	out, errOut, code := gw(t, "", "godot", "mp", "explain", "--godot", "3", "-q", "01000000 00000000 04")
	want := `multiplayer3 frame 0 at byte 0, 9 bytes: 1 → all peers: RAW
  channel 1
 offset   len  type                   name: meaning
      0     4  u32                    source: peer 1
      4     4  i32                    target: all peers
      8     1  u8                     command: RAW
               ↳ error at byte 9: multiplayer3: RAW packet at offset 9: truncated input: RAW without a payload
`
	if code != 1 || out != want {
		t.Errorf("exit %d (want 1), got\n%s\nwant\n%s\n%s", code, out, want, errOut)
	}
	out, _, code = gw(t, "", "godot", "mp", "explain", "--godot", "3", "--channel", "0", "--json", "-q", "00000000 2a000000")
	if want := `{"format":"multiplayer3","index":0,"bit":0,"bits":64,"summary":"SYS ADD_PEER 42","context":{"channel":"0"},`; code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("--json: exit %d, got %s, want the prefix %s", code, out, want)
	}
}

// --godot picks the dialect of "godot mp serve" and "godot mp explain"; the Godot 3 verbs refuse
// what they cannot do with exit status 2 and the flag's name.
func TestGodotMPGodot3Flags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string // in stdout or stderr
	}{
		{[]string{"godot", "mp", "serve", "--godot", "3", "--transport", "websocket"}, 2, "--transport websocket: Godot 3 multiplayer is served over enet only"},
		{[]string{"godot", "mp", "serve", "--godot=3", "--compression", "lz4"}, 2, "--compression: "},
		{[]string{"godot", "mp", "serve", "--godot", "3", "-h"}, 0, "--compression"},
		{[]string{"godot", "mp", "explain", "--godot", "3", "--channel", "300", "00"}, 2, "--channel 300"},
		{[]string{"godot", "mp", "explain", "00000000 2a000000", "--godot", "3", "--channel", "0", "-q"}, 0, "SYS ADD_PEER 42"},
		{[]string{"godot", "mp", "explain", "--godot", "3", "01000000 00000000 04"}, 1, "RAW without a payload"},
		// Godot 4: --godot 4 is the default and may be given.
		{[]string{"godot", "mp", "explain", "--godot", "4", "-q", "0000"}, 1, "SceneMultiplayer packet"},
	} {
		out, errOut, code := gw(t, "", tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.out) {
			t.Errorf("gamewire %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, tc.out, out, errOut)
		}
	}
}
