package gsf

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Framing limits.
const (
	// MaxFrameLength is the largest length a 4-byte length prefix can carry (2^28-1). The length
	// counts the payload and the 0x00 terminator.
	MaxFrameLength = 1<<28 - 1
	// DefaultMaxMessageBytes is the largest frame length a [FrameReader] accepts unless told
	// otherwise: 1 MiB. The reference accepts up to 2^28-1 and allocates that much before
	// reading.
	DefaultMaxMessageBytes = 1 << 20
	// NoLimit, as MaxMessageBytes, means no limit but the format's own, MaxFrameLength; so does
	// any other negative value. 0 means DefaultMaxMessageBytes.
	NoLimit = -1
)

// maxMessage returns the frame length limit that MaxMessageBytes v sets.
func maxMessage(v int) int {
	switch {
	case v > 0:
		return v
	case v < 0:
		return MaxFrameLength
	}
	return DefaultMaxMessageBytes
}

// Framing errors, wrapped by *[FrameError]. A frame cut short is io.ErrUnexpectedEOF.
var (
	// ErrEmptyFrame reports a length prefix of 0 (the reference's "empty message").
	ErrEmptyFrame = errors.New("empty frame: length 0")
	// ErrMissingTerminator reports a frame whose last byte is not 0x00 (the reference's
	// "invalid message").
	ErrMissingTerminator = errors.New("frame does not end with the 0x00 terminator")
	// ErrTooLarge reports a length above the reader's maximum, or a payload too long for
	// the 4-byte length prefix when writing.
	ErrTooLarge = errors.New("frame too large")
	// ErrLengthOverflow reports a length prefix whose 4 bytes all have the continuation bit set.
	ErrLengthOverflow = errors.New("length prefix longer than 4 bytes")
)

// FrameError is a framing error and where it happened.
type FrameError struct {
	Offset int64 // byte offset of the frame's first byte in the input or stream
	Length int   // the frame's length prefix, when it was read (else -1)
	Err    error
}

// Error implements error.
func (e *FrameError) Error() string {
	s := "gsf: frame at byte " + strconv.FormatInt(e.Offset, 10)
	if e.Length >= 0 {
		s += " (length " + strconv.Itoa(e.Length) + ")"
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *FrameError) Unwrap() error { return e.Err }

// AppendLength appends the length prefix of a frame: n in 7-bit groups, most significant group
// first, with 0x80 set on every byte but the last; always the shortest form. n must be in
// 0..MaxFrameLength.
func AppendLength(dst []byte, n int) ([]byte, error) {
	switch {
	case n < 0 || n > MaxFrameLength:
		return dst, fmt.Errorf("gsf: length %d out of range: %w", n, ErrTooLarge)
	case n < 1<<7:
		return append(dst, byte(n)), nil
	case n < 1<<14:
		return append(dst, 0x80|byte(n>>7), byte(n)&0x7f), nil
	case n < 1<<21:
		return append(dst, 0x80|byte(n>>14), 0x80|byte(n>>7), byte(n)&0x7f), nil
	}
	return append(dst, 0x80|byte(n>>21), 0x80|byte(n>>14), 0x80|byte(n>>7), byte(n)&0x7f), nil
}

// lengthSize returns the number of bytes of the shortest length prefix of n.
func lengthSize(n int) int {
	switch {
	case n < 1<<7:
		return 1
	case n < 1<<14:
		return 2
	case n < 1<<21:
		return 3
	}
	return 4
}

// ConsumeLength parses a length prefix at the start of b and returns the length and the number
// of bytes it took. Like the reference it reads at most 4 bytes and accepts non-minimal forms
// (80 15 is 21). b too short gives io.ErrUnexpectedEOF; 4 bytes with the continuation bit give
// ErrLengthOverflow.
func ConsumeLength(b []byte) (n, size int, err error) {
	for i := range 4 {
		if i >= len(b) {
			return 0, 0, io.ErrUnexpectedEOF
		}
		c := b[i]
		n = n<<7 | int(c&0x7f)
		if c < 0x80 {
			return n, i + 1, nil
		}
	}
	return 0, 0, ErrLengthOverflow
}

// AppendFrame appends a frame: the length prefix (len(payload)+1), the payload and the 0x00
// terminator.
func AppendFrame(dst, payload []byte) ([]byte, error) {
	dst, err := AppendLength(dst, len(payload)+1)
	if err != nil {
		return dst, err
	}
	dst = append(dst, payload...)
	return append(dst, 0), nil
}

// ConsumeFrame parses the frame at the start of b. It returns the payload (without the
// terminator; it aliases b) and the number of bytes the frame took. An incomplete frame gives
// an error wrapping io.ErrUnexpectedEOF, so a caller that buffers a TCP stream can wait for more
// input; the other errors (ErrEmptyFrame, ErrMissingTerminator, ErrLengthOverflow) mean the
// stream cannot be resynchronized.
func ConsumeFrame(b []byte) (payload []byte, n int, err error) {
	frame, n, err := consumeFrame(b)
	if err != nil {
		return nil, 0, err
	}
	return frame[:len(frame)-1], n, nil
}

// consumeFrame is ConsumeFrame returning the frame's payload with its terminator.
func consumeFrame(b []byte) (frame []byte, n int, err error) {
	l, size, err := ConsumeLength(b)
	if err != nil {
		return nil, 0, &FrameError{Length: -1, Err: err}
	}
	switch {
	case l == 0:
		return nil, 0, &FrameError{Err: ErrEmptyFrame}
	case l > len(b)-size:
		return nil, 0, &FrameError{Length: l, Err: io.ErrUnexpectedEOF}
	case b[size+l-1] != 0:
		return nil, 0, &FrameError{Length: l, Err: ErrMissingTerminator}
	}
	return b[size : size+l : size+l], size + l, nil
}

// A FrameReader reads frames from a byte stream such as a TCP connection. It buffers its input;
// the frame length is checked against MaxMessageBytes before any memory is allocated for it.
type FrameReader struct {
	// MaxMessageBytes is the largest frame length (payload + terminator) accepted; 0 means
	// DefaultMaxMessageBytes, NoLimit (or any negative value) MaxFrameLength. It may be changed
	// between frames.
	MaxMessageBytes int
	// Budget, if set, is charged for the part of the reader's buffer beyond its first
	// BaseBufferSize bytes, which it shares with other FrameReaders (a server's connections):
	// a frame that would grow the buffer beyond what is left of the budget fails with an
	// error wrapping ErrBufferBudget. While a budget is set, a buffer larger than
	// BaseBufferSize is dropped when it is empty and the reader is about to wait for the
	// stream, so that an idle reader holds none of the budget. Set it before the first read.
	Budget *BufferBudget

	r          io.Reader
	buf        []byte
	start, end int   // buffered bytes: buf[start:end]
	off        int64 // stream offset of buf[start]
	err        error // the first error; a stream that failed stays failed
}

// NewFrameReader returns a FrameReader reading from r.
func NewFrameReader(r io.Reader) *FrameReader {
	return &FrameReader{r: r}
}

// Reset makes fr read from r, keeping its buffer, MaxMessageBytes and Budget.
func (fr *FrameReader) Reset(r io.Reader) {
	*fr = FrameReader{MaxMessageBytes: fr.MaxMessageBytes, Budget: fr.Budget, r: r, buf: fr.buf}
}

// ReleaseBuffer drops the reader's buffer and the frames buffered in it, and gives its charge
// back to the Budget. A server calls it when it is done with a connection; a reader that reads
// again allocates a new buffer.
func (fr *FrameReader) ReleaseBuffer() {
	if fr.Budget != nil {
		fr.Budget.grow(len(fr.buf), 0)
	}
	fr.buf, fr.start, fr.end = nil, 0, 0
}

// FrameBuffered reports whether the next ReadFrame returns without reading from the stream:
// a whole frame (or a length prefix that fails) is buffered. A server that has handled a
// message uses it to tell whether another one follows at once.
func (fr *FrameReader) FrameBuffered() bool {
	if fr.err != nil {
		return true
	}
	max := maxMessage(fr.MaxMessageBytes)
	l := 0
	for i := range 4 {
		if fr.start+i >= fr.end {
			return false
		}
		c := fr.buf[fr.start+i]
		l = l<<7 | int(c&0x7f)
		if c < 0x80 {
			// A length of 0 or over the limit fails at once.
			return l == 0 || l > max || fr.end-fr.start >= i+1+l
		}
	}
	return true // a fifth length byte: an error
}

// Buffered returns the number of bytes read from the stream that no frame returned so far
// holds: the start of the next frame, or more. After an error it is 0: a reader that failed
// reads no more frames and keeps none of the bytes after the last one.
func (fr *FrameReader) Buffered() int { return fr.end - fr.start }

// Offset returns the number of bytes of the stream consumed by the frames read so far.
func (fr *FrameReader) Offset() int64 { return fr.off }

// ReadFrame reads the next frame and returns its payload, without the terminator. The payload
// aliases the reader's buffer and is valid until the next call. At the end of the stream,
// between frames, it returns io.EOF; a stream that ends inside a frame gives a *FrameError
// wrapping io.ErrUnexpectedEOF. Framing errors are *FrameError values wrapping ErrEmptyFrame,
// ErrLengthOverflow, ErrTooLarge or ErrMissingTerminator; after any error the reader
// returns the same error again, since the stream cannot be resynchronized.
func (fr *FrameReader) ReadFrame() ([]byte, error) {
	frame, err := fr.readFrame()
	if err != nil {
		return nil, err
	}
	return frame[:len(frame)-1], nil
}

// readFrame returns the next frame's payload with its terminator.
func (fr *FrameReader) readFrame() ([]byte, error) {
	if frame := fr.shortFrame(); frame != nil {
		return frame, nil
	}
	return fr.readFrameSlow()
}

// shortFrame is readFrame's common case, small enough to be inlined: a frame with a one-byte
// length prefix (1..127), buffered whole, within MaxMessageBytes and with its terminator. It
// returns nil, having changed nothing, for anything else.
func (fr *FrameReader) shortFrame() []byte {
	// A reader that failed has nothing buffered (see fail), so it needs no check of fr.err.
	if b := fr.buf[fr.start:fr.end]; len(b) > 1 {
		// l-1 < 0x7f: 1 ≤ l < 0x80. uint(MaxMessageBytes-1) ≥ l-1: MaxMessageBytes ≤ 0 (the
		// default, which is larger) or l ≤ MaxMessageBytes.
		if l := uint(b[0]); l-1 < 0x7f && l < uint(len(b)) && uint(fr.MaxMessageBytes-1) >= l-1 && b[l] == 0 {
			fr.start += int(l) + 1
			fr.off += int64(l) + 1
			return b[1 : l+1 : l+1]
		}
	}
	return nil
}

// readFrameSlow is readFrame for any frame.
func (fr *FrameReader) readFrameSlow() ([]byte, error) {
	if fr.err != nil {
		return nil, fr.err
	}
	if fr.Budget != nil && fr.start == fr.end && len(fr.buf) > BaseBufferSize {
		fr.ReleaseBuffer()
	}
	max := maxMessage(fr.MaxMessageBytes)
	// The length prefix, one byte at a time: the stream may hold fewer than 4 bytes.
	l, size := 0, 0
	for {
		if size == 4 {
			return nil, fr.fail(&FrameError{Offset: fr.off, Length: -1, Err: ErrLengthOverflow})
		}
		if err := fr.fill(size + 1); err != nil {
			if err == io.EOF && size == 0 && fr.end == fr.start {
				fr.err = io.EOF
				return nil, io.EOF
			}
			return nil, fr.fail(&FrameError{Offset: fr.off, Length: -1, Err: unexpected(err)})
		}
		c := fr.buf[fr.start+size]
		size++
		l = l<<7 | int(c&0x7f)
		if c < 0x80 {
			break
		}
	}
	switch {
	case l == 0:
		return nil, fr.fail(&FrameError{Offset: fr.off, Length: 0, Err: ErrEmptyFrame})
	case l > max:
		return nil, fr.fail(&FrameError{Offset: fr.off, Length: l, Err: fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, l, max)})
	}
	if err := fr.fill(size + l); err != nil {
		return nil, fr.fail(&FrameError{Offset: fr.off, Length: l, Err: unexpected(err)})
	}
	i := fr.start + size
	frame := fr.buf[i : i+l : i+l]
	if frame[l-1] != 0 {
		return nil, fr.fail(&FrameError{Offset: fr.off, Length: l, Err: ErrMissingTerminator})
	}
	fr.start += size + l
	fr.off += int64(size + l)
	return frame, nil
}

func (fr *FrameReader) fail(err error) error {
	fr.err = err
	fr.start = fr.end // the stream is read no further: nothing is buffered
	if fr.Budget != nil {
		fr.ReleaseBuffer() // a failed stream reads no more frames
	}
	return err
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// fill makes at least n bytes available in buf[start:end], reading from the stream as needed.
// The buffer grows only when it is full, and then to twice its size at most (4 KiB at least,
// n+4 KiB at most): a length prefix alone never makes it allocate the frame, so memory follows
// the bytes that arrived, not the bytes a peer announced.
func (fr *FrameReader) fill(n int) error {
	if fr.end-fr.start >= n {
		return nil
	}
	if fr.start > 0 {
		// Move the buffered bytes (part of one frame, or none) to the front, so that the read
		// has the whole buffer: reading into what is left behind them would cut a burst of
		// frames that the buffer holds (a pipelining client's batch) into two reads, and a
		// server that answers each read's frames with one write into two writes.
		fr.end = copy(fr.buf, fr.buf[fr.start:fr.end])
		fr.start = 0
	}
	for empty := 0; fr.end-fr.start < n; {
		if fr.end == len(fr.buf) {
			// Full (fr.start is 0 here): every byte of it arrived.
			size := max(BaseBufferSize, min(2*len(fr.buf), n+BaseBufferSize))
			if fr.Budget != nil {
				if err := fr.Budget.grow(len(fr.buf), size); err != nil {
					return err
				}
			}
			nb := make([]byte, size)
			fr.end = copy(nb, fr.buf[fr.start:fr.end])
			fr.start = 0
			fr.buf = nb
		}
		m, err := fr.r.Read(fr.buf[fr.end:])
		fr.end += m
		if fr.end-fr.start >= n {
			return nil
		}
		if err != nil {
			return err
		}
		if m == 0 {
			if empty++; empty >= 100 {
				return io.ErrNoProgress
			}
		}
	}
	return nil
}
