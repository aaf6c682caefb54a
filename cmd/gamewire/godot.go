package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/gdjson"
	"github.com/gamewire/gamewire/internal/byteinput"
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
				err = fmt.Errorf("%s message at byte %d: truncated: its length prefix announces more than the %s after it (%w)", fr, off, plural(max(len(data)-off-4, 0), "byte"), err)
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
	asJSON := f.fs.Bool("json", false, "print JSON Lines: one value a line (the same as --compact)")
	if err := f.parse(args); err != nil {
		return err
	}
	*compact = *compact || *asJSON
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
	text, err := byteinput.ReadAll(fs.Arg(0), stdin)
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

func godotExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newGodotFlags("explain", "Prints every field of Godot Variant bytes with its byte offset, length and meaning,\nin the style of the offset tables of Godot's binary serialization documentation: each\nVariant is a field of its type holding its header and parts, a Dictionary entry holds its\nkey and its value. --json prints the same explanation as JSON Lines, one frame (value or\nmessage) a line, in the schema of docs/explain.md.", stderr)
	asJSON := f.fs.Bool("json", false, "print JSON Lines: one explanation frame a line (docs/explain.md)")
	maxFields := addMaxFieldsFlag(f.fs)
	if err := f.parse(args); err != nil {
		return err
	}
	if err := checkMaxFields(*maxFields); err != nil {
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
	budget := explain.NewBudget(*maxFields)
	framing, _ := f.framingValue()
	var frames []*explain.Frame
	var xerr error
	if framing == godot.FramingPacket && !f.all {
		var fr *explain.Frame
		fr, xerr = opts.Explain(data, budget)
		frames = []*explain.Frame{fr}
	} else {
		frames, xerr = opts.ExplainMessages(data, framing, budget)
	}
	if xerr != nil {
		if hint := f.godot3Hint(data); hint != "" {
			xerr = fmt.Errorf("%w%s", xerr, hint)
		}
	}
	if *asJSON {
		err = explain.WriteJSON(stdout, frames...)
	} else {
		err = explain.WriteText(stdout, data, frames...)
	}
	if err != nil {
		return err
	}
	noteTruncated(stderr, "godot explain", frames, *maxFields)
	return xerr
}

// addMaxFieldsFlag adds --max-fields, the field budget of an explanation.
func addMaxFieldsFlag(fs *flag.FlagSet) *int {
	return fs.Int("max-fields", 0, fmt.Sprintf("the most `fields` the explanation holds, all frames together (0: %d; -1: no limit);\nthe input is still decoded, and checked, to its end", explain.DefaultMaxFields))
}

// checkMaxFields refuses a --max-fields below NoLimit (-1): a usage error.
func checkMaxFields(n int) error {
	if n < explain.NoLimit {
		return usagef("--max-fields %d: want 0 (the default, %d), -1 (no limit) or a number of fields", n, explain.DefaultMaxFields)
	}
	return nil
}

// noteTruncated says on stderr that an explanation stopped at its field budget.
func noteTruncated(stderr io.Writer, cmd string, frames []*explain.Frame, maxFields int) {
	if n := len(frames); n > 0 && frames[n-1].Truncated {
		if maxFields == 0 {
			maxFields = explain.DefaultMaxFields
		}
		fmt.Fprintf(stderr, "gamewire %s: the explanation stops after %s, in frame %d (--max-fields)\n", cmd, plural(maxFields, "field"), frames[n-1].Index)
	}
}
