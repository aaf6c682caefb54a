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

	"github.com/gamewire/gamewire/internal/cliio"
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
	fs.Usage = func() {
		nflags := 0
		fs.VisitAll(func(*flag.Flag) { nflags++ })
		if nflags == 0 {
			fmt.Fprintf(fs.Output(), "Usage: %s %s\n\n%s\n", name, args, about)
			return
		}
		fmt.Fprintf(fs.Output(), "Usage: %s [flags] %s\n\n%s\n\nFlags (before or after the arguments):\n", name, args, about)
		fs.PrintDefaults()
	}
	return fs
}

// parseCmdFlags parses args, which may mix flags and positional arguments in any order ("--"
// ends the flags), and allows at most maxArgs positional arguments. Afterwards fs.Args() holds
// the positional arguments. It returns flag.ErrHelp for -h (the usage has been printed) and
// errUsage for a mistake (the problem and the usage have been printed).
func parseCmdFlags(fs *flag.FlagSet, args []string, maxArgs int) error {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage // the flag package has printed the problem and the usage
	}
	if len(pos) > maxArgs {
		fmt.Fprintf(fs.Output(), "too many arguments: %q (%s takes at most %d)\n", pos, fs.Name(), maxArgs)
		fs.Usage()
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
	return inputFlags{fs.String("format", "auto", "input `encoding`: auto, hex, base64 or raw (auto also reads xxd, hexdump -C, od -Ax -tx1 and Wireshark dumps)")}
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
	f, err := cliio.ParseFormat(format)
	if err != nil {
		return nil, err
	}
	data, src, err := cliio.ReadArg(fs.Arg(0), stdin, f)
	if err != nil {
		return nil, err
	}
	if note := src.Note(); note != "" {
		fmt.Fprintf(fs.Output(), "%s: %s\n", fs.Name(), note)
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
	_, err := cliio.ParseOutput(*o.format)
	return err
}

// write writes b as the flags ask: raw into the --out file, else in the --output encoding.
func (o outputFlags) write(stdout io.Writer, b []byte) error {
	if *o.file != "" && *o.file != "-" {
		return os.WriteFile(*o.file, b, 0o644)
	}
	f, err := cliio.ParseOutput(*o.format)
	if err != nil {
		return err
	}
	if *o.file == "-" {
		f = cliio.Raw
	}
	return cliio.Write(stdout, b, f)
}
