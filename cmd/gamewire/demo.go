package main

import (
	"io"

	"github.com/gamewire/gamewire/cmd/gamewire/internal/demo"
)

func init() {
	register(command{area: "demo", summary: "show the codecs at work on real captured traffic (no setup needed)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
			fs := newCmdFlags("demo", "", "", "Decodes and explains a value the real Godot 3.2.3 engine wrote, the protocol\ndocumentation's GSF request, and a GSF round trip over loopback TCP.", stderr)
			if err := parseCmdFlags(fs, args, 0); err != nil {
				return err
			}
			return demo.Run(stdout)
		}})
}
