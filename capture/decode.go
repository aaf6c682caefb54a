package capture

import (
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
	parsers map[gopacket.LayerType]*gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
}

// decode returns the packet's network flow and TCP segment, or ok false when it is not a TCP
// segment that the fast path knows. The segment is valid until the next call.
func (d *fastDecoder) decode(data []byte, lt layers.LinkType) (nf gopacket.Flow, tcp *layers.TCP, ok bool) {
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
		return nf, nil, false
	}
	p := d.parsers[first]
	if p == nil {
		if d.parsers == nil {
			d.parsers = map[gopacket.LayerType]*gopacket.DecodingLayerParser{}
		}
		p = gopacket.NewDecodingLayerParser(first, &d.eth, &d.dot1q, &d.sll, &d.sll2, &d.lo, &d.ip4, &d.ip6, &d.tcp)
		// The TCP payload is the end: the layer after it (gopacket.LayerTypePayload) is not
		// one of the parser's.
		p.IgnoreUnsupported = true
		d.parsers[first] = p
	}
	if err := p.DecodeLayers(data, &d.decoded); err != nil || len(d.decoded) < 2 || d.decoded[len(d.decoded)-1] != layers.LayerTypeTCP {
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
