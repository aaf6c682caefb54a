package enet

import "errors"

// errRangeCoder is a range-coded datagram that does not decode.
var errRangeCoder = errors.New("enet: range coder: malformed input")

// RangeCoder returns C ENet's own compressor, the adaptive order-2 PPM range coder of
// compress.c (enet_host_compress_with_range_coder), byte-exact with it both ways. Each host
// needs its own: the coder holds its model (about 64 KiB) between calls.
func RangeCoder() Compressor { return &rangeCoder{} }

// Constants of compress.c, tuned there for small packets.
const (
	rcTop            = 1 << 24
	rcBottom         = 1 << 16
	rcSymbolDelta    = 3
	rcSymbolMinimum  = 1
	rcEscapeMinimum  = 1
	rcSubOrder       = 2
	rcSubSymbolDelta = 2
	rcSubEscapeDelta = 5
	rcSymbols        = 4096
)

// rcSymbol is a node of a context's binary tree of symbols (left and right are offsets from the
// node, symbols from the context, parent an index), and the context the symbol defines.
type rcSymbol struct {
	value, count                                        uint8
	under, left, right, symbols, escapes, total, parent uint16
}

type rangeCoder struct {
	s    [rcSymbols]rcSymbol
	next int
}

func (rc *rangeCoder) symbol(value, count uint8) int {
	i := rc.next
	rc.next++
	rc.s[i] = rcSymbol{value: value, count: count, under: uint16(count)}
	return i
}

func (rc *rangeCoder) context(escapes uint16, minimum int) int {
	i := rc.symbol(0, 0)
	rc.s[i].escapes = escapes
	rc.s[i].total = escapes + uint16(256*minimum)
	return i
}

func (rc *rangeCoder) rescaleTree(i int) uint16 {
	var total uint16
	for {
		s := &rc.s[i]
		s.count -= s.count >> 1
		s.under = uint16(s.count)
		if s.left != 0 {
			s.under += rc.rescaleTree(i + int(s.left))
		}
		total += s.under
		if s.right == 0 {
			break
		}
		i += int(s.right)
	}
	return total
}

func (rc *rangeCoder) rescale(ctx, minimum int) {
	c := &rc.s[ctx]
	if c.symbols != 0 {
		c.total = rc.rescaleTree(ctx + int(c.symbols))
	} else {
		c.total = 0
	}
	c.escapes -= c.escapes >> 1
	c.total += c.escapes + uint16(256*minimum)
}

// encodeSymbol is ENET_CONTEXT_ENCODE: it finds or adds value in the context and returns the
// symbol, its cumulative count below it and its count.
func (rc *rangeCoder) encodeSymbol(ctx int, value uint8, update uint16, minimum int) (sym int, under, count uint16) {
	under = uint16(int(value) * minimum)
	count = uint16(minimum)
	if rc.s[ctx].symbols == 0 {
		sym = rc.symbol(value, uint8(update))
		rc.s[ctx].symbols = uint16(sym - ctx)
		return
	}
	node := ctx + int(rc.s[ctx].symbols)
	for {
		n := &rc.s[node]
		switch {
		case value < n.value:
			n.under += update
			if n.left != 0 {
				node += int(n.left)
				continue
			}
			sym = rc.symbol(value, uint8(update))
			n.left = uint16(sym - node)
		case value > n.value:
			under += n.under
			if n.right != 0 {
				node += int(n.right)
				continue
			}
			sym = rc.symbol(value, uint8(update))
			n.right = uint16(sym - node)
		default:
			count += uint16(n.count)
			under += n.under - uint16(n.count)
			n.under += update
			n.count += uint8(update)
			sym = node
		}
		return
	}
}

// Compress appends the range-coded form of src to dst; when that would not be shorter than
// src it returns dst as it was (the host then sends src uncompressed, as C ENet does).
func (rc *rangeCoder) Compress(dst, src []byte) []byte {
	start := len(dst)
	limit := len(src)
	var low, rng uint32 = 0, ^uint32(0)
	out := func(b byte) bool {
		if len(dst)-start >= limit {
			return false
		}
		dst = append(dst, b)
		return true
	}
	encode := func(under, count, total uint32) bool {
		rng /= total
		low += under * rng
		rng *= count
		for {
			if low^(low+rng) >= rcTop {
				if rng >= rcBottom {
					break
				}
				rng = -low & (rcBottom - 1)
			}
			if !out(byte(low >> 24)) {
				return false
			}
			rng <<= 8
			low <<= 8
		}
		return true
	}
	if len(src) == 0 {
		return dst
	}
	rc.next = 0
	root := rc.context(rcEscapeMinimum, rcSymbolMinimum)
	var predicted uint16
	order := 0
	for _, value := range src {
		parent := -1 // -1: predicted, else the symbol whose parent to set
		setParent := func(v uint16) {
			if parent < 0 {
				predicted = v
			} else {
				rc.s[parent].parent = v
			}
		}
		matched := false
		for sub := int(predicted); sub != root; sub = int(rc.s[sub].parent) {
			sym, under, count := rc.encodeSymbol(sub, value, rcSubSymbolDelta, 0)
			setParent(uint16(sym))
			parent = sym
			s := &rc.s[sub]
			total := s.total
			if count > 0 {
				if !encode(uint32(s.escapes)+uint32(under), uint32(count), uint32(total)) {
					return dst[:start]
				}
			} else {
				if s.escapes > 0 && s.escapes < total {
					if !encode(0, uint32(s.escapes), uint32(total)) {
						return dst[:start]
					}
				}
				s.escapes += rcSubEscapeDelta
				s.total += rcSubEscapeDelta
			}
			s.total += rcSubSymbolDelta
			if count > 0xFF-2*rcSubSymbolDelta || s.total > rcBottom-0x100 {
				rc.rescale(sub, 0)
			}
			if count > 0 {
				matched = true
				break
			}
		}
		if !matched {
			sym, under, count := rc.encodeSymbol(root, value, rcSymbolDelta, rcSymbolMinimum)
			setParent(uint16(sym))
			r := &rc.s[root]
			if !encode(uint32(r.escapes)+uint32(under), uint32(count), uint32(r.total)) {
				return dst[:start]
			}
			r.total += rcSymbolDelta
			if count > 0xFF-2*rcSymbolDelta+rcSymbolMinimum || r.total > rcBottom-0x100 {
				rc.rescale(root, rcSymbolMinimum)
			}
		}
		if order >= rcSubOrder {
			predicted = rc.s[predicted].parent
		} else {
			order++
		}
		if rc.next >= rcSymbols-rcSubOrder {
			rc.next = 0
			root = rc.context(rcEscapeMinimum, rcSymbolMinimum)
			predicted = 0
			order = 0
		}
	}
	for low != 0 {
		if !out(byte(low >> 24)) {
			return dst[:start]
		}
		low <<= 8
	}
	if len(dst)-start >= len(src) {
		return dst[:start]
	}
	return dst
}

// Decompress appends the decoded form of src to dst, at most limit bytes.
func (rc *rangeCoder) Decompress(dst, src []byte, limit int) ([]byte, error) {
	start := len(dst)
	var low, code, rng uint32 = 0, 0, ^uint32(0)
	in := 0
	for _, shift := range []uint{24, 16, 8, 0} {
		if in < len(src) {
			code |= uint32(src[in]) << shift
			in++
		}
	}
	if len(src) == 0 {
		return dst, errRangeCoder
	}
	read := func(total uint16) (uint16, bool) {
		if total == 0 {
			return 0, false
		}
		rng /= uint32(total)
		if rng == 0 {
			return 0, false
		}
		return uint16((code - low) / rng), true
	}
	decode := func(under, count uint32) bool {
		low += under * rng
		rng *= count
		for {
			if low^(low+rng) >= rcTop {
				if rng >= rcBottom {
					break
				}
				rng = -low & (rcBottom - 1)
				if rng == 0 {
					return false
				}
			}
			code <<= 8
			if in < len(src) {
				code |= uint32(src[in])
				in++
			}
			rng <<= 8
			low <<= 8
		}
		return true
	}
	rc.next = 0
	root := rc.context(rcEscapeMinimum, rcSymbolMinimum)
	var predicted uint16
	order := 0
	for {
		var value uint8
		parent := -1
		setParent := func(v uint16) {
			if parent < 0 {
				predicted = v
			} else {
				rc.s[parent].parent = v
			}
		}
		var bottom int
		sub := int(predicted)
		found := false
		for ; sub != root; sub = int(rc.s[sub].parent) {
			s := &rc.s[sub]
			if s.escapes <= 0 {
				continue
			}
			total := s.total
			if s.escapes >= total {
				continue
			}
			c, ok := read(total)
			if !ok {
				return dst[:start], errRangeCoder
			}
			if c < s.escapes {
				if !decode(0, uint32(s.escapes)) {
					return dst[:start], errRangeCoder
				}
				continue
			}
			c -= s.escapes
			sym, v, under, count, ok := rc.decodeSymbol(sub, c, rcSubSymbolDelta, 0, false)
			if !ok {
				return dst[:start], errRangeCoder
			}
			value = v
			bottom = sym
			if !decode(uint32(s.escapes)+uint32(under), uint32(count)) {
				return dst[:start], errRangeCoder
			}
			s.total += rcSubSymbolDelta
			if count > 0xFF-2*rcSubSymbolDelta || s.total > rcBottom-0x100 {
				rc.rescale(sub, 0)
			}
			found = true
			break
		}
		if !found {
			r := &rc.s[root]
			c, ok := read(r.total)
			if !ok {
				return dst[:start], errRangeCoder
			}
			if c < r.escapes {
				if !decode(0, uint32(r.escapes)) {
					return dst[:start], errRangeCoder
				}
				return dst, nil
			}
			c -= r.escapes
			sym, v, under, count, ok := rc.decodeSymbol(root, c, rcSymbolDelta, rcSymbolMinimum, true)
			if !ok {
				return dst[:start], errRangeCoder
			}
			value = v
			bottom = sym
			if !decode(uint32(r.escapes)+uint32(under), uint32(count)) {
				return dst[:start], errRangeCoder
			}
			r.total += rcSymbolDelta
			if count > 0xFF-2*rcSymbolDelta+rcSymbolMinimum || r.total > rcBottom-0x100 {
				rc.rescale(root, rcSymbolMinimum)
			}
			sub = root
		}
		for patch := int(predicted); patch != sub; patch = int(rc.s[patch].parent) {
			sym, _, count := rc.encodeSymbol(patch, value, rcSubSymbolDelta, 0)
			setParent(uint16(sym))
			parent = sym
			p := &rc.s[patch]
			if count <= 0 {
				p.escapes += rcSubEscapeDelta
				p.total += rcSubEscapeDelta
			}
			p.total += rcSubSymbolDelta
			if count > 0xFF-2*rcSubSymbolDelta || p.total > rcBottom-0x100 {
				rc.rescale(patch, 0)
			}
		}
		setParent(uint16(bottom))
		if len(dst)-start >= limit {
			return dst[:start], errRangeCoder
		}
		dst = append(dst, value)
		if order >= rcSubOrder {
			predicted = rc.s[predicted].parent
		} else {
			order++
		}
		if rc.next >= rcSymbols-rcSubOrder {
			rc.next = 0
			root = rc.context(rcEscapeMinimum, rcSymbolMinimum)
			predicted = 0
			order = 0
		}
	}
}

// decodeSymbol is ENET_CONTEXT_TRY_DECODE (root false: a symbol not in the context is an
// error) and ENET_CONTEXT_ROOT_DECODE (root true: it is added).
func (rc *rangeCoder) decodeSymbol(ctx int, code, update uint16, minimum int, root bool) (sym int, value uint8, under, count uint16, ok bool) {
	count = uint16(minimum)
	if rc.s[ctx].symbols == 0 {
		if !root {
			return 0, 0, 0, 0, false
		}
		value = uint8(int(code) / minimum)
		under = uint16(int(code) - int(code)%minimum)
		sym = rc.symbol(value, uint8(update))
		rc.s[ctx].symbols = uint16(sym - ctx)
		return sym, value, under, count, true
	}
	node := ctx + int(rc.s[ctx].symbols)
	for {
		n := &rc.s[node]
		after := uint16(int(under) + int(n.under) + (int(n.value)+1)*minimum)
		before := uint16(int(n.count) + minimum)
		switch {
		case code >= after:
			under += n.under
			if n.right != 0 {
				node += int(n.right)
				continue
			}
			if !root {
				return 0, 0, 0, 0, false
			}
			value = uint8(int(n.value) + 1 + (int(code)-int(after))/minimum)
			under = uint16(int(code) - (int(code)-int(after))%minimum)
			sym = rc.symbol(value, uint8(update))
			n.right = uint16(sym - node)
		case int(code) < int(after)-int(before):
			n.under += update
			if n.left != 0 {
				node += int(n.left)
				continue
			}
			if !root {
				return 0, 0, 0, 0, false
			}
			d := int(after) - int(before) - int(code) - 1
			value = uint8(int(n.value) - 1 - d/minimum)
			under = uint16(int(code) - d%minimum)
			sym = rc.symbol(value, uint8(update))
			n.left = uint16(sym - node)
		default:
			value = n.value
			count += uint16(n.count)
			under = after - before
			n.under += update
			n.count += uint8(update)
			sym = node
		}
		return sym, value, under, count, true
	}
}
