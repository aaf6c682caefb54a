package gsf

import (
	"bytes"
	"testing"

	"github.com/gamewire/gamewire/bitproto"
)

const benchMessages = 100_000

// BenchmarkGSFGetClientVersionInfoFramedEncode encodes 100 000 framed GetClientVersionInfo
// requests into a reused buffer (the reference: 1 139 ns and 7 allocations per message).
func BenchmarkGSFGetClientVersionInfoFramedEncode(b *testing.B) {
	body := &GetClientVersionInfoRequest{ClientName: "AmazingWorld"}
	buf := make([]byte, 0, 22*benchMessages)
	b.SetBytes(22 * benchMessages)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for i := range int32(benchMessages) {
			h := Header{SvcClass: SvcUserServer, MsgType: 566, RequestID: i & 7}
			var err error
			if buf, err = AppendMessage(buf, &h, body); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchMessages, "ns/msg")
}

// BenchmarkGSFGetClientVersionInfoFramedDecode reads 100 000 framed requests from a stream with
// a FrameReader and decodes header and body into a struct (the reference: 234 ns per message),
// as a server's read loop does.
func BenchmarkGSFGetClientVersionInfoFramedDecode(b *testing.B) {
	h := NewRequest(SvcUserServer, 566, 1)
	one, _ := AppendMessage(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	stream := bytes.Repeat(one, benchMessages)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var rd bytes.Reader
	fr := NewFrameReader(nil)
	// The message, the decoder and the body are reused from one message to the next, as in a
	// server's read loop: the strings of the bodies share the decoder's chunks.
	var m Message
	var dec bitproto.Decoder
	var body GetClientVersionInfoRequest
	for b.Loop() {
		rd.Reset(stream)
		fr.Reset(&rd)
		for range benchMessages {
			if err := fr.ReadMessage(&m); err != nil {
				b.Fatal(err)
			}
			if err := m.DecodeBodyUsing(&dec, &body); err != nil || len(body.ClientName) != 12 {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchMessages, "ns/msg")
}
