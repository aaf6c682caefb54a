package explain

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// BitLevel reports whether a field of the frame starts or ends inside a byte: its text form then
// numbers bits rather than bytes.
func (fr *Frame) BitLevel() bool {
	bit := fr.Bit%8 != 0 || fr.Bits%8 != 0
	fr.Walk(func(f *Field, _ int) bool {
		bit = bit || f.Bit%8 != 0 || f.Bits%8 != 0
		return !bit
	})
	return bit
}

// WriteText writes each frame as a table, one field a line, indented by depth (up to
// [MaxIndent] levels): byte offset, length in bytes, wire type, name and meaning, or for a
// bit-level frame ([Frame.BitLevel]) bit offset and length in bits, and, when data (the input
// the frames were cut from) is given, the bits themselves for fields of up to 32 bits. A frame's
// error and its truncation are written where they occur. Every line is at most a few hundred
// bytes longer than the field's own Name, Text and Note, however deep the field.
func WriteText(w io.Writer, data []byte, frames ...*Frame) error {
	bw := bufio.NewWriter(w)
	for i, fr := range frames {
		if i > 0 {
			bw.WriteByte('\n')
		}
		writeFrame(bw, data, fr)
	}
	return bw.Flush()
}

func writeFrame(w *bufio.Writer, data []byte, fr *Frame) {
	bitLevel := fr.BitLevel()
	fmt.Fprintf(w, "%s frame %d at %s", fr.Format, fr.Index, place(fr.Bit, bitLevel))
	if bitLevel {
		fmt.Fprintf(w, ", %s", plural(fr.Bits, "bit"))
	} else {
		fmt.Fprintf(w, ", %s", plural(fr.Bits/8, "byte"))
	}
	if fr.Summary != "" {
		fmt.Fprintf(w, ": %s", fr.Summary)
	}
	w.WriteByte('\n')
	if len(fr.Context) > 0 {
		known := []string{"stream", "dir", "time", "src", "dst"}
		for _, k := range known {
			if v, ok := fr.Context[k]; ok {
				fmt.Fprintf(w, "  %s %s\n", k, v)
			}
		}
		// Any other key a format sets (a channel, a peer) follows, in name order.
		for _, k := range slices.Sorted(maps.Keys(fr.Context)) {
			if !slices.Contains(known, k) {
				fmt.Fprintf(w, "  %s %s\n", k, fr.Context[k])
			}
		}
	}
	if bitLevel {
		fmt.Fprintf(w, "%7s %5s  %-22s %s\n", "bit", "bits", "type", "name: meaning")
	} else {
		fmt.Fprintf(w, "%7s %5s  %-22s %s\n", "offset", "len", "type", "name: meaning")
	}
	errWritten := false
	var write func(fs []*Field, depth int)
	write = func(fs []*Field, depth int) {
		for _, f := range fs {
			writeField(w, data, f, depth, bitLevel)
			write(f.Children, depth+1)
			if f.Err != nil {
				fmt.Fprintf(w, "%7s %5s  %s↳ error at %s: %s\n", "", "", strings.Repeat("  ", min(depth, MaxIndent)), place(f.Err.Bit, bitLevel), f.Err.Msg)
				errWritten = errWritten || f.Err == fr.Err
			}
		}
	}
	write(fr.Fields, 0)
	if fr.Err != nil && !errWritten {
		fmt.Fprintf(w, "%7s %5s  ↳ error at %s: %s\n", "", "", place(fr.Err.Bit, bitLevel), fr.Err.Msg)
	}
	if fr.Truncated {
		fmt.Fprintf(w, "%7s %5s  … the explanation stops here: its field budget is spent (MaxFields, --max-fields)\n", "", "")
	}
}

// writeField writes one line of the table.
func writeField(w *bufio.Writer, data []byte, f *Field, depth int, bitLevel bool) {
	if bitLevel {
		fmt.Fprintf(w, "%7d %5d  ", f.Bit, f.Bits)
	} else {
		fmt.Fprintf(w, "%7d %5d  ", f.Bit/8, f.Len())
	}
	ind := min(depth, MaxIndent)
	typ := strings.Repeat("  ", ind) + f.Type
	if depth > MaxIndent {
		typ = strings.Repeat("  ", ind-1) + "‥" + strconv.Itoa(depth) + " " + f.Type
	}
	fmt.Fprintf(w, "%-22s %s", typ, f.Name)
	if t := f.display(); t != "" {
		if f.Name != "" {
			w.WriteString(": ")
		}
		w.WriteString(t)
	}
	if f.Note != "" {
		fmt.Fprintf(w, " (%s)", f.Note)
	}
	if bitLevel && data != nil && f.Bits > 0 && f.Bits <= 32 && len(f.Children) == 0 {
		if b, ok := bitsOf(data, f.Bit, f.Bits); ok {
			fmt.Fprintf(w, "  [%s]", b)
		}
	}
	w.WriteByte('\n')
}

// display is what the text form shows as the field's value: its Text, else its Value.
func (f *Field) display() string {
	if f.Text != "" {
		return f.Text
	}
	switch v := f.Value.(type) {
	case nil:
		return ""
	case string:
		return strconv.Quote(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	}
	return fmt.Sprint(f.Value)
}

func place(bit int64, bitLevel bool) string {
	if bitLevel {
		return "bit " + strconv.FormatInt(bit, 10)
	}
	if bit%8 != 0 {
		return fmt.Sprintf("byte %d (bit %d)", bit/8, bit)
	}
	return "byte " + strconv.FormatInt(bit/8, 10)
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.FormatInt(n, 10) + " " + what + "s"
}

// bitsOf returns n bits of data from bit as 0s and 1s (bit 0 is the most significant bit of
// byte 0).
func bitsOf(data []byte, bit, n int64) (string, bool) {
	if bit < 0 || n <= 0 || bit+n > 8*int64(len(data)) {
		return "", false
	}
	var sb strings.Builder
	for i := bit; i < bit+n; i++ {
		if data[i/8]>>(7-i%8)&1 == 1 {
			sb.WriteByte('1')
		} else {
			sb.WriteByte('0')
		}
	}
	return sb.String(), true
}

// Scalar returns v as a Value of the model: integers as int64 (uint64 when unsigned), floats as
// float64, and bools, strings and nil as they are; any other value as its fmt text.
func Scalar(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64, uint64, float64:
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint:
		return uint64(x)
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case float32:
		return float64(x)
	}
	return fmt.Sprint(v)
}
