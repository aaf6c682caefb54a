package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

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
	in           inputFlags
	dialect      string
	allowObjects bool
	all          bool
	legacyPath   bool
	maxDepth     int
	maxElements  int
	maxBytes     int
	framing      string
	real         string
}

func newGodotFlags(name, usage string, stderr io.Writer) *godotFlags {
	f := &godotFlags{fs: newCmdFlags("godot", name, "[FILE|HEX]", usage+"\n\nFILE defaults to standard input; an argument that names no file and is hex is read as the bytes.", stderr)}
	f.fs.StringVar(&f.dialect, "godot", "4", "engine `version` whose format the bytes are in: 3 or 4")
	f.in = addInputFlags(f.fs)
	f.fs.BoolVar(&f.allowObjects, "allow-objects", true, "decode full objects (false: reject them as the engine does by default)")
	f.fs.BoolVar(&f.all, "all", false, "decode every value in the input, one after the other (e.g. several var_to_bytes results)")
	f.fs.BoolVar(&f.legacyPath, "legacy-nodepath", false, "accept the obsolete string NodePath format that engines reject")
	f.fs.IntVar(&f.maxDepth, "max-depth", godot.DefaultMaxDepth, "nesting limit (-1: none)")
	f.fs.IntVar(&f.maxElements, "max-elements", godot.DefaultMaxElements, "limit on the elements of a value, all containers together (-1: none)")
	f.fs.IntVar(&f.maxBytes, "max-alloc-bytes", 0, "limit on the memory decoding one value allocates, in bytes (0: 24 bytes per input byte\nplus 64 KiB; -1: none)")
	f.fs.StringVar(&f.real, "real", "lossless", "the `precision` of real_t to read Godot 4 math values with, as an engine build does:\nsingle (the official builds; 64-bit components are rounded to float32), double, or lossless\n(keep what the bytes hold)")
	f.fs.StringVar(&f.framing, "framing", "none", "the values' `framing`: none (bare Variants); streampeer or file (put_var, store_var: a\n4-byte little-endian length before each); streampeer-be (big_endian = true); packetpeerstream.\nWith a framing, every message of the input is decoded")
	return f
}

// parse parses the flags and checks their values: a bad value is a usage error.
func (f *godotFlags) parse(args []string) error {
	if err := parseCmdFlags(f.fs, args, 1); err != nil {
		return err
	}
	if _, err := f.framingValue(); err != nil {
		return err
	}
	if _, err := godot.ParseDialect(f.dialect); err != nil {
		return asUsage("godot", err)
	}
	_, err := f.options()
	return err
}

// dialectGiven reports whether --godot was on the command line.
func (f *godotFlags) dialectGiven() bool {
	given := false
	f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == "godot" })
	return given
}

// godot3Hint returns a hint when decoding data failed under the default dialect and the bytes
// decode as Godot 3: what a Godot 3 engine wrote, read as Godot 4 (the dialects number their
// types differently).
func (f *godotFlags) godot3Hint(data []byte) string {
	if f.dialectGiven() {
		return ""
	}
	o, err := f.options()
	if err != nil {
		return ""
	}
	g3 := o.Options()
	g3.Dialect = godot.Godot3
	m, err := g3.DecodeMode()
	if err != nil {
		return ""
	}
	if _, _, err := m.Decode(data); err != nil {
		return ""
	}
	return " (these bytes decode as Godot 3: try --godot 3)"
}

// framingValue reads --framing; none is godot.FramingPacket, whose messages are bare Variants.
func (f *godotFlags) framingValue() (godot.Framing, error) {
	switch strings.ToLower(f.framing) {
	case "none", "":
		return godot.FramingPacket, nil
	case "streampeer", "file":
		return godot.FramingStreamPeer, nil
	case "streampeer-be", "file-be":
		return godot.FramingStreamPeerBigEndian, nil
	case "packetpeerstream":
		return godot.FramingPacketPeerStream, nil
	}
	return 0, usagef("--framing %q: want none, streampeer, file, streampeer-be or packetpeerstream", f.framing)
}

// options returns the decoding mode the flags ask for.
func (f *godotFlags) options() (godot.DecodeMode, error) {
	d, err := godot.ParseDialect(f.dialect)
	if err != nil {
		return godot.DecodeMode{}, asUsage("godot", err)
	}
	r, err := godot.ParseReal(f.real)
	if err != nil {
		return godot.DecodeMode{}, asUsage("real", err)
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"max-depth", f.maxDepth}, {"max-elements", f.maxElements}, {"max-alloc-bytes", f.maxBytes}} {
		if l.v < godot.NoLimit {
			return godot.DecodeMode{}, usagef("--%s %d: want a positive limit, 0 (the default) or -1 (none)", l.name, l.v)
		}
	}
	return godot.DecodeOptions{Dialect: d, AllowObjects: f.allowObjects, LegacyNodePath: f.legacyPath, MaxDepth: f.maxDepth,
		MaxElements: f.maxElements, MaxAllocBytes: f.maxBytes, Real: r}.DecodeMode()
}

func (f *godotFlags) input(stdin io.Reader) ([]byte, error) {
	return f.in.read(f.fs, stdin)
}

// variantSpan is one Variant's bytes within the input.
type variantSpan struct {
	off  int    // byte offset of data in the whole input
	data []byte // the Variant's bytes (a framed message: its bytes without the prefix)
	msg  bool   // a framed message, which holds exactly one Variant
}

// spans cuts the input into the Variants to decode: the messages of a framing, or the input
// itself, from which decoding takes one value or, with --all, one after another.
func (f *godotFlags) spans(data []byte) ([]variantSpan, error) {
	fr, _ := f.framingValue()
	if fr == godot.FramingPacket {
		return []variantSpan{{off: 0, data: data}}, nil
	}
	d, _ := godot.ParseDialect(f.dialect)
	dec := godot.StreamOptions{Framing: fr, Dialect: d, MaxMessageBytes: len(data)}.NewDecoder(bytes.NewReader(data))
	var spans []variantSpan
	off := 0
	for {
		msg, err := dec.ReadMessage()
		if errors.Is(err, io.EOF) {
			return spans, nil
		}
		if err != nil {
			switch {
			case errors.Is(err, io.ErrUnexpectedEOF):
				err = fmt.Errorf("%s message at byte %d: truncated: the input ends inside its length prefix or before the length it announces", fr, off)
			case errors.Is(err, godot.ErrTooLarge):
				// The limit is the input's size: the prefix announces more than there is.
				err = fmt.Errorf("%s message at byte %d: truncated: its length prefix announces more than the %d bytes after it (%w)", fr, off, max(len(data)-off-4, 0), err)
			}
			return spans, err
		}
		spans = append(spans, variantSpan{off: off + 4, data: bytes.Clone(msg), msg: true})
		off += 4 + len(msg)
	}
}

func godotDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newGodotFlags("decode", "Decodes Godot Variant bytes (var2bytes, var_to_bytes, the payload of put_var)\ninto the lossless JSON form that \"gamewire godot encode\" turns back into the same bytes.", stderr)
	compact := f.fs.Bool("compact", false, "print the JSON on one line")
	jsonLines := f.fs.Bool("json", false, "print JSON Lines: each value's JSON on one line (as --compact)")
	if err := f.parse(args); err != nil {
		return err
	}
	*compact = *compact || *jsonLines
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
	// A decoded value is no deeper than the decoder allows, and never cyclic.
	jsonDepth := opts.Options().MaxDepth
	if jsonDepth == godot.NoLimit {
		jsonDepth = math.MaxInt
	}
	jenc, err := gdjson.EncodeOptions{Dialect: opts.Options().Dialect, Indent: indent, MaxDepth: jsonDepth}.EncodeMode()
	if err != nil {
		return err
	}
	spans, serr := f.spans(data)
	for _, sp := range spans {
		for off := 0; off < len(sp.data); {
			start := sp.off + off
			v, n, err := opts.Decode(sp.data[off:])
			if err != nil {
				if hint := f.godot3Hint(sp.data[off:]); hint != "" {
					return fmt.Errorf("%w%s", offsetError(err, start), hint)
				}
				return offsetError(err, start)
			}
			if err := jenc.Encode(stdout, v); err != nil {
				return err
			}
			off += n
			if off < len(sp.data) && (sp.msg || !f.all) {
				what := "(use --all to decode them)"
				if sp.msg {
					what = "in its message (the engine ignores them too)"
				}
				fmt.Fprintf(notes(f.fs), "gamewire godot decode: %s after the value at byte %d ignored %s\n", plural(len(sp.data)-off, "trailing byte"), start, what)
				break
			}
		}
	}
	return serr
}

// offsetError shifts a decode error's offset to the whole input's numbering.
func offsetError(err error, base int) error {
	var de *godot.DecodeError
	if base > 0 && errors.As(err, &de) {
		de.Offset += int64(base)
	}
	return err
}

func godotEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("godot", "encode", "[FILE]", "Encodes the JSON form printed by \"gamewire godot decode\" (one or more values)\nas Godot Variant bytes. FILE defaults to standard input.", stderr)
	dialect := fs.String("godot", "4", "engine `version` to encode for: 3 or 4")
	out := addOutputFlags(fs)
	double := fs.Bool("double", false, "write real_t values as a Godot 4 double-precision build does")
	maxDepth := fs.Int("max-depth", godot.DefaultMaxDepth, "nesting limit")
	if err := parseCmdFlags(fs, args, 1); err != nil {
		return err
	}
	if err := out.check(); err != nil {
		return err
	}
	d, err := godot.ParseDialect(*dialect)
	if err != nil {
		return asUsage("godot", err)
	}
	text, err := cliio.ReadAll(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	enc, err := godot.EncodeOptions{Dialect: d, DoublePrecision: *double, MaxDepth: *maxDepth}.EncodeMode()
	if err != nil {
		return usagef("%v", err)
	}
	var b []byte
	vals, err := gdjsonValues(text, *maxDepth)
	if err != nil {
		return err
	}
	for _, v := range vals {
		if b, err = enc.Append(b, v); err != nil {
			return err
		}
	}
	return out.write(stdout, b)
}

// gdjsonValues parses one or more concatenated JSON values.
func gdjsonValues(text []byte, maxDepth int) ([]any, error) {
	jdec, err := gdjson.DecodeOptions{MaxDepth: maxDepth}.DecodeMode()
	if err != nil {
		return nil, err
	}
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
		v, err := jdec.Unmarshal(chunk)
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

// explainedValue is one value of "godot explain --json".
type explainedValue struct {
	Offset int            `json:"offset"`
	Len    int            `json:"len"`
	Fields []explainField `json:"fields"`
	Error  string         `json:"error,omitempty"`
}

type explainField struct {
	Offset        int    `json:"offset"`
	Len           int    `json:"len"`
	Depth         int    `json:"depth"`
	Path          string `json:"path,omitempty"`
	Kind          string `json:"kind"`
	Text          string `json:"text"`
	Uninitialized bool   `json:"uninitialized,omitempty"`
}

func godotExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newGodotFlags("explain", "Prints every field of Godot Variant bytes with its byte offset, length and meaning,\nin the style of the offset tables of Godot's binary serialization documentation.", stderr)
	asJSON := f.fs.Bool("json", false, "print JSON")
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
	spans, serr := f.spans(data)
	var vals []explainedValue
	var xerr error
	uninit := false
explain:
	for _, sp := range spans {
		for off := 0; off < len(sp.data); {
			rest := sp.data[off:]
			_, n, err := opts.Decode(rest)
			if err == nil && (f.all || sp.msg) {
				rest = rest[:n] // the next value gets its own table
			}
			fields, err := opts.Explain(rest)
			ev := explainedValue{Offset: sp.off + off, Len: len(rest), Fields: []explainField{}}
			for _, fl := range fields {
				uninit = uninit || fl.Uninitialized
				ev.Fields = append(ev.Fields, explainField{Offset: fl.Offset + sp.off + off, Len: fl.Len, Depth: fl.Depth,
					Path: fl.Path, Kind: fl.Kind, Text: fl.Text, Uninitialized: fl.Uninitialized})
			}
			if err != nil {
				xerr = offsetError(err, sp.off+off)
				ev.Error = xerr.Error()
				vals = append(vals, ev)
				break explain
			}
			vals = append(vals, ev)
			if !f.all && !sp.msg {
				break
			}
			off += n
		}
	}
	if xerr == nil {
		xerr = serr
	} else if hint := f.godot3Hint(data); hint != "" {
		xerr = fmt.Errorf("%w%s", xerr, hint)
	}
	if *asJSON {
		out := struct {
			Dialect string           `json:"dialect"`
			Bytes   int              `json:"bytes"`
			Values  []explainedValue `json:"values"`
			Error   string           `json:"error,omitempty"`
		}{Dialect: opts.Options().Dialect.String(), Bytes: len(data), Values: vals}
		if out.Values == nil {
			out.Values = []explainedValue{}
		}
		if xerr != nil {
			out.Error = xerr.Error()
		}
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
		return xerr
	}
	fmt.Fprintf(stdout, "%s Variant, %s\n", opts.Options().Dialect, plural(len(data), "byte"))
	for i, ev := range vals {
		if len(vals) > 1 {
			fmt.Fprintf(stdout, "\nvalue %d at byte %d, %s\n", i+1, ev.Offset, plural(ev.Len, "byte"))
		}
		fields := make([]godot.Field, len(ev.Fields))
		for j, fl := range ev.Fields {
			fields[j] = godot.Field{Offset: fl.Offset, Len: fl.Len, Depth: fl.Depth, Path: fl.Path, Kind: fl.Kind, Text: fl.Text, Uninitialized: fl.Uninitialized}
		}
		if err := godot.WriteFields(stdout, fields); err != nil {
			return err
		}
	}
	if uninit {
		fmt.Fprintln(stdout, "\nNote: the engine never writes NodePath name padding; in its output those bytes hold leftover memory.")
	}
	return xerr
}
