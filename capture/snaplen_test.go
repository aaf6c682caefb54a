package capture

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"
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

// cutRecords rewrites a pcap capture as a snaplen of snap would have cut it.
func cutRecords(t *testing.T, in []byte, snap int) []byte {
	t.Helper()
	r, err := pcapgo.NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	if err := w.WriteFileHeader(uint32(snap), r.LinkType()); err != nil {
		t.Fatal(err)
	}
	for {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		ci.CaptureLength = min(len(data), snap)
		if err := w.WritePacket(ci, data[:ci.CaptureLength]); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestReadStreamsSnaplenGaps: segments whose payload a snaplen cut deliver what was captured,
// and the rest is a gap with its offset and size, whether a later segment follows or the cut
// segment is the direction's last.
func TestReadStreamsSnaplenGaps(t *testing.T) {
	c2s := testPayload(300, 7)
	// 3 segments of 100 bytes; Ethernet, IPv4 and a 20-byte TCP header take 54 bytes: a
	// snaplen of 94 keeps 40 bytes of each payload.
	in := cutRecords(t, writeCapture(t, conversation(c2s, nil, 100)), 94)
	s, h := collect()
	st, err := ReadStreams(bytes.NewReader(in), nil, h)
	if err != nil {
		t.Fatal(err)
	}
	want := string(c2s[:40]) + "<gap 60>" + string(c2s[100:140]) + "<gap 60>" + string(c2s[200:240]) + "<gap 60>"
	if got := s.get(1, ClientToServer); got != want {
		t.Errorf("client→server: %q\nwant %q", got, want)
	}
	if st.Truncated != 3 || st.MissingBytes != 180 || st.Snaplen != 94 {
		t.Errorf("stats %+v", st)
	}
}
