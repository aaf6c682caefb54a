package gsf

import (
	"bytes"
	"testing"
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
// a FrameReader and decodes header and body into a struct (the reference: 234 ns per message).
func BenchmarkGSFGetClientVersionInfoFramedDecode(b *testing.B) {
	h := NewRequest(SvcUserServer, 566, 1)
	one, _ := AppendMessage(nil, &h, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	stream := bytes.Repeat(one, benchMessages)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var rd bytes.Reader
	fr := NewFrameReader(nil)
	for b.Loop() {
		rd.Reset(stream)
		fr.Reset(&rd)
		for range benchMessages {
			m, err := ReadMessage(fr)
			if err != nil {
				b.Fatal(err)
			}
			var body GetClientVersionInfoRequest
			if err := m.DecodeBody(&body); err != nil || len(body.ClientName) != 12 {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchMessages, "ns/msg")
}
