package gsf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
)

// ErrNullMessage reports a message whose first bit (the message null bit) is 1. The reference
// server closes the connection ("null request").
var ErrNullMessage = errors.New("null message")

// ErrBodyPhase reports a raw body that cannot be forwarded behind a new header, because the new
// header's length differs from the old one's by a number of bits that is not a multiple of 8.
// The body's aligned strings would break; decode the body and encode it instead.
var ErrBodyPhase = errors.New("gsf: raw body cannot move to another bit position within a byte")

// Message is a decoded GSF message: the header and the undecoded body.
type Message struct {
	Header Header
	Body   RawBody
}

// RawBody is the body of a decoded message: the bits after the header, not yet decoded, since
// their layout depends on the message type. It aliases the input it was decoded from. The zero
// RawBody is a null body.
type RawBody struct {
	data    []byte // the payload, and the terminator when the message came from a frame
	start   int    // bit offset of the first body bit, after the body's null bit
	end     int    // bit length of the payload, the terminator excluded
	present bool
}

// IsNull reports whether the body's null bit was 1 (or the body is the zero RawBody). Error
// responses have a null body.
func (b RawBody) IsNull() bool { return !b.present }

// BitOffset returns the offset of the body's first bit within the payload (after the body's null
// bit).
func (b RawBody) BitOffset() int { return b.start }

// BitLen returns the number of payload bits from BitOffset to the end of the payload: the body
// and the zero padding of the last byte.
func (b RawBody) BitLen() int {
	if !b.present {
		return 0
	}
	return b.end - b.start
}

// Payload returns the whole payload the body belongs to (header included), without the
// terminator.
func (b RawBody) Payload() []byte { return b.data[:b.end/8] }

// Decode decodes the body into v (a pointer) with bitproto and default options. A null body
// leaves v unchanged and is not an error: the reference runs the handler with a zero-valued
// body. Bits after the body are ignored, as in the reference. When the message came from a
// frame, the decoder may read into the 0x00 terminator, as the reference's does.
func (b RawBody) Decode(v any) error {
	if !b.present {
		return nil
	}
	_, err := bitproto.DecodeAt(b.data, b.start, v)
	return err
}

// DecodeWith is Decode with the decoding mode m.
func (b RawBody) DecodeWith(m bitproto.DecodeMode, v any) error {
	if !b.present {
		return nil
	}
	_, err := m.DecodeAt(b.data, b.start, v)
	return err
}

// ErrTrailingBits reports a body decoded strictly ([RawBody.DecodeStrict]) that left bits over:
// more than the zero padding of the last byte, or padding that is not zero. It is the usual sign
// of a body decoded into the wrong type.
var ErrTrailingBits = errors.New("gsf: bits left over after the body")

// ErrBodyOverrun reports a body decoded strictly that read past the end of the payload into the
// frame's terminator, which the reference's reader (and the lenient decode) allows.
var ErrBodyOverrun = errors.New("gsf: body read past the end of the payload")

// BodyError is the error of a strict body decode: the bit offset within the payload where the
// decoded value ended, and how many payload bits follow it (negative when it read past the
// payload).
type BodyError struct {
	Offset    int64 // BitOffset/8
	BitOffset int64 // where the decoded value ended, in bits from the payload's first bit
	Left      int   // payload bits after it (negative: the value ended past the payload)
	Err       error // ErrTrailingBits or ErrBodyOverrun
}

// NewBodyError returns the *BodyError of a value that ended at bit next of the payload with left
// payload bits after it.
func NewBodyError(next, left int, err error) *BodyError {
	return &BodyError{Offset: int64(next / 8), BitOffset: int64(next), Left: left, Err: err}
}

func (e *BodyError) Error() string {
	if e.Left < 0 {
		return fmt.Sprintf("%v: the value ends at bit %d, %s after the payload", e.Err, e.BitOffset, plural(-e.Left, "bit"))
	}
	return fmt.Sprintf("%v: the value ends at bit %d, %s before the end of the payload", e.Err, e.BitOffset, plural(e.Left, "bit"))
}

// Unwrap returns ErrTrailingBits or ErrBodyOverrun.
func (e *BodyError) Unwrap() error { return e.Err }

// DecodeStrict is DecodeWith, and then fails with a *BodyError when the value does not end
// where the body does: when more than the zero padding of the last byte is left over
// (ErrTrailingBits), or when the decoder read past the payload into the terminator
// (ErrBodyOverrun). A null body is not an error.
func (b RawBody) DecodeStrict(m bitproto.DecodeMode, v any) error {
	if !b.present {
		return nil
	}
	next, err := m.DecodeAt(b.data, b.start, v)
	if err != nil {
		return err
	}
	return b.CheckEnd(next)
}

// CheckEnd checks that a value decoded from the body ends at bit next of the payload as a strict
// decode requires (see [RawBody.DecodeStrict]).
func (b RawBody) CheckEnd(next int) error {
	left := b.end - next
	switch {
	case left < 0:
		return NewBodyError(next, left, ErrBodyOverrun)
	case left >= 8:
		return NewBodyError(next, left, ErrTrailingBits)
	case left > 0:
		r := bitstream.NewReader(b.data[:b.end/8])
		_ = r.Seek(next)
		if bits, _ := r.ReadBits(left); bits != 0 {
			return NewBodyError(next, left, ErrTrailingBits)
		}
	}
	return nil
}

// DecodeUsing is Decode with a bitproto.Decoder, whose options apply and whose string chunk the
// body's strings share with those of the other bodies it decodes: decoding into a value reused
// from one message to the next then usually allocates nothing. See [bitproto.Decoder] for what
// that costs in memory.
func (b RawBody) DecodeUsing(d *bitproto.Decoder, v any) error {
	if !b.present {
		return nil
	}
	_, err := d.DecodeAt(b.data, b.start, v)
	return err
}

// Reader returns a bitstream.Reader positioned at the body's first bit, for hand-written
// decoders.
func (b RawBody) Reader() *bitstream.Reader {
	r := bitstream.NewReader(b.data)
	_ = r.Seek(b.start)
	return r
}

// Clone returns a copy of the body that does not alias the input, to keep it after the next
// FrameReader read.
func (b RawBody) Clone() RawBody {
	b.data = append([]byte(nil), b.data...)
	return b
}

// DecodeBody decodes the message's body into v (see [RawBody.Decode]).
func (m *Message) DecodeBody(v any) error { return m.Body.Decode(v) }

// DecodeBodyUsing decodes the message's body into v with d (see [RawBody.DecodeUsing]). A
// server's read loop can reuse a FrameReader, a Message, a bitproto.Decoder and a body value from
// one message to the next, and then reads most messages without allocating:
//
//	fr.ReadMessage(&m)
//	m.DecodeBodyUsing(&dec, &body)
func (m *Message) DecodeBodyUsing(d *bitproto.Decoder, v any) error {
	// Not m.Body.DecodeUsing, which would copy the body.
	if !m.Body.present {
		return nil
	}
	_, err := d.DecodeAt(m.Body.data, m.Body.start, v)
	return err
}

// DecodePayload decodes a message from its payload (a frame without the length prefix and the
// terminator): the message null bit, the header object and the body's null bit. The body is
// left undecoded in m.Body, aliasing payload. A header object whose null bit is 1 decodes as the
// zero header, as in the reference. Errors are *bitproto.DecodeError values whose Path starts with
// "header." for header fields, or ErrNullMessage.
func DecodePayload(payload []byte) (Message, error) {
	var m Message
	err := m.decode(payload, len(payload))
	return m, err
}

// decode decodes the message in data, whose first n bytes are the payload (data may hold the
// terminator after them), into m. After an error m holds what was decoded before it.
func (m *Message) decode(data []byte, n int) error { return decodeInto(&m.Header, &m.Body, data, n) }

// decodeInto is decode into a header and a body that need not be a Message's.
func decodeInto(h *Header, b *RawBody, data []byte, n int) error {
	if isRequest(data) && decodeRequest(h, b, data, n) || decodeFast(h, b, data, n) {
		return nil
	}
	return decodeReader(h, b, data, n)
}

// decodeReader is decode through a bitstream.Reader, for what decodeFast does not handle.
func decodeReader(h *Header, b *RawBody, data []byte, n int) error {
	*b = RawBody{}
	// Like the reference, read over the terminator too: a decoder may read into it.
	var r bitstream.Reader
	r.Reset(data)
	null, err := r.ReadNull()
	if err != nil {
		*h = Header{}
		return &bitproto.DecodeError{Path: "message", Err: err}
	}
	if null {
		*h = Header{}
		return &bitproto.DecodeError{Path: "message", Err: ErrNullMessage}
	}
	if null, err = r.ReadNull(); err != nil {
		*h = Header{}
		return &bitproto.DecodeError{Path: "header", Offset: 0, BitOffset: 1, Err: err}
	}
	if null {
		*h = Header{}
	} else if err := h.UnmarshalBits(&r); err != nil {
		if e, ok := err.(*bitproto.DecodeError); ok {
			e.Path = "header." + e.Path
		}
		return err
	}
	off := r.Offset()
	if null, err = r.ReadNull(); err != nil {
		return &bitproto.DecodeError{Path: "body", Offset: int64(off / 8), BitOffset: int64(off), Err: err}
	}
	*b = RawBody{data: data, start: r.Offset(), end: n * 8, present: !null}
	return nil
}

// ConsumeMessage decodes the framed message at the start of b and returns it and the number of
// bytes the frame took. Framing errors are those of [ConsumeFrame]; a frame cut short wraps
// io.ErrUnexpectedEOF.
func ConsumeMessage(b []byte) (Message, int, error) {
	frame, n, err := consumeFrame(b)
	if err != nil {
		return Message{}, 0, err
	}
	var m Message
	if err := m.decode(frame, len(frame)-1); err != nil {
		return m, 0, err
	}
	return m, n, nil
}

// ReadMessage reads the next frame from fr and decodes its message. The body aliases fr's
// buffer: decode it, or Clone it, before the next read. At the end of the stream it returns
// io.EOF. [FrameReader.ReadMessage] does the same into a Message of the caller's.
func ReadMessage(fr *FrameReader) (Message, error) {
	var m Message
	err := fr.ReadMessage(&m)
	return m, err
}

// ReadMessage reads the next frame and decodes its message into m, overwriting it, as the
// function [ReadMessage] does; a Message reused from one read to the next saves copying it. The
// body aliases fr's buffer: decode it, or Clone it, before the next read. At the end of the
// stream it returns io.EOF. After an error m holds what was decoded before it (the zero Message
// for a framing error).
func (fr *FrameReader) ReadMessage(m *Message) error {
	return fr.ReadMessageInto(&m.Header, &m.Body)
}

// ReadMessageInto is [FrameReader.ReadMessage] into a header and a body of the caller's, for
// a caller whose own struct holds them (a server's request): it saves copying a Message into
// it. After an error h and body hold what was decoded before it (zero values for a framing
// error).
func (fr *FrameReader) ReadMessageInto(h *Header, body *RawBody) error {
	frame := fr.shortFrame()
	if frame == nil {
		var err error
		if frame, err = fr.readFrameSlow(); err != nil {
			*h, *body = Header{}, RawBody{}
			return err
		}
	}
	if isRequest(frame) && decodeRequest(h, body, frame, len(frame)-1) || decodeFast(h, body, frame, len(frame)-1) {
		return nil
	}
	return decodeReader(h, body, frame, len(frame)-1)
}

// AppendPayload appends the payload of a message: the message null bit (0), the header object
// (null bit 0, then its fields) and the body object: a null bit, 1 when body is nil or a nil
// pointer, else 0 and the body's fields as bitproto writes them (a bitproto.Marshaler writes
// itself). A [RawBody] or *RawBody body is copied bit for bit, as decoded from another message;
// this needs the new header to put it at the same position within a byte (see [ErrBodyPhase]).
func AppendPayload(dst []byte, h *Header, body any) ([]byte, error) {
	st := writerPool.Get().(*msgWriter)
	defer writerPool.Put(st)
	return appendPayload(&st.w, nil, dst, h, body)
}

// appendPayload is AppendPayload with the bit writer w, which it leaves reset to nil, and the
// cache of e (nil: none; see writeMessage).
func appendPayload(w *bitstream.Writer, e *Encoder, dst []byte, h *Header, body any) ([]byte, error) {
	w.Reset(dst)
	defer w.Reset(nil)
	if err := writeMessage(w, e, h, body); err != nil {
		return dst, err
	}
	return w.Bytes(), nil
}

// AppendMessage appends a framed message: the length prefix, the payload of [AppendPayload]
// and the 0x00 terminator. With a buffer of enough capacity it does not allocate.
func AppendMessage(dst []byte, h *Header, body any) ([]byte, error) {
	st := writerPool.Get().(*msgWriter)
	defer writerPool.Put(st)
	return appendMessage(&st.w, nil, dst, h, body)
}

// An Encoder appends framed messages as [AppendMessage] does, with a bit writer of its own
// where AppendMessage takes one from a pool for every message (a sync.Pool's Get and Put cost
// about a quarter of encoding a small response). A connection that encodes its messages one
// at a time keeps one. The zero Encoder is ready to use; it is not safe for concurrent use,
// and holds no reference to what it encoded once a call returns.
//
// An Encoder also keeps the bits that start the last message it encoded: the message's and the
// header's null bits, flags, svcClass and msgType, which a connection's responses mostly share
// (a client's requests of one kind and their responses); a message that starts alike takes them
// as one write, where encoding them costs five.
type Encoder struct {
	w bitstream.Writer

	start          uint64 // the starting bits, right-aligned
	startBits      int    // their number; 0: none kept
	flags, msgType int32  // what they encode
	class          ServiceClass
}

// AppendMessage appends a framed message to dst, as the function [AppendMessage] does.
func (e *Encoder) AppendMessage(dst []byte, h *Header, body any) ([]byte, error) {
	return appendMessage(&e.w, e, dst, h, body)
}

// writeStart writes the message's and the header object's null bits (both 0), flags, svcClass
// and msgType: the bits kept from the last message when it started alike.
func (e *Encoder) writeStart(w *bitstream.Writer, h *Header) {
	if e.startBits == 0 || h.Flags != e.flags || h.SvcClass != e.class || h.MsgType != e.msgType {
		var sb [16]byte
		var t bitstream.Writer
		t.Reset(sb[:0])
		writeStart(&t, h)
		n := t.Len()
		if n > 64 {
			e.startBits = 0
			writeStart(w, h)
			return
		}
		var b [8]byte
		copy(b[:], t.Bytes())
		e.start, e.startBits = binary.BigEndian.Uint64(b[:])>>(64-n), n
		e.flags, e.class, e.msgType = h.Flags, h.SvcClass, h.MsgType
	}
	w.WriteBits(e.start, e.startBits)
}

// writeStart writes the message's and the header object's null bits (both 0), flags, svcClass
// and msgType.
func writeStart(w *bitstream.Writer, h *Header) {
	w.WriteNull(false) // the message
	w.WriteNull(false) // the header object
	w.WriteInt32(h.Flags)
	w.WriteInt32(int32(h.SvcClass))
	w.WriteInt32(h.MsgType)
}

// appendMessage is AppendMessage with the bit writer w and the cache of e (nil: none).
func appendMessage(w *bitstream.Writer, e *Encoder, dst []byte, h *Header, body any) ([]byte, error) {
	start := len(dst)
	// Most payloads are shorter than 127 bytes: reserve one byte for the length prefix, and
	// move the payload if the prefix turns out longer.
	out, err := appendPayload(w, e, append(dst, 0), h, body)
	if err != nil {
		return dst, err
	}
	l := len(out) - start // payload + terminator
	if l > MaxFrameLength {
		return dst, &FrameError{Offset: int64(start), Length: l, Err: ErrTooLarge}
	}
	if size := lengthSize(l); size > 1 {
		out = append(out, make([]byte, size-1)...)
		copy(out[start+size:], out[start+1:start+l])
	}
	prefix, _ := AppendLength(out[start:start], l)
	return append(out[:start+len(prefix)+l-1], 0), nil
}

// Append appends m as a framed message, its body copied bit for bit (see [AppendMessage]).
// A decoded message can be changed and forwarded this way, as long as the header's length
// changes by a multiple of 8 bits (for example a request id of the same width); otherwise the
// error is ErrBodyPhase.
func (m *Message) Append(dst []byte) ([]byte, error) {
	if m.Body.IsNull() {
		return AppendMessage(dst, &m.Header, nil)
	}
	return AppendMessage(dst, &m.Header, &m.Body)
}

// WriteMessage writes a framed message to w with one Write call.
func WriteMessage(w io.Writer, h *Header, body any) error {
	st := writerPool.Get().(*msgWriter)
	defer writerPool.Put(st)
	buf, err := appendMessage(&st.w, nil, st.buf[:0], h, body)
	if err != nil {
		return err
	}
	if cap(buf) <= 64<<10 {
		st.buf = buf
	}
	_, err = w.Write(buf)
	return err
}

type msgWriter struct {
	w   bitstream.Writer
	buf []byte
}

var writerPool = sync.Pool{New: func() any { return new(msgWriter) }}

// writeMessage writes the payload of a message: its start (writeStart, from the cache of e
// unless e is nil), the rest of the header and the body.
func writeMessage(w *bitstream.Writer, e *Encoder, h *Header, body any) error {
	if e != nil {
		e.writeStart(w, h)
	} else {
		writeStart(w, h)
	}
	h.marshalRest(w)
	switch b := body.(type) {
	case RawBody:
		if err := writeRaw(w, &b); err != nil {
			return err
		}
	case *RawBody:
		if b == nil {
			w.WriteNull(true)
		} else if err := writeRaw(w, b); err != nil {
			return err
		}
	default:
		if err := bitproto.WriteObject(w, body); err != nil {
			return bodyError(err)
		}
	}
	if err := w.Err(); err != nil {
		return &prefixedError{prefix: "gsf: ", err: err}
	}
	return nil
}

// writeRaw writes a raw body's null bit and bits. The body must start at the same position
// within a byte as it did in its message: its strings and byte arrays are aligned to bytes, so
// moving it to another bit phase would need its layout.
func writeRaw(w *bitstream.Writer, b *RawBody) error {
	if !b.present {
		w.WriteNull(true)
		return nil
	}
	w.WriteNull(false)
	if w.Len()&7 != b.start&7 {
		return fmt.Errorf("%w: the body started at bit %d of a byte, the new header puts it at bit %d", ErrBodyPhase, b.start&7, w.Len()&7)
	}
	w.WriteBitsFrom(b.data, b.start, b.end-b.start)
	return nil
}

// prefixedError puts the package's prefix before an error of a lower layer without repeating
// that layer's own prefix: "gsf: body: at bit 52: …", not "gsf: body: bitproto: at bit 52: …".
// errors.Is and errors.As see the lower error.
type prefixedError struct {
	prefix string
	err    error
}

func (e *prefixedError) Error() string {
	msg := e.err.Error()
	for _, p := range []string{"bitproto: ", "bitstream: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return e.prefix + msg
}

func (e *prefixedError) Unwrap() error { return e.err }

// bodyError reports an error from encoding a message body.
func bodyError(err error) error { return &prefixedError{prefix: "gsf: body: ", err: err} }
