package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/gamewire/gamewire/inspect"
	"github.com/gamewire/gamewire/inspect/web"
)

func init() {
	register(command{area: "inspect", summary: "a packet inspector in the browser: hex view, field tree, every bit (--export DIR: static site)", run: inspectCmd})
}

func inspectCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("inspect", "", "",
		"Serves the packet inspector on loopback and prints its URL: paste hex, base64 or a hex dump, or\n"+
			"drop a file, and see every byte (and bit) coloured by the field it belongs to, beside the tree\n"+
			"of fields. Formats: "+formatList()+".\n\n"+
			"--export DIR writes the same page as a static site instead (the decoder compiled to\n"+
			"WebAssembly with the local Go toolchain); serve DIR with any static file server.", stderr)
	addr := fs.String("addr", "127.0.0.1:7373", "listen `address` (host:port; port 0 picks a free one)")
	export := fs.String("export", "", "write the static site into `DIR` and exit")
	allowHost := fs.String("allow-host", "", "host `names` (comma-separated) that requests may name besides IP literals and localhost,\nfor an inspector reached by a name of its own (any other Host is refused: DNS rebinding)")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	if *export != "" {
		if err := web.Export(context.Background(), *export, web.ExportOptions{}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the inspector to %s; serve it with any static file server, e.g.\n  python3 -m http.server -d %s 8000\n", *export, *export)
		return nil
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("%w (choose another with --addr 127.0.0.1:0)", err)
	}
	fmt.Fprintf(stdout, "gamewire inspector: http://%s/\n", l.Addr())
	ctx, stop := serveContext()
	defer stop()
	var hosts []string
	for h := range strings.SplitSeq(*allowHost, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return web.Serve(ctx, l, &web.Options{Hosts: hosts})
}

func formatList() string {
	s := ""
	for i, f := range inspect.Formats() {
		if i > 0 {
			s += ", "
		}
		s += f.Title
	}
	return s
}
