package capture

import (
	"encoding/binary"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// fastDecoder decodes the usual packets of a capture (Ethernet, VLAN, Linux cooked and loopback
// headers; IPv4 or IPv6; TCP) into structs it reuses, so that reading a capture allocates
// nothing per packet for them. Anything else (another link type, IPv6 extension headers, a
// tunnel, a packet that does not decode) is left to gopacket.NewPacket, as before.
type fastDecoder struct {
	eth     layers.Ethernet
	dot1q   layers.Dot1Q
	sll     layers.LinuxSLL
	sll2    layers.LinuxSLL2
	lo      layers.Loopback
	ip4     layers.IPv4
	ip6     layers.IPv6
	tcp     layers.TCP
	udp     layers.UDP
	wasUDP  bool // decode's last packet was a UDP datagram that the fast path decoded
	parsers map[gopacket.LayerType]*gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
}

// decode returns the packet's network flow and TCP segment, or ok false when it is not a TCP
// segment that the fast path knows. The segment is valid until the next call.
func (d *fastDecoder) decode(data []byte, lt layers.LinkType) (nf gopacket.Flow, tcp *layers.TCP, ok bool) {
	last, ok := d.layers(data, lt)
	d.wasUDP = ok && last == layers.LayerTypeUDP
	if !ok || last != layers.LayerTypeTCP {
		return nf, nil, false
	}
	switch d.decoded[len(d.decoded)-2] {
	case layers.LayerTypeIPv4:
		nf = d.ip4.NetworkFlow()
	case layers.LayerTypeIPv6:
		nf = d.ip6.NetworkFlow()
	default:
		return nf, nil, false
	}
	return nf, &d.tcp, true
}

// network returns the IP layer of the packet decode last decoded.
func (d *fastDecoder) network() gopacket.Layer {
	if d.decoded[len(d.decoded)-2] == layers.LayerTypeIPv6 {
		return &d.ip6
	}
	return &d.ip4
}

// decodeUDP returns the endpoints and the UDP layer of a datagram, or ok false when the packet
// is not a UDP datagram over IPv4 or IPv6 (a later IP fragment is not: it has no UDP header).
// The layer is valid until the next call.
func (d *fastDecoder) decodeUDP(data []byte, lt layers.LinkType) (src, dst netip.AddrPort, udp *layers.UDP, ok bool) {
	last, ok := d.layers(data, lt)
	if !ok && d.cutUDP() {
		last, ok = layers.LayerTypeUDP, true
	}
	if !ok || last != layers.LayerTypeUDP {
		return src, dst, nil, false
	}
	var sa, da netip.Addr
	switch d.decoded[len(d.decoded)-2] {
	case layers.LayerTypeIPv4:
		sa, _ = netip.AddrFromSlice(d.ip4.SrcIP)
		da, _ = netip.AddrFromSlice(d.ip4.DstIP)
	case layers.LayerTypeIPv6:
		sa, _ = netip.AddrFromSlice(d.ip6.SrcIP)
		da, _ = netip.AddrFromSlice(d.ip6.DstIP)
	default:
		return src, dst, nil, false
	}
	return netip.AddrPortFrom(sa.Unmap(), uint16(d.udp.SrcPort)), netip.AddrPortFrom(da.Unmap(), uint16(d.udp.DstPort)), &d.udp, true
}

// cutUDP reports whether the last packet that layers failed on is a UDP datagram whose
// header a small snaplen cut: the IP layer says UDP and at least the ports and the length
// (6 bytes) are there. It fills d.udp with them and an empty payload.
func (d *fastDecoder) cutUDP() bool {
	if len(d.decoded) == 0 {
		return false
	}
	var payload []byte
	switch d.decoded[len(d.decoded)-1] {
	case layers.LayerTypeIPv4:
		if d.ip4.Protocol != layers.IPProtocolUDP || d.ip4.Flags&layers.IPv4MoreFragments != 0 || d.ip4.FragOffset != 0 {
			return false
		}
		payload = d.ip4.Payload
	case layers.LayerTypeIPv6:
		if d.ip6.NextHeader != layers.IPProtocolUDP {
			return false
		}
		payload = d.ip6.Payload
	default:
		return false
	}
	if len(payload) < 6 || len(payload) >= 8 {
		return false
	}
	d.udp = layers.UDP{SrcPort: layers.UDPPort(binary.BigEndian.Uint16(payload)), DstPort: layers.UDPPort(binary.BigEndian.Uint16(payload[2:])),
		Length: binary.BigEndian.Uint16(payload[4:])}
	d.udp.Payload = payload[len(payload):]
	d.decoded = append(d.decoded, layers.LayerTypeUDP)
	return true
}

// known reports whether the fast path decodes link type lt.
func (d *fastDecoder) known(lt layers.LinkType) bool {
	switch lt {
	case layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2, layers.LinkTypeNull,
		layers.LinkTypeLoop, layers.LinkTypeIPv4, layers.LinkTypeIPv6:
		return true
	}
	return false
}

// layers decodes the packet's layers into d.decoded and returns the last one; ok is false for
// a link type the fast path does not know or a packet that does not decode.
func (d *fastDecoder) layers(data []byte, lt layers.LinkType) (last gopacket.LayerType, ok bool) {
	var first gopacket.LayerType
	switch lt {
	case layers.LinkTypeEthernet:
		first = layers.LayerTypeEthernet
	case layers.LinkTypeLinuxSLL:
		first = layers.LayerTypeLinuxSLL
	case layers.LinkTypeLinuxSLL2:
		first = layers.LayerTypeLinuxSLL2
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		first = layers.LayerTypeLoopback
	case layers.LinkTypeIPv4:
		first = layers.LayerTypeIPv4
	case layers.LinkTypeIPv6:
		first = layers.LayerTypeIPv6
	default:
		return last, false
	}
	p := d.parsers[first]
	if p == nil {
		if d.parsers == nil {
			d.parsers = map[gopacket.LayerType]*gopacket.DecodingLayerParser{}
		}
		p = gopacket.NewDecodingLayerParser(first, &d.eth, &d.dot1q, &d.sll, &d.sll2, &d.lo, &d.ip4, &d.ip6, &d.tcp, &d.udp)
		// The TCP or UDP payload is the end: the layer after it (gopacket.LayerTypePayload
		// or an application layer) is not one of the parser's.
		p.IgnoreUnsupported = true
		d.parsers[first] = p
	}
	if err := p.DecodeLayers(data, &d.decoded); err != nil || len(d.decoded) < 2 {
		if len(d.decoded) < 2 && !(len(d.decoded) == 1 && (first == layers.LayerTypeIPv4 || first == layers.LayerTypeIPv6)) {
			d.decoded = d.decoded[:0] // (a raw IP packet keeps its IP layer: an IP fragment ends there)
		}
		return last, false
	}
	return d.decoded[len(d.decoded)-1], true
}
