package gsf

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The protocol documentation's annotated example, and the reference server's answer to it.
const (
	seedRequest  = "15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00"
	seedResponse = "15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00"
)

type GetClientVersionInfoRequest struct {
	ClientName string
}

type GetClientVersionInfoResponse struct {
	Version string
}

func TestSeedRequestDecode(t *testing.T) {
	in := unhex(t, seedRequest)
	m, n, err := ConsumeMessage(in)
	if err != nil || n != 22 {
		t.Fatalf("ConsumeMessage: %d, %v", n, err)
	}
	want := Header{Flags: 0, SvcClass: SvcUserServer, MsgType: 566, RequestID: 1}
	if !equalHeader(m.Header, want) || !m.Header.IsRequest() {
		t.Fatalf("header %+v", m.Header)
	}
	if ServiceClassName(18) != "USER_SERVER" || m.Header.MessageTypeName() != "GET_CLIENT_VERSION_INFO" {
		t.Fatal("names")
	}
	// The header ends at payload bit 51, the body's null bit; the body starts at 52.
	if m.Body.IsNull() || m.Body.BitOffset() != 52 || m.Body.BitLen() != 108 {
		t.Fatalf("body at %d, %d bits", m.Body.BitOffset(), m.Body.BitLen())
	}
	var body GetClientVersionInfoRequest
	if err := m.DecodeBody(&body); err != nil || body.ClientName != "AmazingWorld" {
		t.Fatalf("body %+v, %v", body, err)
	}
	if m.Header.String() != "request USER_SERVER/GET_CLIENT_VERSION_INFO id=1" {
		t.Errorf("String() = %q", m.Header.String())
	}
}

func TestSeedRequestEncode(t *testing.T) {
	h := NewRequest(SvcUserServer, 566, 1)
	got, err := AppendMessage(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	if err != nil || hex.EncodeToString(got) != strings.ReplaceAll(seedRequest, " ", "") {
		t.Fatalf("AppendMessage = % x, %v", got, err)
	}
	// The unframed payload.
	p, err := AppendPayload(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	if err != nil || !bytes.Equal(p, unhex(t, seedRequest)[1:21]) {
		t.Fatalf("AppendPayload = % x, %v", p, err)
	}
	// Re-encoding the decoded message gives the same bytes.
	m, _, _ := ConsumeMessage(got)
	again, err := m.Append(nil)
	if err != nil || !bytes.Equal(again, got) {
		t.Fatalf("Message.Append = % x, %v", again, err)
	}
}

func TestSeedResponse(t *testing.T) {
	in := unhex(t, seedResponse)
	m, _, err := ConsumeMessage(in)
	if err != nil {
		t.Fatal(err)
	}
	want := Header{Flags: 1, SvcClass: SvcUserServer, MsgType: 566, RequestID: 1, ResultCode: ResultOK, AppCode: AppOK}
	if !equalHeader(m.Header, want) || !m.Header.IsResponse() {
		t.Fatalf("header %+v", m.Header)
	}
	// Payload bit 57 is the body's null bit.
	if m.Body.BitOffset() != 58 {
		t.Fatalf("body at %d", m.Body.BitOffset())
	}
	var body GetClientVersionInfoResponse
	if err := m.DecodeBody(&body); err != nil || body.Version != "133852.true" {
		t.Fatalf("body %+v, %v", body, err)
	}
	// The server builds the response from the request header.
	req, _, _ := ConsumeMessage(unhex(t, seedRequest))
	h := NewResponse(&req.Header)
	got, err := AppendMessage(nil, &h, &GetClientVersionInfoResponse{Version: "133852.true"})
	if err != nil || !bytes.Equal(got, in) {
		t.Fatalf("response = % x, %v", got, err)
	}
}

func equalHeader(a, b Header) bool {
	if len(a.AppCodes) != len(b.AppCodes) {
		return false
	}
	for i := range a.AppCodes {
		if a.AppCodes[i] != b.AppCodes[i] {
			return false
		}
	}
	a.AppCodes, b.AppCodes = nil, nil
	return reflect.DeepEqual(a, b)
}

// TestSeedBitOffsets pins the bit offsets of the annotated example. The documentation numbers
// bits from the frame's first bit (the length byte is bits 0-7) and gets three of them wrong:
// the nibbles of flags, requestId and the logCorrelator length are at 12, 49 and 55, not at 14,
// 51 and 57, because the [1][0] before a nibble is 2 bits, not 4.
func TestSeedBitOffsets(t *testing.T) {
	ex, err := Explain(unhex(t, seedRequest), ExplainOptions{Body: mustFields(t, "clientName:string")})
	if err != nil {
		t.Fatal(err)
	}
	fe := ex.Frames[0]
	type row struct {
		bit  int
		bits string
		text string
	}
	want := []row{
		{0, "[00010101]", "length prefix = 21: 20 payload bytes + the 0x00 terminator"},
		{8, "[0]", "message is not null"},
		{9, "[0]", "header is not null"},
		{10, "[1][0]", "flags compressed, 0 bytes -> 4-bit value"},
		{12, "[0000]", "flags = 0 (request)"}, // the seed says 14
		{16, "[1][1][0]", "svcClass compressed, 1 byte follows"},
		{19, "[00010010]", "svcClass = 18 (USER_SERVER)"},
		{27, "[1][1][1][0]", "msgType compressed, 2 bytes follow"},
		{31, "[0000001000110110]", "msgType = 566 (GET_CLIENT_VERSION_INFO)"},
		{47, "[1][0]", "requestId compressed, 0 bytes -> 4-bit value"},
		{49, "[0001]", "requestId = 1"}, // the seed says 51
		{53, "[1][0]", "logCorrelator length compressed, 0 bytes -> 4-bit value"},
		{55, "[0000]", "length = 0 (empty string, no alignment)"}, // the seed says 57
		{59, "[0]", "body is not null"},
		{60, "[1][1][0]", "clientName length compressed, 1 byte follows"},
		{63, "[00001100]", "length = 12"},
		{71, "[0]", "align: skip to the byte boundary"},
		{72, "", `clientName = "AmazingWorld" (12 bytes, 96 bits)`},
		{168, "[00000000]", "terminator 0x00"},
	}
	if len(fe.Steps) != len(want) {
		t.Fatalf("%d steps, want %d: %+v", len(fe.Steps), len(want), fe.Steps)
	}
	for i, w := range want {
		s := fe.Steps[i]
		if s.Bit != w.bit || s.Bits != w.bits || s.Text != w.text {
			t.Errorf("step %d = {%d %q %q}, want {%d %q %q}", i, s.Bit, s.Bits, s.Text, w.bit, w.bits, w.text)
		}
	}
	// The seed's wrong numbers are 2 too high, exactly for the three nibbles.
	for _, seedBit := range []int{14, 51, 57} {
		for _, s := range fe.Steps {
			if s.Bit == seedBit {
				t.Errorf("a step starts at bit %d, where the seed wrongly puts a nibble", seedBit)
			}
		}
	}

	// Payload numbering: 8 less; the spec's table (bit 51 is the body's null bit).
	ex, _ = Explain(unhex(t, seedRequest), ExplainOptions{PayloadBits: true})
	for _, s := range ex.Frames[0].Steps {
		if s.Text == "body is not null" && s.Bit != 51 {
			t.Errorf("payload numbering: body null bit at %d, want 51", s.Bit)
		}
	}
}

func mustFields(t *testing.T, spec string) []bitproto.Field {
	t.Helper()
	f, err := bitproto.ParseFields(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestExplainText(t *testing.T) {
	in := append(unhex(t, seedRequest), unhex(t, seedResponse)...)
	ex, err := Explain(in, ExplainOptions{Body: mustFields(t, "clientName:string")})
	if err == nil {
		// The response body has a string too, so the same field list decodes both frames.
		var b strings.Builder
		if err := ex.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"frame 1 at byte 0: 22 bytes, length 21, request USER_SERVER/GET_CLIENT_VERSION_INFO id=1\n",
			"Bit  12:     [0000]               -> flags = 0 (request)\n",
			"Bit  49:     [0001]               -> requestId = 1\n",
			"Bit  55:     [0000]               -> length = 0 (empty string, no alignment)\n",
			"Bits 72–167:                      -> clientName = \"AmazingWorld\" (12 bytes, 96 bits)\n",
			"frame 2 at byte 22: 22 bytes, length 21, response USER_SERVER/GET_CLIENT_VERSION_INFO id=1\n",
			"Bit  53:     [1][0]               -> resultCode compressed, 0 bytes -> 4-bit value\n",
			"Bit  55:     [0000]               -> resultCode = 0 (OK)\n",
			"Bit  61:     [0000]               -> appCode = 0 (OK)\n",
			"Bits 80–167:                      -> clientName = \"133852.true\" (11 bytes, 88 bits)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in\n%s", want, out)
			}
		}
		b.Reset()
		if err := ex.WriteSummary(&b); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"  svcClass       18 (USER_SERVER)\n",
			"  msgType        566 (GET_CLIENT_VERSION_INFO)\n",
			"    clientName   string   \"AmazingWorld\"  (bit 60, 108 bits)\n",
			"  resultCode     0 (OK)\n",
		} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("summary: missing %q in\n%s", want, b.String())
			}
		}
		return
	}
	t.Fatal(err)
}

func TestExplainErrors(t *testing.T) {
	// A good frame, then one without its terminator: the first is explained, the second fails.
	in := append(unhex(t, seedRequest), unhex(t, "03 80 00 01")...)
	ex, err := Explain(in, ExplainOptions{})
	if !errors.Is(err, ErrMissingTerminator) || len(ex.Frames) != 2 || ex.Frames[0].Err != nil || ex.Frames[1].Offset != 22 {
		t.Fatalf("err %v, frames %+v", err, ex.Frames)
	}
	var fe *FrameError
	if !errors.As(err, &fe) || fe.Offset != 22 {
		t.Fatalf("err %#v", err)
	}
	// Without a body field list the body is shown as bits.
	if s := ex.Frames[0].Steps[14]; s.Bit != 60 || !strings.HasPrefix(s.Text, "body: 108 bits, not decoded") {
		t.Errorf("step %+v", s)
	}
	// A null message.
	if _, err := Explain(unhex(t, "02 80 00"), ExplainOptions{}); !errors.Is(err, ErrNullMessage) {
		t.Errorf("null message: %v", err)
	}
	// A header cut short.
	_, err = Explain(unhex(t, "03 20 c2 00"), ExplainOptions{})
	var pe *bitproto.DecodeError
	if !errors.As(err, &pe) || pe.Path != "header.msgType" || !errors.Is(err, bitstream.ErrTruncated) {
		t.Errorf("truncated header: %v", err)
	}
}

func TestHeaderVariants(t *testing.T) {
	tests := []struct {
		name string
		h    Header
		body any
	}{
		{"notify", NewNotify(SvcSyncServer, 54), nil},
		{"flags 3: a notify, no request or result fields", Header{Flags: 3, SvcClass: SvcUserServer, MsgType: 5}, &GetClientVersionInfoRequest{ClientName: "x"}},
		{"discardable request", Header{Flags: 0x10, SvcClass: SvcUserServer, MsgType: 113, RequestID: 300, LogCorrelator: "corr"}, nil},
		{"error response", Header{Flags: 1, SvcClass: SvcUserServer, MsgType: 15, RequestID: 2147483647, ResultCode: ResultErr, AppCode: AppAuth, AppString: "bad password"}, nil},
		{"negative app code", Header{Flags: 1, SvcClass: SvcUserServer, MsgType: 15, RequestID: 2, AppCode: AppIlg, AppString: "ilg"}, nil},
		{"multiple errors", Header{Flags: 17, SvcClass: SvcUserServer, MsgType: 15, RequestID: 3, ResultCode: ResultApp, AppCode: AppMultErrs, AppString: "two",
			AppCodes: []AppCodeEntry{{AppInvalidName, "name"}, {AppInvalidPin, ""}}}, nil},
		{"client notify", NewNotify(SvcClient, 8), &GetClientVersionInfoRequest{}},
	}
	for _, tc := range tests {
		b, err := AppendMessage(nil, &tc.h, tc.body)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m, n, err := ConsumeMessage(b)
		if err != nil || n != len(b) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := tc.h
		if !want.IsService() {
			want.RequestID, want.LogCorrelator = 0, ""
		}
		if !want.IsRequest() {
			want.LogCorrelator = ""
		}
		if !equalHeader(m.Header, want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, m.Header, want)
		}
		if m.Body.IsNull() != (tc.body == nil) {
			t.Errorf("%s: body null = %v", tc.name, m.Body.IsNull())
		}
		// Explain must agree with the decoder on every frame.
		if _, err := Explain(b, ExplainOptions{}); err != nil {
			t.Errorf("%s: Explain: %v", tc.name, err)
		}
	}
	// The notify header is flags, class and type only: 6 + 11 + 6 bits, plus the null bits.
	h := NewNotify(SvcClient, 8)
	p, _ := AppendPayload(nil, &h, nil)
	var w bitstream.Writer
	w.WriteNull(false)
	w.WriteNull(false)
	w.WriteInt32(2)
	w.WriteInt32(-1) // CLIENT is the nibble 1 0 1111
	w.WriteInt32(8)
	w.WriteNull(true)
	if !bytes.Equal(p, w.Bytes()) {
		t.Errorf("notify payload % x, want % x", p, w.Bytes())
	}
	// A MULT_ERRS response with no list writes a count of 0, not -1.
	h = Header{Flags: 1, AppCode: AppMultErrs}
	p, _ = AppendPayload(nil, &h, nil)
	w.Reset(nil)
	w.WriteNull(false)
	w.WriteNull(false)
	for _, v := range []int32{1, 0, 0, 0, 0, 17} {
		w.WriteInt32(v)
	}
	w.WriteString("")
	w.WriteInt32(0)
	w.WriteNull(true)
	if !bytes.Equal(p, w.Bytes()) {
		t.Errorf("MULT_ERRS payload % x, want % x", p, w.Bytes())
	}
}

func TestFlags(t *testing.T) {
	req := Header{Flags: 0x10, SvcClass: SvcUserServer, MsgType: 113, RequestID: 300, LogCorrelator: "c"}
	resp := NewResponse(&req)
	if resp.Flags != 0x11 || resp.RequestID != 300 || resp.MsgType != 113 || !resp.IsResponse() || !resp.IsDiscardable() || resp.LogCorrelator != "c" {
		t.Fatalf("NewResponse = %+v", resp)
	}
	resp.SetResponse(false)
	resp.SetDiscardable(false)
	if resp.Flags != 0 || !resp.IsRequest() {
		t.Fatalf("clearing flags: %d", resp.Flags)
	}
	for flags, kind := range map[int32]string{0: "request", 1: "response", 2: "notify", 3: "notify", 16: "request", 17: "response", 18: "notify"} {
		h := Header{Flags: flags}
		if h.Kind() != kind || h.IsNotify() == h.IsService() {
			t.Errorf("flags %d: %s", flags, h.Kind())
		}
	}
}

func TestLengthPrefix(t *testing.T) {
	for _, tc := range []struct {
		n   int
		hex string
	}{{0, "00"}, {21, "15"}, {127, "7f"}, {128, "8100"}, {16383, "ff7f"}, {16384, "818000"}, {2097151, "ffff7f"}, {2097152, "81808000"}, {268435455, "ffffff7f"}} {
		b, err := AppendLength(nil, tc.n)
		if err != nil || hex.EncodeToString(b) != tc.hex {
			t.Errorf("AppendLength(%d) = %x, %v", tc.n, b, err)
		}
		n, size, err := ConsumeLength(b)
		if err != nil || n != tc.n || size != len(b) {
			t.Errorf("ConsumeLength(%s) = %d, %d, %v", tc.hex, n, size, err)
		}
	}
	if _, err := AppendLength(nil, 1<<28); !errors.Is(err, ErrTooLarge) {
		t.Errorf("2^28: %v", err)
	}
	// Non-minimal forms are accepted, as by the reference.
	for _, h := range []string{"8015", "80808015"} {
		if n, _, err := ConsumeLength(unhex(t, h)); n != 21 || err != nil {
			t.Errorf("ConsumeLength(%s) = %d, %v", h, n, err)
		}
	}
	if _, _, err := ConsumeLength(unhex(t, "8080808015")); !errors.Is(err, ErrLengthOverflow) {
		t.Errorf("5 bytes: %v", err)
	}
	if _, _, err := ConsumeLength(unhex(t, "8080")); err != io.ErrUnexpectedEOF {
		t.Errorf("cut: %v", err)
	}
}

func TestConsumeFrameErrors(t *testing.T) {
	tests := []struct {
		hex  string
		want error
	}{
		{"00", ErrEmptyFrame},
		{"80808080 01", ErrLengthOverflow},
		{"15 20 c2", io.ErrUnexpectedEOF},
		{"", io.ErrUnexpectedEOF},
		{"02 20 01", ErrMissingTerminator},
	}
	for _, tc := range tests {
		_, _, err := ConsumeFrame(unhex(t, tc.hex))
		var fe *FrameError
		if !errors.Is(err, tc.want) || !errors.As(err, &fe) {
			t.Errorf("ConsumeFrame(%s) = %v, want %v", tc.hex, err, tc.want)
		}
	}
	payload, n, err := ConsumeFrame(unhex(t, "8002 20 00 ff"))
	if err != nil || n != 4 || !bytes.Equal(payload, []byte{0x20}) {
		t.Errorf("non-minimal frame: % x %d %v", payload, n, err)
	}
	b, _ := AppendFrame(nil, []byte{0x20})
	if hex.EncodeToString(b) != "022000" {
		t.Errorf("AppendFrame = %x", b)
	}
}

func TestFrameReader(t *testing.T) {
	one := unhex(t, seedRequest)
	var stream []byte
	for range 300 {
		stream = append(stream, one...)
	}
	big := make([]byte, 5000)
	big[0] = 0x40 // a message null bit of 0, whatever follows
	stream, _ = AppendFrame(stream, big)
	// One byte at a time, and all at once: the same frames.
	for _, r := range []io.Reader{iotest.OneByteReader(bytes.NewReader(stream)), bytes.NewReader(stream), iotest.HalfReader(bytes.NewReader(stream))} {
		fr := NewFrameReader(r)
		for i := range 300 {
			m, err := ReadMessage(fr)
			var body GetClientVersionInfoRequest
			if err != nil || m.DecodeBody(&body) != nil || body.ClientName != "AmazingWorld" {
				t.Fatalf("frame %d: %v", i, err)
			}
		}
		p, err := fr.ReadFrame()
		if err != nil || len(p) != 5000 || fr.Offset() != int64(len(stream)) {
			t.Fatalf("big frame: %d bytes, %v", len(p), err)
		}
		if _, err := fr.ReadFrame(); err != io.EOF {
			t.Fatalf("at the end: %v", err)
		}
	}

	tests := []struct {
		name  string
		input string
		max   int
		want  error
	}{
		{"length 0", "00", 0, ErrEmptyFrame},
		{"5 continuation bytes", "8080808080", 0, ErrLengthOverflow},
		{"missing terminator", "03 20 c2 01", 0, ErrMissingTerminator},
		{"truncated frame", "15 20 c2 5c", 0, io.ErrUnexpectedEOF},
		{"truncated prefix", "80", 0, io.ErrUnexpectedEOF},
		{"too large for the default", "ffffff7f", 0, ErrTooLarge},
		{"too large for the limit", "15", 20, ErrTooLarge},
	}
	for _, tc := range tests {
		fr := NewFrameReader(bytes.NewReader(unhex(t, tc.input)))
		fr.MaxMessageBytes = tc.max
		_, err := fr.ReadFrame()
		var fe *FrameError
		if !errors.Is(err, tc.want) || !errors.As(err, &fe) || fe.Offset != 0 {
			t.Errorf("%s: %v", tc.name, err)
		}
		// The error sticks.
		if _, err2 := fr.ReadFrame(); err2 != err {
			t.Errorf("%s: second read %v", tc.name, err2)
		}
	}

	// The limit is checked before allocating: a 256 MiB claim allocates nothing like it.
	allocs := testing.AllocsPerRun(20, func() {
		fr := NewFrameReader(bytes.NewReader(unhex(t, "ffffff7f00")))
		_, _ = fr.ReadFrame()
	})
	if allocs > 12 {
		t.Errorf("%v allocations for a rejected frame", allocs)
	}
	// A frame within the limit is not allocated on its length prefix alone either: the buffer
	// follows the bytes that arrive (a slowloris that announces 16 MiB and sends 10 bytes
	// costs 4 KiB, not 16 MiB), and a frame that does arrive grows it in steps.
	for _, claim := range []int{60 << 10, 16 << 20} {
		stream, _ := AppendLength(nil, claim)
		stream = append(stream, make([]byte, 10)...)
		fr := NewFrameReader(bytes.NewReader(stream))
		fr.MaxMessageBytes = 16 << 20
		if _, err := fr.ReadFrame(); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("a cut %d-byte frame: %v", claim, err)
		}
		if cap(fr.buf) > 4096 {
			t.Errorf("a %d-byte claim with 10 bytes behind it: a %d-byte buffer", claim, cap(fr.buf))
		}
	}
	payload := bytes.Repeat([]byte{0x40}, 1<<20)
	stream, _ = AppendFrame(nil, payload)
	stream = append(stream, one...)
	fr := NewFrameReader(iotest.HalfReader(bytes.NewReader(stream)))
	fr.MaxMessageBytes = 2 << 20
	if p, err := fr.ReadFrame(); err != nil || !bytes.Equal(p, payload) {
		t.Fatalf("a 1 MiB frame: %d bytes, %v", len(p), err)
	}
	if cap(fr.buf) > 1<<20+4096+4 {
		t.Errorf("a 1 MiB frame: a %d-byte buffer", cap(fr.buf))
	}
	if _, err := ReadMessage(fr); err != nil {
		t.Fatalf("the frame after the 1 MiB one: %v", err)
	}

	// FrameBuffered: whether the next ReadFrame needs the stream.
	two := append(append([]byte(nil), one...), one...)
	fr = NewFrameReader(iotest.OneByteReader(bytes.NewReader(two)))
	if fr.FrameBuffered() {
		t.Error("FrameBuffered before anything was read")
	}
	fr = NewFrameReader(bytes.NewReader(two[:len(two)-1]))
	if _, err := fr.ReadFrame(); err != nil {
		t.Fatal(err)
	}
	if fr.FrameBuffered() {
		t.Error("FrameBuffered with the second frame one byte short")
	}
	fr = NewFrameReader(bytes.NewReader(two))
	if _, err := fr.ReadFrame(); err != nil || !fr.FrameBuffered() {
		t.Errorf("FrameBuffered with the second frame whole: %v", err)
	}
	if _, err := fr.ReadFrame(); err != nil || fr.FrameBuffered() {
		t.Errorf("FrameBuffered with nothing left: %v", err)
	}
	for _, bad := range []string{"00", "8080808080", "ffffff7f"} { // errors come without reading
		fr = NewFrameReader(bytes.NewReader(append(append([]byte(nil), one...), unhex(t, bad)...)))
		if _, err := fr.ReadFrame(); err != nil || !fr.FrameBuffered() {
			t.Errorf("FrameBuffered before %s: %v", bad, err)
		}
	}

	// The offset of a later failing frame is its stream offset.
	fr = NewFrameReader(bytes.NewReader(append(unhex(t, seedRequest), 0)))
	fr.ReadFrame()
	_, err := fr.ReadFrame()
	var fe *FrameError
	if !errors.As(err, &fe) || fe.Offset != 22 {
		t.Errorf("offset: %v", err)
	}
}

func TestMessageErrors(t *testing.T) {
	if _, _, err := ConsumeMessage(unhex(t, "02 80 00")); !errors.Is(err, ErrNullMessage) {
		t.Errorf("null message: %v", err)
	}
	// A null header object decodes as the zero header, as in the reference.
	m, _, err := ConsumeMessage(unhex(t, "02 60 00"))
	if err != nil || m.Header.MsgType != 0 || !m.Body.IsNull() {
		t.Errorf("null header: %+v %v", m, err)
	}
	// A header whose logCorrelator claims 100 bytes.
	_, err = DecodePayload(unhex(t, "20 c2 5c 04 6d 0e 06 40"))
	var pe *bitproto.DecodeError
	if !errors.As(err, &pe) || pe.Path != "header.logCorrelator" || pe.BitOffset != 45 || !errors.Is(err, bitstream.ErrTooLong) {
		t.Errorf("long logCorrelator: %v", err)
	}
	// appCodes claiming more entries than bits.
	h := Header{Flags: 1, AppCode: AppMultErrs, AppCodes: []AppCodeEntry{{1, "a"}}}
	p, _ := AppendPayload(nil, &h, nil)
	var w bitstream.Writer
	w.WriteNull(false)
	w.WriteNull(false)
	for _, v := range []int32{1, 0, 0, 0, 0, 17} {
		w.WriteInt32(v)
	}
	w.WriteString("")
	w.WriteInt32(1000)
	if _, err := DecodePayload(w.Bytes()); !errors.Is(err, bitstream.ErrTooLong) {
		t.Errorf("appCodes count: %v", err)
	}
	if _, err := DecodePayload(p); err != nil {
		t.Errorf("valid appCodes: %v", err)
	}
	// A truncated body is an error of the body decode, with the field path.
	m, _, err = ConsumeMessage(unhex(t, "0a 20 c2 5c 04 6d 0c 0c 18 41 00"))
	if err != nil {
		t.Fatal(err)
	}
	var body GetClientVersionInfoRequest
	err = m.DecodeBody(&body)
	if !errors.As(err, &pe) || pe.Path != "ClientName" || pe.BitOffset != 52 {
		t.Errorf("truncated body: %v", err)
	}
	// A null body leaves the value as it is.
	body.ClientName = "keep"
	h = NewRequest(SvcUserServer, 566, 1)
	b, _ := AppendMessage(nil, &h, nil)
	m, _, _ = ConsumeMessage(b)
	if err := m.DecodeBody(&body); err != nil || body.ClientName != "keep" {
		t.Errorf("null body: %+v %v", body, err)
	}
}

// TestTerminatorReadable: like the reference, a body decoder may read into the terminator byte.
func TestTerminatorReadable(t *testing.T) {
	type withFlag struct {
		S    string
		Flag bool
	}
	// The seed request ends exactly at a byte boundary; a trailing bool reads the terminator.
	m, _, err := ConsumeMessage(unhex(t, seedRequest))
	if err != nil {
		t.Fatal(err)
	}
	var v withFlag
	if err := m.DecodeBody(&v); err != nil || v.S != "AmazingWorld" || v.Flag {
		t.Fatalf("got %+v, %v", v, err)
	}
	// DecodePayload has no terminator to read.
	m, _ = DecodePayload(unhex(t, seedRequest)[1:21])
	if err := m.DecodeBody(&v); !errors.Is(err, bitstream.ErrTruncated) {
		t.Fatalf("payload only: %v", err)
	}
}

func TestForwardRawBody(t *testing.T) {
	m, _, err := ConsumeMessage(unhex(t, seedRequest))
	if err != nil {
		t.Fatal(err)
	}
	// A request id of the same width: the body is copied bit for bit.
	for _, id := range []int32{1, -5, 7} {
		m2 := m
		m2.Header.RequestID = id
		out, err := m2.Append(nil)
		if err != nil {
			t.Fatal(err)
		}
		h := m2.Header
		want, _ := AppendMessage(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
		if !bytes.Equal(out, want) {
			t.Errorf("id %d: forwarded % x, want % x", id, out, want)
		}
	}
	// 300 takes 14 more bits: the body's aligned string would move within its byte.
	m2 := m
	m2.Header.RequestID = 300
	if _, err := m2.Append(nil); !errors.Is(err, ErrBodyPhase) {
		t.Errorf("id 300: %v", err)
	}
	// A RawBody value works as a body too, and Clone detaches it.
	body := m.Body.Clone()
	h := m.Header
	out, err := AppendMessage(nil, &h, body)
	if err != nil || !bytes.Equal(out, unhex(t, seedRequest)) {
		t.Errorf("RawBody value: % x, %v", out, err)
	}
	// A null raw body.
	var null RawBody
	out, err = AppendMessage(nil, &h, &null)
	if want, _ := AppendMessage(nil, &h, nil); err != nil || !bytes.Equal(out, want) {
		t.Errorf("null RawBody: % x, %v", out, err)
	}
}

func TestEncodeAllocs(t *testing.T) {
	h := NewRequest(SvcUserServer, 566, 1)
	body := &GetClientVersionInfoRequest{ClientName: "AmazingWorld"}
	buf := make([]byte, 0, 256)
	if _, err := AppendMessage(buf, &h, body); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(200, func() { _, _ = AppendMessage(buf[:0], &h, body) }); a != 0 {
		t.Errorf("AppendMessage allocates %v times", a)
	}
	// A long payload that needs a 2-byte prefix.
	long := &GetClientVersionInfoRequest{ClientName: strings.Repeat("x", 300)}
	out, err := AppendMessage(nil, &h, long)
	if err != nil {
		t.Fatal(err)
	}
	m, n, err := ConsumeMessage(out)
	var back GetClientVersionInfoRequest
	if err != nil || n != len(out) || m.DecodeBody(&back) != nil || back.ClientName != long.ClientName || out[0]&0x80 == 0 {
		t.Fatalf("long message: % x, %v", out[:4], err)
	}
	var buf2 bytes.Buffer
	if err := WriteMessage(&buf2, &h, body); err != nil || buf2.String() != string(unhex(t, seedRequest)) {
		t.Errorf("WriteMessage: % x %v", buf2.Bytes(), err)
	}
	// An Encoder writes what AppendMessage writes, reused from one message to the next, and
	// allocates nothing either.
	var enc Encoder
	if out, err := enc.AppendMessage(buf[:0], &h, body); err != nil || string(out) != string(unhex(t, seedRequest)) {
		t.Errorf("Encoder: % x %v", out, err)
	}
	if a := testing.AllocsPerRun(200, func() { _, _ = enc.AppendMessage(buf[:0], &h, body) }); a != 0 {
		t.Errorf("Encoder.AppendMessage allocates %v times", a)
	}
}

func TestEncoderAgreesWithAppendMessage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	var enc Encoder
	var out []byte
	for i := range 2000 {
		h := randHeader(rng)
		var body any
		switch rng.IntN(4) {
		case 0:
			body = &GetClientVersionInfoRequest{ClientName: strings.Repeat("n", rng.IntN(200))}
		case 1:
			body = &struct{ A, B int32 }{int32(rng.Uint32()), 1}
		case 2:
			body = make(chan int) // no wire form: both fail alike
		}
		prefix := []byte{byte(i), 0xff}
		// The header, then one that starts alike (the bits the Encoder keeps), then one with
		// another message type.
		for j := range 3 {
			switch j {
			case 1:
				h.RequestID, h.ResultCode, h.LogCorrelator = rng.Int32()>>rng.IntN(32), ResultCode(rng.IntN(3)), ""
			case 2:
				h.MsgType ^= 1
			}
			want, werr := AppendMessage(append([]byte(nil), prefix...), &h, body)
			var err error
			out, err = enc.AppendMessage(append(out[:0], prefix...), &h, body)
			if (err == nil) != (werr == nil) || !bytes.Equal(out, want) {
				t.Fatalf("%d.%d: Encoder gives % x, %v; AppendMessage % x, %v", i, j, out, err, want, werr)
			}
		}
	}
}

func TestEnums(t *testing.T) {
	if MessageTypeName(19, 54) != "HEARTBEAT_NOTIFY" || MessageTypeName(-1, 8) != "CHAT" || MessageTypeName(20, 1) != "" {
		t.Error("message type names")
	}
	if v, ok := MessageTypeValue(SvcUserServer, "get_client_version_info"); !ok || v != MsgGetClientVersionInfo {
		t.Error("MessageTypeValue")
	}
	if MsgGetClientVersionInfo != 566 || SyncMsgHeartbeatNotify != 54 || ClientMsgChat != 8 {
		t.Error("message type constants")
	}
	if AppCodeName(125) != "CREATE_PLAYER_ACCOUNT_FAILED" || AppCodeName(9999) != "TEST_ERROR_CODE" || ResultCodeName(59) != "NOT_READY" {
		t.Error("code names")
	}
	if SvcClient.String() != "CLIENT" || ServiceClass(7).String() != "ServiceClass(7)" || AppAuth.String() != "AUTH" || ResultCode(3).String() != "ResultCode(3)" {
		t.Error("String methods")
	}
	if h := (Header{SvcClass: 20, MsgType: 3}); h.MessageTypeName() != "MessageType(3)" {
		t.Error("MessageTypeName fallback")
	}
	// The generated constants agree with the embedded table, all of them.
	for table, consts := range map[string]map[string]int32{
		"serviceClass": {"USER_SERVER": int32(SvcUserServer), "SYNC_SERVER": int32(SvcSyncServer), "LOCATION": int32(SvcLocation), "CLIENT": int32(SvcClient)},
	} {
		names := EnumNames(table)
		if len(names) != len(consts) {
			t.Errorf("%s: %d names, %d constants", table, len(names), len(consts))
		}
		for n, v := range consts {
			if names[n] != v {
				t.Errorf("%s.%s = %d, table says %d", table, n, v, names[n])
			}
		}
	}
	if n := len(EnumNames("appCode")); n != 112 {
		t.Errorf("%d app codes", n)
	}
	if n := len(EnumNames("userMessageType")); n != 572 {
		t.Errorf("%d user message types", n)
	}
	if EnumNames("sessionStatus")["LOGGED_OUT"] != 1 {
		t.Error("sessionStatus")
	}
}

// TestExplainPartial: a frame cut short, or without its terminator, still shows the fields its
// bytes hold, and Fields lists every decoded field with its steps.
func TestExplainPartial(t *testing.T) {
	full := unhex(t, seedRequest)
	ex, err := Explain(full[:13], ExplainOptions{})
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(ex.Frames) != 1 {
		t.Fatalf("err %v, %d frames", err, len(ex.Frames))
	}
	fe := ex.Frames[0]
	var names []string
	for _, v := range fe.Fields {
		names = append(names, v.Field.Name)
		if len(v.Steps) == 0 || v.Steps[0].Bit != v.Bit {
			t.Errorf("field %s at bit %d: steps %+v", v.Field.Name, v.Bit, v.Steps)
		}
	}
	if got := strings.Join(names, ","); got != "message,header,flags,svcClass,msgType,requestId,logCorrelator,body" {
		t.Errorf("fields %s", got)
	}
	if last := fe.Steps[len(fe.Steps)-1]; last.Bit != 59 || last.Text != "body is not null" {
		t.Errorf("last step %+v", last)
	}
	// With the body's field list, the string that does not fit is left out.
	ex, _ = Explain(full[:13], ExplainOptions{Body: mustFields(t, "clientName:string")})
	if n := len(ex.Frames[0].Fields); n != 8 {
		t.Errorf("%d fields, want the 8 of the header", n)
	}
	// A whole frame lists its body fields too; bits count from the payload with PayloadBits.
	ex, _ = Explain(full, ExplainOptions{Body: mustFields(t, "clientName:string"), PayloadBits: true})
	fs := ex.Frames[0].Fields
	if v := fs[len(fs)-1]; v.Field.Name != "clientName" || v.Bit != 52 || v.Value != "AmazingWorld" {
		t.Errorf("last field %+v", v)
	}
	// Without its terminator: the fields of the payload, then the error.
	ex, err = Explain(unhex(t, "03 20 c2 5c"), ExplainOptions{})
	if !errors.Is(err, ErrMissingTerminator) || len(ex.Frames[0].Fields) < 3 {
		t.Errorf("err %v, fields %+v", err, ex.Frames[0].Fields)
	}
}

func TestExplainMaxFrames(t *testing.T) {
	one := unhex(t, seedRequest)
	in := append(append(append([]byte(nil), one...), one...), one...)
	ex, err := Explain(in, ExplainOptions{MaxFrames: 2})
	if err != nil || len(ex.Frames) != 2 || ex.Frames[1].Offset != len(one) {
		t.Fatalf("err %v, %d frames", err, len(ex.Frames))
	}
}
