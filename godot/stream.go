package godot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Framing says how Variants are delimited on a connection or in a file, as the engine's peers and
// files write them. In every framing the Variant itself is little-endian; only a length prefix
// may be big-endian.
type Framing uint8

// The framings. FramingStreamPeer is the zero value.
const (
	// FramingStreamPeer is StreamPeer.put_var/get_var (StreamPeerTCP, StreamPeerBuffer,
	// StreamPeerSSL) with big_endian = false, the default: a u32 little-endian byte length, then
	// the Variant. File.store_var/get_var (Godot 3) and FileAccess.store_var (Godot 4) write the
	// same when endian_swap / big_endian is off. The engine puts no limit on the length.
	FramingStreamPeer Framing = iota
	// FramingStreamPeerBigEndian is StreamPeer.put_var with big_endian = true, and File.store_var
	// with endian_swap = true: the length prefix is big-endian, the Variant stays little-endian.
	FramingStreamPeerBigEndian
	// FramingPacketPeerStream is PacketPeerStream (packets over a StreamPeer): a u32 length that
	// is always little-endian, whatever the StreamPeer's big_endian says, then the packet. The
	// engine's buffers are 2^16 bytes (network/limits/packet_peer_stream/max_buffer_po2 = 16)
	// and 4 of them hold the length, so the default limit is PacketPeerStreamMaxPacket.
	FramingPacketPeerStream
	// FramingPacket is a PacketPeer whose transport delimits messages itself: PacketPeerUDP,
	// ENet, WebSocket. Each message is one bare Variant, with no prefix: the Decoder reads one
	// datagram per Read (use a connected *net.UDPConn), the Encoder makes one Write per message.
	FramingPacket
)

// FramingFile and FramingFileEndianSwap are the framings of File.store_var / FileAccess.store_var
// without and with endian_swap (Godot 3) or big_endian (Godot 4).
const (
	FramingFile           = FramingStreamPeer
	FramingFileEndianSwap = FramingStreamPeerBigEndian
)

// String names the engine API that writes the framing.
func (f Framing) String() string {
	switch f {
	case FramingStreamPeer:
		return "StreamPeer"
	case FramingStreamPeerBigEndian:
		return "StreamPeer (big_endian)"
	case FramingPacketPeerStream:
		return "PacketPeerStream"
	case FramingPacket:
		return "PacketPeer"
	}
	return fmt.Sprintf("Framing(%d)", uint8(f))
}

// Message size limits.
const (
	// DefaultMaxMessageBytes is the default limit on a message for FramingStreamPeer and
	// FramingStreamPeerBigEndian: 8 MiB, the engine's default encode_buffer_max_size for
	// PacketPeer.put_var.
	DefaultMaxMessageBytes = 8 << 20
	// PacketPeerStreamMaxPacket is the largest packet a PacketPeerStream with the default buffer
	// accepts (put_packet fails with ERR_INVALID_PARAMETER beyond it), and the default limit for
	// FramingPacketPeerStream.
	PacketPeerStreamMaxPacket = 1<<16 - 4
	// MaxDatagram is the default limit for FramingPacket: the largest payload of a UDP datagram
	// over IPv4 (65535 minus the 20-byte IP and 8-byte UDP headers).
	MaxDatagram = 65507
)

// ErrTooLarge: a message's length prefix (or a datagram, or a message being encoded)
// exceeds the limit. The Decoder checks the prefix before reading the message; below the limit,
// its buffer grows with the bytes that arrive, not with the length the prefix announces.
var ErrTooLarge = errors.New("message too large")

// StreamOptions configures a [Decoder] or an [Encoder]. The zero value reads and writes Godot 4
// Variants framed as StreamPeer.put_var does, with the engine's default limits.
type StreamOptions struct {
	// Framing delimits the messages.
	Framing Framing
	// Dialect selects Godot 3 or Godot 4.
	Dialect Dialect
	// MaxMessageBytes bounds a message's Variant in bytes, not counting a length prefix. 0 means
	// the framing's default: DefaultMaxMessageBytes, PacketPeerStreamMaxPacket or MaxDatagram.
	MaxMessageBytes int
	// AllowObjects, MaxDepth, MaxElements, MaxAllocBytes, LegacyNodePath and Real are the decoding
	// options of [DecodeOptions]; DoublePrecision and MaxDepth the encoding options of [EncodeOptions].
	AllowObjects    bool
	MaxDepth        int
	MaxElements     int
	MaxAllocBytes   int
	LegacyNodePath  bool
	Real            Real
	DoublePrecision bool
}

// DecodeOptions returns the options with which a Decoder decodes each message.
func (o StreamOptions) DecodeOptions() DecodeOptions {
	return DecodeOptions{Dialect: o.Dialect, AllowObjects: o.AllowObjects, MaxDepth: o.MaxDepth,
		MaxElements: o.MaxElements, MaxAllocBytes: o.MaxAllocBytes, LegacyNodePath: o.LegacyNodePath, Real: o.Real}
}

// EncodeOptions returns the options with which an Encoder encodes each message.
func (o StreamOptions) EncodeOptions() EncodeOptions {
	return EncodeOptions{Dialect: o.Dialect, DoublePrecision: o.DoublePrecision, MaxDepth: o.MaxDepth}
}

// maxMessage returns the limit on a message, and an error if MaxMessageBytes is invalid.
func (o StreamOptions) maxMessage() (int, error) {
	if o.Framing > FramingPacket {
		return 0, fmt.Errorf("godot: StreamOptions.Framing: unknown framing %d", o.Framing)
	}
	switch {
	case o.MaxMessageBytes == NoLimit && o.Framing == FramingPacket:
		return 1<<16 - 1, nil // no datagram is longer; the Decoder's buffer has this size
	case o.MaxMessageBytes == NoLimit:
		return math.MaxInt32, nil // the engine's length prefix is an int32
	case o.MaxMessageBytes > 0:
		return o.MaxMessageBytes, nil
	case o.MaxMessageBytes < 0:
		return 0, fmt.Errorf("godot: StreamOptions.MaxMessageBytes is %d: want a positive limit, 0 (the default) or NoLimit", o.MaxMessageBytes)
	}
	switch o.Framing {
	case FramingPacketPeerStream:
		return PacketPeerStreamMaxPacket, nil
	case FramingPacket:
		return MaxDatagram, nil
	}
	return DefaultMaxMessageBytes, nil
}

func (o StreamOptions) prefixed() bool { return o.Framing != FramingPacket }

// Decoder reads framed Variants from an io.Reader. It buffers: one Read may deliver several
// messages, or part of one, and a message may arrive over any number of Reads.
type Decoder struct {
	r    io.Reader
	o    StreamOptions
	dec  DecodeMode
	max  int
	buf  []byte
	pos  int   // start of the unread data in buf
	err  error // a read error, reported once the buffered data is used up
	fail error // a framing error after which the stream cannot be resynchronised
	// zeroReads counts consecutive Reads that returned nothing and no error.
	zeroReads int
}

// NewDecoder returns a Decoder of Godot 4 Variants framed as by StreamPeer.put_var; see
// [StreamOptions.NewDecoder].
func NewDecoder(r io.Reader) *Decoder { return StreamOptions{}.NewDecoder(r) }

// NewDecoder returns a Decoder that reads messages from r with the options o. Options that
// [DecodeOptions.DecodeMode] refuses, or an invalid MaxMessageBytes or Framing, make every call
// of the Decoder fail with that error.
func (o StreamOptions) NewDecoder(r io.Reader) *Decoder {
	d := &Decoder{r: r, o: o}
	var err error
	if d.max, err = o.maxMessage(); err != nil {
		d.fail = err
	} else if d.dec, err = o.DecodeOptions().DecodeMode(); err != nil {
		d.fail = err
	}
	return d
}

// Decode reads the next message and unmarshals it into v, as [DecodeMode.Unmarshal] does. At the
// end of the input it returns io.EOF; if the input ends inside a message, io.ErrUnexpectedEOF.
// A message that fails to decode is consumed, and the next Decode reads the next message; a
// length prefix beyond the limit (ErrTooLarge) or a read error ends the stream.
func (d *Decoder) Decode(v any) error {
	msg, err := d.ReadMessage()
	if err != nil {
		return err
	}
	return d.dec.Unmarshal(msg, v)
}

// ReadMessage reads the next message and returns its Variant bytes, without the length prefix.
// The bytes are valid until the next call on d. Errors are as for Decode.
func (d *Decoder) ReadMessage() ([]byte, error) {
	if d.fail != nil {
		return nil, d.fail
	}
	if !d.o.prefixed() {
		return d.readDatagram()
	}
	if err := d.fill(4); err != nil {
		return nil, err
	}
	var n uint32
	if d.o.Framing == FramingStreamPeerBigEndian {
		n = binary.BigEndian.Uint32(d.buf[d.pos:])
	} else {
		n = binary.LittleEndian.Uint32(d.buf[d.pos:])
	}
	if n > math.MaxInt32 || int(n) > d.max {
		d.fail = fmt.Errorf("godot: %s message of %s: %w (limit %d)", d.o.Framing, plural(int(n), "byte"), ErrTooLarge, d.max)
		if n > math.MaxInt32 {
			d.fail = fmt.Errorf("godot: %s message length %#08x is negative as the engine's int32: %w", d.o.Framing, n, ErrTooLarge)
		}
		return nil, d.fail
	}
	if err := d.fill(4 + int(n)); err != nil {
		return nil, err
	}
	msg := d.buf[d.pos+4 : d.pos+4+int(n) : d.pos+4+int(n)]
	d.pos += 4 + int(n)
	return msg, nil
}

// firstBuffer is the size of a Decoder's first buffer.
const firstBuffer = 4096

// fill makes at least n unread bytes available in d.buf[d.pos:].
func (d *Decoder) fill(n int) error {
	for len(d.buf)-d.pos < n {
		if d.err != nil {
			err := d.err
			if err == io.EOF && len(d.buf) > d.pos {
				err = io.ErrUnexpectedEOF
			}
			if err != io.EOF {
				d.fail = err
			}
			return err
		}
		if len(d.buf) == cap(d.buf) {
			// The buffer is full. Move the unread bytes to the front if that frees at least half
			// of it; otherwise grow it, at most doubling it and never beyond the n bytes needed
			// (or the first 4 KiB). The buffer thus grows with the bytes that arrive, not with the
			// length a prefix announces: it never holds more than twice the unread bytes, or 4 KiB.
			unread := len(d.buf) - d.pos
			var nb []byte
			switch {
			case cap(d.buf) == 0:
				nb = make([]byte, 0, firstBuffer)
			case 2*unread <= cap(d.buf):
				nb = d.buf[:0]
			default:
				nb = make([]byte, 0, min(2*cap(d.buf), max(n, firstBuffer)))
			}
			d.buf = append(nb, d.buf[d.pos:]...)
			d.pos = 0
		}
		m, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+m]
		if err != nil {
			d.err = err
		} else if m == 0 {
			// A Reader that returns 0, nil repeatedly would spin here; io.ReadFull treats it
			// the same way after many tries.
			d.zeroReads++
			if d.zeroReads > 100 {
				d.err = io.ErrNoProgress
			}
		} else {
			d.zeroReads = 0
		}
	}
	return nil
}

// readDatagram reads one datagram as one message.
func (d *Decoder) readDatagram() ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	if cap(d.buf) < d.max+1 {
		d.buf = make([]byte, d.max+1)
	}
	d.buf = d.buf[:d.max+1]
	n, err := d.r.Read(d.buf)
	if n > d.max {
		return nil, fmt.Errorf("godot: datagram of more than %s: %w", plural(d.max, "byte"), ErrTooLarge)
	}
	if n == 0 && err != nil {
		d.err = err
		return nil, err
	}
	return d.buf[:n:n], nil
}

// Buffered returns the bytes read from the underlying reader but not yet returned as messages.
func (d *Decoder) Buffered() []byte { return d.buf[d.pos:len(d.buf)] }

// Encoder writes framed Variants to an io.Writer, one Write per message, so that a datagram
// transport gets one datagram per message and a stream never sees half a message from one
// Encode interleaved with another writer's (when Writes are atomic, as net.Conn's are).
type Encoder struct {
	w    io.Writer
	o    StreamOptions
	enc  EncodeMode
	max  int
	buf  []byte
	fail error // invalid options
}

// NewEncoder returns an Encoder of Godot 4 Variants framed as by StreamPeer.put_var; see
// [StreamOptions.NewEncoder].
func NewEncoder(w io.Writer) *Encoder { return StreamOptions{}.NewEncoder(w) }

// NewEncoder returns an Encoder that writes messages to w with the options o. Options that
// [EncodeOptions.EncodeMode] refuses, or an invalid MaxMessageBytes or Framing, make every call
// of the Encoder fail with that error.
func (o StreamOptions) NewEncoder(w io.Writer) *Encoder {
	e := &Encoder{w: w, o: o}
	var err error
	if e.max, err = o.maxMessage(); err != nil {
		e.fail = err
	} else if e.enc, err = o.EncodeOptions().EncodeMode(); err != nil {
		e.fail = err
	}
	return e
}

// Encode encodes v as [EncodeMode.Append] does and writes it as one message. A Variant larger
// than the limit fails with ErrTooLarge and writes nothing. Encoding reuses the Encoder's
// buffer, so it does not allocate for values that Append encodes without allocating.
func (e *Encoder) Encode(v any) error {
	if e.fail != nil {
		return e.fail
	}
	b := e.buf[:0]
	if e.o.prefixed() {
		b = append(b, 0, 0, 0, 0)
	}
	b, err := e.enc.Append(b, v)
	if err != nil {
		return err
	}
	return e.write(b)
}

// WriteMessage writes variant, the bytes of an encoded Variant, as one message. The bytes are not
// checked.
func (e *Encoder) WriteMessage(variant []byte) error {
	if e.fail != nil {
		return e.fail
	}
	b := e.buf[:0]
	if e.o.prefixed() {
		b = append(b, 0, 0, 0, 0)
	}
	return e.write(append(b, variant...))
}

func (e *Encoder) write(b []byte) error {
	n := len(b)
	if e.o.prefixed() {
		n -= 4
		if e.o.Framing == FramingStreamPeerBigEndian {
			binary.BigEndian.PutUint32(b, uint32(n))
		} else {
			binary.LittleEndian.PutUint32(b, uint32(n))
		}
	}
	// Keep the buffer for the next message unless one huge message made it large.
	if cap(b) <= 1<<20 {
		e.buf = b[:0]
	} else {
		e.buf = nil
	}
	if n > e.max {
		return fmt.Errorf("godot: %s message of %s: %w (limit %d)", e.o.Framing, plural(n, "byte"), ErrTooLarge, e.max)
	}
	m, err := e.w.Write(b)
	if err == nil && m < len(b) {
		err = io.ErrShortWrite
	}
	return err
}
