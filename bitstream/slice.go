package bitstream

import (
	"fmt"
	"maps"
	"slices"
)

// WriteSlice writes a slice: its count (-1 when s is nil, so that nil and empty stay distinct),
// then every element through write. Slices of objects write each element with its own null bit
// (see [Writer.WriteNull]); slices of strings do not.
func WriteSlice[T any](w *Writer, s []T, write func(*Writer, T)) {
	if s == nil {
		w.WriteCount(-1)
		return
	}
	w.WriteCount(len(s))
	for _, e := range s {
		write(w, e)
	}
}

// ReadSlice reads a slice written by [WriteSlice]: a count of -1 gives nil and 0 an empty
// non-nil slice. minBits is the fewest bits one element can take (at least 1; 6 for a compressed
// integer or a string, 1 for an object with its null bit); a count that claims more elements
// than the remaining bits can hold is an error wrapping [ErrTooLong], reported before the slice
// is allocated.
func ReadSlice[T any](r *Reader, minBits int, read func(*Reader) (T, error)) ([]T, error) {
	start := r.pos
	n, err := r.ReadCount()
	if err != nil || n < 0 {
		return nil, err
	}
	if err := checkCount(r, start, "ReadSlice", n, max(minBits, 1)); err != nil {
		return nil, err
	}
	s := make([]T, n)
	for i := range s {
		if s[i], err = read(r); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// WriteMap writes a string-keyed map: its count (-1 when m is nil), then every entry as a string
// key followed by the value through write. Unlike the reference, which iterates a Go map in
// random order, the keys are written in sorted order, so equal maps give equal bytes. Collecting
// and sorting the keys allocates.
func WriteMap[V any](w *Writer, m map[string]V, write func(*Writer, V)) {
	if m == nil {
		w.WriteCount(-1)
		return
	}
	w.WriteCount(len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.WriteString(k)
		write(w, m[k])
	}
}

// ReadMap reads a map written by [WriteMap]: a count of -1 gives nil. For a repeated key the
// last value wins, as in the reference. minBits is the fewest bits one value can take; every
// entry is checked to need at least 6 bits (the key) plus minBits.
func ReadMap[V any](r *Reader, minBits int, read func(*Reader) (V, error)) (map[string]V, error) {
	start := r.pos
	n, err := r.ReadCount()
	if err != nil || n < 0 {
		return nil, err
	}
	if err := checkCount(r, start, "ReadMap", n, 6+max(minBits, 0)); err != nil {
		return nil, err
	}
	m := make(map[string]V, n)
	for range n {
		k, err := r.ReadString()
		if err != nil {
			return nil, err
		}
		if m[k], err = read(r); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// checkCount checks that n elements of at least minBits bits each fit in the rest of the input.
func checkCount(r *Reader, start uint, op string, n, minBits int) error {
	left := r.end - r.pos
	if uint(n) > left/uint(minBits) {
		r.pos = start
		return readErr(op, start, fmt.Errorf("%w: %s of at least %s, %s left", ErrTooLong, plural(n, "element"), plural(minBits, "bit"), plural(int(left), "bit")))
	}
	return nil
}
