// Package byteinput is gamewire's one input detector: it reads bytes given as text or as they
// are (hex with any whitespace, colons or "0x" prefixes; xxd, hexdump -C, od -Ax -tx1 and
// Wireshark dumps; base64; raw bytes) from a file, an argument or standard input, for the command
// line, and from the inspector's requests (package inspect); it also writes byte output as hex,
// base64 or raw bytes.
//
// Detection is strict: text is read as hex only when it is hex, as base64 only when it is
// well-formed padded base64, and any other text is an error that says what the input looked like
// and why it was not taken, rather than bytes decoded into nonsense.
package byteinput

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Format names an input or output encoding.
type Format string

// The formats. Auto (input only) detects the encoding, as [Decode] describes; Dump (input only)
// reads an xxd, hexdump -C, od -Ax -tx1 or Wireshark dump and nothing else.
const (
	Auto   Format = "auto"
	Hex    Format = "hex"
	Base64 Format = "base64"
	Raw    Format = "raw"
	Dump   Format = "hexdump"
)

// ParseFormat checks a --format flag value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case Auto, Hex, Base64, Raw, Dump:
		return f, nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("unknown input format %q (want auto, hex, hexdump, base64 or raw)", s)
}

// ParseOutput checks an --output flag value: hex, base64 or raw.
func ParseOutput(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case Hex, Base64, Raw:
		return f, nil
	}
	return "", fmt.Errorf("unknown output encoding %q (want hex, base64 or raw)", s)
}

// Write writes b to w in format f: hex and base64 as one line of text, raw as the bytes.
func Write(w io.Writer, b []byte, f Format) error {
	var err error
	switch f {
	case Hex, "":
		_, err = fmt.Fprintln(w, hex.EncodeToString(b))
	case Base64:
		_, err = fmt.Fprintln(w, base64.StdEncoding.EncodeToString(b))
	case Raw:
		_, err = w.Write(b)
	default:
		return fmt.Errorf("unknown output encoding %q (want hex, base64 or raw)", f)
	}
	return err
}

// Source says where input came from and how [Auto] read it.
type Source struct {
	// Format is the encoding the input was read in.
	Format Format
	// Dump is "xxd", "hexdump -C", "od -Ax -tx1" or "Wireshark" when the input was such a dump.
	Dump string
	// Argument is set when the input was the command line argument itself (hex), not a file.
	Argument bool
	// Guessed is set when the encoding was chosen among several that fit (base64 text, which is
	// also valid raw text; a dump; hex given as an argument): a command says so on stderr.
	Guessed bool
}

// Note is the sentence a command prints on stderr when the encoding was guessed; "" otherwise.
func (s Source) Note() string {
	if !s.Guessed {
		return ""
	}
	switch {
	case s.Argument:
		return "no file of that name: reading the argument as hex"
	case s.Dump != "":
		return "reading the input as " + article(s.Dump) + " " + s.Dump + " dump"
	}
	return "reading the input as " + string(s.Format) + " (--format hex|base64|raw to choose)"
}

// ErrEmpty reports input that holds no bytes at all, or only white space.
var ErrEmpty = errors.New("empty input")

// ErrFormat reports text input that is not in the encoding given or detected. Its message says
// what the input looked like and why it was not taken.
var ErrFormat = errors.New("input not understood")

// inputError is an error about the input: its message alone, and the sentinel for errors.Is.
type inputError struct {
	kind error // ErrFormat or ErrEmpty
	msg  string
}

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == e.kind }

func inputErr(kind error, format string, args ...any) error {
	return &inputError{kind, fmt.Sprintf(format, args...)}
}

// ReadAll reads the whole input: the file named by path, or stdin when path is "" or "-".
func ReadAll(path string, stdin io.Reader) ([]byte, error) {
	if path == "" || path == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(path)
}

// Read reads the input named by path (stdin for "" or "-") and decodes it from format f.
func Read(path string, stdin io.Reader, f Format) ([]byte, error) {
	b, _, err := ReadArg(path, stdin, f)
	return b, err
}

// ReadArg reads the input named by arg: standard input for "" or "-", the file arg when it
// exists, and otherwise, when arg is hex and f is Auto or Hex, the bytes the argument spells.
// It decodes the input from format f and reports how it was read.
func ReadArg(arg string, stdin io.Reader, f Format) ([]byte, Source, error) {
	data, err := ReadAll(arg, stdin)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && (f == Auto || f == Hex) {
			if b, herr := decodeHex([]byte(arg)); herr == nil {
				return b, Source{Format: Hex, Argument: true, Guessed: true}, nil
			}
			return nil, Source{}, fmt.Errorf("%w (and the argument is not hex either)", err)
		}
		return nil, Source{}, err
	}
	b, src, err := DecodeSource(data, f)
	return b, src, err
}

// Decode turns the text or bytes of an input into the bytes it stands for.
func Decode(data []byte, f Format) ([]byte, error) {
	b, _, err := DecodeSource(data, f)
	return b, err
}

// DecodeSource is [Decode] that also reports how the input was read. With Auto:
//
//   - bytes that are not printable UTF-8 text are raw bytes;
//   - text made of hex digits (with white space, colons, commas and "0x" prefixes between them)
//     is hex; an odd number of digits is an error;
//   - an xxd, hexdump -C, od -Ax -tx1 or Wireshark dump is read as the bytes it shows;
//   - padded base64 without spaces inside a line is base64;
//   - any other text is an error wrapping ErrFormat, and white space alone wraps ErrEmpty.
func DecodeSource(data []byte, f Format) ([]byte, Source, error) {
	return DecodeSourceMax(data, f, MaxDumpRepeat)
}

// DecodeSourceMax is [DecodeSource] with maxRepeat, the bytes that the "*" lines of a hexdump -C
// dump may stand for, in place of MaxDumpRepeat.
func DecodeSourceMax(data []byte, f Format, maxRepeat int) ([]byte, Source, error) {
	switch f {
	case Raw:
		return data, Source{Format: Raw}, nil
	case Hex:
		if b, d, ok, err := ReadDump(data, maxRepeat); ok {
			return b, Source{Format: Hex, Dump: d}, err
		}
		b, err := decodeHex(data)
		return b, Source{Format: Hex}, err
	case Base64:
		b, err := decodeBase64(data, false)
		return b, Source{Format: Base64}, err
	case Dump:
		b, d, ok, err := ReadDump(data, maxRepeat)
		if !ok {
			return nil, Source{}, inputErr(ErrFormat, "not a hex dump (want lines of an offset and hex bytes whose offsets follow the bytes, as xxd, hexdump -C, od -Ax -tx1 or Wireshark print them)")
		}
		return b, Source{Format: Hex, Dump: d}, err
	case Auto, "":
		return detect(data, maxRepeat)
	}
	return nil, Source{}, fmt.Errorf("unknown input format %q", f)
}

func detect(data []byte, maxRepeat int) ([]byte, Source, error) {
	if len(data) == 0 {
		return nil, Source{}, inputErr(ErrEmpty, "no input: give a file, hex, or the bytes on standard input")
	}
	if !isText(data) {
		return data, Source{Format: Raw}, nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, Source{}, inputErr(ErrEmpty, "the input is only white space (%s; --format raw reads them as bytes)", plural(len(data), "byte"))
	}
	if b, d, ok, err := ReadDump(data, maxRepeat); ok {
		return b, Source{Format: Hex, Dump: d, Guessed: true}, err
	}
	digits, bad, badAt := hexDigits(data)
	if bad == 0 {
		if digits == "" {
			return nil, Source{}, inputErr(ErrEmpty, "the input holds only separators, no hex digits")
		}
		if len(digits)%2 != 0 {
			return nil, Source{}, inputErr(ErrFormat, "this looks like hex, but it has an odd number of digits (%d): a digit is missing or one too many", len(digits))
		}
		b, err := hex.DecodeString(digits)
		return b, Source{Format: Hex}, err
	}
	if b, err := decodeBase64(data, true); err == nil {
		return b, Source{Format: Base64, Guessed: true}, nil
	}
	if bad <= len(digits)/8 {
		r, _ := utf8.DecodeRune(data[badAt:])
		return nil, Source{}, inputErr(ErrFormat, "this looks like hex, but %q at byte %d is not a hex digit", r, badAt)
	}
	return nil, Source{}, inputErr(ErrFormat, "this looks like text, but it is neither hex nor padded base64 (use --format raw to read its bytes as they are)")
}

// isText reports whether data is UTF-8 text of printable characters and white space.
func isText(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	for _, r := range string(data) {
		if !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// isSep reports the characters allowed between hex digits.
func isSep(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ':', ',':
		return true
	}
	return false
}

// hexDigits returns the hex digits of text without separators and "0x" prefixes, the number of
// other characters, and the byte offset of the first of them.
func hexDigits(text []byte) (digits string, bad, badAt int) {
	var sb strings.Builder
	badAt = -1
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '0' && i+1 < len(text) && (text[i+1] == 'x' || text[i+1] == 'X') && (i == 0 || isSep(text[i-1])):
			i++
		case isSep(c):
		case isHex(c):
			sb.WriteByte(c)
		default:
			if badAt < 0 {
				badAt = i
			}
			bad++
		}
	}
	return sb.String(), bad, badAt
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func decodeHex(data []byte) ([]byte, error) {
	digits, bad, badAt := hexDigits(data)
	if bad > 0 {
		r, _ := utf8.DecodeRune(data[badAt:])
		return nil, inputErr(ErrFormat, "hex input: %q at byte %d is not a hex digit", r, badAt)
	}
	if digits == "" {
		return nil, inputErr(ErrEmpty, "no hex digits")
	}
	if len(digits)%2 != 0 {
		return nil, inputErr(ErrFormat, "hex input has an odd number of digits (%d)", len(digits))
	}
	return hex.DecodeString(digits)
}

// decodeBase64 reads base64 text. Line breaks may separate lines; with strict set, the text must
// be padded to a multiple of 4 characters and hold no spaces inside a line.
func decodeBase64(data []byte, strict bool) ([]byte, error) {
	var sb strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strict && strings.ContainsAny(line, " \t") {
			return nil, inputErr(ErrFormat, "base64 input: a space inside a line")
		}
		sb.WriteString(strings.Join(strings.Fields(line), ""))
	}
	s := sb.String()
	if s == "" {
		return nil, inputErr(ErrEmpty, "no base64 characters")
	}
	encs := []*base64.Encoding{base64.StdEncoding, base64.URLEncoding}
	if !strict {
		encs = append(encs, base64.RawStdEncoding, base64.RawURLEncoding)
	} else if len(s)%4 != 0 {
		return nil, inputErr(ErrFormat, "base64 input: %d characters, not a multiple of 4", len(s))
	}
	for _, enc := range encs {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, inputErr(ErrFormat, "base64 input: not valid base64")
}

// article returns "an" before a word said with a vowel sound (xxd: "ex-ex-dee"), else "a".
func article(word string) string {
	if strings.HasPrefix(word, "xxd") {
		return "an"
	}
	return "a"
}

// plural says n what, with an s unless n is 1: "1 byte", "2 bytes".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
