package capture_test

import (
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"

	"github.com/gamewire/gamewire/capture"
)

// Read a tcpdump capture and print what each direction of each connection carried.
func ExampleReadStreams() {
	f, err := os.Open("testdata/serve-call.pcap")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, err := capture.ReadStreams(f, nil, func(ev *capture.Event) {
		switch ev.Kind {
		case capture.EventOpen:
			fmt.Printf("#%d open, server %s\n", ev.Conn.ID, ev.Conn.Server)
		case capture.EventData:
			fmt.Printf("#%d %s: %d bytes at %d: % x\n", ev.Conn.ID, ev.Dir, len(ev.Data), ev.Offset, ev.Data[:4])
		case capture.EventClose:
			fmt.Printf("#%d close\n", ev.Conn.ID)
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, %d packets\n", st.Format, st.Packets)
	// Output:
	// #1 open, server 127.0.0.1:40661
	// #1 client→server: 22 bytes at 0: 15 20 c2 5c
	// #1 server→client: 22 bytes at 0: 15 21 c2 5c
	// #1 close
	// #2 open, server 127.0.0.1:40661
	// #2 client→server: 13 bytes at 0: 0c 20 c2 78
	// #2 server→client: 13 bytes at 0: 0c 21 c2 78
	// #2 close
	// pcap, 20 packets
}

// Put a Proxy between a client and a server and see both directions.
func ExampleProxy() {
	// A server that greets and closes.
	srv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	go func() {
		c, err := srv.Accept()
		if err != nil {
			return
		}
		io.ReadFull(c, make([]byte, 5))
		c.Write([]byte("hello, client"))
		c.Close()
	}()

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	var seen [2]strings.Builder
	p := &capture.Proxy{Upstream: srv.Addr().String(), Handler: func(ev *capture.Event) {
		if ev.Kind == capture.EventData {
			seen[ev.Dir].Write(ev.Data)
		}
	}}
	done := make(chan error)
	go func() { done <- p.Serve(l) }() // ErrServerClosed after Close

	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	c.Write([]byte("hello"))
	answer, _ := io.ReadAll(c)
	c.Close()
	p.Close()
	<-done
	fmt.Printf("client got %q\n", answer)
	fmt.Printf("%s: %q\n", capture.ClientToServer, seen[capture.ClientToServer].String())
	fmt.Printf("%s: %q\n", capture.ServerToClient, seen[capture.ServerToClient].String())
	// Output:
	// client got "hello, client"
	// client→server: "hello"
	// server→client: "hello, client"
}
