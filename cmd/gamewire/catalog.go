package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gamewire/gamewire/gsf/messages"
)

func init() {
	register(command{area: "gsf", verb: "messages", summary: "the message catalog: every known body, or one body's fields", run: gsfMessages})
}

func gsfMessages(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("gsf", "messages", "[NAME]",
		"Lists the bodies of the message catalog (package gsf/messages) with their service class,\n"+
			"message type and Go type; with NAME (a Go type such as LoginRequest, or an object type such\n"+
			"as Player) prints its fields in wire order, with their wire types: the field names\n"+
			"\"gamewire call --request\" takes.", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseCmdFlags(fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() == 1 {
		name := fs.Arg(0)
		layout, ok := messages.Layout(name)
		if !ok {
			return fmt.Errorf("%q is neither a body nor an object type of the catalog (gamewire gsf messages lists them)", name)
		}
		if *asJSON {
			return writeJSON(stdout, layout)
		}
		var b strings.Builder
		if e, ok := messages.ByName(name); ok {
			fmt.Fprintf(&b, "%s: the body of %s/%s (%d/%d) %s\n", e.Name, e.Class, e.MessageName, e.Class, e.Type, e.Kind)
		} else {
			fmt.Fprintf(&b, "%s: an object type (a null bit, then these fields)\n", name)
		}
		for _, f := range layout {
			if f.Inline {
				fmt.Fprintf(&b, "  ...%s (its fields, inline)\n", f.Type)
				continue
			}
			fmt.Fprintf(&b, "  %-28s %s\n", f.Name, f.Type)
		}
		_, err := io.WriteString(stdout, b.String())
		return err
	}
	type row struct {
		Class   string `json:"svcClass"`
		Type    int32  `json:"msgType"`
		Message string `json:"message"`
		Kind    string `json:"kind"`
		GoType  string `json:"goType"`
	}
	var rows []row
	for _, e := range messages.Entries() {
		rows = append(rows, row{e.Class.String(), e.Type, e.MessageName, e.Kind.String(), e.Name})
	}
	if *asJSON {
		return writeJSON(stdout, rows)
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-12s %4d %-32s %-9s %s\n", r.Class, r.Type, r.Message, r.Kind, r.GoType)
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}
