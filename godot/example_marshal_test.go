package godot_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/gamewire/gamewire/godot"
)

// ChatMessage is what a Godot game sends with StreamPeerTCP.put_var:
//
//	tcp.put_var({"from": "ada", "text": "hello", "pos": Vector2(3, 4)})
type ChatMessage struct {
	From string        `godot:"from"`
	Text string        `godot:"text"`
	Pos  godot.Vector2 `godot:"pos"`
}

// ChatReply is what the server answers; the game reads it with tcp.get_var() as a Dictionary
// {"seq": 1, "echo": "HELLO", "from": "ada", "dist": 5.0}.
type ChatReply struct {
	Seq  int     `godot:"seq"`
	Echo string  `godot:"echo"`
	From string  `godot:"from"`
	Dist float64 `godot:"dist"`
	Note string  `godot:"note,omitempty"`
}

// serveChat answers every message of one connection until the client disconnects.
func serveChat(conn net.Conn, opts godot.StreamOptions) error {
	defer conn.Close()
	dec, enc := opts.NewDecoder(conn), opts.NewEncoder(conn)
	for seq := 1; ; seq++ {
		var m ChatMessage
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		reply := ChatReply{Seq: seq, Echo: strings.ToUpper(m.Text), From: m.From,
			Dist: float64(m.Pos.X*m.Pos.X + m.Pos.Y*m.Pos.Y)}
		if err := enc.Encode(reply); err != nil {
			return err
		}
	}
}

// A chat server for Godot 3 clients, and a Go client standing in for the game. The game's side
// is StreamPeerTCP.put_var/get_var; README.md shows the GDScript.
func Example_chatServer() {
	opts := godot.StreamOptions{Dialect: godot.Godot3, Framing: godot.FramingStreamPeer}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		done <- serveChat(conn, opts)
	}()

	// The client: what a Godot game does with put_var and get_var.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	enc, dec := opts.NewEncoder(conn), opts.NewDecoder(conn)
	for _, text := range []string{"hello", "bye"} {
		// The game sends a Dictionary; here it is built from a map to show the generic form.
		msg := godot.NewDictionary("from", "ada", "text", text, "pos", godot.Vector2{X: 3, Y: 4})
		if err := enc.Encode(msg); err != nil {
			fmt.Println(err)
			return
		}
		var reply any // get_var(): the generic value, a *godot.Dictionary
		if err := dec.Decode(&reply); err != nil {
			fmt.Println(err)
			return
		}
		var fields []string
		for _, e := range reply.(*godot.Dictionary).Entries {
			fields = append(fields, fmt.Sprintf("%v=%v", e.Key, e.Value))
		}
		fmt.Println(strings.Join(fields, " "))
	}
	conn.Close()
	fmt.Println("server:", <-done)
	// Output:
	// seq=1 echo=HELLO from=ada dist=25
	// seq=2 echo=BYE from=ada dist=25
	// server: <nil>
}

// Marshal maps a Go struct to a Dictionary keyed by the field names or tags, and Unmarshal maps
// it back, straight from the bytes.
func ExampleMarshal() {
	type Player struct {
		Name string        `godot:"name"`
		HP   int           `godot:"hp"`
		Pos  godot.Vector3 `godot:"pos"`
		Tags []string      `godot:"tags,omitempty"`
	}
	enc, _ := godot.EncodeOptions{Dialect: godot.Godot3}.EncodeMode()
	dec, _ := godot.DecodeOptions{Dialect: godot.Godot3}.DecodeMode()
	b, err := enc.Marshal(Player{Name: "ada", HP: 100, Pos: godot.Vector3{X: 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bytes: % x ...\n", len(b), b[:8])
	var p Player
	if err := dec.Unmarshal(b, &p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", p)
	// Output:
	// 80 bytes: 12 00 00 00 03 00 00 00 ...
	// {Name:ada HP:100 Pos:{X:1 Y:0 Z:0} Tags:[]}
}

// Unmarshal errors name the Go field and the byte where the Variant starts.
func ExampleDecodeMode_Unmarshal() {
	type Stats struct {
		Level int8 `godot:"level"`
	}
	b, _ := godot.Marshal(godot.NewDictionary("level", int64(300)))
	var s Stats
	fmt.Println(godot.Unmarshal(b, &s))
	// Output:
	// godot: decoding int at byte 24 (at .Level): number out of range: 300 does not fit in Go value of type int8
}

// A RawVariant defers decoding until the message's type is known.
func ExampleRawVariant() {
	type Envelope struct {
		Op   string           `godot:"op"`
		Body godot.RawVariant `godot:"body"`
	}
	b, _ := godot.Marshal(godot.NewDictionary("op", "move", "body", godot.Vector2{X: 1, Y: 2}))
	var env Envelope
	if err := godot.Unmarshal(b, &env); err != nil {
		fmt.Println(err)
		return
	}
	switch env.Op {
	case "move":
		var to godot.Vector2
		if err := godot.Unmarshal(env.Body, &to); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("move to", to)
	}
	// Output:
	// move to {1 2}
}
