package godot

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzStreamDecoder feeds arbitrary bytes to a stream Decoder of each prefixed framing, read whole
// or a byte at a time. Every message it returns lies within the input, in order; it ends with
// io.EOF, io.ErrUnexpectedEOF or ErrTooLarge; and its buffer never holds more than twice
// the bytes that arrived (or its first 4 KiB), whatever the length prefixes announce.
func FuzzStreamDecoder(f *testing.F) {
	for _, h := range []string{"", "ffff7f00", "f0ff0000", "ffffffff", "08000000 02000000 01000000",
		"08000000 02000000 01000000 0c000000 04000000 01000000 61000000 ffff7f00 00"} {
		data := unhex(f, h)
		for framing := range uint8(3) {
			f.Add(data, framing, false)
			f.Add(data, framing, true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, framing uint8, slow bool) {
		o := StreamOptions{Framing: Framing(framing % 3), Dialect: Dialect(framing / 3 % 2), MaxMessageBytes: 1 << 20}
		br := bytes.NewReader(data)
		var r io.Reader = br
		if slow {
			r = iotest.OneByteReader(r)
		}
		dec := o.NewDecoder(r)
		consumed := func() int { return len(data) - br.Len() - len(dec.Buffered()) }
		for i := 0; ; i++ {
			before := consumed()
			var msg []byte
			var err error
			if i%2 == 0 {
				msg, err = dec.ReadMessage()
			} else {
				var v any
				err = dec.Decode(&v)
				var de *DecodeError
				if errors.As(err, &de) {
					err = nil // a bad message is skipped
				}
			}
			if c := cap(dec.buf); c > max(firstBuffer, 2*len(data)) {
				t.Fatalf("buffer of %d bytes for %d bytes of input", c, len(data))
			}
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("message %d: %v", i, err)
				}
				return
			}
			after := consumed()
			if after-before < 4 || msg != nil && !bytes.Equal(msg, data[before+4:after]) {
				t.Fatalf("message %d: %x from input bytes %d to %d", i, msg, before, after)
			}
		}
	})
}
