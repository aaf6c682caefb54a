// Command gamewire inspects, converts and explains game wire formats: Godot's binary Variant
// serialization and the BitProtocol/GSF messages of an MMO client.
//
// Usage:
//
//	gamewire <area> <verb> [flags] [input]
//
// Run "gamewire help" for the list of verbs.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one "gamewire <area> <verb>" entry. Each area registers its verbs from its own file
// with register, so that areas do not edit each other's files.
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
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	var areaMatched bool
	for _, c := range commands {
		if c.area != args[0] {
			continue
		}
		areaMatched = true
		if c.verb == "" || (len(args) > 1 && args[1] == c.verb) {
			rest := args[1:]
			if c.verb != "" {
				rest = args[2:]
			}
			if err := c.run(rest, stdin, stdout, stderr); err != nil {
				if err == errUsage {
					return 2
				}
				if errors.Is(err, flag.ErrHelp) {
					return 0 // -h: the flag package has printed the usage
				}
				fmt.Fprintf(stderr, "gamewire %s: %v\n", strings.TrimSpace(c.area+" "+c.verb), err)
				return 1
			}
			return 0
		}
	}
	if areaMatched {
		fmt.Fprintf(stderr, "gamewire: unknown verb %q for %s\n\n", strings.Join(args[1:min(2, len(args))], ""), args[0])
	} else {
		fmt.Fprintf(stderr, "gamewire: unknown command %q\n\n", args[0])
	}
	usage(stderr)
	return 2
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
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "gamewire <command> -h" for the flags of one command.`)
}
