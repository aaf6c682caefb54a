package gsf_test

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// GetClientVersionInfo is the body of the first request the client sends.
type GetClientVersionInfo struct {
	ClientName string
}

func ExampleAppendMessage() {
	h := gsf.NewRequest(gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, 1)
	frame, err := gsf.AppendMessage(nil, &h, &GetClientVersionInfo{ClientName: "AmazingWorld"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", frame)
	// Output: 15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00
}

func ExampleReadMessage() {
	// Two frames on a stream: the request and the reference server's response.
	stream := bytes.NewReader([]byte{
		0x15, 0x20, 0xc2, 0x5c, 0x04, 0x6d, 0x0c, 0x0c, 0x18, 'A', 'm', 'a', 'z', 'i', 'n', 'g', 'W', 'o', 'r', 'l', 'd', 0x00,
		0x15, 0x21, 0xc2, 0x5c, 0x04, 0x6d, 0x0c, 0x10, 0x30, 0x58, '1', '3', '3', '8', '5', '2', '.', 't', 'r', 'u', 'e', 0x00,
	})
	fr := gsf.NewFrameReader(stream)
	for {
		m, err := gsf.ReadMessage(fr)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		var body struct{ Text string }
		if err := m.DecodeBody(&body); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v: %q\n", &m.Header, body.Text)
	}
	// Output:
	// request USER_SERVER/GET_CLIENT_VERSION_INFO id=1: "AmazingWorld"
	// response USER_SERVER/GET_CLIENT_VERSION_INFO id=1: "133852.true"
}

// A connection's read loop reads each message into a struct of its own and answers it with an
// Encoder of its own, appending the responses to one buffer that a single write sends.
func ExampleEncoder() {
	var stream []byte
	for id := range int32(2) {
		h := gsf.NewRequest(gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, id+1)
		stream, _ = gsf.AppendMessage(stream, &h, &GetClientVersionInfo{ClientName: "AmazingWorld"})
	}
	fr := gsf.NewFrameReader(bytes.NewReader(stream))
	var req struct {
		header gsf.Header
		body   gsf.RawBody
	}
	var enc gsf.Encoder
	var out []byte
	for {
		err := fr.ReadMessageInto(&req.header, &req.body)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		resp := gsf.NewResponse(&req.header)
		if out, err = enc.AppendMessage(out, &resp, &struct{ Text string }{"133852.true"}); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("% x\n", out) // the first response is the reference server's, byte for byte
	// Output: 15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00 15 21 c2 5c 04 6d 14 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00
}

func ExampleNewResponse() {
	req := gsf.NewRequest(gsf.SvcUserServer, 15, 7) // LOGIN
	resp := gsf.NewResponse(&req)
	resp.ResultCode, resp.AppCode, resp.AppString = gsf.ResultErr, gsf.AppAuth, "wrong password"
	frame, _ := gsf.AppendMessage(nil, &resp, nil) // error responses have a null body
	m, _, _ := gsf.ConsumeMessage(frame)
	fmt.Println(&m.Header, m.Body.IsNull())
	// Output: response USER_SERVER/LOGIN id=7 result=ERR app=AUTH "wrong password" true
}

func ExampleExplain() {
	frame := []byte{0x15, 0x20, 0xc2, 0x5c, 0x04, 0x6d, 0x0c, 0x0c, 0x18, 'A', 'm', 'a', 'z', 'i', 'n', 'g', 'W', 'o', 'r', 'l', 'd', 0x00}
	body, _ := bitproto.ParseFields("clientName:string")
	ex, err := gsf.Explain(frame, gsf.ExplainOptions{Body: body})
	if err != nil {
		fmt.Println(err)
		return
	}
	ex.WriteText(os.Stdout)
	// Output:
	// frame 1 at byte 0: 22 bytes, length 21, request USER_SERVER/GET_CLIENT_VERSION_INFO id=1
	// Bit   0:     [00010101]           -> length prefix = 21: 20 payload bytes + the 0x00 terminator
	// Bit   8:     [0]                  -> message is not null
	// Bit   9:     [0]                  -> header is not null
	// Bit  10:     [1][0]               -> flags compressed, 0 bytes -> 4-bit value
	// Bit  12:     [0000]               -> flags = 0 (request)
	// Bit  16:     [1][1][0]            -> svcClass compressed, 1 byte follows
	// Bit  19:     [00010010]           -> svcClass = 18 (USER_SERVER)
	// Bit  27:     [1][1][1][0]         -> msgType compressed, 2 bytes follow
	// Bit  31:     [0000001000110110]   -> msgType = 566 (GET_CLIENT_VERSION_INFO)
	// Bit  47:     [1][0]               -> requestId compressed, 0 bytes -> 4-bit value
	// Bit  49:     [0001]               -> requestId = 1
	// Bit  53:     [1][0]               -> logCorrelator length compressed, 0 bytes -> 4-bit value
	// Bit  55:     [0000]               -> length = 0 (empty string, no alignment)
	// Bit  59:     [0]                  -> body is not null
	// Bit  60:     [1][1][0]            -> clientName length compressed, 1 byte follows
	// Bit  63:     [00001100]           -> length = 12
	// Bit  71:     [0]                  -> align: skip to the byte boundary
	// Bits 72–167:                      -> clientName = "AmazingWorld" (12 bytes, 96 bits)
	// Bit 168:     [00000000]           -> terminator 0x00
}
