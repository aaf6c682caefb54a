package main

import (
	"encoding/json"
	"github.com/gamewire/gamewire/explain"
	"strings"
	"testing"
)

const (
	seedRequestHex  = "15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00"
	seedResponseHex = "15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00"
)

func TestGSFDecodeExample(t *testing.T) {
	out, errOut, code := runCLI(t, seedRequestHex+"\n"+seedResponseHex, "gsf", "decode", "--body", "text:string")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"frame 1 at byte 0: 22 bytes (length 21), request\n",
		"  flags          0 (request)\n",
		"  svcClass       18 (USER_SERVER)\n",
		"  msgType        566 (GET_CLIENT_VERSION_INFO)\n",
		"  requestId      1\n",
		"  logCorrelator  \"\"\n",
		"    text         string   \"AmazingWorld\"  (bit 60, 108 bits)\n",
		"frame 2 at byte 22: 22 bytes (length 21), response\n",
		"  resultCode     0 (OK)\n",
		"  appCode        0 (OK)\n",
		"    text         string   \"133852.true\"  (bit 66, 102 bits)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}

	out, _, code = runCLI(t, seedRequestHex+seedResponseHex, "gsf", "decode", "--json", "--body", "clientName:string")
	frames := jsonLines[explain.Frame](t, out)
	if code != 0 || len(frames) != 2 {
		t.Fatalf("JSON %s", out)
	}
	f := frames[0]
	byName := map[string]*explain.Field{}
	for _, fl := range f.Fields {
		byName[fl.Name] = fl
	}
	if f.Format != "gsf" || f.Summary != "request USER_SERVER/GET_CLIENT_VERSION_INFO id=1" || byName["svcClass"].Value != float64(18) ||
		byName["svcClass"].Note != "USER_SERVER" || byName["msgType"].Value != float64(566) || byName["clientName"].Value != "AmazingWorld" ||
		frames[1].Index != 1 || frames[1].Bit != 8*22 {
		t.Errorf("decoded %s", out)
	}
}

// TestGSFExplainExample checks the bit-by-bit explanation of the documentation's example,
// including the three offsets the documentation gets wrong (14, 51, 57 are really 12, 49, 55).
func TestGSFExplainExample(t *testing.T) {
	out, errOut, code := runCLI(t, seedRequestHex, "gsf", "explain", "--body", "clientName:string")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"gsf frame 0 at bit 0, 176 bits: request USER_SERVER/GET_CLIENT_VERSION_INFO id=1\n",
		"      0     8  varint                 length prefix: 21: 20 payload bytes + the 0x00 terminator  [00010101]\n",
		"      8     1  null                   message: present  [0]\n",
		"     10     6  int32                  flags: 0 (request)\n",
		"     12     4    bits                 flags: flags = 0 (request)  [0000]\n",
		"     19     8    bits                 svcClass: svcClass = 18 (USER_SERVER)  [00010010]\n",
		"     31    16    bits                 msgType: msgType = 566 (GET_CLIENT_VERSION_INFO)  [0000001000110110]\n",
		"     49     4    bits                 requestId: requestId = 1  [0001]\n",
		"     55     4    bits                 logCorrelator length: length = 0 (empty string, no alignment)  [0000]\n",
		"     71     1    bits                 align: align: skip to the byte boundary  [0]\n",
		"     72    96    bits                 clientName: clientName = \"AmazingWorld\" (12 bytes, 96 bits)\n",
		"    168     8  u8                     terminator: 0x00  [00000000]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, wrong := range []string{"\n     14 ", "\n     51 ", "\n     57 "} {
		if strings.Contains(out, wrong) {
			t.Errorf("the seed's wrong offset %q appears", wrong)
		}
	}

	// Both frames of a capture, numbered from the payload.
	out, _, code = runCLI(t, seedRequestHex+seedResponseHex, "gsf", "explain", "--payload-bits")
	if code != 0 || strings.Count(out, "gsf frame ") != 2 || !strings.Contains(out, "     51     1  null                   body: present  [0]") ||
		!strings.Contains(out, "     57     1  null                   body: present  [0]") {
		t.Errorf("payload bits:\n%s", out)
	}
	// JSON Lines, bits from the input's first bit.
	out, _, code = runCLI(t, seedRequestHex, "gsf", "explain", "--json")
	frames := jsonLines[explain.Frame](t, out)
	if code != 0 || len(frames) != 1 || frames[0].Fields[3].Name != "flags" || frames[0].Fields[3].Children[1].Bit != 12 || frames[0].Fields[3].Children[1].Bits != 4 {
		t.Errorf("JSON %s", out)
	}
}

func TestGSFErrors(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"length 0", "00", "empty frame"},
		{"5 continuation bytes", "80 80 80 80 80", "length prefix longer than 4 bytes"},
		{"missing terminator", "03 20 c2 01", "does not end with the 0x00 terminator"},
		{"truncated", "15 20 c2 5c", "unexpected EOF"},
		{"null message", "02 80 00", "null message"},
		{"truncated header", "03 20 c2 00", "header.msgType"},
	}
	for _, tc := range tests {
		for _, verb := range []string{"decode", "explain"} {
			_, errOut, code := runCLI(t, tc.input, "gsf", verb)
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("%s %s: exit %d, %q", verb, tc.name, code, errOut)
			}
		}
	}
	// A good frame followed by a bad one: the first is still shown.
	out, errOut, code := runCLI(t, seedRequestHex+" 00", "gsf", "decode")
	if code != 1 || !strings.Contains(out, "GET_CLIENT_VERSION_INFO") || !strings.Contains(errOut, "frame at byte 22") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	if _, _, code := runCLI(t, "", "gsf", "explain", "a", "b"); code != 2 {
		t.Errorf("two files: %d", code)
	}
}

func TestGSFEncode(t *testing.T) {
	out, errOut, code := runCLI(t, "", "gsf", "encode",
		"--header", `{"svcClass":"USER_SERVER","msgType":"GET_CLIENT_VERSION_INFO","requestId":1}`,
		"--body", "clientName:string", "--values", `["AmazingWorld"]`)
	if code != 0 || out != strings.ReplaceAll(seedRequestHex, " ", "")+"\n" {
		t.Fatalf("exit %d %s\n%q", code, errOut, out)
	}
	out, errOut, code = runCLI(t, "", "gsf", "encode",
		"--header", `{"kind":"response","svcClass":18,"msgType":566,"requestId":1}`,
		"--body", "string", "--values", `["133852.true"]`)
	if code != 0 || out != strings.ReplaceAll(seedResponseHex, " ", "")+"\n" {
		t.Fatalf("exit %d %s\n%q", code, errOut, out)
	}
	// An error response with names for the codes, then decoded back.
	out, errOut, code = runCLI(t, "", "gsf", "encode",
		"--header", `{"flags":1,"svcClass":"USER_SERVER","msgType":"LOGIN","requestId":9,"resultCode":"ERR","appCode":"AUTH","appString":"no"}`)
	if code != 0 {
		t.Fatal(errOut)
	}
	back, _, code := runCLI(t, out, "gsf", "decode")
	for _, want := range []string{"msgType        15 (LOGIN)", "resultCode     10 (ERR)", "appCode        42 (AUTH)", "appString      \"no\"", "body           null"} {
		if code != 0 || !strings.Contains(back, want) {
			t.Errorf("missing %q in\n%s", want, back)
		}
	}
	// Payload only.
	out, _, _ = runCLI(t, "", "gsf", "encode", "--payload", "--header", `{"kind":"notify","svcClass":"CLIENT","msgType":"CHAT"}`)
	if out != "22bf0440\n" { // 0 0, flags 2, class -1 (the nibble 1 0 1111), CHAT 8, null body

		t.Errorf("notify payload %q", out)
	}
	for _, hdr := range []string{`{"svcClass":"NOPE"}`, `{"bogus":1}`, `{"kind":"maybe"}`, `not json`} {
		if _, errOut, code := runCLI(t, "", "gsf", "encode", "--header", hdr); code != 1 || errOut == "" {
			t.Errorf("%s: exit %d", hdr, code)
		}
	}
	if _, _, code := runCLI(t, "", "gsf", "encode"); code != 2 {
		t.Errorf("no header: %d", code)
	}
}

// loginRequestHex is a LOGIN request that gamewire call sent (LoginID "ada", Password "pw",
// SitePIN 1234, LanguageLocalePairOID 293578400718237473).
const loginRequestHex = "20 20 c2 58 3e 18 11 80 61 64 61 88 70 77 e0 4d 24 98 4e 0f 80 22 6b c8 60 41 04 10 60 82 08 20 00"

// TestGSFDecodeCatalog: bodies of the message catalog decode without --body, nested objects as
// nested fields, in text and JSON.
func TestGSFDecodeCatalog(t *testing.T) {
	out, errOut, code := runCLI(t, seedRequestHex+"\n"+seedResponseHex+"\n"+loginRequestHex, "gsf", "decode")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"  body           GetClientVersionInfoRequest, 108 bits from bit 60\n    ClientName string \"AmazingWorld\"  (bit 60, 108 bits)\n",
		"  body           GetClientVersionInfoResponse, 102 bits from bit 66\n",
		"  body           LoginRequest, 205 bits from bit 51\n",
		"    LanguageLocalePairOID OID                   4-19-0-9023265 (packed 293578400718237473)  (bit 132, 62 bits)\n",
		"      Number              int64                 9023265  (bit 156, 38 bits)\n",
		"      UserTime            date                  null  (bit 225, 1 bit)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, loginRequestHex, "gsf", "decode", "--json")
	frames := jsonLines[explain.Frame](t, out)
	if code != 0 || len(frames) != 1 {
		t.Fatalf("JSON: exit %d\n%s", code, out)
	}
	var msg *explain.Field
	for _, f := range frames[0].Fields {
		if f.Type == "message" {
			msg = f
		}
	}
	if msg == nil || msg.Name != "LoginRequest" || len(msg.Children) != 9 || msg.Children[0].Name != "LoginID" || msg.Children[0].Value != "ada" ||
		msg.Children[3].Type != "OID" || msg.Children[3].Bit != 132 || len(msg.Children[3].Children) != 5 ||
		msg.Children[3].Children[0].Name != "null bit" || msg.Children[3].Children[4].Value != float64(9023265) {
		t.Errorf("JSON fields: %s", out)
	}
	// explain: every bit, nested fields in the tree.
	out, _, code = runCLI(t, loginRequestHex, "gsf", "explain")
	if code != 0 || !strings.Contains(out, "      int64              Number: 9023265\n") || !strings.Contains(out, "      date               UserTime: null  [1]\n") {
		t.Errorf("explain: exit %d\n%s", code, out)
	}
}

// TestGSFDecodeStrict: a body decoded as the wrong message fails by default and passes with
// --strict=false; a body outside the catalog gets the dump with a labelled guess.
func TestGSFDecodeStrict(t *testing.T) {
	wrong, errOut, code := runCLI(t, "", "gsf", "encode", "--header", `{"svcClass":"USER_SERVER","msgType":"LOGOUT","requestId":1}`,
		"--body", "clientName:string", "--values", `["AmazingWorld"]`)
	if code != 0 {
		t.Fatalf("encode: %s", errOut)
	}
	out, errOut, code := runCLI(t, wrong, "gsf", "decode")
	if code != 1 || !strings.Contains(errOut, "bits left over after the body") || !strings.Contains(out, "body           LogoutRequest") {
		t.Errorf("strict: exit %d, %s\n%s", code, errOut, out)
	}
	// The frames after a body that does not fit are still decoded.
	out, errOut, code = runCLI(t, wrong+"\n"+seedRequestHex, "gsf", "decode")
	if code != 1 || !strings.Contains(errOut, "bits left over") || !strings.Contains(out, "frame 2 at byte 21: 22 bytes") ||
		!strings.Contains(out, `ClientName string "AmazingWorld"`) {
		t.Errorf("strict, then a good frame: exit %d, %s\n%s", code, errOut, out)
	}
	out, errOut, code = runCLI(t, wrong, "gsf", "decode", "--strict=false")
	if code != 0 || !strings.Contains(out, "109 bits left after the fields, not all zero") {
		t.Errorf("lenient: exit %d, %s\n%s", code, errOut, out)
	}

	unknown, _, _ := runCLI(t, "", "gsf", "encode", "--header", `{"svcClass":"USER_SERVER","msgType":9999,"requestId":1}`,
		"--body", "n:int32,s:string", "--values", `[42, "hello"]`)
	out, errOut, code = runCLI(t, unknown, "gsf", "decode")
	for _, want := range []string{"body           not in the catalog", "bytes  ", "bits   ", "guess (best effort, not a decode", "int32    42", `string   "hello"`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("unknown body: exit %d, %s, lacks %q\n%s", code, errOut, want, out)
		}
	}
	out, _, code = runCLI(t, unknown, "gsf", "explain")
	if code != 0 || !strings.Contains(out, `not in the catalog; guess (best effort): int32 42, string "hello"`) {
		t.Errorf("unknown body, explain: exit %d\n%s", code, out)
	}
}

func TestGSFMessages(t *testing.T) {
	out, _, code := runCLI(t, "", "gsf", "messages")
	if code != 0 || strings.Count(out, "\n") != 97 || !strings.Contains(out, "USER_SERVER   566 GET_CLIENT_VERSION_INFO          request   GetClientVersionInfoRequest\n") ||
		!strings.Contains(out, "SYNC_SERVER    54 HEARTBEAT_NOTIFY                 notify    HeartbeatNotify\n") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "", "gsf", "messages", "SendMessageResponse")
	if code != 0 || !strings.Contains(out, "the body of USER_SERVER/SEND_MESSAGE (18/") || !strings.Contains(out, "  CrispDataTO                  *CrispDataTO\n") {
		t.Errorf("one body: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "", "gsf", "messages", "--json", "QTH")
	var fields []struct{ Name, Type string }
	if code != 0 || json.Unmarshal([]byte(out), &fields) != nil || len(fields) != 7 || fields[4].Type != "char" {
		t.Errorf("QTH JSON: exit %d\n%s", code, out)
	}
	if _, errOut, code := runCLI(t, "", "gsf", "messages", "Nope"); code != 1 || !strings.Contains(errOut, "neither a body nor an object type") {
		t.Errorf("unknown name: exit %d %s", code, errOut)
	}
}

func TestGSFEncodeCatalog(t *testing.T) {
	// The same bytes as the field list gives, and a JSON body with nested objects.
	out, errOut, code := runCLI(t, "", "gsf", "encode", "--header", `{"svcClass":"USER_SERVER","msgType":"GET_CLIENT_VERSION_INFO","requestId":1}`,
		"--request", `{"ClientName":"AmazingWorld"}`)
	if code != 0 || strings.TrimSpace(out) != strings.ReplaceAll(seedRequestHex, " ", "") {
		t.Errorf("exit %d, %s: %s", code, errOut, out)
	}
	out, errOut, code = runCLI(t, `{"LoginID":"ada","Password":"pw","SitePIN":1234,"LanguageLocalePairOID":"293578400718237473"}`,
		"gsf", "encode", "--header", `{"svcClass":"USER_SERVER","msgType":"LOGIN","requestId":1}`, "--request", "-")
	if code != 0 || strings.TrimSpace(out) != strings.ReplaceAll(loginRequestHex, " ", "") {
		t.Errorf("LOGIN: exit %d, %s: %s", code, errOut, out)
	}
	for _, bad := range [][]string{
		{"--header", `{"svcClass":"USER_SERVER","msgType":9999}`, "--request", "{}"},
		{"--header", `{"svcClass":"USER_SERVER","msgType":"LOGIN"}`, "--request", `{"Nope":1}`},
		{"--header", `{"svcClass":"USER_SERVER","msgType":"LOGIN"}`, "--request", `{}`, "--body", "a:int32"},
	} {
		if _, errOut, code := runCLI(t, "", append([]string{"gsf", "encode"}, bad...)...); code != 1 || errOut == "" {
			t.Errorf("%v: exit %d %s", bad, code, errOut)
		}
	}
}

func TestGSFDecodeMaxFields(t *testing.T) {
	out, _, code := runCLI(t, loginRequestHex, "gsf", "decode", "--max-fields", "5")
	if code != 0 || !strings.Contains(out, "      Class               int32  4  (bit 133, 6 bits)\n    … 15 more fields from bit 139, decoded but not shown") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
