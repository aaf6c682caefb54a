package main

import (
	"fmt"
	"io"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/explain"
)

// bitsExplain is "gamewire bits explain": a field list's explanation in the one model.
func bitsExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("bits", "explain", "[FILE|HEX]",
		"Explains a BitProtocol bit stream by a field list bit by bit: every field with its bit offset,\nbit length and value, and the groups of bits it is made of (a compressed integer's form and\nvalue bits, a string's length, alignment and bytes). --json prints the explanation as one\nJSON line (docs/explain.md). FILE defaults to standard input.\n\n"+fieldTypesHelp, stderr)
	spec := fs.String("fields", "", "the field `list` (required)")
	in := addInputFlags(fs)
	offset := fs.Int("offset", 0, "start decoding at this `bit`")
	asJSON := fs.Bool("json", false, "print JSON Lines: one explanation frame (docs/explain.md)")
	maxFields := addMaxFieldsFlag(fs)
	if err := parseCmdFlags(fs, args, 1); err != nil {
		return err
	}
	if err := checkMaxFields(*maxFields); err != nil {
		return err
	}
	if *spec == "" {
		fmt.Fprintln(stderr, "gamewire bits explain: --fields is required")
		fs.Usage()
		return errUsage
	}
	fields, err := bitproto.ParseFields(*spec)
	if err != nil {
		return err
	}
	data, err := in.read(fs, stdin)
	if err != nil {
		return err
	}
	fr, derr := bitproto.ExplainFields(data, *offset, fields, explain.NewBudget(*maxFields))
	if *asJSON {
		err = explain.WriteJSON(stdout, fr)
	} else {
		err = explain.WriteText(stdout, data, fr)
	}
	if err != nil {
		return err
	}
	noteTruncated(stderr, "bits explain", []*explain.Frame{fr}, *maxFields)
	return derr
}
