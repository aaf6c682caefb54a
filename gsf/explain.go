package gsf

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/explain"
)

// ExplainOptions configures [Explain].
type ExplainOptions struct {
	// Body is the field list of the body (see bitproto.ParseFields). Without it the body is
	// shown as undecoded bits.
	Body []bitproto.Field
	// PayloadBits numbers bits from the first payload bit. By default bits are numbered from
	// the first bit of the frame, length prefix included, as in the protocol documentation's
	// annotated example.
	PayloadBits bool
	// Describer describes bodies when Body is empty; package gsf/messages provides one for the
	// bodies of its catalog (messages.Describer). Without either the body is shown as
	// undecoded bits.
	Describer BodyDescriber
	// MaxFrames, when positive, stops the explanation after that many frames, so that a
	// caller can explain a long input a part at a time.
	MaxFrames int
}

// A BodyDescriber describes the body of a message with header h, read from r, which is
// positioned at the body's first bit; the body ends at bit end (the payload's last bit + 1) of
// r. shift is subtracted from r's offsets to number bits as the explanation does. It leaves r
// after what it decoded; an error stops the frame's explanation, with what was described kept.
type BodyDescriber func(h *Header, r *bitstream.Reader, end, shift int) (*BodyDescription, error)

// BodyDescription is what a BodyDescriber found in a body.
type BodyDescription struct {
	// Type names the body's type, for example "LoginRequest"; empty for an unknown body.
	Type string `json:"type,omitempty"`
	// Fields is the body's fields, in a form of the describer's choosing (messages.Field).
	Fields any `json:"fields,omitempty"`
	// Raw is the describer's dump of a body it does not know.
	Raw any `json:"raw,omitempty"`
	// Steps are the bit-by-bit rows of the body, numbered as the explanation numbers bits.
	Steps []bitproto.Step `json:"-"`
	// Lines are the summary's lines for the body (WriteSummary indents them).
	Lines []string `json:"-"`
	// Omitted counts the fields the describer decoded but left out of Fields (a limit).
	Omitted int `json:"omitted,omitempty"`
	// Tree is the body's fields in the one explanation model, numbered as Steps are, whose
	// leaves tile the body's bits; without it the body is explained by its Steps.
	Tree []*explain.Field `json:"-"`
}

// Explanation is the bit-by-bit account of every frame of an input.
type Explanation struct {
	Frames []FrameExplanation `json:"frames"`
}

// FrameExplanation explains one frame.
type FrameExplanation struct {
	Offset    int `json:"offset"`    // byte offset of the frame in the input
	Size      int `json:"size"`      // bytes of the frame: prefix, payload and terminator
	Length    int `json:"length"`    // the length prefix: payload bytes + 1
	PrefixLen int `json:"prefixLen"` // bytes of the length prefix
	// FirstPayloadBit is the number of the payload's first bit in Steps and Body: 8·PrefixLen,
	// or 0 with ExplainOptions.PayloadBits.
	FirstPayloadBit int `json:"firstPayloadBit"`

	Header *Header          `json:"header,omitempty"`
	Names  *HeaderNames     `json:"names,omitempty"`
	Body   *BodyExplanation `json:"body,omitempty"`
	Steps  []bitproto.Step  `json:"steps"`
	// Fields are the fields decoded, header and body, in order, numbered like Steps; each holds
	// its own steps. The length prefix, padding and terminator are steps of no field.
	Fields []bitproto.Value `json:"-"`

	// Err is the error that stopped the explanation of this frame, if any.
	Err      error  `json:"-"`
	ErrorMsg string `json:"error,omitempty"`

	// names names the steps of no field by their index in Steps: "length prefix", "padding", ….
	names map[int]string
	// avail is, for a frame cut short, the bytes of it the input holds.
	avail int
	// notes are the names of header fields' numbers, by the fields' bits: "USER_SERVER".
	notes map[int]string
}

// HeaderNames are the names of a header's numbers.
type HeaderNames struct {
	Kind       string `json:"kind"` // request, response or notify
	SvcClass   string `json:"svcClass,omitempty"`
	MsgType    string `json:"msgType,omitempty"`
	ResultCode string `json:"resultCode,omitempty"`
	AppCode    string `json:"appCode,omitempty"`
}

// BodyExplanation describes a frame's body.
type BodyExplanation struct {
	Null   bool             `json:"null"`
	Bit    int              `json:"bit"`  // number of the body's first bit
	Bits   int              `json:"bits"` // payload bits from Bit to the end of the payload
	Fields []bitproto.Value `json:"fields,omitempty"`
	// Rest is the number of payload bits after the decoded fields; RestZero reports whether they
	// are all 0 (padding).
	Rest     int  `json:"rest"`
	RestZero bool `json:"restZero"`
	// Message is the describer's account of the body (see ExplainOptions.Describer).
	Message *BodyDescription `json:"message,omitempty"`
}

// Explain decodes every frame of data and explains each bit. It stops at the first frame that
// cannot be decoded; that frame is included with its Err set, and the error is returned too. A
// frame whose body the Describer rejects (the frame and its header are sound) has its Err set
// and the frames after it are explained; the first such error is returned.
func Explain(data []byte, opts ExplainOptions) (*Explanation, error) {
	ex := &Explanation{}
	var first error
	for off := 0; off < len(data) && (opts.MaxFrames <= 0 || len(ex.Frames) < opts.MaxFrames); {
		fe, n := explainFrame(data[off:], off, opts)
		ex.Frames = append(ex.Frames, fe)
		if fe.Err != nil {
			if first == nil {
				first = fe.Err
			}
			if n == 0 {
				return ex, first
			}
		}
		off += n
	}
	if len(ex.Frames) == 0 {
		return ex, errors.New("gsf: no input")
	}
	return ex, first
}

// explainer walks one frame with a reader over the whole frame, so that offsets count from the
// frame's first bit.
type explainer struct {
	fe    *FrameExplanation
	r     *bitstream.Reader
	shift int // subtracted from offsets (8·PrefixLen with PayloadBits)
}

func explainFrame(b []byte, off int, opts ExplainOptions) (FrameExplanation, int) {
	fe := FrameExplanation{Offset: off, Length: -1}
	fail := func(err error) (FrameExplanation, int) {
		var ferr *FrameError
		if errors.As(err, &ferr) {
			ferr.Offset += int64(off)
		}
		fe.Err = err
		fe.ErrorMsg = err.Error()
		return fe, 0
	}
	l, size, err := ConsumeLength(b)
	if err != nil {
		return fail(&FrameError{Length: -1, Err: err})
	}
	fe.Length, fe.PrefixLen = l, size
	frame, n, err := consumeFrame(b)
	if err != nil {
		fe.avail = len(b)
		// Explain the prefix, and the fields that the bytes there are hold, before giving up:
		// a cut capture still shows its header.
		end := len(b)
		if l <= len(b)-size {
			end = size + l
		}
		e := &explainer{fe: &fe, r: bitstream.NewReader(b[:end])}
		if opts.PayloadBits {
			e.shift = 8 * size
		} else {
			fe.FirstPayloadBit = 8 * size
		}
		e.add("length prefix", lengthStep(b[:size], l))
		if l > 0 && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrMissingTerminator)) {
			_ = e.r.Seek(8 * size)
			e.partial(opts.Body)
		}
		return fail(err)
	}
	fe.Size = n
	if !opts.PayloadBits {
		fe.FirstPayloadBit = 8 * size
	}
	whole := b[:n]
	e := &explainer{fe: &fe, r: bitstream.NewReader(whole)}
	if opts.PayloadBits {
		e.shift = 8 * size
	}
	e.add("length prefix", lengthStep(b[:size], l))
	_ = e.r.Seek(8 * size)

	// The authoritative decode; the steps below must agree with it.
	var m Message
	derr := m.decode(frame, len(frame)-1)

	if v, ok := e.field("message", bitproto.Null); !ok || v.Value == true {
		if ok {
			return fail(&bitproto.DecodeError{Path: "message", Err: ErrNullMessage})
		}
		return fail(derr)
	}
	hv, ok := e.field("header", bitproto.Null)
	if !ok {
		return fail(derr)
	}
	if hv.Value == false {
		if !e.header() {
			return fail(derr)
		}
	}
	if derr != nil {
		return fail(derr)
	}
	h := m.Header
	fe.Header = &h
	fe.Names = &HeaderNames{Kind: h.Kind(), SvcClass: ServiceClassName(h.SvcClass), MsgType: MessageTypeName(h.SvcClass, h.MsgType)}
	if h.IsResponse() {
		fe.Names.ResultCode, fe.Names.AppCode = ResultCodeName(h.ResultCode), AppCodeName(h.AppCode)
	}

	bv, ok := e.field("body", bitproto.Null)
	if !ok {
		return fail(derr)
	}
	payloadEnd := 8 * (size + l - 1)
	body := &BodyExplanation{Null: bv.Value == true, Bit: e.r.Offset() - e.shift}
	fe.Body = body
	if !body.Null {
		body.Bits = payloadEnd - e.r.Offset()
		if len(opts.Body) > 0 {
			for i, f := range opts.Body {
				v, err := bitproto.DecodeField(e.r, f)
				if err != nil {
					name := "body field " + strconv.Itoa(i+1) + " " + f.String()
					if f.Name == "" {
						name = "body field " + strconv.Itoa(i+1) + " (" + f.String() + ")"
					}
					return fail(&bitproto.DecodeError{Path: name, Offset: int64((v.Bit - e.shift) / 8), BitOffset: int64(v.Bit - e.shift), Err: err})
				}
				e.shiftValue(&v)
				body.Fields = append(body.Fields, v)
				fe.Fields = append(fe.Fields, v)
				fe.Steps = append(fe.Steps, v.Steps...)
			}
		} else if opts.Describer != nil {
			desc, err := opts.Describer(&h, e.r, payloadEnd, e.shift)
			if desc != nil {
				body.Message = desc
				fe.Steps = append(fe.Steps, desc.Steps...)
			}
			if err != nil {
				// The frame is whole and its header decoded: the body does not fit what the
				// describer expects. Say so, and let the frames after it be explained.
				fe.Err, fe.ErrorMsg = err, err.Error()
				e.add("terminator", bitproto.Step{Bit: payloadEnd, Len: 8, Bits: e.bits(payloadEnd, 8), Text: "terminator 0x00"})
				return fe, n
			}
		} else if body.Bits > 0 {
			e.add("body bits", bitproto.Step{Bit: e.r.Offset(), Len: body.Bits, Bits: e.bits(e.r.Offset(), body.Bits),
				Text: "body: " + plural(int(body.Bits), "bit") + ", not decoded (give the body's field list)"})
			_ = e.r.Seek(payloadEnd)
		}
	}
	if pos := e.r.Offset(); pos < payloadEnd {
		rest := payloadEnd - pos
		body.Rest = rest
		body.RestZero = e.zero(pos, rest)
		text := "padding to the byte boundary"
		if rest >= 8 || !body.RestZero {
			text = plural(int(rest), "bit") + " after the body (ignored, as by the reference)"
		}
		e.add("padding", bitproto.Step{Bit: pos, Len: rest, Bits: e.bits(pos, rest), Text: text})
	} else if pos > payloadEnd {
		e.fe.Steps[len(e.fe.Steps)-1].Text += " (read into the terminator byte, as the reference's reader allows)"
	}
	e.add("terminator", bitproto.Step{Bit: payloadEnd, Len: 8, Bits: e.bits(payloadEnd, 8), Text: "terminator 0x00"})
	return fe, n
}

// partial explains the fields of an incomplete frame as far as its bytes go.
func (e *explainer) partial(body []bitproto.Field) {
	if v, ok := e.field("message", bitproto.Null); !ok || v.Value == true {
		return
	}
	hv, ok := e.field("header", bitproto.Null)
	if !ok || hv.Value == false && !e.header() {
		return
	}
	if bv, ok := e.field("body", bitproto.Null); !ok || bv.Value == true {
		return
	}
	for _, f := range body {
		v, err := bitproto.DecodeField(e.r, f)
		if err != nil {
			return
		}
		e.shiftValue(&v)
		e.fe.Fields = append(e.fe.Fields, v)
		e.fe.Steps = append(e.fe.Steps, v.Steps...)
	}
}

func lengthStep(prefix []byte, l int) bitproto.Step {
	var bits strings.Builder
	for i, c := range prefix {
		if i > 0 {
			bits.WriteByte(' ')
		}
		fmt.Fprintf(&bits, "[%08b]", c)
	}
	text := fmt.Sprintf("length prefix = %d: %d payload bytes + the 0x00 terminator", l, max(l-1, 0))
	if l == 0 {
		text = "length prefix = 0: an empty frame"
	}
	if want, _ := AppendLength(nil, l); len(want) != len(prefix) {
		text += " (not the shortest form)"
	}
	return bitproto.Step{Bit: 0, Len: 8 * len(prefix), Bits: bits.String(), Text: text}
}

func (e *explainer) add(name string, s bitproto.Step) {
	s.Bit -= e.shift
	if e.fe.names == nil {
		e.fe.names = map[int]string{}
	}
	e.fe.names[len(e.fe.Steps)] = name
	e.fe.Steps = append(e.fe.Steps, s)
}

func (e *explainer) shiftValue(v *bitproto.Value) {
	v.Bit -= e.shift
	for i := range v.Steps {
		v.Steps[i].Bit -= e.shift
	}
}

// field decodes and explains one field; annotate, if given, adds to the text of the value step.
func (e *explainer) field(name string, t bitproto.FieldType, annotate ...string) (bitproto.Value, bool) {
	v, err := bitproto.DecodeField(e.r, bitproto.Field{Name: name, Type: t})
	if err != nil {
		return v, false
	}
	e.shiftValue(&v)
	if len(annotate) > 0 && annotate[0] != "" && len(v.Steps) > 0 {
		v.Steps[len(v.Steps)-1].Text += " (" + annotate[0] + ")"
		if e.fe.notes == nil {
			e.fe.notes = map[int]string{}
		}
		e.fe.notes[v.Bit] = annotate[0]
	}
	e.fe.Steps = append(e.fe.Steps, v.Steps...)
	e.fe.Fields = append(e.fe.Fields, v)
	return v, true
}

// header explains the header fields the flags call for.
func (e *explainer) header() bool {
	peek := func(t bitproto.FieldType) int64 {
		save := e.r.Offset()
		defer func() { _ = e.r.Seek(save) }()
		v, err := bitproto.DecodeField(e.r, bitproto.Field{Type: t})
		if err != nil {
			return 0
		}
		if n, ok := v.Value.(int32); ok {
			return int64(n)
		}
		return 0
	}
	flags := int32(peek(bitproto.Int32))
	h := Header{Flags: flags}
	if _, ok := e.field("flags", bitproto.Int32, flagsText(flags)); !ok {
		return false
	}
	class := int32(peek(bitproto.Int32))
	if _, ok := e.field("svcClass", bitproto.Int32, ServiceClassName(ServiceClass(class))); !ok {
		return false
	}
	msgType := int32(peek(bitproto.Int32))
	if _, ok := e.field("msgType", bitproto.Int32, MessageTypeName(ServiceClass(class), msgType)); !ok {
		return false
	}
	if !h.IsService() {
		return true
	}
	if _, ok := e.field("requestId", bitproto.Int32); !ok {
		return false
	}
	if h.IsRequest() {
		_, ok := e.field("logCorrelator", bitproto.String)
		return ok
	}
	rc := int32(peek(bitproto.Int32))
	if _, ok := e.field("resultCode", bitproto.Int32, ResultCodeName(ResultCode(rc))); !ok {
		return false
	}
	ac := int32(peek(bitproto.Int32))
	if _, ok := e.field("appCode", bitproto.Int32, AppCodeName(AppCode(ac))); !ok {
		return false
	}
	if ac != 0 {
		if _, ok := e.field("appString", bitproto.String); !ok {
			return false
		}
	}
	if AppCode(ac) != AppCodeMultiple {
		return true
	}
	v, ok := e.field("appCodes count", bitproto.Int32)
	if !ok {
		return false
	}
	n := v.Value.(int32)
	if n < 0 || int(n) > e.r.Remaining()/12 || n > MaxAppCodes {
		return false
	}
	for i := range n {
		c := int32(peek(bitproto.Int32))
		if _, ok := e.field(fmt.Sprintf("appCodes[%d].code", i), bitproto.Int32, AppCodeName(AppCode(c))); !ok {
			return false
		}
		if _, ok := e.field(fmt.Sprintf("appCodes[%d].string", i), bitproto.String); !ok {
			return false
		}
	}
	return true
}

func flagsText(f int32) string {
	h := Header{Flags: f}
	parts := []string{h.Kind()}
	if h.IsDiscardable() {
		parts = append(parts, "discardable")
	}
	if h.IsNotify() && f&FlagResponse != 0 {
		parts = append(parts, "bit 0 set, ignored for a notify")
	}
	if rest := f &^ (FlagResponse | FlagNotify | FlagDiscardable); rest != 0 {
		parts = append(parts, fmt.Sprintf("unknown bits %#x", rest))
	}
	return strings.Join(parts, ", ")
}

// bits returns n bits at off of the frame in brackets, or "" when there are more than 64.
func (e *explainer) bits(off, n int) string {
	if n <= 0 || n > 64 {
		return ""
	}
	save := e.r.Offset()
	defer func() { _ = e.r.Seek(save) }()
	if e.r.Seek(off) != nil {
		return ""
	}
	x, err := e.r.ReadBits(n)
	if err != nil {
		return ""
	}
	s := strconv.FormatUint(x, 2)
	return "[" + strings.Repeat("0", n-len(s)) + s + "]"
}

func (e *explainer) zero(off, n int) bool {
	save := e.r.Offset()
	defer func() { _ = e.r.Seek(save) }()
	_ = e.r.Seek(off)
	for n > 0 {
		k := min(n, 64)
		x, err := e.r.ReadBits(k)
		if err != nil || x != 0 {
			return false
		}
		n -= k
	}
	return true
}

// WriteText writes the explanation in the style of the protocol documentation's annotated
// example: one line per group of bits, with its offset, the bits and their meaning. As with
// [Explanation.WriteSummary], errors are noted but not written.
func (ex *Explanation) WriteText(w io.Writer) error {
	var b strings.Builder
	for i, fe := range ex.Frames {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "frame %d at byte %d", i+1, fe.Offset)
		if fe.Length >= 0 && fe.Err == nil {
			fmt.Fprintf(&b, ": %s, length %d", plural(int(fe.Size), "byte"), fe.Length)
			if fe.Header != nil {
				fmt.Fprintf(&b, ", %s", fe.Header.String())
			}
			if fe.FirstPayloadBit == 0 {
				b.WriteString(" (bits numbered from the payload's first bit)")
			}
		}
		b.WriteByte('\n')
		for _, s := range fe.Steps {
			writeStep(&b, s)
		}
		if fe.Err != nil {
			b.WriteString("(the frame does not decode past this point)\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeStep(b *strings.Builder, s bitproto.Step) {
	var at string
	if s.Len <= 64 && s.Bits != "" {
		at = fmt.Sprintf("Bit %3d:", s.Bit)
	} else {
		at = fmt.Sprintf("Bits %d–%d:", s.Bit, s.Bit+s.Len-1)
	}
	bits := s.Bits
	fmt.Fprintf(b, "%-12s %-20s -> %s\n", at, bits, s.Text)
}

// WriteSummary writes each frame's header, with names, and its body fields, one per line. A
// frame that fails to decode ends with a note; the error itself is not written (it is the
// frame's Err, and [Explain] returns it), so that a program can report it once, where it reports
// errors.
func (ex *Explanation) WriteSummary(w io.Writer) error {
	var b strings.Builder
	for i := range ex.Frames {
		if i > 0 {
			b.WriteByte('\n')
		}
		ex.Frames[i].summary(&b, fmt.Sprintf("frame %d at byte %d", i+1, ex.Frames[i].Offset))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSummary writes the frame as Explanation.WriteSummary does, under its own title (for
// example a time, a direction and a connection) instead of "frame N at byte M": for tools that
// explain frames one at a time as they pass.
func (fe *FrameExplanation) WriteSummary(w io.Writer, title string) error {
	var b strings.Builder
	fe.summary(&b, title)
	_, err := io.WriteString(w, b.String())
	return err
}

// summary writes one frame of WriteSummary.
func (fe *FrameExplanation) summary(b *strings.Builder, title string) {
	b.WriteString(title)
	if fe.Header == nil {
		b.WriteString(": the header does not decode\n")
		return
	}
	h := fe.Header
	fmt.Fprintf(b, ": %s (length %d), %s\n", plural(int(fe.Size), "byte"), fe.Length, fe.Names.Kind)
	row := func(name, value string) { fmt.Fprintf(b, "  %-14s %s\n", name, value) }
	named := func(v int32, name string) string {
		if name == "" {
			return strconv.Itoa(int(v))
		}
		return fmt.Sprintf("%d (%s)", v, name)
	}
	row("flags", fmt.Sprintf("%d (%s)", h.Flags, flagsText(h.Flags)))
	row("svcClass", named(int32(h.SvcClass), fe.Names.SvcClass))
	row("msgType", named(h.MsgType, fe.Names.MsgType))
	if h.IsService() {
		row("requestId", strconv.Itoa(int(h.RequestID)))
	}
	if h.IsRequest() {
		row("logCorrelator", strconv.Quote(h.LogCorrelator))
	}
	if h.IsResponse() {
		row("resultCode", named(int32(h.ResultCode), fe.Names.ResultCode))
		row("appCode", named(int32(h.AppCode), fe.Names.AppCode))
		if h.AppCode != 0 {
			row("appString", strconv.Quote(h.AppString))
		}
		for j, c := range h.AppCodes {
			row(fmt.Sprintf("appCodes[%d]", j), fmt.Sprintf("%s %q", named(int32(c.Code), AppCodeName(c.Code)), c.String))
		}
	}
	switch bd := fe.Body; {
	case bd == nil:
	case bd.Null:
		row("body", "null")
	case bd.Message != nil:
		what := bd.Message.Type
		if what == "" {
			what = "not in the catalog"
		}
		row("body", fmt.Sprintf("%s, %s from bit %d", what, plural(int(bd.Bits), "bit"), bd.Bit))
		for _, l := range bd.Message.Lines {
			fmt.Fprintf(b, "    %s\n", l)
		}
		if bd.Rest > 0 && !bd.RestZero {
			fmt.Fprintf(b, "    %s left after the fields, not all zero\n", plural(int(bd.Rest), "bit"))
		} else if bd.Rest >= 8 {
			fmt.Fprintf(b, "    %d zero bits left after the fields\n", bd.Rest)
		}
	default:
		row("body", fmt.Sprintf("%s from bit %d", plural(int(bd.Bits), "bit"), bd.Bit))
		for _, v := range bd.Fields {
			name := v.Field.Name
			if name == "" {
				name = v.Field.Type.String()
			}
			fmt.Fprintf(b, "    %-12s %-8s %s  (bit %d, %s)\n", name, v.Field.Type, v.Text(), v.Bit, plural(int(v.Len), "bit"))
		}
		if len(bd.Fields) == 0 && bd.Bits > 0 {
			fmt.Fprintf(b, "    not decoded: %s\n", bodyHex(*fe))
		} else if bd.Rest > 0 && !bd.RestZero {
			fmt.Fprintf(b, "    %s left after the fields, not all zero\n", plural(int(bd.Rest), "bit"))
		}
	}
	if fe.Err != nil {
		b.WriteString("  (the frame does not decode past this point)\n")
	}
}

// bodyHex is a short description of an undecoded body.
func bodyHex(fe FrameExplanation) string {
	for _, s := range fe.Steps {
		if strings.HasPrefix(s.Text, "body:") {
			if s.Bits != "" {
				return s.Bits
			}
			return fmt.Sprintf("bits %d–%d (use --body to decode)", s.Bit, s.Bit+s.Len-1)
		}
	}
	return "(use --body to decode)"
}
