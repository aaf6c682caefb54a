package capture

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"testing"
)

// TestReadStreamsSnaplenTcpdump: real tcpdump captures of one TCP connection on loopback, one
// whole and one with -s 60 (which keeps the Ethernet and IP headers and part of the TCP
// header: tcpdump's records say how long each packet was). The cut capture's Stats count
// every record that lost bytes and how many, instead of reading as a capture without TCP.
func TestReadStreamsSnaplenTcpdump(t *testing.T) {
	sizes := []int{100, 1000, 3000}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		for _, n := range sizes {
			b := make([]byte, n)
			if _, err := io.ReadFull(c, b); err != nil {
				return
			}
			c.Write(b) // one write: one segment with PSH on lo
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	// Only the segments that carry data (PSH): their number is known, so tcpdump's -c ends
	// the capture once it has them all.
	filter := fmt.Sprintf("tcp port %d and tcp[tcpflags] & tcp-push != 0", port)
	full := startTcpdump(t, "full.pcap", 2*len(sizes), filter)
	cut := startTcpdump(t, "cut.pcap", 2*len(sizes), filter, "-s", "60")
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	total := 0
	for i, n := range sizes {
		b := bytes.Repeat([]byte{byte(i + 1)}, n)
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatal(err)
		}
		total += 2 * n
	}

	read := func(in []byte) (Stats, int) {
		got := 0
		st, err := ReadStreams(bytes.NewReader(in), nil, func(ev *Event) {
			if ev.Kind == EventData {
				got += len(ev.Data)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return st, got
	}
	st, got := read(full.wait(t))
	if st.Truncated != 0 || st.MissingBytes != 0 || got != total || st.Snaplen != 262144 {
		t.Errorf("whole capture: %d of %d bytes, stats %+v", got, total, st)
	}
	st, got = read(cut.wait(t))
	if st.Snaplen != 60 || st.Truncated != 2*len(sizes) || got != 0 {
		t.Errorf("-s 60: %d bytes read, stats %+v", got, st)
	}
	// Each record lost its payload (and the end of its TCP header: Linux's time stamp option
	// makes 66 bytes of headers).
	if want := int64(total); st.MissingBytes != want {
		t.Errorf("-s 60: %d bytes missing, want %d", st.MissingBytes, want)
	}
}
