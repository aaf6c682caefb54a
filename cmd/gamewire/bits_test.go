package main

import (
	"bytes"
	"github.com/gamewire/gamewire/explain"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs one command line of the built gamewire and returns its output and exit status.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return gw(t, stdin, args...)
}

const seedPayloadHex = "20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64"

const seedFields = "message:null,header:null,flags:int32,svcClass:int32,msgType:int32,requestId:int32,logCorrelator:string,body:null,clientName:string"

func TestBitsDecode(t *testing.T) {
	out, errOut, code := runCLI(t, seedPayloadHex, "bits", "decode", "--fields", seedFields)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"    2     6  flags            int32    0\n",
		"    8    11  svcClass         int32    18\n",
		"   19    20  msgType          int32    566\n",
		"   39     6  requestId        int32    1\n",
		"   45     6  logCorrelator    string   \"\"\n",
		"   51     1  body             null     present\n",
		"   52   108  clientName       string   \"AmazingWorld\"\n",
		"160 bits decoded, 0 left\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}

	out, _, code = runCLI(t, seedPayloadHex, "bits", "decode", "--json", "--fields", seedFields)
	frames := jsonLines[explain.Frame](t, out)
	if code != 0 || len(frames) != 1 || len(frames[0].Fields) != 9 || frames[0].Bit+frames[0].Bits != 160 {
		t.Fatalf("JSON %s", out)
	}
	if f := frames[0].Fields[4]; f.Name != "msgType" || f.Bit != 19 || f.Bits != 20 || f.Value != float64(566) || f.Children != nil {
		t.Errorf("msgType %+v", f)
	}
	if f := frames[0].Fields[8]; f.Value != "AmazingWorld" || f.Bit != 52 {
		t.Errorf("clientName %+v", f)
	}

	// --steps shows the bits.
	out, _, _ = runCLI(t, "9c", "bits", "decode", "--steps", "--fields", "int32")
	if !strings.Contains(out, "Bit 0:       [1][0]               -> int32 compressed, 0 bytes -> 4-bit value") ||
		!strings.Contains(out, "Bit 2:       [0111]               -> int32 = 7") {
		t.Errorf("steps:\n%s", out)
	}
	// --offset and raw input from a file.
	dir := t.TempDir()
	file := filepath.Join(dir, "in.bin")
	os.WriteFile(file, []byte{0xff, 0x9c}, 0o644)
	out, _, code = runCLI(t, "", "bits", "decode", "--format", "raw", "--offset", "8", "--fields", "int16", file)
	if code != 0 || !strings.Contains(out, "    8     6  -                int16    7\n") {
		t.Errorf("offset: %d\n%s", code, out)
	}
}

func TestBitsDecodeErrors(t *testing.T) {
	// Too short: the fields decoded so far are printed, the error goes to stderr, exit 1.
	out, errOut, code := runCLI(t, "20 c2", "bits", "decode", "--fields", seedFields)
	if code != 1 || !strings.Contains(out, "flags") || strings.Contains(out, "svcClass") || !strings.Contains(errOut, "field 4 svcClass:int32 at bit 8") || !strings.Contains(errOut, "truncated input") {
		t.Errorf("exit %d\nout %s\nerr %s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "00", "bits", "decode"); code != 2 || !strings.Contains(errOut, "--fields is required") {
		t.Errorf("no fields: %d %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "00", "bits", "decode", "--fields", "int33"); code != 2 || !strings.Contains(errOut, "unknown field type") {
		t.Errorf("bad field: %d %s", code, errOut)
	}
	if _, _, code := runCLI(t, "00", "bits", "decode", "--nope"); code != 2 {
		t.Errorf("bad flag: %d", code)
	}
	if _, errOut, code := runCLI(t, "b8", "bits", "decode", "--fields", "string"); code != 1 || !strings.Contains(errOut, "negative length") {
		t.Errorf("negative length: %d %s", code, errOut)
	}
}

func TestBitsEncode(t *testing.T) {
	out, errOut, code := runCLI(t, "", "bits", "encode", "--fields", "null,null,int32,int32,int32,int32,string,null,string",
		"--values", `[false, false, 0, 18, 566, 1, "", false, "AmazingWorld"]`)
	if code != 0 || out != strings.ReplaceAll(seedPayloadHex, " ", "")+"\n" {
		t.Fatalf("exit %d %s\n%q", code, errOut, out)
	}
	// Round trip through decode, with exact int64s and dates.
	out, errOut, code = runCLI(t, "", "bits", "encode", "--fields", "int64,date,char,bytes,float64",
		"--values", `["-9223372036854775808", "2021-07-24T00:00:00Z", "А", "0a0b", 0.5]`)
	if code != 0 {
		t.Fatalf("%s", errOut)
	}
	back, errOut, code := runCLI(t, out, "bits", "decode", "--fields", "int64,date,char,bytes,float64")
	for _, want := range []string{"-9223372036854775808", "2021-07-24T00:00:00Z", "'А' (U+0410)", "[0a0b]", "0.5"} {
		if code != 0 || !strings.Contains(back, want) {
			t.Errorf("missing %q: %d %s\n%s", want, code, errOut, back)
		}
	}
	// --out writes raw bytes.
	file := filepath.Join(t.TempDir(), "out.bin")
	if _, errOut, code := runCLI(t, "", "bits", "encode", "--fields", "bool", "--values", "[true]", "--out", file); code != 0 {
		t.Fatal(errOut)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, []byte{0x80}) {
		t.Errorf("--out wrote %x", b)
	}
	// Errors.
	for _, args := range [][]string{
		{"--fields", "int16", "--values", "[40000]"},
		{"--fields", "int16", "--values", "[1, 2]"},
		{"--fields", "int16", "--values", "{}"},
	} {
		if _, errOut, code := runCLI(t, "", append([]string{"bits", "encode"}, args...)...); code != 1 || errOut == "" {
			t.Errorf("%v: exit %d", args, code)
		}
	}
	if _, _, code := runCLI(t, "", "bits", "encode", "--fields", "int16"); code != 2 {
		t.Errorf("missing --values: %d", code)
	}
}
