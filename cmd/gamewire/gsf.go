package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/messages"
)

func init() {
	register(command{area: "gsf", verb: "decode", summary: "GSF frames → header (with names) and body fields", run: gsfDecode})
	register(command{area: "gsf", verb: "explain", summary: "GSF frames bit by bit: offset, bits, meaning", run: gsfExplain})
	register(command{area: "gsf", verb: "encode", summary: "header and body (JSON) → a GSF frame", run: gsfEncode})
}

// gsfInspect runs gsf.Explain for the decode and explain verbs.
func gsfInspect(verb, about string, args []string, stdin io.Reader, stdout, stderr io.Writer, write func(*gsf.Explanation, io.Writer) error) error {
	fs := newCmdFlags("gsf", verb, "[FILE|HEX]", about+"\n\nFILE defaults to standard input (a hex argument is read as the bytes); every frame in it is decoded.\n"+
		"A pcap or pcapng capture (tcpdump -w) is recognized by its magic number: its TCP connections are\n"+
		"reassembled and the frames of each direction printed with their time, addresses and direction\n"+
		"(--json: JSON Lines).\n\n"+
		"Bodies in the message catalog (package gsf/messages: every request, response and notify the\n"+
		"reference emulator knows) are decoded field by field; other bodies are dumped as bytes and bits\n"+
		"with a labelled guess at their leading fields. --body takes a body's field list instead:\n"+fieldTypesHelp, stderr)
	in := addInputFlags(fs)
	body := fs.String("body", "", "the body's field `list`, e.g. 'clientName:string' (default: the catalog's layout)")
	strict := fs.Bool("strict", true, "fail when bits are left over after a catalog body (--strict=false ignores them, as the reference does)")
	asJSON := fs.Bool("json", false, "print JSON Lines: one explanation frame a line (docs/explain.md)")
	maxFields := fs.Int("max-fields", 0, fmt.Sprintf("the most `fields` shown: of one catalog body (0: %d) and of the whole explanation (0: %d;\n-1: no limit); the rest of a body is checked, not shown", messages.DefaultMaxFields, explain.DefaultMaxFields))
	ports := fs.String("port", "", "for a pcap or pcapng capture: only the TCP connections on these `ports` (comma-separated; default: every connection that carries GSF)")
	window := fs.Int("reorder-window", capture.DefaultMaxBufferedBytes, "for a capture: hold at most this many `bytes` of out-of-order segments waiting for the ones before them (2 KiB per segment; -1: no limit); beyond it the hole is reported as missing")
	payloadBits := fs.Bool("payload-bits", false, "number bits from the payload's first bit (default: from the frame's first bit, as the protocol documentation does)")
	if err := parseCmdFlags(fs, args, 1); err != nil {
		return err
	}
	if err := checkMaxFields(*maxFields); err != nil {
		return err
	}
	opts := messages.ExplainOptions(messages.Options{Strict: *strict, PayloadBits: *payloadBits, MaxFields: *maxFields})
	if *body != "" {
		opts.Describer = nil
		f, err := bitproto.ParseFields(*body)
		if err != nil {
			return asUsage("body", err)
		}
		opts.Body = f
	}
	data, err := in.read(fs, stdin)
	if err != nil {
		return err
	}
	if capture.DetectFormat(data) != capture.FormatUnknown {
		return inspectCapture(data, *ports, *window, opts, *asJSON, write, verb == "explain", stdout)
	}
	var xerr error
	if *asJSON || verb == "explain" {
		var frames []*explain.Frame
		frames, xerr = gsf.ExplainFrames(data, opts, explain.NewBudget(*maxFields))
		switch {
		case *asJSON:
			err = explain.WriteJSON(stdout, frames...)
		case *payloadBits:
			// Each frame's bits numbered from its payload's first bit, as the documentation
			// numbers them: the frame moved, and the bits shown from the payload on.
			for i, fr := range frames {
				payload := fr.Bit
				if len(fr.Fields) > 0 && fr.Fields[0].Name == "length prefix" {
					payload += fr.Fields[0].Bits
				}
				fr.Shift(-payload)
				if i > 0 {
					fmt.Fprintln(stdout)
				}
				if err = explain.WriteText(stdout, data[min(payload/8, int64(len(data))):], fr); err != nil {
					break
				}
			}
		default:
			err = explain.WriteText(stdout, data, frames...)
		}
		if err != nil {
			return err
		}
		noteTruncated(stderr, "gsf "+verb, frames, *maxFields)
	} else {
		var ex *gsf.Explanation
		ex, xerr = gsf.Explain(data, opts)
		if err := write(ex, stdout); err != nil {
			return err
		}
	}
	if errors.Is(xerr, gsf.ErrTrailingBits) || errors.Is(xerr, gsf.ErrBodyOverrun) {
		xerr = fmt.Errorf("%w (the body does not fit the catalog's layout of this message; --strict=false ignores this)", xerr)
	}
	return xerr
}

func gsfDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return gsfInspect("decode", "Decodes GSF frames (length prefix, BitProtocol payload, 0x00) and prints each header\nwith the names of its service class, message type and codes, and the body's fields.",
		args, stdin, stdout, stderr, (*gsf.Explanation).WriteSummary)
}

func gsfExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return gsfInspect("explain", "Explains GSF frames bit by bit in the style of the protocol documentation's annotated\nexample: the offset of every group of bits, the bits, and what they mean.",
		args, stdin, stdout, stderr, (*gsf.Explanation).WriteText)
}

// headerJSON is the header as gsf encode reads it: numbers, or names for the service class,
// message type, result code and app codes.
type headerJSON struct {
	Flags         *json.Number    `json:"flags"`
	Kind          string          `json:"kind"`
	SvcClass      json.RawMessage `json:"svcClass"`
	MsgType       json.RawMessage `json:"msgType"`
	RequestID     int32           `json:"requestId"`
	LogCorrelator string          `json:"logCorrelator"`
	ResultCode    json.RawMessage `json:"resultCode"`
	AppCode       json.RawMessage `json:"appCode"`
	AppString     string          `json:"appString"`
	Discardable   bool            `json:"discardable"`
	AppCodes      []struct {
		Code   json.RawMessage `json:"code"`
		String string          `json:"string"`
	} `json:"appCodes"`
}

// enumValue reads a JSON number or name with lookup.
func enumValue[T ~int32](raw json.RawMessage, what string, lookup func(string) (T, bool)) (T, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		if v, err := strconv.ParseInt(name, 0, 32); err == nil {
			return T(v), nil
		}
		if v, ok := lookup(name); ok {
			return v, nil
		}
		return 0, fmt.Errorf("unknown %s %q", what, name)
	}
	var n int32
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("%s: want a number or a name, got %s", what, raw)
	}
	return T(n), nil
}

func (hj *headerJSON) header() (gsf.Header, error) {
	var h gsf.Header
	switch strings.ToLower(hj.Kind) {
	case "", "request":
	case "response":
		h.Flags = gsf.FlagResponse
	case "notify":
		h.Flags = gsf.FlagNotify
	default:
		return h, fmt.Errorf("kind %q: want request, response or notify", hj.Kind)
	}
	if hj.Flags != nil {
		f, err := strconv.ParseInt(hj.Flags.String(), 0, 32)
		if err != nil {
			return h, fmt.Errorf("flags: %v", err)
		}
		h.Flags = int32(f)
	}
	h.SetDiscardable(hj.Discardable || h.IsDiscardable())
	class, err := enumValue(hj.SvcClass, "service class", gsf.ServiceClassValue)
	if err != nil {
		return h, err
	}
	h.SvcClass = class
	if h.MsgType, err = enumValue(hj.MsgType, "message type", func(s string) (int32, bool) { return gsf.MessageTypeValue(class, s) }); err != nil {
		return h, err
	}
	h.RequestID, h.LogCorrelator, h.AppString = hj.RequestID, hj.LogCorrelator, hj.AppString
	rc, err := enumValue(hj.ResultCode, "result code", gsf.ResultCodeValue)
	if err != nil {
		return h, err
	}
	ac, err := enumValue(hj.AppCode, "app code", gsf.AppCodeValue)
	if err != nil {
		return h, err
	}
	h.ResultCode, h.AppCode = rc, ac
	for _, e := range hj.AppCodes {
		c, err := enumValue(e.Code, "app code", gsf.AppCodeValue)
		if err != nil {
			return h, err
		}
		h.AppCodes = append(h.AppCodes, gsf.AppCodeEntry{Code: c, String: e.String})
	}
	return h, nil
}

// fieldBody is a message body given as a field list and values.
type fieldBody struct {
	fields []bitproto.Field
	values []any
}

func (b *fieldBody) MarshalBits(w *bitstream.Writer) error {
	return bitproto.EncodeFields(w, b.fields, b.values)
}

func gsfEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("gsf", "encode", "",
		"Encodes a GSF message and prints the frame (hex by default).\n\n"+
			"--header is a JSON object with the fields flags (or kind: request, response, notify;\n"+
			"and discardable), svcClass, msgType, requestId, logCorrelator, resultCode, appCode,\n"+
			"appString and appCodes ([{\"code\":..., \"string\":...}]). svcClass, msgType and the codes\n"+
			"may be numbers or names. Without --body the body is null.\n\n"+fieldTypesHelp+
			"\n\nExample: gamewire gsf encode --header '{\"svcClass\":\"USER_SERVER\",\"msgType\":\"GET_CLIENT_VERSION_INFO\",\"requestId\":1}' \\\n"+
			"           --body clientName:string --values '[\"AmazingWorld\"]'", stderr)
	headerText := fs.String("header", "", "the header, a JSON `object` (required)")
	body := fs.String("body", "", "the body's field `list`")
	values := fs.String("values", "[]", "the body's values, a JSON `array` (- reads it from standard input)")
	request := fs.String("request", "", "the body of a catalog message, a JSON `object` with its Go field names (- reads it from standard input); the header says which")
	payload := fs.Bool("payload", false, "print the payload only, without the length prefix and the terminator")
	out := addOutputFlags(fs)
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	if err := out.check(); err != nil {
		return err
	}
	if *headerText == "" {
		fmt.Fprintln(stderr, "gamewire gsf encode: --header is required")
		fs.Usage()
		return errUsage
	}
	var hj headerJSON
	dec := json.NewDecoder(strings.NewReader(*headerText))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hj); err != nil {
		return fmt.Errorf("--header: %w", err)
	}
	h, err := hj.header()
	if err != nil {
		return fmt.Errorf("--header: %w", err)
	}
	var msgBody any
	if *request != "" {
		if *body != "" || *values != "[]" {
			return errors.New("give --request, or --body and --values, not both")
		}
		e, ok := messages.ForHeader(&h)
		if !ok {
			return fmt.Errorf("--request: %s/%s %s is not in the message catalog: use --body and --values", h.SvcClass, h.MessageTypeName(), messages.KindOf(&h))
		}
		text, err := textArg(*request, stdin)
		if err != nil {
			return err
		}
		v := e.New()
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("--request: %s: %w", e.Name, err)
		}
		msgBody = v
	} else if *body != "" {
		fields, err := bitproto.ParseFields(*body)
		if err != nil {
			return asUsage("body", err)
		}
		vals, err := valuesArg(*values, stdin)
		if err != nil {
			return err
		}
		msgBody = &fieldBody{fields: fields, values: vals}
	} else if *values != "[]" {
		return errors.New("--values needs --body")
	}
	var b []byte
	if *payload {
		b, err = gsf.AppendPayload(nil, &h, msgBody)
	} else {
		b, err = gsf.AppendMessage(nil, &h, msgBody)
	}
	if err != nil {
		return err
	}
	return out.write(stdout, b)
}
