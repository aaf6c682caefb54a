package capture

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"testing"
)

// FuzzReadStreams: any input either fails with a *capture.Error or reads; every direction's
// data arrives at consecutive offsets; nothing panics.
func FuzzReadStreams(f *testing.F) {
	if real, err := os.ReadFile("testdata/serve-call.pcap"); err == nil {
		f.Add(real)
		f.Add(toPcapNG(f, real))
	}
	f.Add(writeCapture(f, conversation(testPayload(300, 1), testPayload(200, 2), 50)))
	f.Fuzz(func(t *testing.T, in []byte) {
		next := map[string]int64{}
		st, err := ReadStreams(bytes.NewReader(in), &Options{MaxBufferedBytes: 64 * 2048}, func(ev *Event) {
			key := fmt.Sprintf("%d %d", ev.Conn.ID, ev.Dir)
			switch ev.Kind {
			case EventData:
				if ev.Offset != next[key] {
					t.Fatalf("%s: data at %d, want %d", key, ev.Offset, next[key])
				}
				next[key] += int64(len(ev.Data))
			case EventGap:
				if ev.Lost > 0 {
					next[key] += ev.Lost
				}
			}
		})
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("%v (%T)", err, err)
			}
		}
		if st.TCP > st.Packets || st.Conns > st.TCP {
			t.Fatalf("stats %+v", st)
		}
	})
}

// FuzzReadDatagrams: any input either fails with a *capture.Error or reads; every datagram
// has a flow and a direction that match its endpoints, and never more bytes than its length;
// nothing panics.
func FuzzReadDatagrams(f *testing.F) {
	if real, err := os.ReadFile("testdata/udp-echo.pcap"); err == nil {
		f.Add(real)
		f.Add(toPcapNG(f, real))
	}
	f.Add(writeUDPCapture(f, [][]byte{
		udpPacket(f, netip.MustParseAddrPort("10.0.0.1:5000"), netip.MustParseAddrPort("10.0.0.2:7777"), []byte("ping")),
		udpPacket(f, netip.MustParseAddrPort("10.0.0.2:7777"), netip.MustParseAddrPort("10.0.0.1:5000"), []byte("pong")),
	}))
	c4, s4 := netip.MustParseAddrPort("10.0.0.1:5000"), netip.MustParseAddrPort("10.0.0.2:7777")
	c6, s6 := netip.MustParseAddrPort("[fd00::1]:5000"), netip.MustParseAddrPort("[fd00::2]:7777")
	frags := append(fragmentUDP(f, c4, s4, 1, pattern(100, 1), 32), fragmentUDP(f, c6, s6, 2, pattern(100, 2), 48)...)
	frags[0], frags[1] = frags[1], frags[0]
	f.Add(writeUDPCapture(f, frags))
	f.Fuzz(func(t *testing.T, in []byte) {
		dr := ReadDatagrams(bytes.NewReader(in), &Options{MaxFlows: 4, MaxBufferedBytes: 4096})
		n := 0
		for d, err := range dr.All() {
			if err != nil {
				var ce *Error
				if !errors.As(err, &ce) {
					t.Fatalf("%v (%T)", err, err)
				}
				break
			}
			n++
			if d.Src != d.Flow.Src(d.Dir) || d.Dst != d.Flow.Dst(d.Dir) {
				t.Fatalf("datagram %d: %s → %s in %s as %s", d.Packet, d.Src, d.Dst, d.Flow, d.Dir)
			}
			if len(d.Data) > d.Length || d.Missing() < 0 {
				t.Fatalf("datagram %d: %d bytes of %d", d.Packet, len(d.Data), d.Length)
			}
		}
		// Every packet is a datagram returned, skipped, or an IP fragment held (the fragment
		// that completes a datagram is returned or skipped with it).
		if st := dr.Stats(); st.UDP != n || st.UDP+st.Skipped > st.Packets || st.Packets > st.UDP+st.Skipped+st.Fragments ||
			st.LostFragments > st.Fragments || st.Flows > st.UDP {
			t.Fatalf("stats %+v after %d datagrams", st, n)
		}
	})
}
