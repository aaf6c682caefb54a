package multiplayer3

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The REMOTE_CALL of the spec (§3), seen on the wire from Godot 3.2.3:
// rpc_id(1, "hello", 42, "héllo") on /root/N before the path was confirmed.
func TestRemoteCallSpecExample(t *testing.T) {
	want := unhex(t, "00 24000080 68656c6c6f00 02 02000000 2a000000 04000000 06000000 68c3a96c6c6f0000 4e00")
	got, err := AppendRemoteCall(nil, Target{Path: "N"}, "hello", 42, "héllo")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendRemoteCall =\n%x\nwant\n%x", got, want)
	}
	p, err := Parse(want)
	if err != nil {
		t.Fatal(err)
	}
	if p.Command != CmdRemoteCall || p.Name != "hello" || p.Path != "N" || p.PathOffset != 0x24 || len(p.Args) != 2 || p.ArgsOffset != 12 {
		t.Fatalf("Parse = %+v", p)
	}
	var n int
	var s string
	if err := defaultArgs.Unmarshal(p.Args[0], &n); err != nil || n != 42 {
		t.Errorf("argument 0 = %d, %v", n, err)
	}
	if err := defaultArgs.Unmarshal(p.Args[1], &s); err != nil || s != "héllo" {
		t.Errorf("argument 1 = %q, %v", s, err)
	}
}

func TestAppendForms(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  func() ([]byte, error)
		want string
	}{
		{"cached call", func() ([]byte, error) { return AppendRemoteCall(nil, Target{CacheID: 1}, "f") }, "00 01000000 6600 00"},
		{"rset by path", func() ([]byte, error) { return AppendRemoteSet(nil, Target{Path: "Main"}, "v", 5) }, "01 0f000080 7600 02000000 05000000 4d61696e00"},
		{"simplify", func() ([]byte, error) { return AppendSimplifyPath(nil, 3, "Main") }, "02 03000000 4d61696e00"},
		{"confirm", func() ([]byte, error) { return AppendConfirmPath(nil, "Main") }, "03 4d61696e00"},
		{"raw", func() ([]byte, error) { return AppendRaw(nil, []byte{1, 2}), nil }, "04 0102"},
		{"sys", func() ([]byte, error) { return AppendSys(nil, SysRemovePeer, 7), nil }, "01000000 07000000"},
		{"header", func() ([]byte, error) { return AppendHeader(nil, 1, -5), nil }, "01000000 fbffffff"},
	} {
		got, err := tc.got()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if want := unhex(t, tc.want); !bytes.Equal(got, want) {
			t.Errorf("%s = %x, want %x", tc.name, got, want)
		}
	}
}

func TestAppendRefuses(t *testing.T) {
	b := []byte{9}
	if out, err := AppendRemoteCall(b, Target{}, "a\x00b"); err == nil || !bytes.Equal(out, b) {
		t.Errorf("a name with a NUL: %x, %v", out, err)
	}
	if out, err := AppendRemoteCall(b, Target{Path: "x"}, "f", make(chan int)); err == nil || !bytes.Equal(out, b) {
		t.Errorf("an argument with no Variant form: %x, %v", out, err)
	}
	if _, err := AppendRemoteCall(nil, Target{}, "f", make([]any, 256)...); err == nil {
		t.Error("256 arguments were accepted")
	}
	if _, err := AppendSimplifyPath(nil, 1, "\xff"); err == nil {
		t.Error("a path that is not UTF-8 was accepted")
	}
}

// Malformed packets fail with the sentinel and the offset of the field at fault.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		pkt    string
		err    error
		offset int64
	}{
		{"", ErrTruncated, 0},
		{"07", ErrBadPacket, 0},
		{"00 01000000", ErrTruncated, 5},
		{"00 01000000 6666", ErrTruncated, 7},
		{"00 01000000 6600", ErrTruncated, 7},                // no argument count
		{"00 01000000 6600 01", ErrTruncated, 8},             // argument missing
		{"00 01000000 6600 01 1b000000", ErrBadVariant, 8},   // type 27 is not Godot 3
		{"00 01000000 6600 01 02000000", ErrBadVariant, 8},   // int without its payload
		{"00 01000000 6600 00 ff", ErrTrailingData, 8},       //
		{"00 40000080 6600 00", ErrBadPacket, 1},             // path offset past the end
		{"00 06000080 6600 00", ErrBadPacket, 1},             // path offset inside the name
		{"00 08000080 6600 00 4e", ErrTruncated, 9},          // path without its NUL
		{"00 08000080 6600 00 4e00 00", ErrTrailingData, 10}, // after the path
		{"00 09000080 6600 01 4e00", ErrTruncated, 8},        // the path offset cuts the argument region
		{"01 01000000 7600", ErrTruncated, 7},                // rset without a value
		{"02 01000000", ErrTruncated, 5},                     //
		{"02 0100", ErrTruncated, 3},                         //
		{"02 01000000 4e", ErrTruncated, 6},                  //
		{"03", ErrTruncated, 1},                              //
		{"03 4e00 00", ErrTrailingData, 3},                   //
		{"03 ff00", ErrBadPacket, 1},                         // not UTF-8
		{"04", ErrTruncated, 1},                              //
	} {
		_, err := Parse(unhex(t, tc.pkt))
		var pe *PacketError
		if !errors.Is(err, tc.err) || !errors.As(err, &pe) || pe.Offset != tc.offset {
			t.Errorf("Parse(%s) = %v, want %v at offset %d", tc.pkt, err, tc.err, tc.offset)
		}
	}
	// The cause of a bad argument is godot's *DecodeError.
	_, err := Parse(unhex(t, "00 01000000 6600 01 02000000"))
	var de *godot.DecodeError
	if !errors.As(err, &de) {
		t.Errorf("%v does not hold a *godot.DecodeError", err)
	}
}

func TestParseSysAndHeader(t *testing.T) {
	if m, id, err := ParseSys(unhex(t, "00000000 2a000000")); err != nil || m != SysAddPeer || id != 42 {
		t.Errorf("ParseSys = %v %d %v", m, id, err)
	}
	for _, tc := range []struct {
		b   string
		err error
		off int64
	}{{"0000", ErrTruncated, 2}, {"02000000 01000000", ErrBadPacket, 0}, {"01000000 01000000 00", ErrTrailingData, 8}} {
		_, _, err := ParseSys(unhex(t, tc.b))
		var pe *PacketError
		if !errors.Is(err, tc.err) || !errors.As(err, &pe) || pe.Offset != tc.off {
			t.Errorf("ParseSys(%s) = %v, want %v at %d", tc.b, err, tc.err, tc.off)
		}
	}
	src, dst, rest, err := ParseHeader(unhex(t, "2a000000 ffffffff 04 01"))
	if err != nil || src != 42 || dst != -1 || !bytes.Equal(rest, []byte{4, 1}) {
		t.Errorf("ParseHeader = %d %d %x %v", src, dst, rest, err)
	}
	if _, _, _, err := ParseHeader([]byte{1, 2, 3}); !errors.Is(err, ErrTruncated) {
		t.Errorf("ParseHeader of 3 bytes: %v", err)
	}
}

func TestDecodeOptionsObjects(t *testing.T) {
	obj, err := enc3.Append(nil, &godot.Object{Class: "Object"})
	if err != nil {
		t.Skip("no full object to encode:", err)
	}
	pkt := append(unhex(t, "00 01000000 6600 01"), obj...)
	if _, err := Parse(pkt); !errors.Is(err, ErrBadVariant) || !errors.Is(err, godot.ErrObjectsNotAllowed) {
		t.Errorf("a full object without AllowObjects: %v", err)
	}
	if _, err := mustMode(t, DecodeOptions{AllowObjects: true}).Parse(pkt); err != nil {
		t.Errorf("a full object with AllowObjects: %v", err)
	}
}

func mustMode(t *testing.T, o DecodeOptions) DecodeMode {
	t.Helper()
	m, err := o.DecodeMode()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDecodeModeRefusesBadLimits(t *testing.T) {
	if _, err := (DecodeOptions{MaxDepth: -2}).DecodeMode(); err == nil {
		t.Error("MaxDepth -2 was accepted")
	}
	if _, err := (DecodeOptions{MaxAllocBytes: NoLimit}).DecodeMode(); err != nil {
		t.Errorf("NoLimit: %v", err)
	}
}

func TestParseCompressionMode(t *testing.T) {
	for i, n := range []string{"none", "Range-Coder", "fastlz", "zlib", "zstd"} {
		m, err := ParseCompressionMode(n)
		if err != nil || int(m) != i || !strings.EqualFold(m.String(), n) {
			t.Errorf("ParseCompressionMode(%q) = %v, %v", n, m, err)
		}
		if (m.Compressor() == nil) != (i == 0) {
			t.Errorf("%v.Compressor() = %v", m, m.Compressor())
		}
	}
	if _, err := ParseCompressionMode("lz4"); err == nil {
		t.Error("lz4 was accepted")
	}
}
