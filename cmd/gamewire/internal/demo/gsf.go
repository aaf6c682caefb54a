package demo

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// gsfSample is the annotated example of the BitProtocol documentation (the seed): a framed
// GetClientVersionInfo request from the game client, body "AmazingWorld".
const gsfSample = "15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00"

func init() {
	addStep("BitProtocol/GSF: the client's GetClientVersionInfo request, bit by bit", gsfStep)
}

// versionInfoRequest is the body of GetClientVersionInfo: the client's name.
type versionInfoRequest struct {
	ClientName string
}

func gsfStep(w io.Writer) error {
	data, err := hex.DecodeString(string(bytes.ReplaceAll([]byte(gsfSample), []byte(" "), nil)))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "$ echo '%s' | gamewire gsf explain --body string\n", gsfSample)
	body, err := bitproto.ParseFields("string")
	if err != nil {
		return err
	}
	ex, err := gsf.Explain(data, gsf.ExplainOptions{Body: body})
	if err != nil {
		return err
	}
	if err := ex.WriteText(w); err != nil {
		return err
	}
	// The documentation's annotation is off by two bits in three places; the reference
	// implementation writes the bits where the explanation shows them.
	fmt.Fprintln(w, "\n(The protocol documentation annotates flags = 0 at bit 14, requestId = 1 at bit 51 and the")
	fmt.Fprintln(w, "logCorrelator length at bit 57; the reference implementation writes them at bits 12, 49 and 55.)")

	m, n, err := gsf.ConsumeMessage(data)
	if err != nil {
		return err
	}
	var req versionInfoRequest
	if err := m.DecodeBody(&req); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nDecoded from Go (%d bytes): %s, body %+v\n", n, m.Header.String(), req)

	h := gsf.NewRequest(gsf.SvcUserServer, m.Header.MsgType, m.Header.RequestID)
	again, err := gsf.AppendMessage(nil, &h, &req)
	if err != nil {
		return err
	}
	if !bytes.Equal(again, data) {
		return fmt.Errorf("re-encoded GSF message differs: % x", again)
	}
	fmt.Fprintf(w, "Re-encoded by gamewire: %d bytes, identical to the documentation's.\n", len(again))
	return nil
}
