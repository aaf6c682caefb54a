package inspect

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/gamewire/gamewire/explain"
)

// Option is a setting of a format that the page offers, such as Godot's framing or a BitProtocol
// field list.
type Option struct {
	Name  string `json:"name"`  // key in Request.Options
	Label string `json:"label"` // what the page shows
	// Choices, when set, are the allowed values (a select on the page); otherwise the option is
	// free text.
	Choices []Choice `json:"choices,omitempty"`
	Default string   `json:"default"`
	// Placeholder is an example of free text.
	Placeholder string `json:"placeholder,omitempty"`
	// Value is, in an Explanation's Options, the value the explanation used.
	Value string `json:"value,omitempty"`

	// choices, when set, makes Choices when the formats are listed (choices that depend on
	// the other formats registered).
	choices func() []Choice
}

// Choice is one allowed value of an Option.
type Choice struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// Format is an entry of the registry: a wire format the inspector explains.
type Format struct {
	Name     string   `json:"name"`  // short key, used in requests and links: "godot4", "gsf"
	Title    string   `json:"title"` // what the page shows
	BitLevel bool     `json:"bitLevel"`
	Options  []Option `json:"options,omitempty"`
	// Detect says whether automatic detection tries this format. A format that needs a
	// description of the bytes (a field list) cannot be detected.
	Detect bool `json:"detect"`
	// Magic, when set, recognises the format from the input's first bytes (a capture file's
	// magic number): detection explains input it recognises as this format alone, and never
	// tries this format on other input.
	Magic func(data []byte) bool `json:"-"`
	// Order sorts the formats on the page and decides which detected format wins a tie.
	Order int `json:"-"`
	// Explain explains data with the given options (unset options have their Default; options
	// the format does not declare are passed on as given). It returns the tree and the errors;
	// it must not panic on any input, and should keep its memory within a small multiple of
	// len(data). The nodes refer to data, unless the explanation sets Data to other bytes (a
	// capture's stream), and Part to say what they are.
	Explain func(data []byte, opts map[string]string) (*Explanation, error) `json:"-"`
	// Frames, the usual way for a format to explain itself, explains data as the frames of the
	// one explanation model (package explain) with the given options, keeping to budget: the
	// inspector builds its tree from them. Decoding errors belong in the frames (Err); the
	// error returned is for input that cannot be explained at all (options that do not parse).
	// It must not panic on any input. A format sets Frames or Explain; with both, Frames is
	// used.
	Frames func(data []byte, opts map[string]string, budget *explain.Budget) ([]*explain.Frame, error) `json:"-"`
}

var (
	regMu    sync.RWMutex
	registry = map[string]Format{}
)

// Register adds a format. It panics if the name is empty or taken, or both Frames and Explain
// are nil: formats
// are registered from init functions, where that is a programming error.
func Register(f Format) {
	regMu.Lock()
	defer regMu.Unlock()
	if f.Name == "" || f.Name == Auto || f.Explain == nil && f.Frames == nil {
		panic("inspect: Register needs a name (not \"auto\") and a Frames or Explain function")
	}
	if _, dup := registry[f.Name]; dup {
		panic("inspect: format " + f.Name + " registered twice")
	}
	registry[f.Name] = f
}

// Formats returns the registered formats in the page's order.
func Formats() []Format {
	fs := formats()
	for i, f := range fs {
		fs[i].Options = withChoices(f.Options)
	}
	return fs
}

// withChoices returns opts with the choices that depend on the registry filled in.
func withChoices(opts []Option) []Option {
	var out []Option
	for i, o := range opts {
		if o.choices == nil {
			continue
		}
		if out == nil {
			out = append([]Option(nil), opts...)
		}
		out[i].Choices = o.choices()
	}
	if out == nil {
		return opts
	}
	return out
}

// formats returns the registered formats in the page's order, as registered.
func formats() []Format {
	regMu.RLock()
	defer regMu.RUnlock()
	fs := make([]Format, 0, len(registry))
	for _, f := range registry {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Order != fs[j].Order {
			return fs[i].Order < fs[j].Order
		}
		return fs[i].Name < fs[j].Name
	})
	return fs
}

// Lookup returns the format registered under name.
func Lookup(name string) (Format, bool) {
	regMu.RLock()
	f, ok := registry[name]
	regMu.RUnlock()
	f.Options = withChoices(f.Options)
	return f, ok
}

// Auto is the format name that asks for detection.
const Auto = "auto"

// Request is what the page sends: text or bytes, how to read them, and the format.
type Request struct {
	Format string `json:"format"` // a registered name, or "auto" (the default)
	// Input is the text given: hex, a hex dump (xxd, hexdump -C, od -Ax -tx1, Wireshark's
	// "hex dump"), or base64; or, with Encoding "raw", the bytes themselves.
	Input string `json:"input"`
	// Encoding is "auto" (the default), "hex", "hexdump", "base64" or "raw".
	Encoding string            `json:"encoding,omitempty"`
	Options  map[string]string `json:"options,omitempty"`
}

// ErrUnknownFormat is returned for a format name that is not registered.
var ErrUnknownFormat = errors.New("inspect: unknown format")

// Explain reads the request's input and explains it. Decoding errors are part of the
// explanation, at their offsets; the error returned is for requests that cannot be explained
// at all: an unknown format, input that is not what its encoding says, or no bytes.
func Explain(req Request) (*Explanation, error) {
	data, how, err := ReadInput(req.Input, req.Encoding)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errors.New("inspect: no input bytes")
	}
	name := req.Format
	if name == "" {
		name = Auto
	}
	var ex *Explanation
	if name == Auto {
		ex = detect(data, req.Options)
	} else {
		f, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("%w %q (have %s)", ErrUnknownFormat, name, strings.Join(names(), ", "))
		}
		if ex, err = run(f, data, req.Options); err != nil {
			return nil, err
		}
	}
	ex.Input = how
	return ex, nil
}

func names() []string {
	var ns []string
	for _, f := range Formats() {
		ns = append(ns, f.Name)
	}
	return ns
}

// run explains data as f, with f's defaults for the options not given.
func run(f Format, data []byte, given map[string]string) (*Explanation, error) {
	opts := map[string]string{}
	for k, v := range given {
		opts[k] = v
	}
	for _, o := range f.Options {
		opts[o.Name] = o.Default
		if v, ok := given[o.Name]; ok && v != "" {
			opts[o.Name] = v
		}
	}
	var ex *Explanation
	if f.Frames != nil {
		frames, err := f.Frames(data, opts, explain.NewBudget(MaxNodes))
		if err != nil {
			return nil, err
		}
		ex = fromFrames(frames)
	} else {
		var err error
		if ex, err = f.Explain(data, opts); err != nil {
			return nil, err
		}
	}
	ex.Format, ex.Title, ex.BitLevel = f.Name, f.Title, f.BitLevel || ex.BitLevel
	if ex.Data == nil {
		ex.Data = data
	}
	ex.Size = len(ex.Data)
	if ex.Nodes == nil {
		ex.Nodes = []*Node{}
	}
	ex.finish()
	return ex, nil
}

// detect explains data as every detectable format and keeps the best: one that explains every
// byte without error, else the one that got furthest.
func detect(data []byte, given map[string]string) *Explanation {
	fs := formats()
	for _, f := range fs {
		if f.Detect && f.Magic != nil && f.Magic(data) {
			if ex, err := run(f, data, given); err == nil {
				ex.Notes = append([]string{"detected as " + f.Title}, ex.Notes...)
				return ex
			}
		}
	}
	var best *Explanation
	bestScore := -1
	for _, f := range fs {
		if !f.Detect || f.Magic != nil {
			continue
		}
		ex, err := run(f, data, given)
		if err != nil {
			continue
		}
		score := 8 * len(data)
		if len(ex.Errors) > 0 {
			score = ex.Errors[0].Bit
		}
		if score > bestScore {
			best, bestScore = ex, score
		}
		if score == 8*len(data) {
			break
		}
	}
	if best == nil {
		best = &Explanation{Format: Auto, Title: "unknown", Size: len(data), Data: data, Nodes: []*Node{}}
		best.Errors = []Error{{Msg: "no format explains these bytes"}}
		return best
	}
	best.Notes = append([]string{"detected as " + best.Title}, best.Notes...)
	return best
}
