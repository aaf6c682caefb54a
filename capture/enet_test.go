package capture

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gamewire/gamewire/enet"
)

// TestReadDatagramsENetTcpdump: tcpdump records the start of a real ENet session on loopback
// (gamewire's ENet, the one that matches C ENet's bytes): ReadDatagrams gives its datagrams in
// order, in one flow, and each explains as the ENet command it is: the client's CONNECT, the
// server's VERIFY_CONNECT, then the client's acknowledgement of it with a PING (what comes
// next depends on timing).
func TestReadDatagramsENetTcpdump(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv, err := enet.Listen("udp4", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go func() {
		p, err := srv.Accept(ctx)
		if err != nil {
			return
		}
		pkt, err := p.Receive(ctx)
		if err != nil {
			return
		}
		p.Send(pkt.Channel, pkt.Data, pkt.Flags)
	}()
	server := srv.LocalAddr().String()
	_, port, _ := strings.Cut(server, ":")
	// The first 3 datagrams of the session: ENet's handshake, in this order.
	td := startTcpdump(t, "enet.pcap", 3, "udp port "+port)
	p, err := enet.Dial(ctx, "udp", server, &enet.DialOptions{Channels: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Host().Close()
	// The handshake first (sending now could put the packet beside the acknowledgement).
	capFile := td.wait(t)
	if err := p.Send(1, []byte("hello"), enet.Reliable); err != nil {
		t.Fatal(err)
	}
	if pkt, err := p.Receive(ctx); err != nil || string(pkt.Data) != "hello" {
		t.Fatalf("echo: %q %v", pkt.Data, err)
	}

	var got []string
	for d, err := range ReadDatagrams(bytes.NewReader(capFile), nil).All() {
		if err != nil {
			t.Fatal(err)
		}
		if d.Flow.ID != 1 || d.Flow.Server.String() != server {
			t.Errorf("datagram %d: flow %s, want one flow to %s", d.Packet, d.Flow, server)
		}
		f := enet.Explain(d.Data)
		if f.Err != nil {
			t.Errorf("datagram %d does not explain: %v", d.Packet, f.Err)
		}
		got = append(got, fmt.Sprintf("%s %s", d.Dir.Arrow(), f.Summary))
	}
	t.Logf("the ENet handshake as captured:\n%s", strings.Join(got, "\n"))
	want := []struct{ dir, cmd string }{{"→", "[CONNECT]"}, {"←", "[VERIFY_CONNECT]"}, {"→", "[ACKNOWLEDGE PING]"}}
	if len(got) != len(want) {
		t.Fatalf("%d datagrams, want %d", len(got), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w.dir+" ") || !strings.Contains(got[i], w.cmd) {
			t.Errorf("datagram %d: %s; want %s with %s", i+1, got[i], w.dir, w.cmd)
		}
	}
}
