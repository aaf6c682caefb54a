package capture

import (
	"fmt"
	"net/netip"
	"time"
)

// Direction is the direction of a byte stream within a connection.
type Direction uint8

// The two directions of a connection.
const (
	ClientToServer Direction = iota
	ServerToClient
)

// String returns "client→server" or "server→client".
func (d Direction) String() string {
	if d == ServerToClient {
		return "server→client"
	}
	return "client→server"
}

// Arrow returns "→" for client to server and "←" for server to client.
func (d Direction) Arrow() string {
	if d == ServerToClient {
		return "←"
	}
	return "→"
}

// MarshalText implements encoding.TextMarshaler: "c2s" or "s2c".
func (d Direction) MarshalText() ([]byte, error) {
	if d == ServerToClient {
		return []byte("s2c"), nil
	}
	return []byte("c2s"), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Direction) UnmarshalText(b []byte) error {
	switch string(b) {
	case "c2s":
		*d = ClientToServer
	case "s2c":
		*d = ServerToClient
	default:
		return fmt.Errorf("capture: unknown direction %q (want c2s or s2c)", b)
	}
	return nil
}

// Conn describes one TCP connection.
type Conn struct {
	// ID numbers the connections of one capture or proxy from 1, in the order they appear.
	ID             uint64
	Client, Server netip.AddrPort
	// RolesGuessed reports that the capture holds no SYN for the connection, so which side is
	// the client was guessed: the side on a port of Options.Ports is the server, else the side
	// with the lower port number.
	RolesGuessed bool
}

// Src and Dst return the sender and receiver of direction d.
func (c *Conn) Src(d Direction) netip.AddrPort {
	if d == ServerToClient {
		return c.Server
	}
	return c.Client
}

// Dst returns the receiver of direction d.
func (c *Conn) Dst(d Direction) netip.AddrPort {
	if d == ServerToClient {
		return c.Client
	}
	return c.Server
}

// String returns "#ID client → server".
func (c *Conn) String() string {
	return fmt.Sprintf("#%d %s → %s", c.ID, c.Client, c.Server)
}

// EventKind tells what an Event reports.
type EventKind uint8

// The kinds of events.
const (
	// EventOpen: a connection was seen (a capture) or accepted (the proxy).
	EventOpen EventKind = iota + 1
	// EventData: Data arrived in direction Dir, at stream offset Offset.
	EventData
	// EventGap: Lost bytes of direction Dir are missing before the next data. Lost is -1 when
	// the capture started after the connection did, so that the data begins mid-stream.
	EventGap
	// EventEnd: direction Dir ended (FIN or RST, end of capture, or the peer closed).
	EventEnd
	// EventClose: the connection is closed; Err says why, when it was an error.
	EventClose
)

var eventNames = [...]string{EventOpen: "open", EventData: "data", EventGap: "gap", EventEnd: "end", EventClose: "close"}

// String returns the kind's name: open, data, gap, end or close.
func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is what a capture or the proxy reports to a Handler.
type Event struct {
	Kind EventKind
	Conn *Conn
	Dir  Direction
	// Time is the capture time of the packet that carried the last byte of Data (for a proxy:
	// when the read returned); for other kinds, when the event happened.
	Time time.Time
	// Offset is the stream offset of Data's first byte: the bytes of this direction before it,
	// lost ones included (a stream picked up mid-way counts from its first captured byte).
	Offset int64
	// Data is valid only during the Handler call.
	Data []byte
	// Lost is the number of missing bytes of an EventGap, -1 if unknown.
	Lost int64
	// Err is the reason of an EventClose, or nil.
	Err error
}

// A Handler receives the events of a capture or a proxy. Calls are never concurrent, and the
// events of one direction of one connection arrive in stream order.
type Handler func(*Event)
