package bitproto

// Every use of package unsafe in bitproto goes through this file; the rest of the package
// imports no unsafe and names raw pointers uptr. The reasons, measured (docs/performance.md,
// issue 12):
//
//   - A type's codec reads and writes each field at its offset in the struct (addPtr), with one
//     function per field kind, instead of through reflect.Value: a framed GSF request decodes
//     into a fresh body in 51 ns and a reused one in 25 ns, 4.4× and 8.9× the reference's 226 ns;
//     a 10 000-row response decodes at 39 ns a row (the reference 215 ns).
//   - Strings of a decode share chunks (stringOf over a chunk's bytes) instead of one allocation
//     each: decoding into a reused value usually allocates nothing.

import "unsafe"

// uptr is an untyped pointer: unsafe.Pointer, by another name.
type uptr = unsafe.Pointer

// addPtr is unsafe.Add.
func addPtr[I ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64 | ~uintptr](p uptr, n I) uptr {
	return unsafe.Add(p, n)
}

// stringOf is unsafe.String.
func stringOf[I ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64 | ~uintptr](p *byte, n I) string {
	return unsafe.String(p, n)
}

// sizeOf is unsafe.Sizeof of a value of v's type.
func sizeOf[T any](v T) uintptr { return unsafe.Sizeof(v) }
