// Command catalogen writes types_gen.go and registry_gen.go of package messages from
// catalog.txt. Run it with "go generate ./gsf/messages".
package main

import (
	"log"
	"os"

	"github.com/gamewire/gamewire/gsf/messages/internal/schema"
)

func main() {
	in, dir := "catalog.txt", "."
	if len(os.Args) == 3 {
		in, dir = os.Args[1], os.Args[2]
	}
	data, err := os.ReadFile(in)
	if err != nil {
		log.Fatal(err)
	}
	files, err := schema.Generate(data)
	if err != nil {
		log.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(dir+"/"+name, src, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
