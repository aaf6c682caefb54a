package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/explain"
)

func init() {
	register(command{area: "bits", verb: "decode", summary: "BitProtocol bits → values, by a field list (bool,int32,string,...)", run: bitsDecode})
	register(command{area: "bits", verb: "encode", summary: "values (JSON) → BitProtocol bits, by a field list", run: bitsEncode})
	register(command{area: "bits", verb: "explain", summary: "BitProtocol bits by a field list, bit by bit: offset, bits, meaning", run: bitsExplain})
}

const fieldTypesHelp = `Field list: comma-separated TYPE or NAME:TYPE entries, TYPE*N to repeat. Types:
  bool, byte, int16, int32, int64 (compressed), char, float32, float64,
  string, bytes, date, null (an object's null bit), align (skip to a byte boundary)`

func bitsDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("bits", "decode", "[FILE|HEX]",
		"Decodes a BitProtocol bit stream by a field list and prints every field with its bit\noffset, bit length and value. FILE defaults to standard input.\n\n"+fieldTypesHelp+
			"\n\nExample: gamewire bits decode --fields 'null,null,flags:int32,svcClass:int32' <<< '20c25c'", stderr)
	spec := fs.String("fields", "", "the field `list` (required)")
	in := addInputFlags(fs)
	offset := fs.Int("offset", 0, "start decoding at this `bit`")
	asJSON := fs.Bool("json", false, "print JSON Lines: the fields as one explanation frame (docs/explain.md)")
	steps := fs.Bool("steps", false, "also print the bits of every field, as in gsf explain")
	if err := parseCmdFlags(fs, args, 1); err != nil {
		return err
	}
	if *spec == "" {
		return usagef("--fields is required")
	}
	fields, err := bitproto.ParseFields(*spec)
	if err != nil {
		return asUsage("fields", err)
	}
	data, err := in.read(fs, stdin)
	if err != nil {
		return err
	}
	r := bitstream.NewReader(data)
	if err := r.Seek(*offset); err != nil {
		return err
	}
	if *asJSON {
		// One line: the explanation frame of the fields (docs/explain.md).
		fr, derr := bitproto.ExplainFields(data, *offset, fields, explain.NewBudget(explain.NoLimit))
		if !*steps {
			for _, f := range fr.Fields {
				f.Children = nil
			}
		}
		if err := explain.WriteJSON(stdout, fr); err != nil {
			return err
		}
		return derr
	}
	vals, derr := bitproto.DecodeFields(r, fields)
	rest := r.Remaining()
	var b strings.Builder
	fmt.Fprintf(&b, "%5s %5s  %-16s %-8s %s\n", "bit", "len", "name", "type", "value")
	for _, v := range vals {
		name := v.Field.Name
		if name == "" {
			name = "-"
		}
		note := ""
		if v.NonCanonical {
			note = "  (not the writer's form)"
		}
		fmt.Fprintf(&b, "%5d %5d  %-16s %-8s %s%s\n", v.Bit, v.Len, name, v.Field.Type, v.Text(), note)
		if *steps {
			for _, s := range v.Steps {
				fmt.Fprintf(&b, "%11s  ", "")
				writeCLIStep(&b, s)
			}
		}
	}
	if derr == nil {
		fmt.Fprintf(&b, "%s decoded, %d left\n", plural(r.Offset()-*offset, "bit"), rest)
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	return derr
}

func writeCLIStep(b *strings.Builder, s bitproto.Step) {
	at := fmt.Sprintf("Bit %d:", s.Bit)
	if s.Bits == "" {
		at = fmt.Sprintf("Bits %d–%d:", s.Bit, s.Bit+s.Len-1)
	}
	fmt.Fprintf(b, "%-12s %-20s -> %s\n", at, s.Bits, s.Text)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// valuesArg returns the values of a --values flag: a JSON array, or "-" to read it from stdin.
func valuesArg(arg string, stdin io.Reader) ([]any, error) {
	if arg == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, err
		}
		arg = string(b)
	}
	return parseJSONValues(arg)
}

// parseJSONValues parses a JSON array of values, keeping numbers exact.
func parseJSONValues(s string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var vals []any
	if err := dec.Decode(&vals); err != nil {
		return nil, fmt.Errorf("--values: want a JSON array: %w", err)
	}
	if dec.More() {
		return nil, errors.New("--values: text after the JSON array")
	}
	return vals, nil
}

func bitsEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("bits", "encode", "",
		"Encodes values by a field list into BitProtocol bits and prints them (hex by default).\n\n"+fieldTypesHelp+
			"\n\nValues are a JSON array with one entry per field (align takes none): true/false for bool and\n"+
			"null, numbers for integers and floats (strings for exact int64s), a one-character string\n"+
			"for char, a hex string for bytes, an RFC 3339 string, a Unix time or null for date.\n\n"+
			"Example: gamewire bits encode --fields 'bool,int32,string' --values '[true, 566, \"AmazingWorld\"]'", stderr)
	spec := fs.String("fields", "", "the field `list` (required)")
	values := fs.String("values", "", "the values, a JSON `array` (required; - reads it from standard input)")
	out := addOutputFlags(fs)
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	if err := out.check(); err != nil {
		return err
	}
	if *spec == "" || *values == "" {
		return usagef("--fields and --values are required")
	}
	fields, err := bitproto.ParseFields(*spec)
	if err != nil {
		return asUsage("fields", err)
	}
	vals, err := valuesArg(*values, stdin)
	if err != nil {
		return err
	}
	var w bitstream.Writer
	if err := bitproto.EncodeFields(&w, fields, vals); err != nil {
		return err
	}
	return out.write(stdout, w.Bytes())
}
