package gsf

import (
	"bytes"
	"errors"
	"github.com/gamewire/gamewire/explain"
	"io"
	"testing"

	"github.com/gamewire/gamewire/bitproto"
)

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		seedRequest, seedResponse,
		"00", "8080808080", "03 20 c2 01", "15 20 c2 5c", "02 80 00", "02 60 00", "80 15",
		"ffffff7f",
	} {
		b, _ := hexBytes(s)
		f.Add(b)
	}
	h := Header{Flags: 17, SvcClass: SvcUserServer, MsgType: 15, RequestID: 3, AppCode: AppMultErrs, AppString: "x", AppCodes: []AppCodeEntry{{1, "a"}}}
	b, _ := AppendMessage(nil, &h, nil)
	f.Add(b)
	n := NewNotify(SvcClient, 8)
	b, _ = AppendMessage(nil, &n, &GetClientVersionInfoRequest{ClientName: "hi"})
	f.Add(append(b, b...))
}

func hexBytes(s string) ([]byte, error) {
	var out []byte
	var hi int = -1
	for _, c := range s {
		var v int
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'a' && c <= 'f':
			v = int(c-'a') + 10
		default:
			continue
		}
		if hi < 0 {
			hi = v
		} else {
			out = append(out, byte(hi<<4|v))
			hi = -1
		}
	}
	return out, nil
}

// FuzzConsumeMessage decodes arbitrary frames. No panic; errors are typed; a decoded message
// re-encodes to a frame that decodes to the same header, and whose body bits are the same.
func FuzzConsumeMessage(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, n, err := ConsumeMessage(data)
		if err != nil {
			var fe *FrameError
			var pe *bitproto.DecodeError
			if !errors.As(err, &fe) && !errors.As(err, &pe) {
				t.Fatalf("untyped error %T %v", err, err)
			}
			return
		}
		if n <= 0 || n > len(data) {
			t.Fatalf("consumed %d of %d", n, len(data))
		}
		var body GetClientVersionInfoRequest
		_ = m.DecodeBody(&body)
		out, err := m.Append(nil)
		if err != nil {
			return // a header that changed length cannot carry the raw body (not the case here), or an invalid length
		}
		m2, _, err := ConsumeMessage(out)
		if err != nil {
			t.Fatalf("re-encoded message does not decode: %v", err)
		}
		if !equalHeader(canonical(m.Header), m2.Header) || m.Body.IsNull() != m2.Body.IsNull() {
			t.Fatalf("header %+v became %+v", m.Header, m2.Header)
		}
		if !m.Body.IsNull() {
			var b1, b2 GetClientVersionInfoRequest
			e1, e2 := m.DecodeBody(&b1), m2.DecodeBody(&b2)
			if (e1 == nil) != (e2 == nil) || b1 != b2 {
				t.Fatalf("body %+v %v became %+v %v", b1, e1, b2, e2)
			}
		}
		if _, err := Explain(data[:n], ExplainOptions{}); err != nil {
			t.Fatalf("Explain fails on a frame ConsumeMessage accepts: %v", err)
		}
	})
}

// canonical drops what the encoder does not write for a header's flags.
func canonical(h Header) Header {
	if !h.IsService() {
		h.RequestID = 0
	}
	if !h.IsRequest() {
		h.LogCorrelator = ""
	}
	if !h.IsResponse() {
		h.ResultCode, h.AppCode, h.AppString, h.AppCodes = 0, 0, "", nil
	}
	if h.AppCodes != nil && len(h.AppCodes) == 0 {
		h.AppCodes = nil
	}
	return h
}

// FuzzFrameReader reads a stream frame by frame with a small limit, and checks that it agrees
// with ConsumeFrame on the same bytes.
func FuzzFrameReader(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := NewFrameReader(bytes.NewReader(data))
		fr.MaxMessageBytes = 1 << 16
		rest := data
		for {
			p, err := fr.ReadFrame()
			if err == io.EOF {
				if len(rest) != 0 {
					t.Fatalf("EOF with %d bytes left", len(rest))
				}
				return
			}
			want, n, werr := ConsumeFrame(rest)
			if err != nil {
				var fe *FrameError
				if !errors.As(err, &fe) {
					t.Fatalf("untyped error %v", err)
				}
				if werr == nil && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("FrameReader: %v; ConsumeFrame accepted", err)
				}
				if _, again := fr.ReadFrame(); again != err {
					t.Fatal("error not sticky")
				}
				return
			}
			if werr != nil || !bytes.Equal(p, want) {
				t.Fatalf("FrameReader % x, ConsumeFrame % x %v", p, want, werr)
			}
			rest = rest[n:]
		}
	})
}

// FuzzExplain explains arbitrary input with a body field list: no panics, and every step lies
// within the input.
func FuzzExplain(f *testing.F) {
	fuzzSeeds(f)
	fields, _ := bitproto.ParseFields("string,bool,int64,char,date,bytes,null,align,float32")
	f.Fuzz(func(t *testing.T, data []byte) {
		ex, _ := Explain(data, ExplainOptions{Body: fields[:1+len(data)%len(fields)]})
		var buf bytes.Buffer
		_ = ex.WriteText(&buf)
		_ = ex.WriteSummary(&buf)
		for _, fe := range ex.Frames {
			for _, s := range fe.Steps {
				if s.Bit < 0 || s.Len < 0 || fe.Offset*8+s.Bit+s.Len > len(data)*8 {
					t.Fatalf("step %+v outside the input of %d bytes", s, len(data))
				}
			}
		}
		// The model: the same frames, valid trees within the input, within the budget.
		budget := explain.NewBudget(200)
		frames, _ := ExplainFrames(data, ExplainOptions{Body: fields[:1+len(data)%len(fields)], PayloadBits: len(data)%3 == 0}, budget)
		n := 0
		for _, fr := range frames {
			if err := fr.Validate(); err != nil {
				t.Fatal(err)
			}
			if fr.Bit+fr.Bits > int64(8*len(data)) {
				t.Fatalf("frame at bits %d+%d outside the input of %d bytes", fr.Bit, fr.Bits, len(data))
			}
			n += fr.Count()
		}
		if n > 200 {
			t.Fatalf("%d fields, budget 200", n)
		}
		if err := explain.WriteJSON(&buf, frames...); err != nil {
			t.Fatal(err)
		}
		_ = explain.WriteText(&buf, data, frames...)
	})
}
