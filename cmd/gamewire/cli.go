package main

// The plumbing every command shares: flag sets that accept flags after the positional
// arguments, reading byte input (file, hex argument or stdin; strictly detected encoding) and
// writing byte output (--output hex|base64|raw, --out FILE). A command keeps its own logic in its
// own file and uses these:
//
//	fs := newCmdFlags("gsf", "decode", "[FILE|HEX]", about, stderr)
//	in := addInputFlags(fs)            // --format
//	out := addOutputFlags(fs)          // --output, --out (encoders)
//	if err := parseCmdFlags(fs, args, 1); err != nil { return err }
//	data, err := in.read(fs, stdin)    // notes a guessed encoding on stderr
//	return out.write(stdout, b)

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/internal/byteinput"
)

// newCmdFlags returns a flag set for "gamewire AREA VERB" that prints its usage to stderr. args
// describes the positional arguments for the usage line.
func newCmdFlags(area, verb, args, about string, stderr io.Writer) *flag.FlagSet {
	name := "gamewire " + area
	if verb != "" {
		name += " " + verb
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("q", false, "quiet: no notes on standard error (how the input was read, bytes ignored)")
	fs.Usage = func() {
		line := name + " [flags]"
		if args != "" {
			line += " " + args
		}
		fmt.Fprintf(fs.Output(), "Usage: %s\n\n%s\n\nFlags (before or after the arguments):\n", line, about)
		fs.PrintDefaults()
	}
	return fs
}

// notes returns where a command writes its notes: the flag set's output (stderr), or nowhere
// with -q.
func notes(fs *flag.FlagSet) io.Writer {
	if q := fs.Lookup("q"); q != nil && q.Value.String() == "true" {
		return io.Discard
	}
	return fs.Output()
}

// usageError is a mistake on the command line that the command found after parsing its flags:
// a bad flag value, a missing flag, flags that exclude each other. The command exits with
// status 2 and the message names it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a *usageError.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// asUsage makes err, the error of parsing a flag's value, a usage error that names the flag.
func asUsage(flagName string, err error) error {
	if err == nil {
		return nil
	}
	return &usageError{"--" + flagName + ": " + err.Error()}
}

// helpHint is the line that follows a usage error.
func helpHint(name string) string {
	return fmt.Sprintf("Run \"gamewire help %s\" for its flags.", strings.TrimPrefix(name, "gamewire "))
}

// parseCmdFlags parses args, which may mix flags and positional arguments in any order ("--"
// ends the flags), and allows at most maxArgs positional arguments. Afterwards fs.Args() holds
// the positional arguments. It returns flag.ErrHelp for -h (the usage has been printed) and
// errUsage for a mistake (the problem and the usage have been printed).
func parseCmdFlags(fs *flag.FlagSet, args []string, maxArgs int) error {
	// The flag package prints the whole usage after an unknown flag; print one line instead.
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	pos, err := parseInterspersed(fs, args)
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return err
		}
		fmt.Fprintf(out, "%s: %v\n%s\n", fs.Name(), err, helpHint(fs.Name()))
		return errUsage
	}
	if len(pos) > maxArgs {
		switch maxArgs {
		case 0:
			fmt.Fprintf(out, "%s: too many arguments: %q (it takes none)\n%s\n", fs.Name(), pos, helpHint(fs.Name()))
		default:
			fmt.Fprintf(out, "%s: too many arguments: %q (it takes at most %d)\n%s\n", fs.Name(), pos, maxArgs, helpHint(fs.Name()))
		}
		return errUsage
	}
	return nil
}

// parseInterspersed parses the flags among args and returns the positional arguments. The flag
// package stops at the first positional argument; this parses on after it.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			pos = append(pos, rest...) // everything after "--" is an argument
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	// Leave the positional arguments in fs.Args() for the commands that read them there.
	if err := fs.Parse(append([]string{"--"}, pos...)); err != nil {
		return nil, err
	}
	return pos, nil
}

// inputFlags is the --format flag of a command that reads bytes.
type inputFlags struct{ format *string }

func addInputFlags(fs *flag.FlagSet) inputFlags {
	return inputFlags{fs.String("format", "auto", "input `encoding`: auto, hex, hexdump, base64 or raw (auto also reads xxd, hexdump -C, od -Ax -tx1 and Wireshark dumps)")}
}

// read reads the bytes of the positional argument: a file, hex when no file has that name, or
// standard input when there is no argument or it is "-".
func (in inputFlags) read(fs *flag.FlagSet, stdin io.Reader) ([]byte, error) {
	return readInput(fs, *in.format, stdin)
}

// readInput reads the positional FILE argument (standard input without one; hex given as the
// argument itself when no such file exists) in the given --format. When the encoding was
// guessed it says so on the flag set's output (stderr).
func readInput(fs *flag.FlagSet, format string, stdin io.Reader) ([]byte, error) {
	f, err := byteinput.ParseFormat(format)
	if err != nil {
		return nil, asUsage("format", err)
	}
	data, src, err := byteinput.ReadArg(fs.Arg(0), stdin, f)
	if err != nil {
		return nil, err
	}
	if note := src.Note(); note != "" {
		fmt.Fprintf(notes(fs), "%s: %s\n", fs.Name(), note)
	}
	if len(data) == 0 {
		return nil, errors.New("no input bytes")
	}
	return data, nil
}

// outputFlags are the --output and --out flags of a command that writes bytes.
type outputFlags struct{ format, file *string }

func addOutputFlags(fs *flag.FlagSet) outputFlags {
	return outputFlags{
		format: fs.String("output", "hex", "output `encoding`: hex, base64 or raw"),
		file:   fs.String("out", "", "write the raw bytes to `FILE` instead (- for standard output)"),
	}
}

// check validates the flags before any work is done.
func (o outputFlags) check() error {
	_, err := byteinput.ParseOutput(*o.format)
	return asUsage("output", err)
}

// write writes b as the flags ask: raw into the --out file, else in the --output encoding.
func (o outputFlags) write(stdout io.Writer, b []byte) error {
	if *o.file != "" && *o.file != "-" {
		return os.WriteFile(*o.file, b, 0o644)
	}
	f, err := byteinput.ParseOutput(*o.format)
	if err != nil {
		return err
	}
	if *o.file == "-" {
		f = byteinput.Raw
	}
	return byteinput.Write(stdout, b, f)
}

// plural returns "1 byte", "2 bytes": n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
