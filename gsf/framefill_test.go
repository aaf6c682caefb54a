package gsf

import (
	"io"
	"testing"
)

// offerReader hands out its chunks one per Read and records how much room each Read was given.
type offerReader struct {
	chunks [][]byte
	offers []int
}

func (r *offerReader) Read(p []byte) (int, error) {
	r.offers = append(r.offers, len(p))
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	if r.chunks[0] = r.chunks[0][n:]; len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

// TestFrameReaderReadsIntoTheWholeBuffer reads a burst that nearly fills the buffer, then a
// second burst: once the first is consumed, the read of the second gets the whole buffer and
// takes the burst in one read. (It was given what was left behind the first burst, 96 bytes,
// so a pipelining client's batch came in two reads and gsfnet answered it with two writes.)
func TestFrameReaderReadsIntoTheWholeBuffer(t *testing.T) {
	frame, err := AppendFrame(nil, make([]byte, 38)) // 40 bytes with prefix and terminator
	if err != nil {
		t.Fatal(err)
	}
	var first, second []byte
	for range 100 { // 4000 of the 4096 bytes
		first = append(first, frame...)
	}
	for range 20 { // 800 bytes, as one write of a client
		second = append(second, frame...)
	}
	r := &offerReader{chunks: [][]byte{first, second}}
	fr := NewFrameReader(r)
	for i := range 120 {
		if _, err := fr.ReadFrame(); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if i == 100 && fr.Buffered() != 19*len(frame) {
			t.Errorf("after the first frame of the second burst, %d bytes buffered, want the other %d", fr.Buffered(), 19*len(frame))
		}
	}
	if _, err := fr.ReadFrame(); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	if len(r.offers) != 3 || r.offers[1] < BaseBufferSize {
		t.Errorf("reads were offered %v bytes, want 3 reads with the second offered the whole buffer (%d)", r.offers, BaseBufferSize)
	}
}
