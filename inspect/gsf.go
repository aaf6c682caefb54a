package inspect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/explain"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/messages"
)

func init() {
	Register(Format{Name: "gsf", Title: "GSF frames", BitLevel: true, Order: 10, Detect: true,
		Options: []Option{{Name: "body", Label: "body fields", Placeholder: "catalog, or clientName:string",
			Default: ""}},
		Frames: gsfFrames})
	Register(Format{Name: "bits", Title: "BitProtocol field list", BitLevel: true, Order: 40,
		Options: []Option{{Name: "fields", Label: "fields", Placeholder: "bool,int32,name:string",
			Default: ""}, {Name: "offset", Label: "start bit", Default: "0", Placeholder: "0"}},
		Frames: bitsFrames})
}

// gsfOptions are the options of the gsf format: the body's field list, or the message catalog
// (package gsf/messages), as "gamewire gsf decode" describes bodies.
func gsfOptions(opts map[string]string) (gsf.ExplainOptions, error) {
	eo := messages.ExplainOptions(messages.Options{})
	if spec := strings.TrimSpace(opts["body"]); spec != "" {
		fields, err := bitproto.ParseFields(spec)
		if err != nil {
			return eo, err
		}
		eo.Body, eo.Describer = fields, nil
	}
	return eo, nil
}

// gsfFrames explains every GSF frame of data (gsf.ExplainFrames).
func gsfFrames(data []byte, opts map[string]string, budget *explain.Budget) ([]*explain.Frame, error) {
	eo, err := gsfOptions(opts)
	if err != nil {
		return nil, err
	}
	frames, _ := gsf.ExplainFrames(data, eo, budget) // decoding errors are in the frames
	return frames, nil
}

// explainGSF is the gsf format's explanation of data, for a capture's streams.
func explainGSF(data []byte, opts map[string]string) (*Explanation, error) {
	frames, err := gsfFrames(data, opts, explain.NewBudget(MaxNodes))
	if err != nil {
		return nil, err
	}
	return fromFrames(frames), nil
}

// bitsFrames decodes a BitProtocol bit stream by a field list (bitproto.ExplainFields).
func bitsFrames(data []byte, opts map[string]string, budget *explain.Budget) ([]*explain.Frame, error) {
	spec := strings.TrimSpace(opts["fields"])
	if spec == "" {
		return nil, errors.New("inspect: BitProtocol needs a field list, such as bool,int32,name:string")
	}
	fields, err := bitproto.ParseFields(spec)
	if err != nil {
		return nil, err
	}
	start := 0
	if s := strings.TrimSpace(opts["offset"]); s != "" {
		var err error
		if start, err = strconv.Atoi(s); err != nil || start < 0 {
			return nil, fmt.Errorf("inspect: start bit %q: want a number of bits", s)
		}
		if start > 8*len(data) {
			return nil, fmt.Errorf("inspect: start bit %d: the input has %d bits", start, 8*len(data))
		}
	}
	fr, _ := bitproto.ExplainFields(data, start, fields, budget) // decoding errors are in the frame
	return []*explain.Frame{fr}, nil
}
