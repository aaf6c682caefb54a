package gsf

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gamewire/gamewire/bitproto"
)

// checkFastDecode decodes data (a payload, n bytes of it before a possible terminator) with
// decodeRequest (when isRequest) and with decodeFast, into a Message holding an earlier message,
// and compares them with decodeReader. It reports whether decodeRequest took the message.
func checkFastDecode(t *testing.T, data []byte, n int, reused *Message) (request bool) {
	t.Helper()
	var want Message
	werr := decodeReader(&want.Header, &want.Body, data, n)
	if isRequest(data) {
		m := *reused
		if request = decodeRequest(&m.Header, &m.Body, data, n); request {
			if werr != nil {
				t.Fatalf("decodeRequest accepts % x, decodeReader fails: %v", data, werr)
			}
			if !reflect.DeepEqual(m, want) {
				t.Fatalf("decodeRequest of % x:\n%+v\ndecodeReader:\n%+v", data, m, want)
			}
		} else if !reflect.DeepEqual(m, *reused) {
			t.Fatalf("decodeRequest of % x failed and changed the message", data)
		}
	}
	if !decodeFast(&reused.Header, &reused.Body, data, n) {
		return request // decode falls back on decodeReader
	}
	if werr != nil {
		t.Fatalf("decodeFast accepts % x, decodeReader fails: %v", data, werr)
	}
	if !reflect.DeepEqual(*reused, want) {
		t.Fatalf("decodeFast of % x:\n%+v\ndecodeReader:\n%+v", data, *reused, want)
	}
	return request
}

// randHeader returns a random header of any kind, with values that take every compressed form.
func randHeader(rng *rand.Rand) Header {
	val := func() int32 {
		switch rng.IntN(4) {
		case 0:
			return int32(rng.IntN(16)) - 8
		case 1:
			return int32(rng.IntN(256)) - 128
		case 2:
			return int32(rng.IntN(65536)) - 32768
		}
		return int32(rng.Uint32())
	}
	str := func() string {
		return string(bytes.Repeat([]byte{'a' + byte(rng.IntN(26))}, rng.IntN(3)*rng.IntN(12)))
	}
	h := Header{Flags: int32(rng.IntN(4)) | int32(rng.IntN(2))<<4, SvcClass: ServiceClass(val()), MsgType: val(), RequestID: val(),
		LogCorrelator: str(), ResultCode: ResultCode(val()), AppCode: AppCode(val()), AppString: str()}
	switch rng.IntN(4) {
	case 0:
		h.AppCode = 0
	case 1:
		h.AppCode = AppCodeMultiple
		h.AppCodes = []AppCodeEntry{{Code: AppCode(val()), String: str()}}
	}
	if rng.IntN(8) == 0 {
		h.Flags = val()
	}
	return h
}

func TestDecodeFastAgreesWithReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var reused Message
	requests := 0
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		h := randHeader(rng)
		var body any
		switch rng.IntN(3) {
		case 0:
			body = &GetClientVersionInfoRequest{ClientName: "AmazingWorld"}
		case 1:
			body = &struct{ A, B int32 }{int32(rng.Uint32()), 1}
		}
		p, err := AppendPayload(nil, &h, body)
		if err != nil {
			t.Fatal(err)
		}
		switch rng.IntN(5) {
		case 0:
			p = p[:rng.IntN(len(p)+1)]
		case 1:
			p[rng.IntN(len(p))] ^= 1 << rng.IntN(8)
		}
		if checkFastDecode(t, p, len(p), &reused) {
			requests++
		}
		checkFastDecode(t, append(p, 0), len(p), &reused) // with the frame's terminator
		junk := make([]byte, rng.IntN(24))
		for i := range junk {
			junk[i] = byte(rng.Uint32())
		}
		checkFastDecode(t, junk, len(junk), &reused)
	}
	if requests < n/100 { // about 1 in 64: a request (1/4), flags a nibble (1/2), a body (2/3), …
		t.Errorf("decodeRequest took %d of %d messages", requests, n)
	}
}

// FuzzDecodeFast checks decodeFast against decodeReader on arbitrary payloads.
func FuzzDecodeFast(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		m := Message{Header: Header{LogCorrelator: "x", AppString: "y", AppCodes: []AppCodeEntry{{}}}}
		checkFastDecode(t, data, len(data), &m)
	})
}

func TestFrameReaderReadMessage(t *testing.T) {
	h := NewRequest(SvcUserServer, 566, 1)
	req, _ := AppendMessage(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	resp := NewResponse(&h)
	resp.ResultCode, resp.AppCode, resp.AppString = 1, AppCodeMultiple, "errors"
	resp.AppCodes = []AppCodeEntry{{Code: 3, String: "three"}}
	errResp, _ := AppendMessage(nil, &resp, nil)
	n := NewNotify(SvcClient, 8)
	notify, _ := AppendMessage(nil, &n, nil)
	stream := bytes.Join([][]byte{req, errResp, notify, req, {0x02, 0x80, 0x00}}, nil)

	fr := NewFrameReader(bytes.NewReader(stream))
	fr2 := NewFrameReader(bytes.NewReader(stream))
	fr3 := NewFrameReader(bytes.NewReader(stream))
	var m Message
	var dec bitproto.Decoder
	// ReadMessageInto decodes into a struct of the caller's, which held another message.
	var into struct {
		h    Header
		body RawBody
	}
	into.h = Header{LogCorrelator: "old", AppString: "old", AppCodes: []AppCodeEntry{{Code: 1}}}
	for i, want := range []Header{h, resp, n, h} {
		if err := fr.ReadMessage(&m); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !equalHeader(canonical(m.Header), canonical(want)) {
			t.Fatalf("message %d: header %+v, want %+v", i, m.Header, want)
		}
		var body GetClientVersionInfoRequest
		if err := m.DecodeBodyUsing(&dec, &body); err != nil || m.Body.IsNull() != (i == 1 || i == 2) || !m.Body.IsNull() && body.ClientName != "AmazingWorld" {
			t.Fatalf("message %d: body %+v null %v, %v", i, body, m.Body.IsNull(), err)
		}
		// The function and the method agree.
		if m2, err := ReadMessage(fr2); err != nil || !reflect.DeepEqual(m2, m) {
			t.Fatalf("message %d: ReadMessage gives %+v, %v", i, m2, err)
		}
		if err := fr3.ReadMessageInto(&into.h, &into.body); err != nil || !reflect.DeepEqual(Message{Header: into.h, Body: into.body}, m) {
			t.Fatalf("message %d: ReadMessageInto gives %+v %+v, %v", i, into.h, into.body, err)
		}
	}
	if err := fr3.ReadMessageInto(&into.h, &into.body); !errors.Is(err, ErrNullMessage) || !reflect.DeepEqual(into.h, Header{}) || !reflect.DeepEqual(into.body, RawBody{}) {
		t.Fatalf("ReadMessageInto, null message: %v, %+v %+v", err, into.h, into.body)
	}
	into.h.AppString = "old"
	if err := fr3.ReadMessageInto(&into.h, &into.body); err != io.EOF || !reflect.DeepEqual(into.h, Header{}) {
		t.Fatalf("ReadMessageInto at the end: %v, %+v", err, into.h)
	}
	// A null message: an error, and the header of the message before is gone.
	if err := fr.ReadMessage(&m); !errors.Is(err, ErrNullMessage) || !reflect.DeepEqual(m, Message{}) {
		t.Fatalf("null message: %v, %+v", err, m)
	}
	if err := fr.ReadMessage(&m); err != io.EOF || !reflect.DeepEqual(m, Message{}) {
		t.Fatalf("at the end: %v, %+v", err, m)
	}
}

// TestReadMessageAllocs checks that a server's read loop, with a reused Message, decoder and
// body, reads requests without allocating.
func TestReadMessageAllocs(t *testing.T) {
	h := NewRequest(SvcUserServer, 566, 1)
	one, _ := AppendMessage(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	stream := bytes.Repeat(one, 1000)
	var rd bytes.Reader
	fr := NewFrameReader(nil)
	var m Message
	var dec bitproto.Decoder
	var body GetClientVersionInfoRequest
	loop := func() {
		rd.Reset(stream)
		fr.Reset(&rd)
		for range 1000 {
			if err := fr.ReadMessage(&m); err != nil {
				t.Fatal(err)
			}
			if err := m.DecodeBodyUsing(&dec, &body); err != nil || body.ClientName != "AmazingWorld" {
				t.Fatal(err)
			}
		}
	}
	loop()
	// 12 bytes of strings per message, in 16 KiB chunks: a chunk per 1365 messages.
	if n := testing.AllocsPerRun(20, loop); n > 2 {
		t.Errorf("%v allocations per 1000 messages", n)
	}
}

// TestDecodeFastTail decodes messages whose header ends within the last 8 bytes of the payload,
// where decodeFast reads a partial window.
func TestDecodeFastTail(t *testing.T) {
	for _, h := range []Header{NewNotify(SvcClient, 8), NewRequest(1, 2, 3), {Flags: 1, SvcClass: 1, AppCode: 5, AppString: "x"}} {
		p, err := AppendPayload(nil, &h, nil)
		if err != nil {
			t.Fatal(err)
		}
		var m Message
		if !decodeFast(&m.Header, &m.Body, p, len(p)) || !equalHeader(m.Header, canonical(h)) || !m.Body.IsNull() {
			t.Fatalf("% x: %+v", p, m)
		}
		for i := range p {
			checkFastDecode(t, p[:i], i, &m)
		}
	}
}

// TestFrameReaderStaysFailed checks that a reader that failed returns its error again, even when a
// change of MaxMessageBytes would let the common case (shortFrame) take the frame that failed.
func TestFrameReaderStaysFailed(t *testing.T) {
	h := NewRequest(1, 2, 3)
	stream, err := AppendMessage(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	if err != nil {
		t.Fatal(err)
	}
	stream = append(stream, stream...)
	fr := NewFrameReader(bytes.NewReader(stream))
	fr.MaxMessageBytes = 4
	var m Message
	if err := fr.ReadMessage(&m); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("first read: %v", err)
	}
	fr.MaxMessageBytes = 0
	for range 2 {
		if err := fr.ReadMessage(&m); !errors.Is(err, ErrTooLarge) || fr.Buffered() != 0 {
			t.Fatalf("read after the error: %v, %d bytes buffered", err, fr.Buffered())
		}
	}
}
