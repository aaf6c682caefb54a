package multiplayer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// oneByteReader hands out its bytes one at a time, so that every frame arrives in pieces.
type oneByteReader struct{ b []byte }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.b[0]
	r.b = r.b[1:]
	return 1, nil
}

// cframe is a masked (client) frame with the given first byte and any payload size.
func cframe(b0 byte, payload []byte) []byte {
	f := []byte{b0}
	n := len(payload)
	switch {
	case n < 126:
		f = append(f, 0x80|byte(n))
	case n < 1<<16:
		f = append(f, 0x80|126, byte(n>>8), byte(n))
	default:
		f = append(f, 0x80|127)
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	}
	key := []byte{0x12, 0x34, 0x56, 0x78}
	f = append(f, key...)
	for i, c := range payload {
		f = append(f, c^key[i%4])
	}
	return f
}

// readAll reads the messages of stream as a server peer does, with the pings it answered and
// the Close code it echoed.
func readAll(stream []byte, pieces bool, maxMsg int) (msgs [][]byte, pings [][]byte, closeCode websocket.StatusCode, err error) {
	var src io.Reader = bytes.NewReader(stream)
	if pieces {
		src = &oneByteReader{stream}
	}
	fr := frameReader{src: src, maxMsg: maxMsg,
		onPing:  func(p []byte) { pings = append(pings, append([]byte(nil), p...)) },
		onClose: func(code websocket.StatusCode) { closeCode = code }}
	for {
		msg, _, e := fr.next()
		if e != nil {
			return msgs, pings, closeCode, e
		}
		msgs = append(msgs, append([]byte(nil), msg...))
	}
}

// TestFrameReader: messages whole, fragmented (with control frames between the fragments) and
// back to back are read as sent, whether the bytes arrive at once or one by one, and every
// violation of RFC 6455 the reader checks ends the connection with its Close code.
func TestFrameReader(t *testing.T) {
	long := bytes.Repeat([]byte{0xa5}, 70000)
	cat := func(fs ...[]byte) []byte { return bytes.Join(fs, nil) }
	tests := []struct {
		name   string
		stream []byte
		maxMsg int
		msgs   [][]byte
		pings  [][]byte
		close  websocket.StatusCode // the Close code sent: the peer's echoed, or the error's
		err    error                // errPeerClosed, io.EOF, io.ErrUnexpectedEOF, or nil for a *closeError
	}{
		{name: "one message", stream: cframe(0x82, []byte{1, 2, 3}), msgs: [][]byte{{1, 2, 3}}, err: io.EOF},
		{name: "empty message", stream: cframe(0x82, nil), msgs: [][]byte{{}}, err: io.EOF},
		{name: "16-bit length", stream: cframe(0x82, long[:300]), msgs: [][]byte{long[:300]}, err: io.EOF},
		{name: "64-bit length", stream: cframe(0x82, long), maxMsg: 1 << 20, msgs: [][]byte{long}, err: io.EOF},
		{name: "text", stream: cframe(0x81, []byte("hi")), msgs: [][]byte{[]byte("hi")}, err: io.EOF},
		{name: "back to back", stream: cat(cframe(0x82, []byte{1}), cframe(0x82, []byte{2, 2})),
			msgs: [][]byte{{1}, {2, 2}}, err: io.EOF},
		{name: "fragments and a ping between", stream: cat(cframe(0x02, []byte{1, 2}), cframe(0x89, []byte("p")),
			cframe(0x00, nil), cframe(0x80, []byte{3})),
			msgs: [][]byte{{1, 2, 3}}, pings: [][]byte{[]byte("p")}, err: io.EOF},
		{name: "close echoed", stream: cat(cframe(0x82, []byte{9}), cframe(0x88, []byte{0x03, 0xe8, 'o', 'k'})),
			msgs: [][]byte{{9}}, close: websocket.StatusNormalClosure, err: errPeerClosed},
		{name: "empty close", stream: cframe(0x88, nil), close: websocket.StatusNoStatusRcvd, err: errPeerClosed},
		{name: "truncated frame", stream: cframe(0x82, []byte{1, 2, 3})[:5], err: io.ErrUnexpectedEOF},
		{name: "truncated message", stream: cframe(0x02, []byte{1}), err: io.ErrUnexpectedEOF},

		{name: "reserved bit", stream: cframe(0xc2, []byte{1}), close: websocket.StatusProtocolError},
		{name: "reserved opcode", stream: cframe(0x83, []byte{1}), close: websocket.StatusProtocolError},
		{name: "reserved control opcode", stream: cframe(0x8b, nil), close: websocket.StatusProtocolError},
		{name: "unmasked", stream: []byte{0x82, 0x01, 0x07}, close: websocket.StatusProtocolError},
		{name: "fragmented control", stream: cframe(0x09, nil), close: websocket.StatusProtocolError},
		{name: "long control", stream: cframe(0x89, long[:126]), close: websocket.StatusProtocolError},
		{name: "lone continuation", stream: cframe(0x80, []byte{1}), close: websocket.StatusProtocolError},
		{name: "message inside a message", stream: cat(cframe(0x02, []byte{1}), cframe(0x82, []byte{2})),
			close: websocket.StatusProtocolError},
		{name: "too large", stream: cframe(0x82, long[:11]), maxMsg: 10, close: websocket.StatusMessageTooBig},
		{name: "too large in fragments", stream: cat(cframe(0x02, long[:6]), cframe(0x80, long[:5])), maxMsg: 10,
			close: websocket.StatusMessageTooBig},
		{name: "length over 2^63", stream: []byte{0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}, close: websocket.StatusMessageTooBig},
		{name: "close of 1 byte", stream: cframe(0x88, []byte{3}), close: websocket.StatusProtocolError},
		{name: "close code 1005", stream: cframe(0x88, []byte{0x03, 0xed}), close: websocket.StatusProtocolError},
		{name: "close reason not UTF-8", stream: cframe(0x88, []byte{0x03, 0xe8, 0xff}), close: websocket.StatusInvalidFramePayloadData},
	}
	for _, tc := range tests {
		for _, pieces := range []bool{false, true} {
			maxMsg := tc.maxMsg
			if maxMsg == 0 {
				maxMsg = DefaultMaxMessageBytes
			}
			msgs, pings, code, err := readAll(tc.stream, pieces, maxMsg)
			if len(msgs) != len(tc.msgs) {
				t.Errorf("%s (pieces %v): %d messages, want %d", tc.name, pieces, len(msgs), len(tc.msgs))
				continue
			}
			for i := range msgs {
				if !bytes.Equal(msgs[i], tc.msgs[i]) {
					t.Errorf("%s (pieces %v): message %d is % x", tc.name, pieces, i, msgs[i])
				}
			}
			if len(pings) != len(tc.pings) {
				t.Errorf("%s: %d pings, want %d", tc.name, len(pings), len(tc.pings))
			}
			var ce *closeError
			if errors.As(err, &ce) {
				code = ce.code
			}
			if tc.err != nil && !errors.Is(err, tc.err) || tc.err == nil && ce == nil {
				t.Errorf("%s (pieces %v): error %v, want %v", tc.name, pieces, err, tc.err)
			}
			if code != tc.close {
				t.Errorf("%s (pieces %v): Close code %d, want %d", tc.name, pieces, code, tc.close)
			}
		}
	}
}

// TestFrameReaderClientSide: a client takes unmasked frames and refuses masked ones.
func TestFrameReaderClientSide(t *testing.T) {
	fr := frameReader{src: bytes.NewReader(appendFrame(nil, opBinary, []byte{1, 2}, false)), client: true, maxMsg: 100}
	if msg, _, err := fr.next(); err != nil || !bytes.Equal(msg, []byte{1, 2}) {
		t.Fatalf("% x, %v", msg, err)
	}
	fr = frameReader{src: bytes.NewReader(appendFrame(nil, opBinary, []byte{1, 2}, true)), client: true, maxMsg: 100}
	var ce *closeError
	if _, _, err := fr.next(); !errors.As(err, &ce) || ce.code != websocket.StatusProtocolError {
		t.Fatal(err)
	}
}

// TestAppendFrame: the frames written, masked or not, of every length form, read back as
// written, and frameSize finds their ends.
func TestAppendFrame(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 125, 126, 127, 1000, 65535, 65536, 70000} {
		payload := make([]byte, n)
		for i := range payload {
			payload[i] = byte(i * 7)
		}
		for _, mask := range []bool{false, true} {
			f := appendFrame([]byte{0xee}, opBinary, payload, mask)[1:]
			if frameSize(f) != len(f) {
				t.Errorf("%d bytes, mask %v: frameSize %d of %d", n, mask, frameSize(f), len(f))
			}
			fr := frameReader{src: bytes.NewReader(f), client: !mask, maxMsg: 1 << 20}
			msg, op, err := fr.next()
			if err != nil || op != opBinary || !bytes.Equal(msg, payload) {
				t.Errorf("%d bytes, mask %v: %v", n, mask, err)
			}
		}
	}
}

// TestMaskBytes: the word-wise XOR agrees with the byte-wise definition of RFC 6455 5.3.
func TestMaskBytes(t *testing.T) {
	key := [4]byte{0x01, 0x80, 0xfe, 0x37}
	for n := range 40 {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(i)
		}
		maskBytes(p, binary.LittleEndian.Uint32(key[:]))
		for i := range p {
			if p[i] != byte(i)^key[i%4] {
				t.Fatalf("length %d, byte %d: %#x", n, i, p[i])
			}
		}
	}
}

// serverFrame reads one unmasked frame the server sent: its first byte and payload.
func serverFrame(t *testing.T, br *bufio.Reader) (byte, []byte) {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		t.Fatal(err)
	}
	if h[1]&0x80 != 0 {
		t.Fatal("a masked frame from the server")
	}
	n := int(h[1] & 0x7f)
	switch n {
	case 126:
		var l [2]byte
		io.ReadFull(br, l[:])
		n = int(binary.BigEndian.Uint16(l[:]))
	case 127:
		var l [8]byte
		io.ReadFull(br, l[:])
		n = int(binary.BigEndian.Uint64(l[:]))
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(br, p); err != nil {
		t.Fatal(err)
	}
	return h[0], p
}

// TestServerFraming: over a real connection the server answers a ping with its payload,
// delivers a message fragmented around a ping, echoes the Close code and closes the TCP
// connection; a protocol violation gets Close 1002 and a message over MaxMessageBytes 1009.
func TestServerFraming(t *testing.T) {
	got := make(chan []byte, 4)
	// No relay: no ADD_PEER between the frames the test expects.
	s := &Server{MaxMessageBytes: 1000, PingInterval: NoLimit, NoRelay: true, OnBytes: func(p *Peer, b []byte) { got <- b }}
	url := testServer(t, s)
	open := func() (io.Writer, *bufio.Reader, func()) {
		c, br, err := upgradeRaw(t, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if op, id := serverFrame(t, br); op != 0x82 || len(id) != 4 {
			t.Fatalf("first frame %#x % x", op, id)
		}
		return c, br, func() { c.Close() }
	}

	w, br, done := open()
	w.Write(cframe(0x89, []byte("are you there")))
	if op, p := serverFrame(t, br); op != 0x8a || string(p) != "are you there" {
		t.Fatalf("ping answered with %#x %q", op, p)
	}
	w.Write(bytes.Join([][]byte{cframe(0x02, []byte{byte(CmdRaw), 1}), cframe(0x89, nil), cframe(0x80, []byte{2, 3})}, nil))
	if op, _ := serverFrame(t, br); op != 0x8a {
		t.Fatalf("%#x instead of a pong", op)
	}
	if b := <-got; !bytes.Equal(b, []byte{1, 2, 3}) {
		t.Fatalf("RAW % x", b)
	}
	w.Write(cframe(0x88, []byte{0x0f, 0xa0, 'b', 'y', 'e'})) // 4000
	if op, p := serverFrame(t, br); op != 0x88 || !bytes.Equal(p, []byte{0x0f, 0xa0}) {
		t.Fatalf("Close answered with %#x % x", op, p)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after the Close handshake: %v", err)
	}
	done()
	w = nil

	for _, tc := range []struct {
		frame []byte
		code  uint16
	}{
		{[]byte{0x82, 0x01, 0x07}, 1002},                     // unmasked
		{cframe(0x82, make([]byte, 1001)), 1009},             // too large
		{cframe(0x02, make([]byte, 600)), 0},                 // (the first half of the next)
		{cframe(0x80, make([]byte, 600)), 1009},              // too large in fragments
		{cframe(0x88, []byte{0x03, 0xed}), 1002},             // close code 1005
		{cframe(0x88, []byte{0x03, 0xe8, 0xc3, 0x28}), 1007}, // reason not UTF-8
	} {
		if tc.code == 0 {
			w, br, done = open()
			w.Write(tc.frame)
			continue
		}
		if w == nil {
			w, br, done = open()
		}
		w.Write(tc.frame)
		op, p := serverFrame(t, br)
		if op != 0x88 || len(p) < 2 || binary.BigEndian.Uint16(p) != tc.code {
			t.Errorf("frame % x: %#x % x, want Close %d", tc.frame[:2], op, p, tc.code)
		}
		done()
		w = nil
	}
}

// frameSeeds are client streams for FuzzFrameReader: messages whole and fragmented, control
// frames, and violations.
func frameSeeds() [][]byte {
	cat := func(fs ...[]byte) []byte { return bytes.Join(fs, nil) }
	return [][]byte{
		cframe(0x82, []byte{1, 2, 3}),
		cat(cframe(0x02, []byte{1}), cframe(0x89, []byte("p")), cframe(0x80, []byte{2})),
		cat(cframe(0x82, make([]byte, 300)), cframe(0x88, []byte{0x03, 0xe8})),
		cframe(0x82, make([]byte, 70)),
		{0x82, 0x01, 0x07},
		{0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4},
	}
}

// FuzzFrameReader: the frame reader never panics, never returns a message over its limit
// or keeps a buffer beyond its bound, ends with one of its errors, and reads the same
// whether the bytes come at once or one by one.
func FuzzFrameReader(f *testing.F) {
	for _, s := range frameSeeds() {
		f.Add(s)
	}
	const maxMsg = 64
	f.Fuzz(func(t *testing.T, stream []byte) {
		var results [2]string
		for i, pieces := range []bool{false, true} {
			var src io.Reader = bytes.NewReader(stream)
			if pieces {
				src = &oneByteReader{stream}
			}
			fr := frameReader{src: src, maxMsg: maxMsg, onPing: func([]byte) {}, onPong: func([]byte) {}}
			var log bytes.Buffer
			for {
				msg, _, err := fr.next()
				if len(fr.buf) > maxMsg+maxFrameHeader+readBufMin+maxControlPayload {
					t.Fatalf("a buffer of %d bytes", len(fr.buf))
				}
				if err != nil {
					var ce *closeError
					if !errors.As(err, &ce) && err != errPeerClosed && err != io.EOF && err != io.ErrUnexpectedEOF {
						t.Fatalf("error %v", err)
					}
					log.WriteString(err.Error())
					break
				}
				if len(msg) > maxMsg {
					t.Fatalf("a message of %d bytes", len(msg))
				}
				log.Write(msg)
				log.WriteByte('|')
			}
			results[i] = log.String()
		}
		if results[0] != results[1] {
			t.Fatalf("at once: %q; one by one: %q", results[0], results[1])
		}
	})
}

// burstStream is 64 KiB of 30-byte binary messages from a client.
func burstStream() []byte {
	var b []byte
	for len(b) < 64<<10 {
		b = append(b, cframe(0x82, make([]byte, 30))...)
	}
	return b
}

// BenchmarkMultiplayerFrameBurstDecode: the frame reader reads a burst of small messages
// (through its buffer, which stays at 512 bytes for them); the yardstick
// BenchmarkMultiplayerFrameBurstCopy reads the same bytes into one buffer.
func BenchmarkMultiplayerFrameBurstDecode(b *testing.B) {
	stream := burstStream()
	src := bytes.NewReader(stream)
	fr := frameReader{src: src, maxMsg: DefaultMaxMessageBytes}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(stream)
		for {
			if _, _, err := fr.next(); err != nil {
				break
			}
		}
	}
}

// BenchmarkMultiplayerFrameBurstCopy is the yardstick of BenchmarkMultiplayerFrameBurstDecode:
// the same bytes read into a buffer of the same size.
func BenchmarkMultiplayerFrameBurstCopy(b *testing.B) {
	stream := burstStream()
	src := bytes.NewReader(stream)
	buf := make([]byte, len(stream))
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(stream)
		io.ReadFull(src, buf)
	}
}

// TestFrameReaderRandomFragments: random messages, cut into random fragments with pings
// between them, are read back whole and in order, and every ping is seen.
func TestFrameReaderRandomFragments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var stream []byte
	var want [][]byte
	pings := 0
	for range 300 {
		msg := make([]byte, rng.IntN(3000))
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		want = append(want, msg)
		rest, first := msg, true
		for {
			n := min(len(rest), rng.IntN(700))
			fin := n == len(rest)
			b0 := byte(0)
			if first {
				b0 = opBinary
			}
			if fin {
				b0 |= 0x80
			}
			stream = append(stream, cframe(b0, rest[:n])...)
			rest, first = rest[n:], false
			if fin {
				break
			}
			if rng.IntN(3) == 0 {
				stream = append(stream, cframe(0x89, []byte{byte(pings)})...)
				pings++
			}
		}
	}
	for _, pieces := range []bool{false, true} {
		msgs, got, _, err := readAll(stream, pieces, DefaultMaxMessageBytes)
		if err != io.EOF {
			t.Fatal(err)
		}
		if len(msgs) != len(want) || len(got) != pings {
			t.Fatalf("%d messages of %d, %d pings of %d", len(msgs), len(want), len(got), pings)
		}
		for i := range msgs {
			if !bytes.Equal(msgs[i], want[i]) {
				t.Fatalf("message %d differs", i)
			}
		}
		for i, p := range got {
			if len(p) != 1 || p[0] != byte(i) {
				t.Fatalf("ping %d: % x", i, p)
			}
		}
	}
}
