package multiplayer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// The package reads and writes WebSocket frames (RFC 6455 section 5) itself once the opening
// handshake, done by github.com/coder/websocket, is over: the library arms a context timeout
// for every message it reads or writes (about 8 allocations a message), where the transport
// needs none.

// WebSocket opcodes.
const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xa
)

// maxFrameHeader is the longest frame header: 2 bytes, an 8-byte length, a 4-byte mask.
const maxFrameHeader = 14

// maxControlPayload is the longest payload of a control frame.
const maxControlPayload = 125

// closeError is a reason to end a connection with a Close frame of its code.
type closeError struct {
	code   websocket.StatusCode
	reason string
}

func (e *closeError) Error() string {
	return fmt.Sprintf("multiplayer: websocket: %s (close %d)", e.reason, int(e.code))
}

// errPeerClosed ends the reading of a connection whose peer sent a Close frame.
var errPeerClosed = errors.New("multiplayer: websocket: the peer closed the connection")

func protocolError(format string, args ...any) error {
	return &closeError{websocket.StatusProtocolError, fmt.Sprintf(format, args...)}
}

// appendFrame appends a frame with FIN set: op and payload, masked with a random key when mask
// is set (a client's frames).
func appendFrame(b []byte, op byte, payload []byte, mask bool) []byte {
	n := len(payload)
	var m byte
	if mask {
		m = 0x80
	}
	switch {
	case n < 126:
		b = append(b, 0x80|op, m|byte(n))
	case n < 1<<16:
		b = append(b, 0x80|op, m|126, byte(n>>8), byte(n))
	default:
		b = append(b, 0x80|op, m|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	if !mask {
		return append(b, payload...)
	}
	key := rand.Uint32()
	b = binary.LittleEndian.AppendUint32(b, key)
	start := len(b)
	b = append(b, payload...)
	maskBytes(b[start:], key)
	return b
}

// frameSize returns the length of the frame (header and payload) that b starts with; b holds a
// whole frame that appendFrame wrote.
func frameSize(b []byte) int {
	h := 2
	n := int(b[1] & 0x7f)
	switch n {
	case 126:
		h, n = 4, int(binary.BigEndian.Uint16(b[2:]))
	case 127:
		h, n = 10, int(binary.BigEndian.Uint64(b[2:]))
	}
	if b[1]&0x80 != 0 {
		h += 4
	}
	return h + n
}

// maskBytes XORs p with the masking key, whose first byte is the key's low byte (the order of
// the key on the wire), eight bytes at a time.
func maskBytes(p []byte, key uint32) {
	k := uint64(key) | uint64(key)<<32
	for len(p) >= 8 {
		binary.LittleEndian.PutUint64(p, binary.LittleEndian.Uint64(p)^k)
		p = p[8:]
	}
	for i := range p {
		p[i] ^= byte(key >> (8 * (i & 3)))
	}
}

// appendClosePayload appends a Close frame's payload: the code and as much of the reason as fits
// in a control frame; StatusNoStatusRcvd gives an empty payload.
func appendClosePayload(b []byte, code websocket.StatusCode, reason string) []byte {
	if code == websocket.StatusNoStatusRcvd {
		return b
	}
	b = binary.BigEndian.AppendUint16(b, uint16(code))
	if len(reason) > maxControlPayload-2 {
		reason = reason[:maxControlPayload-2]
		for len(reason) > 0 && !utf8.ValidString(reason) {
			reason = reason[:len(reason)-1]
		}
	}
	return append(b, reason...)
}

// parseClose checks a received Close frame's payload and returns the code to echo: the peer's,
// or StatusNoStatusRcvd for an empty payload.
func parseClose(p []byte) (websocket.StatusCode, error) {
	switch {
	case len(p) == 0:
		return websocket.StatusNoStatusRcvd, nil
	case len(p) == 1:
		return 0, protocolError("a Close frame of 1 byte")
	}
	code := websocket.StatusCode(binary.BigEndian.Uint16(p))
	if !validCloseCode(code) {
		return 0, protocolError("Close code %d", int(code))
	}
	if !utf8.Valid(p[2:]) {
		return 0, &closeError{websocket.StatusInvalidFramePayloadData, "a Close reason that is not UTF-8"}
	}
	return code, nil
}

// validCloseCode reports whether a peer may send code (RFC 6455 section 7.4).
func validCloseCode(code websocket.StatusCode) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1014:
		return true
	case code >= 3000 && code <= 4999:
		return true
	}
	return false
}

// frameReader reads the messages of one connection from src into one buffer, which it reuses:
// a message that came in one frame is handed on where it was read, a fragmented one is
// gathered in place. It answers pings itself (through pong) and ends at the peer's Close.
type frameReader struct {
	src    io.Reader
	pc     *peerConn // a server peer's connection: deadlines and the message's wire budget; nil on a client
	client bool      // the peer is a server: its frames are not masked
	maxMsg int       // MaxMessageBytes

	buf  []byte // buf[r:w] are read but not parsed
	r, w int

	onPing  func(payload []byte) // answers a ping
	onPong  func(payload []byte)
	onClose func(code websocket.StatusCode)
}

// Buffer sizes of the frame reader.
const (
	readBufMin    = 512      // the buffer of a peer that has not sent yet, or sends small messages
	readBufShrink = 64 << 10 // a larger buffer is dropped after a message under 4 KiB
)

// seed makes b (bytes read ahead of the handshake's end) the first to parse.
func (fr *frameReader) seed(b []byte) {
	fr.buf = make([]byte, max(readBufMin, len(b)))
	fr.w = copy(fr.buf, b)
}

// fill reads until k bytes from r on are buffered, making room first by dropping the gap
// between the message gathered so far (buf[:m]) and r, and then by growing the buffer. inMsg
// tells a server peer's connection that a message (or a frame) has begun: its read deadline
// then runs.
func (fr *frameReader) fill(k, m int, inMsg bool) error {
	for fr.w-fr.r < k {
		if fr.r+k > len(fr.buf) {
			if fr.r > m {
				fr.w = m + copy(fr.buf[m:], fr.buf[fr.r:fr.w])
				fr.r = m
			}
			if fr.r+k > len(fr.buf) {
				size := max(2*len(fr.buf), readBufMin)
				size = max(min(size, fr.maxMsg+maxFrameHeader+readBufMin), fr.r+k)
				nb := make([]byte, size)
				copy(nb, fr.buf[:fr.w])
				fr.buf = nb
			}
		}
		var n int
		var err error
		if fr.pc != nil {
			n, err = fr.pc.read(fr.buf[fr.w:], inMsg || fr.w > fr.r)
		} else {
			n, err = fr.src.Read(fr.buf[fr.w:])
		}
		fr.w += n
		if err != nil && fr.w-fr.r < k {
			if err == io.EOF && (inMsg || fr.w > fr.r) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// next returns the next data message and its opcode. The message is valid until the next call.
// An error ends the connection: a *closeError names the Close code to send, errPeerClosed
// follows the peer's Close (which onClose has answered), anything else is the connection's.
func (fr *frameReader) next() (msg []byte, op byte, err error) {
	// Start the message at the front of the buffer.
	switch {
	case fr.r == fr.w:
		fr.r, fr.w = 0, 0
		if len(fr.buf) > readBufShrink || fr.buf == nil {
			fr.buf = make([]byte, readBufMin)
		}
	case fr.r > 0:
		fr.w = copy(fr.buf, fr.buf[fr.r:fr.w])
		fr.r = 0
	}
	m := 0         // the message gathered so far is buf[:m]
	var wire int64 // the message's bytes on the wire, frame headers and control frames included
	for {
		inMsg := op != 0
		if err := fr.fill(2, m, inMsg); err != nil {
			return nil, 0, err
		}
		b0, b1 := fr.buf[fr.r], fr.buf[fr.r+1]
		h := 2
		switch b1 & 0x7f {
		case 126:
			h = 4
		case 127:
			h = 10
		}
		masked := b1&0x80 != 0
		if masked {
			h += 4
		}
		if err := fr.fill(h, m, true); err != nil {
			return nil, 0, err
		}
		hdr := fr.buf[fr.r : fr.r+h]
		var size uint64
		switch b1 & 0x7f {
		case 126:
			size = uint64(binary.BigEndian.Uint16(hdr[2:]))
		case 127:
			size = binary.BigEndian.Uint64(hdr[2:])
		default:
			size = uint64(b1 & 0x7f)
		}
		var key uint32
		if masked {
			key = binary.LittleEndian.Uint32(hdr[h-4:])
		}
		fop, fin := b0&0x0f, b0&0x80 != 0
		switch {
		case b0&0x70 != 0:
			return nil, 0, protocolError("reserved bits set (no extension was agreed)")
		case masked == fr.client:
			if fr.client {
				return nil, 0, protocolError("a masked frame from the server")
			}
			return nil, 0, protocolError("an unmasked frame from a client")
		case fop >= 8:
			if fop > opPong {
				return nil, 0, protocolError("reserved opcode %d", fop)
			}
			if !fin {
				return nil, 0, protocolError("a fragmented control frame")
			}
			if size > maxControlPayload {
				return nil, 0, protocolError("a control frame of %d bytes", size)
			}
		case fop > opBinary:
			return nil, 0, protocolError("reserved opcode %d", fop)
		case fop == opContinuation && op == 0:
			return nil, 0, protocolError("a continuation frame outside a message")
		case fop != opContinuation && op != 0:
			return nil, 0, protocolError("a new message inside a fragmented one")
		case size > uint64(fr.maxMsg-m):
			return nil, 0, &closeError{websocket.StatusMessageTooBig, fmt.Sprintf("a message over %d bytes", fr.maxMsg)}
		}
		n := int(size)
		if fop < 8 || op != 0 {
			wire += int64(h + n)
			if fr.pc != nil && wire > fr.pc.msgBudget {
				return nil, 0, errMessageBudget
			}
		}
		if err := fr.fill(h+n, m, true); err != nil {
			return nil, 0, err
		}
		start := fr.r + h
		payload := fr.buf[start : start+n]
		if masked {
			maskBytes(payload, key)
		}
		fr.r = start + n
		if fop >= 8 {
			if err := fr.control(fop, payload); err != nil {
				return nil, 0, err
			}
			continue
		}
		if op == 0 {
			op = fop
		}
		if fin && m == 0 {
			msg = payload // in one frame: no copy
		} else {
			m += copy(fr.buf[m:], payload)
			if !fin {
				continue
			}
			msg = fr.buf[:m]
		}
		// A text message is not checked for UTF-8: the engine reads its bytes as it reads a
		// binary message's.
		return msg, op, nil
	}
}

// control handles a control frame.
func (fr *frameReader) control(op byte, payload []byte) error {
	switch op {
	case opPing:
		if fr.onPing != nil {
			fr.onPing(payload)
		}
	case opPong:
		if fr.onPong != nil {
			fr.onPong(payload)
		}
	case opClose:
		code, err := parseClose(payload)
		if err != nil {
			return err
		}
		if fr.onClose != nil {
			fr.onClose(code)
		}
		return errPeerClosed
	}
	return nil
}
