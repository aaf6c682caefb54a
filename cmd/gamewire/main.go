// Command gamewire inspects, converts and explains game wire formats: Godot's binary Variant
// serialization and the BitProtocol/GSF messages of an MMO client.
//
// Usage:
//
//	gamewire <area> <verb> [flags] [input]
//
// Run "gamewire help" for the list of commands, "gamewire help <command>" for the flags of one,
// and "gamewire version" for the version.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
)

// command is one "gamewire <area> <verb>" entry. Each area registers its verbs from its own file
// with register, so that areas do not edit each other's files. A verb of two words ("mp decode")
// makes a group of verbs under its first word ("gamewire godot mp" lists them).
type command struct {
	area, verb string
	summary    string
	run        func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands []command

func register(c command) { commands = append(commands, c) }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns the process exit status: 0 on success, 1 when the
// command failed, 2 on a usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return 0
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return help(args[1:], stdin, stdout)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, versionText())
		return 0
	}
	area := args[0]
	verbs := areaCommands(area)
	if len(verbs) == 0 {
		fmt.Fprintf(stderr, "gamewire: unknown command %q\n\n", area)
		usage(stderr)
		return 2
	}
	if verbs[0].verb == "" { // a command without verbs: demo, serve, call
		return runCommand(verbs[0], args[1:], stdin, stdout, stderr)
	}
	c, rest, group := findVerb(verbs, args[1:])
	switch {
	case c != nil:
		return runCommand(*c, rest, stdin, stdout, stderr)
	case len(rest) == 0 || isHelpArg(rest[0]) || rest[0] == "help":
		areaUsage(stdout, area, group)
		return 0
	}
	fmt.Fprintf(stderr, "gamewire: unknown verb %q for %s\n\n", rest[0], strings.TrimSpace(area+" "+group))
	areaUsage(stderr, area, group)
	return 2
}

// findVerb finds the command that args (after the area) name, and returns it with the arguments
// after its verb. Without one, it returns the group of verbs the first words name ("mp", or ""
// for the area) and the words after them.
func findVerb(verbs []command, args []string) (c *command, rest []string, group string) {
	best := -1
	for i, v := range verbs {
		w := strings.Fields(v.verb)
		if len(w) <= len(args) && slices.Equal(w, args[:len(w)]) && (best < 0 || len(w) > len(strings.Fields(verbs[best].verb))) {
			best = i
		}
	}
	if best >= 0 {
		return &verbs[best], args[len(strings.Fields(verbs[best].verb)):], ""
	}
	if len(args) > 0 {
		for _, v := range verbs {
			if w := strings.Fields(v.verb); len(w) > 1 && w[0] == args[0] {
				return nil, args[1:], args[0]
			}
		}
	}
	return nil, args, ""
}

func isHelpArg(s string) bool { return s == "-h" || s == "-help" || s == "--help" }

// runCommand runs one command and turns its result into an exit status.
func runCommand(c command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := c.run(args, stdin, stdout, stderr)
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case err == errUsage:
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 0 // -h: the usage has been printed
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %v\n%s\n", c.name(), err, helpHint(c.name()))
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
	return 1
}

// help runs "gamewire help [area [verb]]": the usage of everything, of an area, or of one
// command (its -h text, on standard output).
func help(args []string, stdin io.Reader, stdout io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return 0
	}
	switch args[0] {
	case "help":
		fmt.Fprintln(stdout, "Usage: gamewire help [command]\n\nLists the commands, or prints the usage and flags of one command (as its -h does):\n  gamewire help godot decode\n  gamewire help godot mp serve")
		return 0
	case "version":
		fmt.Fprintln(stdout, "Usage: gamewire version\n\nPrints the version of this program, the VCS revision it was built from (+modified when the\ntree had changes), the Go version and the platform.")
		return 0
	}
	verbs := areaCommands(args[0])
	if len(verbs) == 0 {
		fmt.Fprintf(stdout, "gamewire: no help for %q: not a command\n\n", args[0])
		usage(stdout)
		return 2
	}
	if verbs[0].verb == "" {
		return runCommand(verbs[0], []string{"-h"}, stdin, stdout, stdout)
	}
	c, rest, group := findVerb(verbs, args[1:])
	switch {
	case c != nil && len(rest) == 0:
		return runCommand(*c, []string{"-h"}, stdin, stdout, stdout)
	case c == nil && len(rest) == 0:
		areaUsage(stdout, args[0], group)
		return 0
	}
	fmt.Fprintf(stdout, "gamewire: no help for %q\n\n", strings.Join(args, " "))
	areaUsage(stdout, args[0], group)
	return 2
}

// areaCommands returns the commands of an area, sorted by verb.
func areaCommands(area string) []command {
	var cs []command
	for _, c := range commands {
		if c.area == area {
			cs = append(cs, c)
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].verb < cs[j].verb })
	return cs
}

func (c command) name() string { return strings.TrimSpace("gamewire " + c.area + " " + c.verb) }

// areaUsage lists the verbs of one area, or of one group of verbs in it ("" for all).
func areaUsage(w io.Writer, area, group string) {
	name := strings.TrimSpace(area + " " + group)
	fmt.Fprintf(w, "Usage: gamewire %s <verb> [flags] [input]\n\n", name)
	for _, c := range areaCommands(area) {
		if group == "" || strings.HasPrefix(c.verb, group+" ") {
			fmt.Fprintf(w, "  %-22s %s\n", c.area+" "+c.verb, c.summary)
		}
	}
	fmt.Fprintf(w, "\nRun \"gamewire help %s <verb>\" for the flags of one verb.\n", name)
}

// version is set at link time (-ldflags "-X main.version=v1.2.3"); without it, the module
// version and VCS revision recorded in the binary are shown.
var version string

func versionText() string {
	v, rev := version, ""
	goVersion := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" && modified {
			rev += "+modified"
		}
	}
	if v == "" {
		v = "(devel)"
	}
	s := "gamewire " + v
	if rev != "" {
		s += " " + rev
	}
	return s + " " + goVersion + " " + runtime.GOOS + "/" + runtime.GOARCH
}

// errUsage is returned by a command that has already printed its usage message. A command
// asked for -h returns flag.ErrHelp instead, which exits with status 0.
var errUsage = fmt.Errorf("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "gamewire: inspect, convert and explain game wire formats")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: gamewire <command> [flags] [input]")
	fmt.Fprintln(w)
	cs := append([]command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].area != cs[j].area {
			return cs[i].area < cs[j].area
		}
		return cs[i].verb < cs[j].verb
	})
	for _, c := range cs {
		fmt.Fprintf(w, "  %-22s %s\n", strings.TrimSpace(c.area+" "+c.verb), c.summary)
	}
	fmt.Fprintf(w, "  %-22s %s\n", "help [command]", "this text, or the flags of one command")
	fmt.Fprintf(w, "  %-22s %s\n", "version", "the version of this program")
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "gamewire <command> -h" for the flags of one command; flags may come before or after`)
	fmt.Fprintln(w, `the input argument. Byte input is a file, hex given as the argument, or standard input.`)
}
