package messages

import (
	"reflect"
	"testing"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// benchLogin returns a framed LoginResponse with nested objects, built from the field list.
func benchLogin(b *testing.B) ([]byte, *LoginResponse) {
	c := catalog()
	_, want, _ := build(c, c.Message("LoginResponse"), reflect.TypeFor[LoginResponse](), 7, false)
	h := gsf.Header{Flags: gsf.FlagResponse, SvcClass: gsf.SvcUserServer, MsgType: gsf.MsgLogin, RequestID: 1}
	frame, err := gsf.AppendMessage(nil, &h, want.Interface())
	if err != nil {
		b.Fatal(err)
	}
	return frame, want.Interface().(*LoginResponse)
}

// BenchmarkCatalogLoginResponseEncode encodes a LoginResponse (a few hundred fields) into a
// reused buffer.
func BenchmarkCatalogLoginResponseEncode(b *testing.B) {
	frame, v := benchLogin(b)
	h := gsf.Header{Flags: gsf.FlagResponse, SvcClass: gsf.SvcUserServer, MsgType: gsf.MsgLogin, RequestID: 1}
	buf := make([]byte, 0, 2*len(frame))
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = gsf.AppendMessage(buf[:0], &h, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCatalogLoginResponseDecode decodes it with Decode (strict), into a new value.
func BenchmarkCatalogLoginResponseDecode(b *testing.B) {
	frame, _ := benchLogin(b)
	m, _, err := gsf.ConsumeMessage(frame)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := strict.Decode(&m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCatalogLoginResponseReusedDecode decodes it into a reused value with a
// bitproto.Decoder, as a client's read loop can.
func BenchmarkCatalogLoginResponseReusedDecode(b *testing.B) {
	frame, _ := benchLogin(b)
	m, _, err := gsf.ConsumeMessage(frame)
	if err != nil {
		b.Fatal(err)
	}
	var dec bitproto.Decoder
	var v LoginResponse
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if err := m.DecodeBodyUsing(&dec, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCatalogLoginResponseDescribe describes it field by field with bit offsets (what the
// CLI and the traffic tools print): slower than decoding, by design.
func BenchmarkCatalogLoginResponseDescribe(b *testing.B) {
	frame, _ := benchLogin(b)
	opts := ExplainOptions(Options{Strict: true})
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gsf.Explain(frame, opts); err != nil {
			b.Fatal(err)
		}
	}
}
