package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNewcomer runs the built command as issue 20 §4 tried it from a fresh clone: each case is a
// command line, the exit status it must end with and what its output must (and must not) say.
func TestNewcomer(t *testing.T) {
	// Godot 3 bytes (a Vector3), which the default dialect (4) reads as a Rect2 cut short.
	const g3 = "07000000 0000c03f 00000000 000000c0"
	// A REMOTE_CALL of RpcTarget's method 0 with the arguments 42 and "hi" (docs/multiplayer.md).
	const mpPacket = "20150000800002022a04000000020000006869000052706354617267657400"
	for _, tc := range []struct {
		name   string
		stdin  string
		args   []string
		exit   int
		want   []string // in stdout+stderr
		absent []string
	}{
		{"mp explain takes hex as the argument", "", []string{"godot", "mp", "explain", mpPacket}, 0,
			[]string{"reading the argument as hex", "SceneMultiplayer packet, 31 bytes", "REMOTE_CALL", `node path: "RpcTarget"`}, nil},
		{"mp decode takes flags after the argument", "", []string{"godot", "mp", "decode", mpPacket, "--format", "hex"}, 0,
			[]string{`"command":"REMOTE_CALL"`}, []string{"no such file"}},
		{"mp serve refuses an extra argument", "", []string{"godot", "mp", "serve", "extra", "--addr", "127.0.0.1:0"}, 2,
			[]string{"gamewire godot mp serve: too many arguments", `gamewire help godot mp serve`}, nil},
		{"help godot mp serve is the full help", "", []string{"help", "godot", "mp", "serve"}, 0,
			[]string{"Usage: gamewire godot mp serve [flags]", "-addr address", "-trace FILE"}, nil},
		{"godot mp lists its verbs", "", []string{"godot", "mp"}, 0,
			[]string{"godot mp decode", "godot mp explain", "godot mp serve"}, nil},
		{"--godot 5 is a usage error", g3, []string{"godot", "decode", "--godot", "5"}, 2,
			[]string{"gamewire godot decode: --godot:", `"5"`}, nil},
		{"--format hexx is a usage error", g3, []string{"godot", "decode", "--format", "hexx"}, 2,
			[]string{"gamewire godot decode: --format:", "hexx"}, nil},
		{"--framing tcp is a usage error", g3, []string{"godot", "explain", "--framing", "tcp"}, 2,
			[]string{"gamewire godot explain: --framing", "tcp"}, nil},
		{"--output is checked", "", []string{"godot", "encode", "--output", "hexx"}, 2,
			[]string{"gamewire godot encode: --output:"}, nil},
		{"an unknown flag says so in two lines", g3, []string{"godot", "decode", "--bogus"}, 2,
			[]string{"gamewire godot decode: flag provided but not defined: -bogus", `Run "gamewire help godot decode"`}, []string{"-max-depth"}},
		{"godot decode --json prints JSON Lines", "02000000 07000000", []string{"godot", "decode", "--json"}, 0,
			[]string{`{"type":"int","value":7}`}, nil},
		{"-q silences the notes", "", []string{"godot", "decode", "-q", "0200000007000000ff"}, 0,
			[]string{`"value": 7`}, []string{"reading the argument", "trailing"}},
		{"notes without -q", "", []string{"godot", "decode", "0200000007000000ff"}, 0,
			[]string{"reading the argument as hex", "1 trailing byte after", `"value": 7`}, []string{"1 trailing bytes"}},
		{"Godot 3 bytes under the default dialect get a hint", g3, []string{"godot", "decode"}, 1,
			[]string{"try --godot 3"}, nil},
		{"... and explain too", g3, []string{"godot", "explain"}, 1,
			[]string{"try --godot 3"}, nil},
		{"no hint when the dialect was chosen", g3, []string{"godot", "decode", "--godot", "4"}, 1,
			nil, []string{"try --godot 3"}},
		{"help help", "", []string{"help", "help"}, 0, []string{"Usage: gamewire help [command]"}, nil},
		{"help version", "", []string{"help", "version"}, 0, []string{"Usage: gamewire version"}, nil},
		{"help inspect", "", []string{"help", "inspect"}, 0, []string{"Usage: gamewire inspect [flags]\n"}, []string{"[flags] [flags]"}},
		{"a limit of -2 is a usage error", g3, []string{"godot", "decode", "--max-depth", "-2"}, 2,
			[]string{"--max-depth -2"}, nil},
		{"call without --type or --message", "", []string{"call"}, 2,
			[]string{"gamewire call: --type or --message is required"}, nil},
		{"pluralisation", "", []string{"godot", "explain", "01000000 01000000", "--all"}, 0,
			[]string{"godot4 frame 0 at byte 0, 8 bytes"}, []string{"1 bytes", "1 bits"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := gw(t, tc.stdin, tc.args...)
			all := out + errOut
			if code != tc.exit {
				t.Errorf("gamewire %s: exit %d, want %d\n%s", strings.Join(tc.args, " "), code, tc.exit, all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("gamewire %s: output lacks %q:\n%s", strings.Join(tc.args, " "), w, all)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(all, a) {
					t.Errorf("gamewire %s: output has %q:\n%s", strings.Join(tc.args, " "), a, all)
				}
			}
			if tc.exit == 2 && strings.Count(all, "\n") > 3 {
				t.Errorf("gamewire %s: a usage error of %d lines:\n%s", strings.Join(tc.args, " "), strings.Count(all, "\n"), all)
			}
		})
	}
}

// TestNewcomerCall: call against nothing suggests starting a server; against "gamewire serve",
// --message takes a short name and --values of the wrong type say what does not fit.
func TestNewcomerCall(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	_, errOut, code := gw(t, "", "call", "--addr", closed, "--type", "GET_CLIENT_VERSION_INFO", "--values", `["x"]`)
	if code != 1 || !strings.Contains(errOut, `"gamewire serve" starts the demo server`) {
		t.Errorf("refused call: exit %d %s", code, errOut)
	}

	addr, _ := startServe(t)
	_, errOut, code = gw(t, "", "call", "--addr", addr, "--type", "GET_CLIENT_VERSION_INFO", "--values", "[1]")
	if code != 1 || !strings.Contains(errOut, "--values [1] does not fit --body clientName:string") || !strings.Contains(errOut, "want a string, got the number 1") {
		t.Errorf("--values [1]: exit %d %s", code, errOut)
	}
	out, errOut, code := gw(t, "", "call", "--addr", addr, "--message", "GetClientVersionInfo", "--request", `{"ClientName":"AmazingWorld"}`)
	if code != 0 || !strings.Contains(out, "GET_CLIENT_VERSION_INFO") || !strings.Contains(out, "133852.true") {
		t.Errorf("--message GetClientVersionInfo: exit %d %s%s", code, out, errOut)
	}
	// The demo server does not implement it, but the request goes out.
	if out, errOut, code := gw(t, "", "call", "--addr", addr, "--message", "GetRandomNames", "--request", `{}`); strings.Contains(errOut, "--message") || !strings.Contains(out, "request USER_SERVER/GET_RANDOM_NAMES") {
		t.Errorf("--message GetRandomNames: exit %d %s", code, errOut)
	}
}

// TestREADMECaptureBlock runs the README's capture block (serve, tcpdump, two calls, decode) as
// it is written, on a free port instead of 7566, where tcpdump can capture (as root, sudo
// dropped).
func TestREADMECaptureBlock(t *testing.T) {
	if _, err := exec.LookPath("tcpdump"); err != nil {
		skipOrFail(t, "tcpdump is not installed")
	}
	if os.Geteuid() != 0 {
		skipOrFail(t, "tcpdump needs root, and the test does not use sudo")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var block string
	for _, b := range strings.Split(string(readme), "```sh\n")[1:] {
		if body, _, ok := strings.Cut(b, "```"); ok && strings.Contains(body, "tcpdump -i lo") {
			block = body
		}
	}
	if block == "" {
		t.Fatal("no sh block with tcpdump in README.md")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	script := strings.ReplaceAll(block, "sudo ", "")
	script = strings.ReplaceAll(script, "7566", port)
	// gamewire serve and call use 7566 by default: give them the port.
	script = strings.ReplaceAll(script, "gamewire serve &", "gamewire serve --addr 127.0.0.1:"+port+" &")
	script = strings.ReplaceAll(script, "gamewire call ", "gamewire call --addr 127.0.0.1:"+port+" ")
	dir := t.TempDir()
	if err := os.Symlink(gwBin, filepath.Join(dir, "gamewire")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the block failed: %v\n%s\n%s", err, script, out)
	}
	for _, want := range []string{"client→server", "GET_CLIENT_VERSION_INFO", "ClientVersionInfo string", "SYNC_SERVER", "4 frames, 0 problems"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the decoded capture lacks %q:\n%s", want, out)
		}
	}
}

// skipOrFail skips the test, or fails it under CI=true, where every tool must be installed.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}
