package wire

// Every use of package unsafe in wire is in this file: packed arrays (PackedInt32Array …
// PackedVector4Array, PackedColorArray) are copied between the wire and Go slices with one
// memmove on a little-endian host, whose memory holds the words as the wire does, instead of one
// word at a time. Measured (BenchmarkWireUint32sCopyDecode, 1 MiB, 2-vCPU machine under load,
// 2026-11-28): the memmove 115 µs, a copy of the same bytes 146 µs, the word loop that
// big-endian hosts run 1 530 µs, 13 times the memmove.

import "unsafe"

// hostLittle reports whether the host stores integers little-endian, in which case packed arrays
// are copied with one memmove.
var hostLittle = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// bytesOf returns the memory of v as bytes (its words in host order).
func bytesOf[T uint32 | uint64](v []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(T(0))))
}
