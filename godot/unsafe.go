package godot

// Every use of package unsafe in godot goes through this file; the rest of the package imports
// no unsafe and names raw pointers uptr. The reasons, measured (docs/performance.md):
//
//   - Unmarshal and Marshal plans read and write struct fields, slice elements and map values at
//     their offsets (addPtr, sliceOf) instead of through reflect.Value: Unmarshal of an int into
//     *int32 takes 5.1 ns this way and 34.2 ns through reflection; a Go struct slice of 100 000
//     players decodes at 2.58 M dicts/s.
//   - Decoding a container boxes its small values in a decode's own typed chunks and strings in a
//     byte arena (box, stringOf), instead of one allocation each: the Array of 100 000
//     Dictionaries decodes at 2.58 M dicts/s, 3.9× Godot 3.2.3.
//   - Packed arrays are copied as one memmove on little-endian hosts (sliceOf over sliceData;
//     see godot/wire/unsafe.go: 13× faster than a word loop), and hashed as bytes (keys.go).
//   - boxInt64 puts -256 … -1 in an interface without an allocation, as Go does for 0 … 255.

import "unsafe"

// uptr is an untyped pointer: unsafe.Pointer, by another name.
type uptr = unsafe.Pointer

// addPtr is unsafe.Add.
func addPtr[I ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64 | ~uintptr](p uptr, n I) uptr {
	return unsafe.Add(p, n)
}

// sliceOf is unsafe.Slice.
func sliceOf[T any, I ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64 | ~uintptr](p *T, n I) []T {
	return unsafe.Slice(p, n)
}

// sliceData is unsafe.SliceData.
func sliceData[T any](s []T) *T { return unsafe.SliceData(s) }

// stringOf is unsafe.String.
func stringOf[I ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64 | ~uintptr](p *byte, n I) string {
	return unsafe.String(p, n)
}

// sizeOf is unsafe.Sizeof of a value of v's type (v is not evaluated for anything else).
func sizeOf[T any](v T) uintptr { return unsafe.Sizeof(v) }

// sizeOfElem is the size of an element of s, which may be empty.
func sizeOfElem[T any](s []T) uintptr {
	var z T
	return unsafe.Sizeof(z)
}
