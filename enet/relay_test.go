package enet

import (
	"encoding/hex"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/enet/protocol"
)

// relay is a logging UDP relay between one client and a server: the client talks to its
// address, it talks to the server from a socket of its own, and it records every datagram.
type relay struct {
	front, back *net.UDPConn
	server      *net.UDPAddr
	mu          sync.Mutex
	client      *net.UDPAddr
	log         []relayed
	changed     chan struct{}
	// drop, when set, decides per datagram whether the relay loses it (lossy tests).
	drop func(toServer bool, b []byte) bool
}

type relayed struct {
	toServer bool
	b        []byte
}

func newRelay(t testing.TB, server string) *relay {
	t.Helper()
	sa, err := net.ResolveUDPAddr("udp4", server)
	if err != nil {
		t.Fatal(err)
	}
	front, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	back, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{front: front, back: back, server: sa, changed: make(chan struct{}, 1)}
	go r.pump(true)
	go r.pump(false)
	t.Cleanup(func() { front.Close(); back.Close() })
	return r
}

func (r *relay) addr() string { return r.front.LocalAddr().String() }

func (r *relay) pump(toServer bool) {
	buf := make([]byte, 65536)
	for {
		var n int
		var from *net.UDPAddr
		var err error
		if toServer {
			n, from, err = r.front.ReadFromUDP(buf)
		} else {
			n, _, err = r.back.ReadFromUDP(buf)
		}
		if err != nil {
			return
		}
		b := append([]byte(nil), buf[:n]...)
		r.mu.Lock()
		if toServer {
			r.client = from
		}
		client := r.client
		dropped := r.drop != nil && r.drop(toServer, b)
		if !dropped {
			r.log = append(r.log, relayed{toServer, b})
		}
		r.mu.Unlock()
		select {
		case r.changed <- struct{}{}:
		default:
		}
		if dropped {
			continue
		}
		if toServer {
			r.back.WriteToUDP(b, r.server)
		} else if client != nil {
			r.front.WriteToUDP(b, client)
		}
	}
}

// waitFor waits until the log holds n datagrams.
func (r *relay) waitFor(t testing.TB, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		got := len(r.log)
		r.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("relay: %d datagrams, want %d", got, n)
		}
	}
}

func (r *relay) records() []relayed {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]relayed(nil), r.log...)
}

// normalize returns a datagram with the fields that differ between runs zeroed: the sent time
// of the header and of acknowledgements, and the random connect id.
func normalize(t testing.TB, b []byte) []byte {
	t.Helper()
	var d protocol.Datagram
	if err := protocol.ParseDatagram(b, false, &d); err != nil {
		t.Fatalf("relay: %x: %v", b, err)
	}
	d.Header.SentTime = 0
	out := protocol.AppendHeader(nil, &d.Header, false)
	for _, c := range d.Commands {
		c.ReceivedSentTime = 0
		c.ConnectID = 0
		out = protocol.AppendCommand(out, &c)
	}
	return out
}

func describe(t testing.TB, recs []relayed) string {
	var sb strings.Builder
	for _, r := range recs {
		dir := "s→c"
		if r.toServer {
			dir = "c→s"
		}
		fmt.Fprintf(&sb, "  %s %s\n", dir, hex.EncodeToString(normalize(t, r.b)))
	}
	return sb.String()
}

// sentBy returns the normalized datagrams one side sent.
func sentBy(t testing.TB, recs []relayed, toServer bool) []string {
	var out []string
	for _, r := range recs {
		if r.toServer == toServer {
			out = append(out, hex.EncodeToString(normalize(t, r.b)))
		}
	}
	return out
}
