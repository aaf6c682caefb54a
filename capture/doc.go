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
// UDP has no streams: [ReadDatagrams] reads a capture's UDP datagrams one by one, each with
// its time, endpoints, flow and direction, for datagram protocols such as ENet.
//
// Memory: reading a capture holds at most [Options.MaxBufferedBytes] (64 MiB) of out-of-order
// segments, in 2 KiB pages, plus one packet and about 1.5 KB per connection (gopacket's
// reassembly starts with room for 1 024 connections, 0.8 MB); the usual packets (Ethernet,
// VLAN, Linux cooked or loopback headers, IPv4 or IPv6, TCP or UDP) are decoded without
// allocating. A DatagramReader holds one packet and about 150 bytes per flow, at most
// [Options.MaxFlows] flows. The [Proxy] holds two 32 KiB buffers per connection, at most
// [Proxy.MaxConns] connections (64 MiB with the defaults), and closes connections idle for
// [Proxy.IdleTimeout]; what its Handler keeps is the Handler's to bound.
package capture
