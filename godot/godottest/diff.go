package godottest

import (
	"fmt"
	"github.com/gamewire/gamewire/explain"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/godot"
)

// A mask is a list of byte ranges [start, end) to ignore, such as
// godot.DecodeOptions.UninitializedBytes returns for engine output: Godot never writes the padding
// after NodePath names, so those bytes hold whatever was in memory (godot#44999; Godot 3 fact 2).

// inMask reports whether byte i is in one of the ranges.
func inMask(i int, mask [][2]int) bool {
	for _, r := range mask {
		if i >= r[0] && i < r[1] {
			return true
		}
	}
	return false
}

// EqualMasked reports whether a and b have the same length and the same bytes outside the ranges
// in mask.
func EqualMasked(a, b []byte, mask [][2]int) bool {
	return FirstDifference(a, b, mask) < 0
}

// FirstDifference returns the offset of the first byte outside mask where a and b differ, the
// length of the shorter one if one is a prefix of the other (outside mask), or -1 if they are
// equal outside mask.
func FirstDifference(a, b []byte, mask [][2]int) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] && !inMask(i, mask) {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// ZeroMasked returns a copy of b with the bytes in mask set to zero, which is what a clean
// encoder writes there: use it to store engine output reproducibly.
func ZeroMasked(b []byte, mask [][2]int) []byte {
	out := append([]byte(nil), b...)
	for _, r := range mask {
		for i := max(r[0], 0); i < min(r[1], len(out)); i++ {
			out[i] = 0
		}
	}
	return out
}

// EngineMask returns the ranges of engine output data that a comparison must ignore: the
// uninitialised NodePath padding, found by decoding data with o. If data does not decode, it
// returns nil and the error.
func EngineMask(o godot.DecodeMode, data []byte) ([][2]int, error) {
	return o.UninitializedBytes(data)
}

// HexDiff renders want and got side by side in rows of 16 bytes, 4-byte words apart, for a test
// failure message. Masked bytes of want print as "··"; rows that differ outside the mask start
// with "!" and are followed by a line of "^^" under each differing byte. Long inputs are cut to
// the rows around the differences.
func HexDiff(want, got []byte, mask [][2]int) string {
	const row = 16
	var sb strings.Builder
	first := FirstDifference(want, got, mask)
	fmt.Fprintf(&sb, "want %s, got %s", plural(len(want), "byte"), plural(len(got), "byte"))
	if first >= 0 {
		fmt.Fprintf(&sb, ", first difference at byte %d (0x%x)", first, first)
	} else {
		sb.WriteString(", equal")
	}
	if len(mask) > 0 {
		sb.WriteString("; ·· = uninitialised in engine output, ignored")
	}
	sb.WriteByte('\n')
	rows := (max(len(want), len(got)) + row - 1) / row
	diffRow := make([]bool, rows)
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) || want[i] != got[i] && !inMask(i, mask) {
			diffRow[i/row] = true
		}
	}
	show := make([]bool, rows)
	for r := range rows {
		if rows <= 24 {
			show[r] = true
			continue
		}
		for d := -2; d <= 2; d++ {
			if r+d >= 0 && r+d < rows && diffRow[r+d] {
				show[r] = true
			}
		}
		if r < 2 {
			show[r] = true
		}
	}
	const colWidth = row*2 + row/4 - 1
	fmt.Fprintf(&sb, "  %-6s  %-*s  %s\n", "offset", colWidth, "want", "got")
	skipped := false
	for r := range rows {
		if !show[r] {
			if !skipped {
				sb.WriteString("  ...\n")
				skipped = true
			}
			continue
		}
		skipped = false
		mark := ' '
		if diffRow[r] {
			mark = '!'
		}
		fmt.Fprintf(&sb, "%c %06x  %-*s  %s\n", mark, r*row, colWidth, hexRow(want, r*row, row, mask), hexRow(got, r*row, row, nil))
		if diffRow[r] {
			var m strings.Builder
			for i := r * row; i < (r+1)*row; i++ {
				if i > r*row && i%4 == 0 {
					m.WriteByte(' ')
				}
				if i < max(len(want), len(got)) && (i >= len(want) || i >= len(got) || want[i] != got[i] && !inMask(i, mask)) {
					m.WriteString("^^")
				} else {
					m.WriteString("  ")
				}
			}
			ms := m.String()
			fmt.Fprintf(&sb, "          %-*s  %s\n", colWidth, ms, ms)
		}
	}
	return sb.String()
}

func hexRow(b []byte, off, n int, mask [][2]int) string {
	var sb strings.Builder
	for i := off; i < off+n && i < len(b); i++ {
		if i > off && i%4 == 0 {
			sb.WriteByte(' ')
		}
		if inMask(i, mask) {
			sb.WriteString("··")
		} else {
			fmt.Fprintf(&sb, "%02x", b[i])
		}
	}
	return sb.String()
}

// Describe says which field of data contains byte offset off, as decoded with o: e.g.
// `byte 36: [2]["pos"] float32 y 1.5`. It explains what a [HexDiff] position means. If data does
// not decode up to off, it says where decoding stopped.
func Describe(o godot.DecodeMode, data []byte, off int) string {
	fr, err := o.Explain(data, explain.NewBudget(explain.NoLimit))
	// The innermost field holding off, and the names of the fields above it.
	var path []string
	var last *explain.Field
	var lastPath string
	fr.Walk(func(f *explain.Field, depth int) bool {
		path = append(path[:depth], f.Name)
		if int64(off) >= f.Offset() && int64(off) < f.Offset()+f.Len() {
			last, lastPath = f, strings.Join(path[:depth], "/")
		}
		return true
	})
	if last != nil {
		if lastPath == "" {
			lastPath = "(top)"
		}
		text := last.Text
		if text == "" && last.Value != nil {
			text = fmt.Sprint(last.Value)
		}
		return fmt.Sprintf("byte %d: %s %s %s at %d+%d: %s", off, lastPath, last.Type, last.Name, last.Offset(), last.Len(), text)
	}
	if off >= len(data) {
		return fmt.Sprintf("byte %d: past the end (%s)", off, plural(len(data), "byte"))
	}
	if err != nil {
		return fmt.Sprintf("byte %d: not reached, decoding failed: %v", off, err)
	}
	return fmt.Sprintf("byte %d: in no field", off)
}

// plural says n what, with an s unless n is 1: "1 byte", "2 bytes".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
