// Package capture turns TCP traffic into per-direction byte streams, whatever the protocol on
// top: recorded traffic from pcap and pcapng files (reassembled with gopacket's pure-Go pcapgo
// and reassembly packages, so it builds with CGO_ENABLED=0) and live traffic through a
// man-in-the-middle [Proxy] that forwards every byte unchanged.
//
// Both sources report the same [Event] values to a [Handler]: a connection opens
// ([EventOpen]), bytes arrive in stream order in one direction ([EventData]) with their
// capture time and stream offset, bytes are missing from a capture ([EventGap]: lost
// segments, or a capture that started after the connection did), a direction ends
// ([EventEnd]) and the connection closes ([EventClose]). A protocol layer (such as
// gsf/gsftap for GSF frames) keeps one parser per direction and feeds it the data.
//
// Memory: reading a capture holds at most [Options.MaxBufferedPages] pages of out-of-order
// data (about 1.9 KB each) plus one packet, and about 1.5 KB per connection (gopacket's
// reassembly starts with room for 1 024 connections, 0.8 MB); the usual packets (Ethernet,
// VLAN, Linux cooked or loopback headers, IPv4 or IPv6, TCP) are decoded without allocating.
// The proxy holds one 32 KiB buffer per direction.
package capture
