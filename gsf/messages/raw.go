package messages

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
)

// Raw is the schema-less dump of a body that is not in the catalog, in the spirit of
// protoc --decode_raw: the body's bits and bytes, and a guess at its leading fields.
type Raw struct {
	Bit  int `json:"bit"`  // number of the body's first bit
	Bits int `json:"bits"` // bits from there to the end of the payload
	// Hex is the payload's bytes from the one that holds the body's first bit; the body starts
	// FirstBit bits into it.
	Hex      string `json:"hex"`
	FirstBit int    `json:"firstBit"`
	// BitText is the body's bits as 0 and 1, in groups of 8 from the body's first bit (at most
	// the first 512 bits).
	BitText string `json:"bitText"`
	// Guess is a best-effort reading of the body's leading fields as compressed int32s and
	// aligned strings. It is a guess, not a decode: objects' null bits, bools and other types
	// read as something else.
	Guess []GuessedField `json:"guess,omitempty"`
}

// GuessedField is one field of Raw.Guess.
type GuessedField struct {
	Bit   int    `json:"bit"`
	Bits  int    `json:"bits"`
	Type  string `json:"type"` // int32 or string
	Value any    `json:"value"`
}

// maxGuesses bounds the guessed fields of a dump.
const maxGuesses = 16

// RawDump dumps the body that starts at r's offset and ends at bit end of r's input; shift is
// subtracted from offsets. It leaves r where its guess stopped.
func RawDump(r *bitstream.Reader, end, shift int) *Raw {
	start := r.Offset()
	in := r.Input()
	if end > len(in)*8 {
		end = len(in) * 8
	}
	d := &Raw{Bit: start - shift, Bits: end - start, Hex: hex.EncodeToString(in[start/8 : (end+7)/8]), FirstBit: start % 8}
	var bits strings.Builder
	br := bitstream.NewReader(in[:(end+7)/8])
	_ = br.Seek(start)
	for i := 0; i < d.Bits && i < 512; i++ {
		if i > 0 && i%8 == 0 {
			bits.WriteByte(' ')
		}
		b, _ := br.ReadBool()
		bits.WriteByte("01"[btoi(b)])
	}
	if d.Bits > 512 {
		bits.WriteString(" …")
	}
	d.BitText = bits.String()

	gr := bitstream.NewReader(in[:(end+7)/8])
	_ = gr.Seek(start)
	// A guess stops before the last 8 bits: what is left there is usually padding, or a bool
	// and padding, and a compressed int read from it would be noise.
	for len(d.Guess) < maxGuesses && gr.Remaining() >= 8 && !zeroRest(gr) {
		off := gr.Offset()
		if s, err := gr.ReadString(); err == nil && len(s) > 0 && printable(s) {
			d.Guess = append(d.Guess, GuessedField{Bit: off - shift, Bits: gr.Offset() - off, Type: "string", Value: s})
			continue
		}
		_ = gr.Seek(off)
		n, err := gr.ReadInt32()
		if err != nil || n == 0 && zeroRest(gr) {
			break // a 0 read from the last bits is padding (and perhaps a bool), not a field
		}
		d.Guess = append(d.Guess, GuessedField{Bit: off - shift, Bits: gr.Offset() - off, Type: "int32", Value: n})
	}
	_ = r.Seek(end)
	return d
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// zeroRest reports whether every bit left in r is 0 (padding).
func zeroRest(r *bitstream.Reader) bool {
	off := r.Offset()
	defer func() { _ = r.Seek(off) }()
	for r.Remaining() > 0 {
		n := min(r.Remaining(), 64)
		v, err := r.ReadBits(n)
		if err != nil || v != 0 {
			return false
		}
	}
	return true
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if c < ' ' && c != '\t' && c != '\n' && c != '\r' || c == utf8.RuneError || c == 0x7f {
			return false
		}
	}
	return true
}

// Lines returns the text form of the dump.
func (d *Raw) Lines() []string {
	out := []string{
		fmt.Sprintf("bytes  %s  (the body starts %s into the first byte)", spaced(d.Hex), plural(int(d.FirstBit), "bit")),
		"bits   " + d.BitText,
	}
	if len(d.Guess) > 0 {
		out = append(out, "guess (best effort, not a decode: leading compressed int32s and aligned strings):")
		for _, g := range d.Guess {
			v := fmt.Sprint(g.Value)
			if s, ok := g.Value.(string); ok {
				v = strconv.Quote(s)
			}
			out = append(out, fmt.Sprintf("  %-8s %s  (bit %d, %s)", g.Type, v, g.Bit, plural(int(g.Bits), "bit")))
		}
	}
	return out
}

func spaced(h string) string {
	var b strings.Builder
	for i := 0; i+2 <= len(h); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// steps returns the dump as one explanation row.
func (d *Raw) steps() []bitproto.Step {
	text := "body: " + plural(int(d.Bits), "bit") + ", not in the catalog"
	if len(d.Guess) > 0 {
		var parts []string
		for _, g := range d.Guess {
			v := fmt.Sprint(g.Value)
			if s, ok := g.Value.(string); ok {
				v = strconv.Quote(s)
			}
			parts = append(parts, g.Type+" "+v)
		}
		text += "; guess (best effort): " + strings.Join(parts, ", ")
	}
	return []bitproto.Step{{Bit: d.Bit, Len: d.Bits, Text: text}}
}
