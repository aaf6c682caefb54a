package byteinput

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		in   string
		f    Format
		want []byte
	}{
		{"15 20 c2", Auto, []byte{0x15, 0x20, 0xc2}},
		{"0x15,0x20\n0xC2", Hex, []byte{0x15, 0x20, 0xc2}},
		{"0f:00:00:80", Auto, []byte{0x0f, 0, 0, 0x80}},
		{"AgAAAAEAAAA=", Auto, []byte{2, 0, 0, 0, 1, 0, 0, 0}},
		{"AgAAAAEAAAA", Base64, []byte{2, 0, 0, 0, 1, 0, 0, 0}},
		{"\x00\x01zz", Auto, []byte{0, 1, 'z', 'z'}},
		{"abc", Raw, []byte("abc")},
		{"00000000: 1520 c25c 046d  . .\\.m\n", Auto, []byte{0x15, 0x20, 0xc2, 0x5c, 0x04, 0x6d}},
		{"00000000  15 20 c2 5c 04 6d                                 |. .\\.m|\n00000006\n", Auto, []byte{0x15, 0x20, 0xc2, 0x5c, 0x04, 0x6d}},
		{"00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n00000030\n", Auto, make([]byte, 48)},
		{"000000 15 20 c2 5c 04 6d\n000006\n", Auto, []byte{0x15, 0x20, 0xc2, 0x5c, 0x04, 0x6d}},
		{"000000 00 00 00 00\n*\n000010 01\n000011\n", Hex, append(make([]byte, 16), 1)},
		{"0000   15 20 c2 5c 04 6d                                 . .\\.m\n", Auto, []byte{0x15, 0x20, 0xc2, 0x5c, 0x04, 0x6d}},
		{"0000  15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67   . .\\.m...Amazing\n0010  57 6f\n", Auto, []byte("\x15\x20\xc2\x5c\x04\x6d\x0c\x0c\x18AmazingWo")},
		// Plain hex that starts like an od or Wireshark line is hex, unless its offsets check out.
		{"000000 15 20", Auto, []byte{0, 0, 0, 0x15, 0x20}},
		{"0000  15 20", Auto, []byte{0, 0, 0x15, 0x20}},
		{"000000 15 20\n000007 aa\n", Auto, []byte{0, 0, 0, 0x15, 0x20, 0, 0, 0x07, 0xaa}},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.in), tt.f)
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("Decode(%q, %s) = %x, %v; want %x", tt.in, tt.f, got, err, tt.want)
		}
	}
	if _, err := Decode([]byte("abc"), Hex); err == nil {
		t.Error("odd hex accepted")
	}
	if _, err := Decode([]byte("  \n"), Hex); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty hex: %v", err)
	}
	if _, err := ParseFormat("nope"); err == nil {
		t.Error("bad format accepted")
	}
}

// TestDetectStrict: text that is not clearly one encoding is an error that says what it looked
// like, never bytes decoded from a wrong guess.
func TestDetectStrict(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1520c", "looks like hex, but it has an odd number of digits (5)"},
		{"hello there\n", "neither hex nor padded base64"},
		{" \n\t\n", "only white space"},
		{"", "no input"},
		{"1520 c25z 046d 0c0c 1841 6d61", `looks like hex, but 'z' at byte 8`},
		{"00000000: 1520 c25c  . .\\\n00000010: 046d  .m\n", "starts at offset 16, not at 4"},
		{"00000000  15 20 zz                |. .|\n", `not a group of hex bytes`},
		{"00000000  15 20                |. |\n*\n7fffffffffff\n", `the limit is 67108864`},
	} {
		_, _, err := DecodeSource([]byte(tc.in), Auto)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.want)
		}
		if err != nil && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrEmpty) {
			t.Errorf("%q: %v wraps neither ErrFormat nor ErrEmpty", tc.in, err)
		}
	}
	// Guesses are reported, clear cases are not.
	for _, tc := range []struct {
		in      string
		guessed bool
		f       Format
	}{
		{"deadbeef", false, Hex},
		{"AgAAAAEAAAA=", true, Base64},
		{"\x02\x00\x00\x00", false, Raw},
	} {
		_, src, err := DecodeSource([]byte(tc.in), Auto)
		if err != nil || src.Guessed != tc.guessed || src.Format != tc.f || (src.Note() != "") != tc.guessed {
			t.Errorf("%q: %+v (%q), %v", tc.in, src, src.Note(), err)
		}
	}
}

// TestRealDumps reads the output of the real xxd, hexdump -C and od, when they are installed.
func TestRealDumps(t *testing.T) {
	data := make([]byte, 300)
	for i := range data {
		data[i] = byte(i * 7)
	}
	copy(data[100:], bytes.Repeat([]byte{0xaa}, 80)) // hexdump -C folds repeated lines into "*"
	file := filepath.Join(t.TempDir(), "in.bin")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"xxd", file}, {"xxd", "-g1", file}, {"xxd", "-c", "7", file}, {"hexdump", "-C", file}, {"od", "-Ax", "-tx1", file}, {"od", "-Ax", "-tx1", "-v", file}} {
		if _, err := exec.LookPath(cmd[0]); err != nil {
			t.Logf("%s not installed: %v", cmd[0], err)
			continue
		}
		out, err := exec.Command(cmd[0], cmd[1:]...).Output()
		if err != nil {
			t.Fatal(err)
		}
		got, src, err := DecodeSource(out, Auto)
		if err != nil || !bytes.Equal(got, data) || src.Dump == "" {
			t.Errorf("%v: %+v, %v\n%x", cmd, src, err, got)
		}
	}
}

func TestReadArg(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "abcd")
	if err := os.WriteFile(file, []byte{1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, src, err := ReadArg(file, nil, Auto); err != nil || !bytes.Equal(b, []byte{1, 2}) || src.Argument {
		t.Errorf("file: %x %+v %v", b, src, err)
	}
	if b, src, err := ReadArg("1520c2", nil, Auto); err != nil || !bytes.Equal(b, []byte{0x15, 0x20, 0xc2}) || !src.Argument {
		t.Errorf("hex argument: %x %+v %v", b, src, err)
	}
	if _, _, err := ReadArg(filepath.Join(dir, "nofile"), nil, Auto); err == nil || !strings.Contains(err.Error(), "not hex either") {
		t.Errorf("missing file: %v", err)
	}
}
