package main

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/gdjson"
	"github.com/gamewire/gamewire/internal/cliio"
)

func init() {
	register(command{area: "godot", verb: "decode", summary: "Godot Variant bytes (hex, base64, raw) → lossless JSON", run: godotDecode})
	register(command{area: "godot", verb: "encode", summary: "that JSON → Godot Variant bytes", run: godotEncode})
	register(command{area: "godot", verb: "explain", summary: "every field of Godot Variant bytes with offset, length, meaning", run: godotExplain})
}

// godotFlags are the flags shared by the godot verbs that read Variant bytes.
type godotFlags struct {
	fs           *flag.FlagSet
	dialect      string
	format       string
	allowObjects bool
	all          bool
	legacyPath   bool
	maxDepth     int
}

func newGodotFlags(name, usage string, stderr io.Writer) *godotFlags {
	f := &godotFlags{fs: flag.NewFlagSet("gamewire godot "+name, flag.ContinueOnError)}
	f.fs.SetOutput(stderr)
	f.fs.StringVar(&f.dialect, "godot", "4", "engine `version` whose format the bytes are in: 3 or 4")
	f.fs.StringVar(&f.format, "format", "auto", "input `encoding`: auto, hex, base64 or raw")
	f.fs.BoolVar(&f.allowObjects, "allow-objects", true, "decode full objects (false: reject them as the engine does by default)")
	f.fs.BoolVar(&f.all, "all", false, "decode every value in the input, one after the other (e.g. several put_var payloads)")
	f.fs.BoolVar(&f.legacyPath, "legacy-nodepath", false, "accept the obsolete string NodePath format that engines reject")
	f.fs.IntVar(&f.maxDepth, "max-depth", godot.DefaultMaxDepth, "nesting limit")
	f.fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: gamewire godot %s [flags] [FILE]\n\n%s\nFILE defaults to standard input.\n\nFlags:\n", name, usage)
		f.fs.PrintDefaults()
	}
	return f
}

func (f *godotFlags) parse(args []string) error {
	if err := f.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if f.fs.NArg() > 1 {
		f.fs.Usage()
		return errUsage
	}
	return nil
}

func (f *godotFlags) options() (godot.DecOptions, error) {
	d, err := godot.ParseDialect(f.dialect)
	if err != nil {
		return godot.DecOptions{}, err
	}
	return godot.DecOptions{Dialect: d, AllowObjects: f.allowObjects, LegacyNodePath: f.legacyPath, MaxDepth: f.maxDepth}, nil
}

func (f *godotFlags) input(stdin io.Reader) ([]byte, error) {
	format, err := cliio.ParseFormat(f.format)
	if err != nil {
		return nil, err
	}
	data, err := cliio.Read(f.fs.Arg(0), stdin, format)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errors.New("no input bytes")
	}
	return data, nil
}

func godotDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newGodotFlags("decode", "Decodes Godot Variant bytes (var2bytes, var_to_bytes, the payload of put_var)\ninto the lossless JSON form that \"gamewire godot encode\" turns back into the same bytes.", stderr)
	compact := f.fs.Bool("compact", false, "print the JSON on one line")
	if err := f.parse(args); err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	data, err := f.input(stdin)
	if err != nil {
		return err
	}
	indent := "  "
	if *compact {
		indent = ""
	}
	for off := 0; off < len(data); {
		v, n, err := opts.Decode(data[off:])
		if err != nil {
			return offsetError(err, off)
		}
		if err := gdjson.Encode(stdout, v, opts.Dialect, indent); err != nil {
			return err
		}
		off += n
		if !f.all {
			if off < len(data) {
				fmt.Fprintf(stderr, "gamewire godot decode: %d trailing bytes after the value at offset %d ignored (use --all to decode them)\n", len(data)-off, off)
			}
			break
		}
	}
	return nil
}

// offsetError shifts a decode error's offset to the whole input's numbering.
func offsetError(err error, base int) error {
	var de *godot.DecodeError
	if base > 0 && errors.As(err, &de) {
		de.Offset += base
	}
	return err
}

func godotEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gamewire godot encode", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dialect := fs.String("godot", "4", "engine `version` to encode for: 3 or 4")
	output := fs.String("output", "hex", "output `encoding`: hex, base64 or raw")
	double := fs.Bool("double", false, "write real_t values as a Godot 4 double-precision build does")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: gamewire godot encode [flags] [FILE]\n\nEncodes the JSON form printed by \"gamewire godot decode\" (one or more values)\nas Godot Variant bytes. FILE defaults to standard input.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil || fs.NArg() > 1 {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		if err == nil {
			fs.Usage()
		}
		return errUsage
	}
	d, err := godot.ParseDialect(*dialect)
	if err != nil {
		return err
	}
	text, err := cliio.ReadAll(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	enc := godot.EncOptions{Dialect: d, DoublePrecision: *double}
	var out []byte
	vals, err := gdjsonValues(text)
	if err != nil {
		return err
	}
	for _, v := range vals {
		if out, err = enc.Append(out, v); err != nil {
			return err
		}
	}
	return writeBytes(stdout, out, *output)
}

// gdjsonValues parses one or more concatenated JSON values.
func gdjsonValues(text []byte) ([]any, error) {
	var vals []any
	dec := newJSONSplitter(text)
	for {
		chunk, ok, err := dec.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		v, err := gdjson.Unmarshal(chunk)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return nil, errors.New("no JSON value in the input")
	}
	return vals, nil
}

func writeBytes(w io.Writer, b []byte, format string) error {
	var err error
	switch format {
	case "hex":
		_, err = fmt.Fprintln(w, hex.EncodeToString(b))
	case "base64":
		_, err = fmt.Fprintln(w, base64.StdEncoding.EncodeToString(b))
	case "raw":
		_, err = w.Write(b)
	default:
		return fmt.Errorf("unknown output encoding %q (want hex, base64 or raw)", format)
	}
	return err
}

func godotExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newGodotFlags("explain", "Prints every field of Godot Variant bytes with its byte offset, length and meaning,\nin the style of the offset tables of Godot's binary serialization documentation.", stderr)
	if err := f.parse(args); err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	data, err := f.input(stdin)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s Variant, %d bytes\n", opts.Dialect, len(data))
	fields, err := opts.Explain(data)
	if werr := godot.WriteFields(stdout, fields); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	for _, fl := range fields {
		if fl.Uninitialized {
			fmt.Fprintln(stdout, "\nNote: the engine never writes NodePath name padding; in its output those bytes hold leftover memory.")
			break
		}
	}
	return nil
}
