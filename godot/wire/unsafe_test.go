package wire

import (
	"encoding/binary"
	"testing"
)

// BenchmarkWireUint32sCopyDecode measures CopyUint32s of 1 MiB (memmove) beside a copy of as many
// bytes (the yardstick) and the word loop that a big-endian host runs: the measured reason for
// unsafe.go.
func BenchmarkWireUint32sCopyDecode(b *testing.B) {
	const n = 1 << 18
	src := make([]byte, 4*n)
	for i := range src {
		src[i] = byte(i)
	}
	dst := make([]uint32, n)
	raw := make([]byte, 4*n)
	b.SetBytes(4 * n)
	b.Run("memmove", func(b *testing.B) {
		for b.Loop() {
			CopyUint32s(dst, src)
		}
	})
	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			copy(raw, src)
		}
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			for i := range dst {
				dst[i] = binary.LittleEndian.Uint32(src[4*i:])
			}
		}
	})
}

// TestBytesOf: the byte view is the words' little-endian bytes on this (little-endian) host,
// which CopyUint32s and AppendUint32s rely on.
func TestBytesOf(t *testing.T) {
	v := []uint32{0x04030201, 0x08070605}
	got := AppendUint32s(nil, v)
	want := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	if string(got) != string(want) {
		t.Fatalf("AppendUint32s = % x, want % x", got, want)
	}
	back := make([]uint32, 2)
	CopyUint32s(back, got)
	if back[0] != v[0] || back[1] != v[1] {
		t.Fatalf("CopyUint32s = %x", back)
	}
}
