package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gamewire/gamewire/explain"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gwBin is the gamewire command built for the tests that run it as a user does.
var gwBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gamewire-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gwBin = filepath.Join(dir, "gamewire")
	if out, err := exec.Command("go", "build", "-o", gwBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building gamewire: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// gw runs the built gamewire command and returns its stdout, stderr and exit status.
func gw(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(gwBin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestCLIExplainAll(t *testing.T) {
	out, stderr, code := gw(t, "02000000 01000000 02000000 02000000\n", "godot", "explain", "--all")
	if code != 0 || !strings.Contains(out, "godot4 frame 1 at byte 8, 8 bytes: int 2") || !strings.Contains(out, "value: 2") || strings.Contains(out, "trailing") {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
	// Without --all the trailing bytes are pointed out, as before.
	out, _, _ = gw(t, "02000000 01000000 02000000 02000000\n", "godot", "explain")
	if !strings.Contains(out, "8 trailing bytes, ignored") {
		t.Errorf("without --all:\n%s", out)
	}
}

func TestCLIExplainJSON(t *testing.T) {
	out, stderr, code := gw(t, "02000000 01000000 04000000 01000000 61000000\n", "godot", "explain", "--all", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	frames := jsonLines[explain.Frame](t, out)
	if len(frames) != 2 || frames[1].Format != "godot4" || frames[1].Index != 1 || frames[1].Bit != 64 || frames[1].Bits != 96 {
		t.Fatalf("frames %+v", frames)
	}
	s := frames[1].Fields[0]
	if s.Type != "String" || s.Value != "a" || len(s.Children) != 4 || s.Children[2].Type != "utf8" || s.Children[2].Bit != 128 {
		t.Errorf("the String: %+v", s)
	}
	// One value is one line too, and an error is in the JSON and on stderr, with exit status 1.
	out, stderr, code = gw(t, "13000000 02000000", "godot", "explain", "--json", "--godot", "3")
	frames = jsonLines[explain.Frame](t, out)
	if code != 1 || len(frames) != 1 || frames[0].Err == nil || frames[0].Err.Bit != 64 || !strings.Contains(frames[0].Err.Msg, "godot: decoding Variant header at byte 8 (at [0])") ||
		!strings.Contains(stderr, "at byte 8 (at [0])") {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
}

// jsonLines decodes every line of out as a T: JSON Lines, one object a line.
func jsonLines[T any](t *testing.T, out string) []T {
	t.Helper()
	var vs []T
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %d is not one JSON object: %v\n%s", i+1, err, line)
		}
		vs = append(vs, v)
	}
	return vs
}

func TestCLIPackedCountMessage(t *testing.T) {
	for _, tc := range []struct{ dialect, hex string }{{"4", "20000000 01"}, {"4", "1d000000"}, {"3", "15000000 0102"}} {
		_, stderr, code := gw(t, tc.hex, "godot", "decode", "--godot", tc.dialect)
		if code != 1 || !strings.Contains(stderr, "element count needs 4 bytes, have") || strings.Contains(stderr, "count 0") {
			t.Errorf("%s: exit %d: %s", tc.hex, code, stderr)
		}
	}
}

func TestCLIInputDetection(t *testing.T) {
	const frame = "1520c25c046d0c0c18416d617a696e67576f726c6400"
	raw, _ := hex.DecodeString(frame)
	file := filepath.Join(t.TempDir(), "frame.bin")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	want, _, _ := gw(t, frame, "gsf", "decode")
	if !strings.Contains(want, "GET_CLIENT_VERSION_INFO") {
		t.Fatalf("hex input: %s", want)
	}
	// Dumps of the real tools, and base64: the same frame, and a note on stderr saying how the
	// input was read.
	inputs := map[string]string{"base64": base64.StdEncoding.EncodeToString(raw) + "\n"}
	for name, cmd := range map[string][]string{"xxd": {"xxd", file}, "hexdump -C": {"hexdump", "-C", file}} {
		if _, err := exec.LookPath(cmd[0]); err != nil {
			t.Logf("%s is not installed: %v", cmd[0], err)
			continue
		}
		b, err := exec.Command(cmd[0], cmd[1:]...).Output()
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = string(b)
	}
	for name, in := range inputs {
		out, stderr, code := gw(t, in, "gsf", "decode")
		if code != 0 || out != want || !strings.Contains(stderr, "reading the input as") || !strings.Contains(stderr, strings.Fields(name)[0]) {
			t.Errorf("%s: exit %d\n%s\n%s", name, code, out, stderr)
		}
	}
	// Raw bytes are raw bytes, silently.
	if out, stderr, code := gw(t, string(raw), "gsf", "decode"); code != 0 || out != want || stderr != "" {
		t.Errorf("raw: exit %d %q\n%s", code, stderr, out)
	}
	// What is not clearly one encoding fails and says what it looked like.
	for _, tc := range []struct{ in, want string }{
		{"1520c\n", "looks like hex, but it has an odd number of digits (5)"},
		{"hello there\n", "looks like text, but it is neither hex nor padded base64"},
		{"  \n\n", "only white space"},
		{"00000000: 1520 c25c  . .\\\n00000010: 046d  .m\n", "looks like an xxd dump, but line 2 starts at offset 16"},
	} {
		for _, verb := range [][]string{{"gsf", "decode"}, {"godot", "decode"}, {"bits", "decode", "--fields", "int32"}} {
			out, stderr, code := gw(t, tc.in, verb...)
			if code != 1 || out != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("%v of %q: exit %d, stdout %q, stderr %q; want %q", verb, tc.in, code, out, stderr, tc.want)
			}
		}
	}
}

func TestCLIHexArgument(t *testing.T) {
	const frame = "1520c25c046d0c0c18416d617a696e67576f726c6400"
	want, _, _ := gw(t, frame, "gsf", "decode")
	out, stderr, code := gw(t, "", "gsf", "decode", frame)
	if code != 0 || out != want || !strings.Contains(stderr, "reading the argument as hex") {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	if out, _, code := gw(t, "", "godot", "decode", "--compact", "0200000005000000"); code != 0 || out != `{"type":"int","value":5}`+"\n" {
		t.Errorf("godot: exit %d %s", code, out)
	}
	// A file of that name wins over the hex reading.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "02000000"), []byte{2, 0, 0, 0, 7, 0, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gwBin, "godot", "decode", "--compact", "02000000")
	cmd.Dir = dir
	if b, err := cmd.Output(); err != nil || string(b) != `{"type":"int","value":7}`+"\n" {
		t.Errorf("file: %s %v", b, err)
	}
	// Neither a file nor hex.
	if _, stderr, code := gw(t, "", "gsf", "decode", "nosuchfile.bin"); code != 1 || !strings.Contains(stderr, "no such file") || !strings.Contains(stderr, "not hex either") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestCLIFlagsAfterArguments(t *testing.T) {
	file := filepath.Join(t.TempDir(), "v3.bin")
	if err := os.WriteFile(file, []byte{2, 0, 0, 0, 9, 0, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := gw(t, "", "godot", "decode", file, "--godot", "3", "--compact")
	if code != 0 || out != `{"type":"int","value":9}`+"\n" {
		t.Errorf("exit %d: %s %s", code, out, stderr)
	}
	out, stderr, code = gw(t, "", "gsf", "decode", "1520c25c046d0c0c18416d617a696e67576f726c6400", "--body", "name:string")
	if code != 0 || !strings.Contains(out, `name         string   "AmazingWorld"`) {
		t.Errorf("exit %d: %s %s", code, out, stderr)
	}
	// "--" ends the flags: a file named like a flag.
	if _, stderr, code := gw(t, "", "godot", "decode", "--", "-x"); code != 1 || !strings.Contains(stderr, "-x") {
		t.Errorf("after --: exit %d %s", code, stderr)
	}
	if _, stderr, code := gw(t, "", "godot", "decode", "a", "b"); code != 2 || !strings.Contains(stderr, "too many arguments") {
		t.Errorf("two files: exit %d %s", code, stderr)
	}
}

func TestCLIHelpAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stdout string // in stdout
		stderr string // in stderr
		code   int
	}{
		{nil, "Usage: gamewire <command>", "", 0},
		{[]string{"help"}, "godot decode", "", 0},
		{[]string{"--help"}, "godot decode", "", 0},
		{[]string{"godot", "-h"}, "Usage: gamewire godot <verb>", "", 0},
		{[]string{"godot", "--help"}, "godot explain", "", 0},
		{[]string{"godot"}, "godot encode", "", 0},
		{[]string{"help", "godot"}, "godot decode", "", 0},
		{[]string{"help", "gsf", "decode"}, "Usage: gamewire gsf decode", "", 0},
		{[]string{"help", "serve"}, "Usage: gamewire serve", "", 0},
		{[]string{"gsf", "decode", "-h"}, "", "Usage: gamewire gsf decode", 0},
		{[]string{"demo", "-h"}, "", "Usage: gamewire demo", 0},
		{[]string{"version"}, "gamewire ", "", 0},
		{[]string{"--version"}, "gamewire ", "", 0},
		{[]string{"godot", "nope"}, "", `unknown verb "nope" for godot`, 2},
		{[]string{"nope"}, "", `unknown command "nope"`, 2},
		{[]string{"demo", "extra"}, "", "too many arguments", 2},
	} {
		out, stderr, code := gw(t, "", tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: exit %d (want %d)\nstdout %s\nstderr %s", tc.args, code, tc.code, out, stderr)
		}
		if len(tc.args) > 0 && tc.args[0] == "demo" && strings.Contains(out, "GET_CLIENT_VERSION_INFO") {
			t.Errorf("%v ran the demo", tc.args)
		}
	}
	out, _, _ := gw(t, "", "version")
	if !strings.Contains(out, "go1.") || strings.Count(out, "\n") != 1 {
		t.Errorf("version: %q", out)
	}
}

func TestCLIFraming(t *testing.T) {
	// Two put_var messages (int 1, String "a") as a StreamPeer writes them, and the same with
	// big_endian set, and as PacketPeerStream.
	const le = "08000000 02000000 01000000 0c000000 04000000 01000000 61000000"
	const be = "00000008 02000000 01000000 0000000c 04000000 01000000 61000000"
	want := `{"type":"int","value":1}` + "\n" + `{"type":"String","value":"a"}` + "\n"
	for _, tc := range []struct{ framing, in string }{{"streampeer", le}, {"file", le}, {"packetpeerstream", le}, {"streampeer-be", be}} {
		out, stderr, code := gw(t, tc.in, "godot", "decode", "--compact", "--framing", tc.framing)
		if code != 0 || out != want {
			t.Errorf("%s: exit %d\n%s%s", tc.framing, code, out, stderr)
		}
	}
	// A message cut short, and an error inside the second message, at its offset in the input.
	if out, stderr, code := gw(t, "08000000 02000000 01000000 0c000000 04000000", "godot", "decode", "--compact", "--framing", "streampeer"); code != 1 ||
		out != `{"type":"int","value":1}`+"\n" || !strings.Contains(stderr, "message at byte 12: truncated") {
		t.Errorf("truncated: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := gw(t, "08000000 02000000 01000000 ffffff7f 04000000", "godot", "decode", "--framing", "streampeer"); code != 1 ||
		!strings.Contains(stderr, "message at byte 12: truncated: its length prefix announces more than the 4 bytes after it") {
		t.Errorf("huge length: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := gw(t, "08000000 02000000 01000000 08000000 04000000 09000000", "godot", "decode", "--framing", "streampeer"); code != 1 ||
		!strings.Contains(stderr, "String at byte 20") {
		t.Errorf("bad message: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := gw(t, le, "godot", "decode", "--framing", "tcp"); code != 2 || !strings.Contains(stderr, "want none, streampeer") {
		t.Errorf("bad framing: exit %d %s", code, stderr)
	}
	// explain reads framed input too.
	if out, _, code := gw(t, le, "godot", "explain", "--framing", "streampeer"); code != 0 || !strings.Contains(out, "godot4 frame 1 at byte 12") || !strings.Contains(out, "length prefix: 12 bytes follow") {
		t.Errorf("explain: exit %d\n%s", code, out)
	}
}

func TestCLIErrorTexts(t *testing.T) {
	const frame = "1520c25c046d0c0c18416d617a696e67576f726c6400"
	// An error is printed once, on stderr; stdout notes where the frame stops.
	out, stderr, code := gw(t, frame, "gsf", "decode", "--body", "a:string,b:int32")
	if code != 1 || strings.Contains(out, "error") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	if want := "gamewire gsf decode: bitproto: body field 2 b:int32 at bit 168: reading a compressed integer: truncated input"; !strings.HasPrefix(stderr, want) {
		t.Errorf("got  %s\nwant %s", stderr, want)
	}
	// Fields count from 1, and no internal names.
	_, stderr, _ = gw(t, "0000", "bits", "decode", "--fields", "string,int32,string")
	if !strings.Contains(stderr, "field 1 (string) at bit 0: reading a compressed integer") || strings.Contains(stderr, "#0") || strings.Contains(stderr, "Read") {
		t.Errorf("bits decode: %s", stderr)
	}
	// No repeated prefixes when encoding.
	_, stderr, _ = gw(t, "", "gsf", "encode", "--header", `{"svcClass":18,"msgType":566}`, "--body", "a:int16", "--values", "[70000]")
	if strings.Count(stderr, "bitproto:") > 1 || strings.Contains(stderr, "bitstream:") && strings.Contains(stderr, "bitproto:") {
		t.Errorf("gsf encode: %s", stderr)
	}
	// A deep value's path is abbreviated.
	var b strings.Builder
	for range 1000 {
		b.WriteString("1c000000 01000000 ")
	}
	b.WriteString("63000000")
	_, stderr, _ = gw(t, b.String(), "godot", "decode")
	if len(stderr) > 300 || !strings.Contains(stderr, "more)…") {
		t.Errorf("deep path: %d bytes: %.400s", len(stderr), stderr)
	}
}

func TestCLIOutputFormats(t *testing.T) {
	encoders := []struct {
		name string
		args []string
		hex  string
	}{
		{"godot encode", []string{"godot", "encode"}, "0200000005000000"},
		{"gsf encode", []string{"gsf", "encode", "--header", `{"svcClass":"USER_SERVER","msgType":"GET_CLIENT_VERSION_INFO","requestId":1}`,
			"--body", "clientName:string", "--values", `["AmazingWorld"]`}, "1520c25c046d0c0c18416d617a696e67576f726c6400"},
		{"bits encode", []string{"bits", "encode", "--fields", "bool,int32", "--values", "[true, 566]"}, "f011b0"},
	}
	stdin := `{"type":"int","value":5}`
	for _, e := range encoders {
		raw, _ := hex.DecodeString(e.hex)
		for _, tc := range []struct{ output, want string }{
			{"", e.hex + "\n"},
			{"hex", e.hex + "\n"},
			{"base64", base64.StdEncoding.EncodeToString(raw) + "\n"},
			{"raw", string(raw)},
		} {
			args := e.args
			if tc.output != "" {
				args = append(append([]string(nil), args...), "--output", tc.output)
			}
			out, stderr, code := gw(t, stdin, args...)
			if code != 0 || out != tc.want {
				t.Errorf("%s --output %s: exit %d, %q, want %q; %s", e.name, tc.output, code, out, tc.want, stderr)
			}
		}
		if _, stderr, code := gw(t, stdin, append(e.args, "--output", "octal")...); code != 2 || !strings.Contains(stderr, "unknown output encoding") {
			t.Errorf("%s --output octal: exit %d %s", e.name, code, stderr)
		}
		file := filepath.Join(t.TempDir(), "out.bin")
		if _, stderr, code := gw(t, stdin, append(e.args, "--out", file)...); code != 0 {
			t.Errorf("%s --out: exit %d %s", e.name, code, stderr)
		} else if b, _ := os.ReadFile(file); !bytes.Equal(b, raw) {
			t.Errorf("%s --out: %x", e.name, b)
		}
	}
}

func TestCLIMaxDepthReachesJSON(t *testing.T) {
	// An Array nested 5 000 deep, which Godot 3.2.3 accepts.
	var b strings.Builder
	for range 5000 {
		b.WriteString("13000000 01000000 ")
	}
	b.WriteString("02000000 07000000")
	out, stderr, code := gw(t, b.String(), "godot", "decode", "--godot", "3", "--max-depth", "30000", "--compact")
	if code != 0 || strings.Count(out, `"Array"`) != 5000 {
		t.Fatalf("exit %d: %.300s", code, stderr)
	}
	// Without the flag the default limit applies, with its own error.
	if _, stderr, code := gw(t, b.String(), "godot", "decode", "--godot", "3"); code != 1 || !strings.Contains(stderr, "too deep") && !strings.Contains(stderr, "nested") {
		t.Errorf("default limit: exit %d %.300s", code, stderr)
	}
	// The JSON reader takes the limit too (up to encoding/json's own 10 000 JSON levels, here
	// 2 500 Godot levels).
	var j strings.Builder
	for range 2500 {
		j.WriteString(`{"type":"Array","value":[`)
	}
	j.WriteString(`{"type":"int","value":7}`)
	for range 2500 {
		j.WriteString(`]}`)
	}
	if out, stderr, code := gw(t, j.String(), "godot", "encode", "--godot", "3", "--max-depth", "3000"); code != 0 || !strings.HasSuffix(out, "0200000007000000\n") {
		t.Errorf("encode: exit %d %.300s", code, stderr)
	}
	if _, stderr, code := gw(t, j.String(), "godot", "encode", "--godot", "3"); code != 1 || !strings.Contains(stderr, "nested more than 1024 levels") || len(stderr) > 400 {
		t.Errorf("encode, default limit: exit %d %.500s", code, stderr)
	}
}

func TestCLINaN(t *testing.T) {
	// A NaN by name is the quiet NaN, in both codecs.
	if out, _, code := gw(t, "", "bits", "encode", "--fields", "float64,float32", "--values", `["NaN", "nan"]`); code != 0 || out != "7ff80000000000007fc00000\n" {
		t.Errorf("bits encode NaN: %d %q", code, out)
	}
	if out, _, code := gw(t, `{"type":"float","value":"NaN"}`, "godot", "encode"); code != 0 || out != "03000100000000000000f87f\n" {
		t.Errorf("godot encode NaN: %d %q", code, out)
	}
	// Payloads survive decode → encode.
	out, _, code := gw(t, "ff923eaf", "bits", "decode", "--fields", "float32", "--json")
	var res struct {
		Fields []struct {
			Value any `json:"value"`
		} `json:"fields"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Fields[0].Value != "NaN:0xff923eaf" {
		t.Fatalf("bits decode: %s", out)
	}
	vals, _ := json.Marshal([]any{res.Fields[0].Value})
	if out, _, _ := gw(t, "", "bits", "encode", "--fields", "float32", "--values", string(vals)); out != "ff923eaf\n" {
		t.Errorf("bits round trip: %s", out)
	}
	js, _, _ := gw(t, "05000000 0000c07f af3e92ff", "godot", "decode")
	if out, _, _ := gw(t, js, "godot", "encode"); out != "050000000000c07faf3e92ff\n" {
		t.Errorf("godot round trip: %s → %s", js, out)
	}
}

func TestCLIReal(t *testing.T) {
	// A Vector2 written with the 64-bit flag, x = 1e300: the official single-precision engine
	// reads +inf and writes it back without the flag.
	const in = "05000100 9c7500883ce4377e 9a9999999999b93f"
	out, stderr, code := gw(t, in, "godot", "decode", "--real", "single", "--compact")
	if code != 0 || out != `{"type":"Vector2","value":{"x":"inf","y":0.1}}`+"\n" {
		t.Errorf("--real single: exit %d %s %s", code, out, stderr)
	}
	if back, _, _ := gw(t, out, "godot", "encode"); back != "050000000000807fcdcccc3d\n" {
		t.Errorf("the engine's bytes: %s", back)
	}
	// The default keeps the doubles; --real double widens float32 values.
	if out, _, _ := gw(t, in, "godot", "decode", "--compact"); !strings.Contains(out, `"double":true`) {
		t.Errorf("lossless: %s", out)
	}
	if out, _, _ := gw(t, "05000000 0000803f 00000040", "godot", "decode", "--real", "double", "--compact"); out != `{"type":"Vector2","double":true,"value":{"x":1,"y":2}}`+"\n" {
		t.Errorf("--real double: %s", out)
	}
	if _, stderr, code := gw(t, in, "godot", "decode", "--real", "half"); code != 2 || !strings.Contains(stderr, "want single, double or lossless") {
		t.Errorf("--real half: exit %d %s", code, stderr)
	}
}

// TestCLIDecodeLimits: --max-elements and --max-alloc-bytes reach the decoder; -1 means no limit,
// other negative values are refused.
func TestCLIDecodeLimits(t *testing.T) {
	// A Godot 4 Array of three ints.
	arr := "1c000000 03000000 02000000 01000000 02000000 02000000 02000000 03000000"
	if _, stderr, code := gw(t, arr, "godot", "decode", "--compact"); code != 0 {
		t.Fatalf("without limits: exit %d %s", code, stderr)
	}
	if _, stderr, code := gw(t, arr, "godot", "decode", "--max-elements", "2"); code != 1 || !strings.Contains(stderr, "element") {
		t.Errorf("--max-elements 2: exit %d %s", code, stderr)
	}
	// A PackedByteArray of 4 096 bytes needs more than 1 000 bytes of memory.
	packed := "1d000000 00100000 " + strings.Repeat("00", 4096)
	if _, stderr, code := gw(t, packed, "godot", "decode", "--max-alloc-bytes", "1000"); code != 1 || !strings.Contains(stderr, "memory") && !strings.Contains(stderr, "alloc") {
		t.Errorf("--max-alloc-bytes 1000: exit %d %s", code, stderr)
	}
	if _, stderr, code := gw(t, packed, "godot", "decode", "--compact"); code != 0 {
		t.Errorf("the default budget: exit %d %s", code, stderr)
	}
	for _, flag := range []string{"--max-alloc-bytes", "--max-elements", "--max-depth"} {
		if _, stderr, code := gw(t, arr, "godot", "decode", flag, "-1", "--compact"); code != 0 {
			t.Errorf("%s -1 (no limit): exit %d %s", flag, code, stderr)
		}
		if _, _, code := gw(t, arr, "godot", "decode", flag, "-2"); code == 0 {
			t.Errorf("%s -2 is accepted", flag)
		}
	}
}
