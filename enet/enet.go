// Package enet is ENet 1.3 in pure Go, byte-compatible with C ENet 1.3.15–1.3.18 (the library
// under Godot 3's NetworkedMultiplayerENet and Godot 4's ENetMultiplayerPeer), over any
// net.PacketConn.
//
// A [Host] owns one socket and up to 4095 peers. [Listen] makes a host that accepts
// connections ([Host.Accept]); [Host.Connect] and [Dial] connect to a remote host. A [Peer]
// sends packets on a channel with [Peer.Send] (reliable, unreliable sequenced, unsequenced,
// fragmented when larger than the MTU) and receives them with [Peer.Receive]. Hosts pace
// themselves as C ENet does: acknowledgements, resends after the round-trip timeout, pings,
// timeouts, the packet throttle and the bandwidth limits.
//
// Hostile input is bounded: every datagram is parsed with typed errors (package
// [github.com/gamewire/gamewire/enet/protocol]), reassembly and undelivered packets are held
// within [HostOptions.MaxBufferedBytes] (and a per-peer share of it), a spoofed CONNECT is
// answered with at most one VERIFY_CONNECT, smaller than itself, per CONNECT received (no
// amplification), and peers that do not complete the handshake are dropped after
// [HostOptions.HandshakeTimeout].
package enet

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Flags say how a packet travels. The zero value is unreliable sequenced.
type Flags uint8

// Packet flags, with C ENet's values (ENET_PACKET_FLAG_*).
const (
	// Reliable packets are acknowledged, resent and delivered once, in order.
	Reliable Flags = 1
	// Unsequenced packets are unreliable and delivered in any order (duplicates dropped).
	Unsequenced Flags = 2
	// UnreliableFragment sends an unreliable packet that is larger than the MTU as unreliable
	// fragments (without it, such a packet is sent reliably, as C ENet does).
	UnreliableFragment Flags = 8
)

// String lists the flags as Go names.
func (f Flags) String() string {
	if f == 0 {
		return "Unreliable"
	}
	s := ""
	add := func(n string) {
		if s != "" {
			s += "|"
		}
		s += n
	}
	if f&Reliable != 0 {
		add("Reliable")
	}
	if f&Unsequenced != 0 {
		add("Unsequenced")
	}
	if f&UnreliableFragment != 0 {
		add("UnreliableFragment")
	}
	if rest := f &^ (Reliable | Unsequenced | UnreliableFragment); rest != 0 {
		add(fmt.Sprintf("0x%02x", uint8(rest)))
	}
	return s
}

// Packet is one packet received from a peer.
type Packet struct {
	// Channel is the channel it came on.
	Channel uint8
	// Data is the packet's bytes. From Receive, the caller owns them (the host never reuses
	// them); in a Handler's call, they are the host's and valid only until it returns.
	Data []byte
	// Flags say how it travelled: Reliable, Unsequenced, UnreliableFragment, or 0 for
	// unreliable sequenced.
	Flags Flags
}

// A Handler handles the packets a host receives on the host's own goroutines, as they arrive,
// instead of queuing them for [Peer.Receive]: no goroutine hand-off per packet, which on a
// loopback round trip is a third of the CPU time (docs/performance.md). It is the shape of C
// ENet's enet_host_service loop, where the application handles each event in the thread that
// services the host.
//
// HandlePacket is called once per packet, after the host has sent the packet's
// acknowledgement (as C ENet acknowledges before it dispatches), in the order the peer sent
// them on each channel as with Receive, and never concurrently: one call at a time for the
// whole host. pk.Data is the host's and valid only during the call: the host reuses it
// afterwards, so a handler copies what it keeps. A handler may call the peer's (or any peer's)
// Send, Disconnect and other methods; it must not block, since the host reads no datagram
// while it runs (the socket's buffer fills and the kernel drops what does not fit): long work
// goes to a goroutine of its own, with a copy of the data. Host.Close, Host.Shutdown and
// Peer.Close wait for the host's goroutines and so must not be called from a handler either.
type Handler interface {
	HandlePacket(p *Peer, pk Packet)
}

// HandlerFunc is a function as a [Handler].
type HandlerFunc func(p *Peer, pk Packet)

// HandlePacket calls f(p, pk).
func (f HandlerFunc) HandlePacket(p *Peer, pk Packet) { f(p, pk) }

// NoLimit, as a limit's value, means none.
const NoLimit = -1

// Defaults of [HostOptions].
const (
	DefaultMTU              = 1400 // C ENet 1.3.17's ENET_HOST_DEFAULT_MTU (1.3.18: 1392)
	DefaultMaxConns         = 4095 // the protocol's most peers per host
	DefaultMaxConnsPerIP    = 64
	DefaultMaxMessageBytes  = 32 << 20 // C ENet's ENET_HOST_DEFAULT_MAXIMUM_PACKET_SIZE
	DefaultMaxBufferedBytes = 64 << 20
	DefaultMaxQueueBytes    = 32 << 20
	DefaultPingInterval     = 500 * time.Millisecond
	DefaultMinimumTimeout   = 5000 * time.Millisecond
	DefaultMaximumTimeout   = 30000 * time.Millisecond
	DefaultTimeoutLimit     = 32
	DefaultHandshakeTimeout = 5 * time.Second
)

// HostOptions are a host's settings. The zero value (or nil) means every default; a limit of 0
// means its default and NoLimit means none where the field says so.
type HostOptions struct {
	// Channels is the most channels a peer may use (1–255, default 255); a connecting peer
	// asking for more gets this many (C ENet's channelLimit).
	Channels int
	// MaxConns is the most peers (connected or connecting) the host holds, 1–4095 (default
	// 4095, the protocol's limit; NoLimit means 4095).
	MaxConns int
	// MaxConnsPerIP is the most peers from one IP address (default 64, NoLimit: none).
	MaxConnsPerIP int
	// MaxMessageBytes is the largest packet, reassembled, that a peer may send or be sent
	// (default 32 MiB, C ENet's; at most 1 GiB). Larger ones are refused as C ENet refuses
	// them.
	MaxMessageBytes int
	// MaxBufferedBytes bounds the bytes the host holds for all its peers in fragments being
	// reassembled and in packets not yet taken by Receive (default 64 MiB). One peer may hold
	// at most a quarter of it, or MaxMessageBytes when that is more. A command that would go
	// over is not acknowledged: the sender resends it later (back pressure, as C ENet's
	// maximumWaitingData).
	MaxBufferedBytes int
	// MaxQueueBytes bounds the bytes waiting to be sent to one peer (default 32 MiB); Send
	// returns ErrQueueFull beyond it.
	MaxQueueBytes int
	// IncomingBandwidth and OutgoingBandwidth are the host's bandwidths in bytes per second, 0
	// for unlimited, as in enet_host_create.
	IncomingBandwidth, OutgoingBandwidth uint32
	// MTU is the largest datagram the host sends (576–4096, default 1400).
	MTU int
	// Checksum adds ENet's CRC32 to every datagram and requires it on every datagram
	// received (both ends must agree; Godot does not use it).
	Checksum bool
	// Compressor compresses datagrams (both ends must agree: ENet does not negotiate it).
	Compressor Compressor
	// PingInterval is how long a quiet peer waits before it pings (default 500 ms).
	PingInterval time.Duration
	// MinimumTimeout, MaximumTimeout and TimeoutLimit decide when an unacknowledged peer is
	// dropped, as enet_peer_timeout (defaults 5 s, 30 s, 32).
	MinimumTimeout, MaximumTimeout time.Duration
	TimeoutLimit                   int
	// HandshakeTimeout is how long a peer that sent CONNECT has to acknowledge the host's
	// VERIFY_CONNECT before it is forgotten (default 5 s).
	HandshakeTimeout time.Duration
	// Logger receives the host's debug and warning messages (default: none).
	Logger *slog.Logger
	// Handler, when set, receives every packet the host's peers send, on the host's
	// goroutines (see [Handler]); Receive and ReceiveInto then only report a peer's end.
	Handler Handler
}

// DialOptions are the settings of [Dial]: the host's, the channel count asked for and the
// connect data.
type DialOptions struct {
	HostOptions
	// Channels is the channel count asked for, 1–255 (0 means 1, as enet_host_connect).
	Channels int
	// Data is the CONNECT command's user data (Godot sends the client's peer id here).
	Data uint32
}

// Errors, tested with errors.Is.
var (
	// ErrDisconnected: the peer is gone (it disconnected, was disconnected, or timed out);
	// a *DisconnectError says how.
	ErrDisconnected = errors.New("enet: peer disconnected")
	// ErrClosed: use of a closed host.
	ErrClosed = errors.New("enet: host closed")
	// ErrTooLarge: a packet over MaxMessageBytes or over 1 048 576 fragments.
	ErrTooLarge = errors.New("enet: packet too large")
	// ErrChannel: a channel the peer does not have.
	ErrChannel = errors.New("enet: no such channel")
	// ErrNotConnected: Send on a peer that is not (or no longer) connected.
	ErrNotConnected = errors.New("enet: peer not connected")
	// ErrQueueFull: Send beyond MaxQueueBytes.
	ErrQueueFull = errors.New("enet: send queue full")
	// ErrTooManyPeers: Connect on a host that holds MaxConns peers.
	ErrTooManyPeers = errors.New("enet: too many peers")
	// ErrTimeout: a connection attempt or a peer that timed out.
	ErrTimeout = errors.New("enet: timeout")
	// ErrRefused: the remote host answered the connection attempt with a DISCONNECT.
	ErrRefused = errors.New("enet: connection refused")
	// ErrShortBuffer: a packet longer than the buffer given to ReceiveInto (the packet stays
	// queued).
	ErrShortBuffer = errors.New("enet: buffer too short for packet")
)

// DisconnectError says why a peer is gone. It wraps ErrDisconnected, and ErrTimeout when the
// peer timed out.
type DisconnectError struct {
	// Data is the DISCONNECT command's data (0 for a timeout).
	Data uint32
	// Timeout is set when the peer stopped acknowledging.
	Timeout bool
	// Local is set when this side disconnected.
	Local bool
}

// Error says how the peer went.
func (e *DisconnectError) Error() string {
	switch {
	case e.Timeout:
		return "enet: peer disconnected: timed out"
	case e.Local:
		return fmt.Sprintf("enet: peer disconnected (by this side, data %d)", e.Data)
	}
	return fmt.Sprintf("enet: peer disconnected (data %d)", e.Data)
}

// Unwrap returns ErrDisconnected, and ErrTimeout for a timeout.
func (e *DisconnectError) Unwrap() []error {
	if e.Timeout {
		return []error{ErrDisconnected, ErrTimeout}
	}
	return []error{ErrDisconnected}
}

// Compressor compresses the commands of a datagram (everything after the header), as C ENet's
// ENetCompressor. ENet does not negotiate compression: both ends must use the same one. A host
// calls its Compressor from one goroutine at a time.
type Compressor interface {
	// Compress appends the compressed form of src to dst. The host sends it only when it is
	// shorter than src.
	Compress(dst, src []byte) []byte
	// Decompress appends the decompressed form of src to dst, at most limit bytes; more is an
	// error.
	Decompress(dst, src []byte, limit int) ([]byte, error)
}
