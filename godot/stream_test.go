package godot

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"runtime"
	"testing"
	"testing/iotest"
)

// The framings, byte for byte as the real Godot 3.2.3 engine put them on a loopback connection
// (captured from the engine; TestGodot3Client checks them against a live engine).
func TestFramingMatchesEngine(t *testing.T) {
	for _, c := range []struct {
		name string
		o    StreamOptions
		v    any
		hex  string
	}{
		{"StreamPeerTCP.put_var(1)", StreamOptions{Dialect: Godot3}, int64(1), "08000000 02000000 01000000"},
		{`put_var("ab")`, StreamOptions{Dialect: Godot3}, "ab", "0c000000 04000000 02000000 61620000"},
		{"big_endian = true; put_var(Vector2(1,2))", StreamOptions{Dialect: Godot3, Framing: FramingStreamPeerBigEndian},
			Vector2{1, 2}, "0000000c 05000000 0000803f 00000040"},
		{`PacketPeerStream.put_var(PoolStringArray(["ab"]))`, StreamOptions{Dialect: Godot3, Framing: FramingPacketPeerStream},
			[]string{"ab"}, "10000000 17000000 01000000 03000000 61620000"},
		{"File.store_var(1)", StreamOptions{Dialect: Godot3, Framing: FramingFile}, int64(1), "08000000 02000000 01000000"},
		{"File.store_var(1) with endian_swap", StreamOptions{Dialect: Godot3, Framing: FramingFileEndianSwap}, int64(1), "00000008 02000000 01000000"},
		{"PacketPeerUDP.put_var(1)", StreamOptions{Dialect: Godot3, Framing: FramingPacket}, int64(1), "02000000 01000000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := c.o.NewEncoder(&buf).Encode(c.v); err != nil {
				t.Fatal(err)
			}
			if got := hexOf(buf.Bytes()); got != normHex(c.hex) {
				t.Errorf("got  %s\nwant %s", got, normHex(c.hex))
			}
			if c.o.Framing == FramingPacket {
				return
			}
			var back any
			if err := c.o.NewDecoder(&buf).Decode(&back); err != nil {
				t.Fatal(err)
			}
			if !KeyEqual(back, c.v) {
				t.Errorf("decoded %#v", back)
			}
		})
	}
}

// writes counts the Writes made to it.
type writes struct {
	bytes.Buffer
	n int
}

func (w *writes) Write(b []byte) (int, error) { w.n++; return w.Buffer.Write(b) }

func TestStreamManyMessagesAndPartialReads(t *testing.T) {
	for _, f := range []Framing{FramingStreamPeer, FramingStreamPeerBigEndian, FramingPacketPeerStream} {
		o := StreamOptions{Framing: f, Dialect: Godot3}
		var w writes
		enc := o.NewEncoder(&w)
		msgs := []any{int64(1), "two", []any{int64(3), NewDictionary("k", Vector3{1, 2, 3})}, make([]byte, 5000), nil}
		for _, m := range msgs {
			if err := enc.Encode(m); err != nil {
				t.Fatal(err)
			}
		}
		if w.n != len(msgs) {
			t.Errorf("%s: %d Writes for %d messages", f, w.n, len(msgs))
		}
		stream := w.Bytes()
		for name, r := range map[string]io.Reader{
			"all at once":  bytes.NewReader(stream),
			"byte by byte": iotest.OneByteReader(bytes.NewReader(stream)),
			"half":         iotest.HalfReader(bytes.NewReader(stream)),
			"data+EOF":     iotest.DataErrReader(bytes.NewReader(stream)),
		} {
			dec := o.NewDecoder(r)
			for i, want := range msgs {
				var got any
				if err := dec.Decode(&got); err != nil {
					t.Fatalf("%s %s message %d: %v", f, name, i, err)
				}
				if !reflect.DeepEqual(got, want) && !KeyEqual(got, want) {
					t.Errorf("%s %s message %d: %#v, want %#v", f, name, i, got, want)
				}
			}
			var extra any
			if err := dec.Decode(&extra); err != io.EOF {
				t.Errorf("%s %s: after the last message: %v, want io.EOF", f, name, err)
			}
			if err := dec.Decode(&extra); err != io.EOF {
				t.Errorf("%s %s: EOF again: %v", f, name, err)
			}
		}
	}
}

func TestStreamCutMessages(t *testing.T) {
	var buf bytes.Buffer
	if err := (StreamOptions{}).NewEncoder(&buf).Encode("hello"); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	for _, n := range []int{1, 3, 4, 5, len(whole) - 1} {
		dec := NewDecoder(bytes.NewReader(whole[:n]))
		var s string
		if err := dec.Decode(&s); err != io.ErrUnexpectedEOF {
			t.Errorf("cut after %d bytes: %v, want io.ErrUnexpectedEOF", n, err)
		}
		if err := dec.Decode(&s); err != io.ErrUnexpectedEOF {
			t.Errorf("cut after %d bytes, again: %v", n, err)
		}
	}
	// A read error other than EOF is returned, after the messages before it.
	boom := errors.New("boom")
	dec := NewDecoder(io.MultiReader(bytes.NewReader(whole), iotest.ErrReader(boom)))
	var s string
	if err := dec.Decode(&s); err != nil || s != "hello" {
		t.Errorf("before the error: %q, %v", s, err)
	}
	if err := dec.Decode(&s); err != boom {
		t.Errorf("read error: %v", err)
	}
}

func TestStreamLimits(t *testing.T) {
	// A prefix beyond the limit fails before anything is allocated for the message, and ends
	// the stream.
	for _, c := range []struct {
		o      StreamOptions
		prefix string
	}{
		{StreamOptions{}, "01008000"},                                    // 8 MiB + 1
		{StreamOptions{MaxMessageBytes: 16}, "11000000"},                 // 17
		{StreamOptions{Framing: FramingPacketPeerStream}, "fdff0000"},    // 65533
		{StreamOptions{Framing: FramingStreamPeerBigEndian}, "ffffffff"}, // negative as int32
	} {
		in := unhex(t, c.prefix+"00000000")
		var v any
		// Count bytes, not allocations: the error path may allocate a few small values (how
		// many depends on the runtime's state), but nothing in proportion to the claimed size.
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		dec := c.o.NewDecoder(bytes.NewReader(in))
		err := dec.Decode(&v)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%+v %s: %v, want ErrTooLarge", c.o, c.prefix, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 16<<10 || cap(dec.buf) > 4096 {
			t.Errorf("%+v: %d bytes allocated, buffer %d bytes", c.o, n, cap(dec.buf))
		}
		if err2 := dec.Decode(&v); !errors.Is(err2, ErrTooLarge) {
			t.Errorf("the stream should stay failed: %v", err2)
		}
	}
	// The largest PacketPeerStream packet passes.
	var buf bytes.Buffer
	o := StreamOptions{Framing: FramingPacketPeerStream}
	big := make([]byte, PacketPeerStreamMaxPacket-8)
	if err := o.NewEncoder(&buf).Encode(big); err != nil {
		t.Fatalf("packet of %d bytes: %v", PacketPeerStreamMaxPacket, err)
	}
	var got []byte
	if err := o.NewDecoder(&buf).Decode(&got); err != nil || len(got) != len(big) {
		t.Errorf("decoding the largest packet: %d bytes, %v", len(got), err)
	}
	// One byte more is refused by the Encoder, which writes nothing.
	var w writes
	err := o.NewEncoder(&w).Encode(make([]byte, PacketPeerStreamMaxPacket-7))
	if !errors.Is(err, ErrTooLarge) || w.n != 0 {
		t.Errorf("too large to encode: %v, %d writes", err, w.n)
	}
}

// A message that does not decode is consumed; the next one decodes.
func TestStreamBadMessageIsSkipped(t *testing.T) {
	var buf bytes.Buffer
	enc := StreamOptions{Dialect: Godot3}.NewEncoder(&buf)
	_ = enc.WriteMessage(unhex(t, "ff000000"))
	_ = enc.Encode("next")
	dec := StreamOptions{Dialect: Godot3}.NewDecoder(&buf)
	var v any
	if err := dec.Decode(&v); !errors.Is(err, ErrUnknownType) {
		t.Errorf("bad message: %v", err)
	}
	if err := dec.Decode(&v); err != nil || v != "next" {
		t.Errorf("next message: %v, %v", v, err)
	}
}

// datagrams is a reader that returns one datagram per Read, as a UDP socket does.
type datagrams struct{ d [][]byte }

func (r *datagrams) Read(b []byte) (int, error) {
	if len(r.d) == 0 {
		return 0, io.EOF
	}
	n := copy(b, r.d[0])
	r.d = r.d[1:]
	return n, nil
}

func TestStreamDatagrams(t *testing.T) {
	o := StreamOptions{Framing: FramingPacket, Dialect: Godot3, MaxMessageBytes: 64}
	one, _ := em(EncodeOptions{Dialect: Godot3}).Marshal(int64(1))
	two, _ := em(EncodeOptions{Dialect: Godot3}).Marshal("two")
	dec := o.NewDecoder(&datagrams{[][]byte{one, make([]byte, 65), two}})
	var v any
	if err := dec.Decode(&v); err != nil || v != int64(1) {
		t.Errorf("first datagram: %v, %v", v, err)
	}
	if err := dec.Decode(&v); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized datagram: %v", err)
	}
	if err := dec.Decode(&v); err != nil || v != "two" {
		t.Errorf("datagram after an oversized one: %v, %v", v, err)
	}
	if err := dec.Decode(&v); err != io.EOF {
		t.Errorf("end: %v", err)
	}
	var w writes
	enc := o.NewEncoder(&w)
	_ = enc.Encode(int64(1))
	_ = enc.Encode("two")
	if w.n != 2 || hexOf(w.Bytes()) != hexOf(one)+hexOf(two) {
		t.Errorf("datagrams written: %d writes, %x", w.n, w.Bytes())
	}
}

func TestEncoderDoesNotAllocate(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	enc := StreamOptions{Dialect: Godot3}.NewEncoder(io.Discard)
	s := allocStruct{Name: "n", Tags: []string{"a"}}
	if n := testing.AllocsPerRun(100, func() { _ = enc.Encode(&s) }); n != 0 {
		t.Errorf("%v allocations per Encode", n)
	}
	msg := unhex(t, "08000000 02000000 01000000")
	dec := NewDecoder(&repeat{b: msg})
	var x int64
	if n := testing.AllocsPerRun(100, func() { _ = dec.Decode(&x) }); n != 0 || x != 1 {
		t.Errorf("%v allocations per Decode (%d)", n, x)
	}
}

// repeat returns b over and over.
type repeat struct {
	b   []byte
	off int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.off:])
		n += c
		r.off = (r.off + c) % len(r.b)
	}
	return n, nil
}

// A length prefix alone allocates nothing for the message it announces: the buffer grows with the
// bytes that arrive. A peer that sends "ff ff 7f 00" (8 MiB announced) and stops costs 4 KiB.
func TestStreamBufferFollowsBytesNotPrefix(t *testing.T) {
	for _, f := range []Framing{FramingStreamPeer, FramingPacketPeerStream} {
		prefix := []byte{0xff, 0xff, 0x7f, 0x00}
		if f == FramingPacketPeerStream {
			prefix = []byte{0xf0, 0xff, 0x00, 0x00}
		}
		var err error
		n := allocated(func() {
			_, err = StreamOptions{Framing: f}.NewDecoder(bytes.NewReader(prefix)).ReadMessage()
		})
		if err != io.ErrUnexpectedEOF {
			t.Errorf("%s: %v, want io.ErrUnexpectedEOF", f, err)
		}
		if n > 16<<10 {
			t.Errorf("%s: a bare length prefix allocated %d bytes", f, n)
		}
	}

	// A large message that arrives a byte at a time, then another one: the buffer stays within
	// a small multiple of the bytes received.
	msg, err := Marshal(make([]byte, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	var stream bytes.Buffer
	enc := NewEncoder(&stream)
	for range 2 {
		if err := enc.WriteMessage(msg); err != nil {
			t.Fatal(err)
		}
	}
	dec := NewDecoder(iotest.HalfReader(iotest.OneByteReader(bytes.NewReader(stream.Bytes()))))
	n := allocated(func() {
		for range 2 {
			got, err := dec.ReadMessage()
			if err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("message of %d bytes: %v", len(got), err)
			}
		}
	})
	if limit := uint64(4*len(msg) + 16<<10); n > limit {
		t.Errorf("two messages of %d bytes read a byte at a time allocated %d bytes, more than %d", len(msg), n, limit)
	}
}
