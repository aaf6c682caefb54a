package main

import (
	"io"

	"github.com/gamewire/gamewire/internal/demo"
)

func init() {
	register(command{area: "demo", summary: "show the codecs at work on real captured traffic (no setup needed)",
		run: func(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
			return demo.Run(stdout)
		}})
}
