package gsf

import (
	"errors"
	"fmt"
	"io"

	"github.com/gamewire/gamewire/bitstream"
)

// ErrResync is the cause of a StreamFrame that reports bytes a Splitter passed over while it
// looked for the next plausible frame.
var ErrResync = errors.New("not at a frame boundary: bytes skipped to the next plausible frame")

// StreamFrame is a frame, or a problem, that a Splitter found in a stream.
type StreamFrame struct {
	// Offset is the stream offset of the frame's first byte (of the problem's first byte).
	Offset int64
	// Frame is the whole frame: length prefix, payload and 0x00 terminator. For a problem
	// (Err set) it holds up to 64 of the bytes at Offset. It aliases the Splitter's buffer and
	// is valid until the next call.
	Frame []byte
	// Err is nil for a frame that frames correctly (its payload may still fail to decode).
	// Otherwise it is a *FrameError: ErrEmptyFrame, ErrMissingTerminator, ErrLengthOverflow or
	// ErrTooLarge, io.ErrUnexpectedEOF for a stream that ended inside a frame, or
	// ErrResync for bytes skipped while out of sync (its Length is -1 and Size their number).
	Err error
	// Size is the number of stream bytes the frame (or the problem) takes. A too-large
	// frame's Size is its whole length although Frame holds only its first bytes.
	Size int64
	// Resynced reports a frame found while out of sync: at the start of a stream picked up
	// mid-way, after a gap in a capture, or after a framing error; the frame is the next
	// plausible one (see Splitter).
	Resynced bool
}

// A Splitter finds the frames of a byte stream that arrives in pieces of any size, as from a
// TCP connection or a reassembled capture: frames split across pieces and several frames per
// piece. Unlike FrameReader it never gives up: after a framing error, a gap, or at the start
// of a stream picked up mid-way, it resynchronizes on the next plausible frame, one whose
// length prefix has the shortest form, whose last byte is 0x00, whose payload decodes as a
// message with a known service class and no unknown flag bits, and which fits MaxMessageBytes.
// The bytes it skips are reported as an ErrResync problem.
//
// Memory: a Splitter buffers at most one frame (MaxMessageBytes + 4 bytes) plus the piece being
// written. A frame whose length is over MaxMessageBytes is reported with ErrTooLarge and its
// bytes are counted off without being kept, so a peer that announces an endless frame costs
// no memory; the stream stays in sync after it, as the receiver's would.
//
// The zero value is in sync at offset 0 with DefaultMaxMessageBytes.
type Splitter struct {
	// MaxMessageBytes is the largest frame length accepted; 0 means DefaultMaxMessageBytes,
	// NoLimit (or any negative value) MaxFrameLength.
	MaxMessageBytes int

	buf     []byte
	off     int64 // stream offset of buf[0]
	pass    int64 // bytes of a too-large frame still to count off
	unsync  bool  // looking for the next plausible frame
	skipped int64 // bytes passed over while out of sync, not yet reported
	skipOff int64 // stream offset of the first of them
	rec     StreamFrame
}

// Buffered returns the number of bytes the Splitter holds: the start of a frame not yet
// whole, or bytes it looks at while out of sync.
func (s *Splitter) Buffered() int { return len(s.buf) }

// Offset returns the stream offset up to which the Splitter has been fed.
func (s *Splitter) Offset() int64 { return s.off + int64(len(s.buf)) }

// Lost tells the Splitter that n bytes of the stream are missing before the next Write (a
// hole in a capture); n < 0 means an unknown number, as at the start of a stream picked up
// mid-way. Whatever was buffered is reported as cut short, and the Splitter looks for the
// next plausible frame.
func (s *Splitter) Lost(n int64, yield func(*StreamFrame)) {
	s.flushPartial(yield)
	if n > 0 {
		s.off += n
	}
	if s.pass > 0 {
		// The hole may hide the rest of a too-large frame; its end is not known any more.
		s.pass = 0
	}
	s.unsync = true
}

// End tells the Splitter that the stream ended, and reports what is left: an incomplete
// frame (io.ErrUnexpectedEOF) or bytes skipped while out of sync.
func (s *Splitter) End(yield func(*StreamFrame)) {
	s.flushPartial(yield)
	s.pass = 0 // the rest of a too-large frame (reported already) never came
}

// flushPartial reports the buffered bytes as cut short (or skipped) and empties the buffer.
func (s *Splitter) flushPartial(yield func(*StreamFrame)) {
	if s.unsync {
		s.skip(len(s.buf))
		s.reportSkipped(yield)
	} else if len(s.buf) > 0 {
		l, _, err := ConsumeLength(s.buf)
		if err != nil {
			l = -1
		}
		s.emit(yield, StreamFrame{Offset: s.off, Frame: s.buf[:min(len(s.buf), 64)], Size: int64(len(s.buf)),
			Err: &FrameError{Offset: s.off, Length: l, Err: io.ErrUnexpectedEOF}})
	}
	s.off += int64(len(s.buf))
	s.buf = s.buf[:0]
	if cap(s.buf) > 64<<10 {
		s.buf = nil
	}
}

// emit passes f to yield in the Splitter's own StreamFrame, so that reporting allocates nothing.
func (s *Splitter) emit(yield func(*StreamFrame), f StreamFrame) {
	s.rec = f
	yield(&s.rec)
	s.rec = StreamFrame{}
}

// emitFrame is emit for a frame, the common case, field by field: cheaper than copying a
// whole StreamFrame.
func (s *Splitter) emitFrame(yield func(*StreamFrame), off int64, frame []byte, resynced bool) {
	r := &s.rec
	r.Offset, r.Frame, r.Size, r.Err, r.Resynced = off, frame, int64(len(frame)), nil, resynced
	yield(r)
	r.Frame = nil
}

func (s *Splitter) max() int { return maxMessage(s.MaxMessageBytes) }

// Write feeds the next bytes of the stream and calls yield for every frame and problem they
// complete, in stream order. yield must not keep the StreamFrame or its Frame.
func (s *Splitter) Write(p []byte, yield func(*StreamFrame)) {
	for len(p) > 0 {
		if s.pass > 0 {
			n := min(int64(len(p)), s.pass)
			s.pass -= n
			s.off += n
			p = p[n:]
			continue
		}
		if len(s.buf) == 0 {
			// Frames wholly inside p are reported from p, without copying them.
			n := s.scan(p, yield)
			p = p[n:]
			if s.pass == 0 {
				s.buf = append(s.buf, p...)
				return
			}
			continue
		}
		// Complete the buffered frame: take from p only the bytes it lacks when its length is
		// known, so that what follows it goes through the path above without a copy.
		take := len(p)
		if !s.unsync {
			if l, size, err := ConsumeLength(s.buf); err == nil && l > 0 && l <= s.max() && size+l > len(s.buf) {
				take = min(take, size+l-len(s.buf))
			}
		}
		s.buf = append(s.buf, p[:take]...)
		p = p[take:]
		n := s.scan(s.buf, yield)
		if s.pass > 0 {
			// A too-large frame started in the buffer: count off the rest from what is left,
			// which the buffer no longer owns.
			p = append(s.buf[n:len(s.buf):len(s.buf)], p...)
			s.buf = nil
			continue
		}
		rest := copy(s.buf, s.buf[n:])
		s.buf = s.buf[:rest]
		if rest == 0 && cap(s.buf) > 64<<10 {
			s.buf = nil // a large frame's buffer is not kept for the small ones after it
		}
	}
}

// scan reports the frames at the start of b and returns the number of bytes consumed
// (s.off advances by it). It stops at an incomplete frame, or when a too-large frame starts
// being counted off (s.pass > 0).
func (s *Splitter) scan(b []byte, yield func(*StreamFrame)) int {
	max := s.max()
	i := 0
	for i < len(b) && s.pass == 0 {
		rest := b[i:]
		if s.unsync {
			n, ok := plausible(rest, max)
			if !ok {
				if n < 0 { // maybe, given more bytes
					break
				}
				s.skip(1)
				i++
				s.off++
				continue
			}
			s.reportSkipped(yield)
			s.unsync = false
			s.emitFrame(yield, s.off, rest[:n], true)
			i += n
			s.off += int64(n)
			continue
		}
		l, size, err := ConsumeLength(rest)
		if err == io.ErrUnexpectedEOF {
			break
		}
		switch {
		case err != nil:
			s.fail(yield, rest, &FrameError{Offset: s.off, Length: -1, Err: err})
			i++
			continue
		case l == 0:
			s.fail(yield, rest, &FrameError{Offset: s.off, Length: 0, Err: ErrEmptyFrame})
			i++
			continue
		case l > max:
			s.emit(yield, StreamFrame{Offset: s.off, Frame: rest[:min(len(rest), 64)], Size: int64(size + l),
				Err: &FrameError{Offset: s.off, Length: l, Err: fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, l, max)}})
			n := min(len(rest), size+l)
			s.pass = int64(size+l) - int64(n)
			i += n
			s.off += int64(n)
			continue
		case len(rest) < size+l:
			return i
		case rest[size+l-1] != 0:
			s.fail(yield, rest, &FrameError{Offset: s.off, Length: l, Err: ErrMissingTerminator})
			i++
			continue
		}
		s.emitFrame(yield, s.off, rest[:size+l], false)
		i += size + l
		s.off += int64(size + l)
	}
	return i
}

// fail reports a framing error at the start of rest and resynchronizes from the next byte.
func (s *Splitter) fail(yield func(*StreamFrame), rest []byte, fe *FrameError) {
	s.emit(yield, StreamFrame{Offset: s.off, Frame: rest[:min(len(rest), 64)], Size: 1, Err: fe})
	s.unsync = true
	s.off++
}

// skip counts n bytes passed over while out of sync.
func (s *Splitter) skip(n int) {
	if s.skipped == 0 {
		s.skipOff = s.off
	}
	s.skipped += int64(n)
}

func (s *Splitter) reportSkipped(yield func(*StreamFrame)) {
	if s.skipped == 0 {
		return
	}
	s.emit(yield, StreamFrame{Offset: s.skipOff, Size: s.skipped,
		Err: &FrameError{Offset: s.skipOff, Length: -1, Err: fmt.Errorf("%w (%s)", ErrResync, plural(int(s.skipped), "byte"))}})
	s.skipped = 0
}

// plausible reports whether b starts with a plausible frame and its size. n < 0 means that b
// is too short to tell.
func plausible(b []byte, max int) (n int, ok bool) {
	l, size, err := ConsumeLength(b)
	switch {
	case err == io.ErrUnexpectedEOF:
		return -1, false
	case err != nil, l < 2, l > max, lengthSize(l) != size:
		return 0, false
	case len(b) <= size:
		return -1, false
	case b[size]&0xc0 != 0:
		// The message and header null bits must both be 0.
		return 0, false
	case len(b) < size+l:
		// Not all there: wait, unless the flags and the service class, the first fields of
		// the header, are already there and implausible (the whole frame would be rejected
		// for them too, so that the answer does not depend on how the stream is cut).
		r := bitstream.NewReader(b[size:])
		_ = r.Skip(2) // the message and header null bits, 0 (checked above)
		flags, err := r.ReadInt32()
		if err == nil {
			var class int32
			if class, err = r.ReadInt32(); err == nil {
				if plausibleHeader(&Header{Flags: flags, SvcClass: ServiceClass(class)}) {
					return -1, false
				}
				return 0, false
			}
		}
		if errors.Is(err, bitstream.ErrTruncated) {
			return -1, false
		}
		return 0, false
	case b[size+l-1] != 0:
		return 0, false
	}
	m, err := DecodePayload(b[size : size+l-1])
	if err != nil || !plausibleHeader(&m.Header) {
		return 0, false
	}
	return size + l, true
}

// plausibleHeader reports whether h has a known service class and no unknown flag bits.
func plausibleHeader(h *Header) bool {
	return ServiceClassName(h.SvcClass) != "" && h.Flags&^(FlagResponse|FlagNotify|FlagDiscardable) == 0
}
