//go:build js && wasm

// Command wasm is the inspector's decoder for the static site: built with GOOS=js GOARCH=wasm,
// it defines gamewireExplain(requestJSON) and gamewireFormats() for the page, which call the
// same inspect.Explain as the gamewire server. "gamewire inspect --export DIR" builds it.
package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/gamewire/gamewire/inspect"
)

func main() {
	js.Global().Set("gamewireExplain", js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) != 1 {
			return errorJSON("gamewireExplain takes one argument, the request as JSON")
		}
		var req inspect.Request
		if err := json.Unmarshal([]byte(args[0].String()), &req); err != nil {
			return errorJSON("bad request: " + err.Error())
		}
		ex, err := inspect.Explain(req)
		if err != nil {
			return errorJSON(err.Error())
		}
		b, err := json.Marshal(struct {
			Explanation *inspect.Explanation `json:"explanation"`
		}{ex})
		if err != nil {
			return errorJSON(err.Error())
		}
		return string(b)
	}))
	js.Global().Set("gamewireFormats", js.FuncOf(func(this js.Value, args []js.Value) any {
		b, err := json.Marshal(inspect.Formats())
		if err != nil {
			return errorJSON(err.Error())
		}
		return string(b)
	}))
	select {}
}

func errorJSON(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}
