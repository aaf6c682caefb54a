package enet_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/gamewire/gamewire/enet"
)

// An echo server and a client on loopback: the client connects with 2 channels and its
// CONNECT data, sends a reliable and an unsequenced packet, gets them back, and disconnects.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	srv, err := enet.Listen("udp4", "127.0.0.1:0", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	go func() {
		for {
			p, err := srv.Accept(ctx)
			if err != nil {
				return
			}
			fmt.Println("server: peer connected with data", p.ConnectData())
			go func() {
				for {
					pk, err := p.Receive(ctx)
					if err != nil {
						return // *enet.DisconnectError once the client is gone
					}
					p.Send(pk.Channel, pk.Data, pk.Flags)
				}
			}()
		}
	}()

	p, err := enet.Dial(ctx, "udp4", srv.LocalAddr().String(), &enet.DialOptions{Channels: 2, Data: 42})
	if err != nil {
		log.Fatal(err)
	}
	p.Send(0, []byte("hello"), enet.Reliable)
	pk, _ := p.Receive(ctx)
	fmt.Printf("client: %q on channel %d, %v\n", pk.Data, pk.Channel, pk.Flags)
	p.Send(1, []byte("fast"), enet.Unsequenced)
	pk, _ = p.Receive(ctx)
	fmt.Printf("client: %q on channel %d, %v\n", pk.Data, pk.Channel, pk.Flags)
	p.Close() // DISCONNECT, acknowledged; closes the client's own host
	// Output:
	// server: peer connected with data 42
	// client: "hello" on channel 0, Reliable
	// client: "fast" on channel 1, Unsequenced
}

// Explain shows a datagram field by field: here a Godot 3.2.3 client's CONNECT.
func ExampleExplain() {
	b := []byte{0x8f, 0xff, 0xb7, 0x8c, 0x82, 0xff, 0x00, 0x01, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x05, 0x78,
		0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x13, 0x88,
		0, 0, 0, 2, 0, 0, 0, 2, 0xdc, 0x3b, 0xae, 0xd6, 0x13, 0x4b, 0x40, 0x36}
	f := enet.Explain(b)
	fmt.Println(f.Summary)
	for _, c := range f.Fields[1].Children {
		if c.Name == "channelCount" || c.Name == "data" {
			fmt.Printf("%s at byte %d: %s\n", c.Name, c.Offset(), c.Text)
		}
	}
	// Output:
	// ENet datagram to no peer yet (0xFFF): 1 command [CONNECT]
	// channelCount at byte 20: 3
	// data at byte 48: 323698742
}

// ReceiveInto reads packets into a buffer the caller reuses, so that a steady flow of packets
// allocates nothing (Send copies into buffers of the host's own, which it recycles): the loop
// grows its buffer when a packet does not fit, and the packet waits for it.
func ExamplePeer_ReceiveInto() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, err := enet.Listen("udp4", "127.0.0.1:0", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	cli, err := enet.Dial(ctx, "udp4", srv.LocalAddr().String(), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()
	sp, err := srv.Accept(ctx)
	if err != nil {
		log.Fatal(err)
	}
	cli.Send(0, []byte("short"), enet.Reliable)
	cli.Send(0, make([]byte, 3000), enet.Reliable) // fragmented on the way
	buf := make([]byte, 16)
	for got := 0; got < 2; {
		n, ch, flags, err := sp.ReceiveInto(ctx, buf)
		if errors.Is(err, enet.ErrShortBuffer) {
			fmt.Printf("%d bytes do not fit in %d: grow\n", n, len(buf))
			buf = make([]byte, n)
			continue
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d bytes on channel %d, %v\n", n, ch, flags)
		got++
	}
	// Output:
	// 5 bytes on channel 0, Reliable
	// 3000 bytes do not fit in 16: grow
	// 3000 bytes on channel 0, Reliable
}

// A Handler serves packets on the host's own goroutines, without a goroutine per peer: here an
// echo server. The handler answers from the call; the packet's bytes are the host's until the
// call returns (Send copies them).
func ExampleHandler() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	echo := enet.HandlerFunc(func(p *enet.Peer, pk enet.Packet) {
		p.Send(pk.Channel, pk.Data, pk.Flags)
	})
	srv, err := enet.Listen("udp4", "127.0.0.1:0", &enet.HostOptions{Handler: echo})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	p, err := enet.Dial(ctx, "udp4", srv.LocalAddr().String(), &enet.DialOptions{Channels: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	p.Send(1, []byte("ping"), enet.Reliable)
	pk, err := p.Receive(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q on channel %d, %v\n", pk.Data, pk.Channel, pk.Flags)
	// Output:
	// "ping" on channel 1, Reliable
}
