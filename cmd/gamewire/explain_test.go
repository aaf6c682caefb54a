package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/godot"
)

// deepArrays returns about size bytes of Godot 4 Arrays nested depth deep: an Array of chains.
func deepArrays(t *testing.T, size, depth int) []byte {
	var chain any = int64(1)
	for range depth {
		chain = []any{chain}
	}
	one, err := godot.Marshal(chain)
	if err != nil {
		t.Fatal(err)
	}
	chains := make([]any, size/len(one))
	for i := range chains {
		chains[i] = chain
	}
	data, err := godot.Marshal(chains)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// measured runs the built gamewire with args and returns the bytes it printed on stdout (not
// kept), its stderr, exit status, peak memory (RSS, bytes; 0 where unknown) and time.
func measured(t *testing.T, args ...string) (int64, string, int, int64, time.Duration) {
	t.Helper()
	cmd := exec.Command(gwBin, args...)
	var n countWriter
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &n, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return int64(n), errb.String(), code, maxRSS(cmd.ProcessState), took
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// TestExplainHostileInput (issue 21 item 12): explaining 8 MB of deeply nested Arrays took
// 25 s, 2 GB and printed 2.2 GB. Every explain command stops at its field budget, prints about
// a hundred bytes a field, and takes memory proportional to its input.
func TestExplainHostileInput(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: -short")
	}
	dir := t.TempDir()
	nested := filepath.Join(dir, "nested.bin")
	if err := os.WriteFile(nested, deepArrays(t, 8<<20, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	frames := filepath.Join(dir, "frames.bin")
	one := []byte{0x15, 0x20, 0xc2, 0x5c, 0x04, 0x6d, 0x0c, 0x0c, 0x18, 0x41, 0x6d, 0x61, 0x7a, 0x69, 0x6e, 0x67, 0x57, 0x6f, 0x72, 0x6c, 0x64, 0x00}
	if err := os.WriteFile(frames, bytes.Repeat(one, 8<<20/len(one)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The decoded value may take DefaultMaxBytesFactor bytes per input byte; the fields kept
	// a few hundred bytes each; the text about a hundred bytes a field.
	const maxRSS = 24*8<<20 + 200<<20
	const maxOut = 100 * explain.DefaultMaxFields
	for _, c := range []struct {
		name string
		args []string
	}{
		{"godot nested Arrays", []string{"godot", "explain", "--format", "raw", nested}},
		{"godot nested Arrays, JSON", []string{"godot", "explain", "--json", "--format", "raw", nested}},
		{"gsf frames", []string{"gsf", "explain", "--format", "raw", frames}},
		{"gsf frames, JSON", []string{"gsf", "decode", "--json", "--format", "raw", frames}},
	} {
		out, stderr, code, rss, took := measured(t, c.args...)
		t.Logf("%s: exit %d, %.1f MB printed, %.0f MB peak, %v", c.name, code, float64(out)/1e6, float64(rss)/1e6, took.Round(time.Millisecond))
		if code != 0 || !strings.Contains(stderr, "the explanation stops after 100000 fields") {
			t.Errorf("%s: exit %d: %s", c.name, code, stderr)
		}
		if out > maxOut*3 && strings.Contains(c.name, "JSON") || out > maxOut && !strings.Contains(c.name, "JSON") {
			t.Errorf("%s: printed %d bytes", c.name, out)
		}
		if rss > maxRSS {
			t.Errorf("%s: %d bytes of memory, more than %d", c.name, rss, maxRSS)
		}
	}
	// -1 is no limit; below it is a usage error.
	for _, args := range [][]string{{"godot", "explain"}, {"gsf", "explain"}, {"bits", "explain", "--fields", "bool"}, {"godot", "mp", "explain"}} {
		if _, stderr, code := gw(t, "00", append(args, "--max-fields", "-2")...); code != 2 || !strings.Contains(stderr, "--max-fields -2") {
			t.Errorf("%v --max-fields -2: exit %d: %s", args, code, stderr)
		}
	}
	// A budget of one's own.
	out, _, code := gw(t, "", "godot", "explain", "--max-fields", "10", "--format", "raw", nested)
	if code != 0 || strings.Count(out, "\n") != 13 || !strings.Contains(out, "… the explanation stops here") {
		t.Errorf("--max-fields 10: exit %d\n%s", code, out)
	}
	// One field is "1 field".
	_, stderr, code := gw(t, "", "godot", "explain", "--max-fields", "1", "--format", "raw", nested)
	if code != 0 || !strings.Contains(stderr, "the explanation stops after 1 field, in frame 0") {
		t.Errorf("--max-fields 1: exit %d\n%s", code, stderr)
	}
}

func TestBitsExplain(t *testing.T) {
	out, _, code := gw(t, "f011b440686900000007704d9c8000", "bits", "explain", "--fields", "bool,n:int32,name:string")
	for _, want := range []string{
		"bitproto frame 0 at bit 0, 48 bits: 3 fields, 48 bits; 72 bits after them, not decoded\n",
		"      1    20  int32                  n: 566\n",
		"      5    16    bits                 n: n = 566  [0000001000110110]\n",
		"     32    16    bits                 name: name = \"hi\" (2 bytes, 16 bits)  [0110100001101001]\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d: missing %q in\n%s", code, want, out)
		}
	}
	out, _, code = gw(t, "f0", "bits", "explain", "--fields", "bool,int32", "--json")
	frames := jsonLines[explain.Frame](t, out)
	if code != 1 || len(frames) != 1 || frames[0].Err == nil || frames[0].Err.Bit != 1 || len(frames[0].Fields) != 1 {
		t.Errorf("exit %d: %s", code, out)
	}
}
