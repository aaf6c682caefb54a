package gsf

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"testing"
)

// splitFrames is a stream of frames for the Splitter tests: the protocol documentation's
// request and the reference server's response, and a notify with a null body.
func splitFrames(t testing.TB) [][]byte {
	t.Helper()
	req, _ := hex.DecodeString("1520c25c046d0c0c18416d617a696e67576f726c6400")
	resp, _ := hex.DecodeString("1521c25c046d0c1030583133333835322e7472756500")
	h := Header{Flags: FlagNotify, SvcClass: 19, MsgType: 3}
	notify, err := AppendMessage(nil, &h, nil)
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{req, resp, notify}
}

// split feeds data to s in pieces of the given size and returns what it reports, as text.
func split(s *Splitter, data []byte, piece int, end bool) []string {
	var got []string
	yield := func(f *StreamFrame) {
		if f.Err != nil {
			got = append(got, fmt.Sprintf("@%d+%d %v", f.Offset, f.Size, f.Err))
			return
		}
		got = append(got, fmt.Sprintf("@%d+%d %x resync=%v", f.Offset, f.Size, f.Frame, f.Resynced))
	}
	for len(data) > 0 {
		n := min(piece, len(data))
		s.Write(data[:n], yield)
		data = data[n:]
	}
	if end {
		s.End(yield)
	}
	return got
}

func TestSplitterPieces(t *testing.T) {
	frames := splitFrames(t)
	stream := bytes.Join(frames, nil)
	var want []string
	off := 0
	for _, f := range frames {
		want = append(want, fmt.Sprintf("@%d+%d %x resync=false", off, len(f), f))
		off += len(f)
	}
	// Every piece size: frames split across writes, and several per write.
	for piece := 1; piece <= len(stream); piece++ {
		got := split(&Splitter{}, stream, piece, true)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pieces of %d:\n got %q\nwant %q", piece, got, want)
		}
	}
}

func TestSplitterMidStream(t *testing.T) {
	frames := splitFrames(t)
	// A capture that starts 5 bytes into the first frame.
	stream := bytes.Join(frames, nil)[5:]
	for piece := 1; piece <= len(stream); piece++ {
		var s Splitter
		s.Lost(-1, func(*StreamFrame) { t.Fatal("nothing buffered yet") })
		got := split(&s, stream, piece, true)
		want := []string{
			"@0+17 gsf: frame at byte 0: " + ErrResync.Error() + " (17 bytes)",
			fmt.Sprintf("@17+22 %x resync=true", frames[1]),
			fmt.Sprintf("@39+%d %x resync=false", len(frames[2]), frames[2]),
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pieces of %d:\n got %q\nwant %q", piece, got, want)
		}
	}
}

func TestSplitterErrors(t *testing.T) {
	frames := splitFrames(t)
	bad := append([]byte(nil), frames[0]...)
	bad[len(bad)-1] = 1 // no terminator
	stream := bytes.Join([][]byte{bad, frames[1], {0x00}, frames[2], {0x80, 0x01}}, nil)
	var got []error
	var okFrames [][]byte
	s := Splitter{}
	yield := func(f *StreamFrame) {
		if f.Err != nil {
			got = append(got, f.Err)
			var fe *FrameError
			if !errors.As(f.Err, &fe) || fe.Offset != f.Offset {
				t.Errorf("%v: not a *FrameError at offset %d", f.Err, f.Offset)
			}
			return
		}
		okFrames = append(okFrames, bytes.Clone(f.Frame))
	}
	s.Write(stream, yield)
	s.End(yield)
	wantErrs := []error{ErrMissingTerminator, ErrResync, ErrEmptyFrame, io.ErrUnexpectedEOF}
	if len(got) != len(wantErrs) {
		t.Fatalf("errors %v, want %v", got, wantErrs)
	}
	for i, w := range wantErrs {
		if !errors.Is(got[i], w) {
			t.Errorf("error %d: %v, want %v", i, got[i], w)
		}
	}
	if len(okFrames) != 2 || !bytes.Equal(okFrames[0], frames[1]) || !bytes.Equal(okFrames[1], frames[2]) {
		t.Errorf("frames %x", okFrames)
	}
}

// TestSplitterEndlessFrame: a peer announces the largest frame and sends bytes forever; the
// Splitter reports it once, keeps no memory for it, and is in sync after it.
func TestSplitterEndlessFrame(t *testing.T) {
	frames := splitFrames(t)
	s := Splitter{}
	var errs, ok int
	yield := func(f *StreamFrame) {
		if f.Err != nil {
			errs++
			if !errors.Is(f.Err, ErrTooLarge) || f.Size != 4+MaxFrameLength {
				t.Fatalf("%v, size %d", f.Err, f.Size)
			}
			return
		}
		ok++
	}
	s.Write([]byte{0xff, 0xff, 0xff, 0x7f}, yield)
	junk := make([]byte, 32<<10)
	for range (64 << 20) / len(junk) {
		s.Write(junk, yield)
		if cap(s.buf) > 64<<10 {
			t.Fatalf("buffer grew to %d bytes", cap(s.buf))
		}
	}
	if errs != 1 || ok != 0 {
		t.Fatalf("%d errors, %d frames", errs, ok)
	}
	// The rest of the frame, then a real one.
	rest := s.pass
	s.Write(append(make([]byte, rest), frames[0]...), yield)
	if ok != 1 || s.Offset() != 4+MaxFrameLength+int64(len(frames[0])) {
		t.Fatalf("after the frame: %d frames, offset %d", ok, s.Offset())
	}
}

// TestSplitterLost: a hole in a capture; the partial frame is reported and the Splitter
// resynchronizes.
func TestSplitterLost(t *testing.T) {
	frames := splitFrames(t)
	s := Splitter{}
	got := split(&s, frames[0][:10], 100, false)
	s.Lost(7, func(f *StreamFrame) { got = append(got, fmt.Sprintf("@%d+%d %v", f.Offset, f.Size, f.Err)) })
	got = append(got, split(&s, append(frames[0][17:], frames[1]...), 3, true)...)
	want := []string{
		"@0+10 gsf: frame at byte 0 (length 21): unexpected EOF",
		"@17+5 gsf: frame at byte 17: " + ErrResync.Error() + " (5 bytes)",
		fmt.Sprintf("@22+22 %x resync=true", frames[1]),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
}

// FuzzSplitter: whatever the stream and however it is cut into pieces, the Splitter reports
// the same frames and problems, in order, without overlaps, accounts for every byte, reports
// only frames that frame correctly, and keeps its buffer within one frame and one piece.
func FuzzSplitter(f *testing.F) {
	frames := splitFrames(f)
	stream := bytes.Join(frames, nil)
	f.Add(uint8(1), false, stream)
	f.Add(uint8(7), true, stream[5:])
	f.Add(uint8(3), false, append([]byte{0x00, 0x81, 0x80, 0x80, 0x80, 0x01, 0x05}, stream...))
	f.Add(uint8(2), false, append([]byte{0x8f, 0xff, 0xff, 0x7f}, stream...))
	f.Fuzz(func(t *testing.T, piece uint8, midStream bool, data []byte) {
		const maxFrame = 300
		run := func(piece int) ([]string, int64) {
			s := Splitter{MaxMessageBytes: maxFrame}
			var got []string
			end := int64(0)
			yield := func(fr *StreamFrame) {
				if fr.Offset < end {
					t.Fatalf("record at %d overlaps the previous one, which ended at %d", fr.Offset, end)
				}
				end = fr.Offset + fr.Size
				if fr.Err == nil {
					if _, n, err := ConsumeFrame(fr.Frame); err != nil || n != len(fr.Frame) || int64(n) != fr.Size {
						t.Fatalf("frame at %d does not frame: %v", fr.Offset, err)
					}
					if !bytes.Equal(fr.Frame, data[fr.Offset:fr.Offset+fr.Size]) {
						t.Fatalf("frame at %d differs from the stream", fr.Offset)
					}
				} else if fe := (*FrameError)(nil); !errors.As(fr.Err, &fe) || fe.Offset != fr.Offset {
					t.Fatalf("%v: not a *FrameError at %d", fr.Err, fr.Offset)
				}
				got = append(got, fmt.Sprintf("%d+%d %v %v", fr.Offset, fr.Size, fr.Resynced, fr.Err))
			}
			if midStream {
				s.Lost(-1, yield)
			}
			for rest := data; len(rest) > 0; {
				n := min(piece, len(rest))
				s.Write(rest[:n], yield)
				rest = rest[n:]
				if cap(s.buf) > 2*(maxFrame+4+piece)+64 {
					t.Fatalf("buffer of %d bytes", cap(s.buf))
				}
			}
			s.End(yield)
			if s.Offset() != int64(len(data)) {
				t.Fatalf("offset %d after %d bytes", s.Offset(), len(data))
			}
			return got, end
		}
		whole, _ := run(max(len(data), 1))
		pieces, _ := run(int(piece%64) + 1)
		if fmt.Sprint(whole) != fmt.Sprint(pieces) {
			t.Fatalf("in one piece:\n%q\nin pieces of %d:\n%q", whole, piece%64+1, pieces)
		}
	})
}

// A Splitter finds the frames of a stream that arrives in pieces, here a capture that starts
// in the middle of a frame.
func ExampleSplitter() {
	stream, _ := hex.DecodeString("c25c046d0c0c18416d617a696e67576f726c6400" + // the end of a request
		"1521c25c046d0c1030583133333835322e7472756500") // a whole response
	var s Splitter
	report := func(f *StreamFrame) {
		if f.Err != nil {
			fmt.Println("problem:", f.Err)
			return
		}
		fmt.Printf("frame at %d, %d bytes, resynchronized %v\n", f.Offset, f.Size, f.Resynced)
	}
	s.Lost(-1, report) // the capture starts mid-stream
	s.Write(stream[:25], report)
	s.Write(stream[25:], report)
	s.End(report)
	// Output:
	// problem: gsf: frame at byte 0: not at a frame boundary: bytes skipped to the next plausible frame (20 bytes)
	// frame at 20, 22 bytes, resynchronized true
}

// benchStream is 1000 frames of the protocol documentation's request and response.
func benchStream(b *testing.B) []byte {
	frames := splitFrames(b)
	var stream []byte
	for range 500 {
		stream = append(stream, frames[0]...)
		stream = append(stream, frames[1]...)
	}
	return stream
}

// BenchmarkGSFSplitterStreamDecode splits a stream fed in TCP-segment-sized pieces (1448
// bytes, so that frames straddle pieces).
func BenchmarkGSFSplitterStreamDecode(b *testing.B) {
	stream := benchStream(b)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	n := 0
	yield := func(*StreamFrame) { n++ }
	for b.Loop() {
		var s Splitter
		for off := 0; off < len(stream); off += 1448 {
			s.Write(stream[off:min(off+1448, len(stream))], yield)
		}
		s.End(yield)
	}
	if n%1000 != 0 {
		b.Fatal(n)
	}
}

// pieceReader returns its input in pieces of at most 1448 bytes.
type pieceReader struct{ b []byte }

func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1448)], r.b)
	r.b = r.b[n:]
	return n, nil
}

// BenchmarkGSFFrameReaderStreamDecode is the yardstick of BenchmarkGSFSplitterStreamDecode:
// the FrameReader a server uses, on the same stream in the same pieces.
func BenchmarkGSFFrameReaderStreamDecode(b *testing.B) {
	stream := benchStream(b)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	fr := NewFrameReader(nil)
	for b.Loop() {
		fr.Reset(&pieceReader{b: stream})
		n := 0
		for {
			if _, err := fr.ReadFrame(); err != nil {
				break
			}
			n++
		}
		if n != 1000 {
			b.Fatal(n)
		}
	}
}
