package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/internal/cliio"
)

func init() {
	register(command{area: "bits", verb: "decode", summary: "BitProtocol bits → values, by a field list (bool,int32,string,...)", run: bitsDecode})
	register(command{area: "bits", verb: "encode", summary: "values (JSON) → BitProtocol bits, by a field list", run: bitsEncode})
}

const fieldTypesHelp = `Field list: comma-separated TYPE or NAME:TYPE entries, TYPE*N to repeat. Types:
  bool, byte, int16, int32, int64 (compressed), char, float32, float64,
  string, bytes, date, null (an object's null bit), align (skip to a byte boundary)`

// newCmdFlags returns a flag set for "gamewire AREA VERB" that prints its usage to stderr.
func newCmdFlags(area, verb, args, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gamewire "+area+" "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: gamewire %s %s [flags] %s\n\n%s\n\nFlags:\n", area, verb, args, about)
		fs.PrintDefaults()
	}
	return fs
}

// parseCmdFlags parses args and allows at most maxArgs positional arguments.
func parseCmdFlags(fs *flag.FlagSet, args []string, maxArgs int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage // the flag package has printed the problem and the usage
	}
	if fs.NArg() > maxArgs {
		fmt.Fprintf(fs.Output(), "too many arguments: %q\n", fs.Args())
		fs.Usage()
		return errUsage
	}
	return nil
}

// readInput reads the positional FILE argument (standard input without one) in the given
// --format.
func readInput(fs *flag.FlagSet, format string, stdin io.Reader) ([]byte, error) {
	f, err := cliio.ParseFormat(format)
	if err != nil {
		return nil, err
	}
	data, err := cliio.Read(fs.Arg(0), stdin, f)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errors.New("no input bytes")
	}
	return data, nil
}

func bitsDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("bits", "decode", "[FILE]",
		"Decodes a BitProtocol bit stream by a field list and prints every field with its bit\noffset, bit length and value. FILE defaults to standard input.\n\n"+fieldTypesHelp+
			"\n\nExample: gamewire bits decode --fields 'null,null,flags:int32,svcClass:int32' <<< '20c25c'", stderr)
	spec := fs.String("fields", "", "the field `list` (required)")
	format := fs.String("format", "auto", "input `encoding`: auto, hex, base64 or raw")
	offset := fs.Int("offset", 0, "start decoding at this `bit`")
	asJSON := fs.Bool("json", false, "print JSON")
	steps := fs.Bool("steps", false, "also print the bits of every field, as in gsf explain")
	if err := parseCmdFlags(fs, args, 1); err != nil {
		return err
	}
	if *spec == "" {
		fmt.Fprintln(stderr, "gamewire bits decode: --fields is required")
		fs.Usage()
		return errUsage
	}
	fields, err := bitproto.ParseFields(*spec)
	if err != nil {
		return err
	}
	data, err := readInput(fs, *format, stdin)
	if err != nil {
		return err
	}
	r := bitstream.NewReader(data)
	if err := r.Seek(*offset); err != nil {
		return err
	}
	vals, derr := bitproto.DecodeFields(r, fields)
	rest := r.Remaining()
	if *asJSON {
		out := struct {
			Fields []bitproto.Value `json:"fields"`
			End    int              `json:"end"`
			Rest   int              `json:"rest"`
			Error  string           `json:"error,omitempty"`
		}{Fields: vals, End: r.Offset(), Rest: rest}
		if out.Fields == nil {
			out.Fields = []bitproto.Value{}
		}
		if derr != nil {
			out.Error = derr.Error()
		}
		if !*steps {
			for i := range out.Fields {
				out.Fields[i].Steps = nil
			}
		}
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
		return derr
	}
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
		fmt.Fprintf(&b, "%d bits decoded, %d left\n", r.Offset()-*offset, rest)
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
		"Encodes values by a field list into BitProtocol bits and prints them as hex.\n\n"+fieldTypesHelp+
			"\n\nValues are a JSON array with one entry per field (align takes none): true/false for bool and\n"+
			"null, numbers for integers and floats (strings for exact int64s), a one-character string\n"+
			"for char, a hex string for bytes, an RFC 3339 string, a Unix time or null for date.\n\n"+
			"Example: gamewire bits encode --fields 'bool,int32,string' --values '[true, 566, \"AmazingWorld\"]'", stderr)
	spec := fs.String("fields", "", "the field `list` (required)")
	values := fs.String("values", "", "the values, a JSON `array` (required; - reads it from standard input)")
	out := fs.String("out", "", "write the raw bytes to `FILE` instead of printing hex")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	if *spec == "" || *values == "" {
		fmt.Fprintln(stderr, "gamewire bits encode: --fields and --values are required")
		fs.Usage()
		return errUsage
	}
	fields, err := bitproto.ParseFields(*spec)
	if err != nil {
		return err
	}
	vals, err := valuesArg(*values, stdin)
	if err != nil {
		return err
	}
	var w bitstream.Writer
	if err := bitproto.EncodeFields(&w, fields, vals); err != nil {
		return err
	}
	return writeBytesOut(stdout, *out, w.Bytes())
}

// writeBytesOut writes b to the file out ("-": raw to standard output), or prints it as hex.
func writeBytesOut(stdout io.Writer, out string, b []byte) error {
	if out != "" {
		if out == "-" {
			_, err := stdout.Write(b)
			return err
		}
		return os.WriteFile(out, b, 0o644)
	}
	var s bytes.Buffer
	for i, c := range b {
		if i > 0 {
			s.WriteByte(' ')
		}
		s.WriteString(hex.EncodeToString([]byte{c}))
	}
	_, err := fmt.Fprintf(stdout, "%s\n", s.String())
	return err
}
