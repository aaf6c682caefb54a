package gsf

import (
	"encoding/binary"

	"github.com/gamewire/gamewire/internal/bitwin"
)

// decodeFast is the fast path of decode: it decodes the message null bit, the header and the
// body's null bit straight from the payload's bits, with a window of up to 64 bits in local
// variables instead of a bitstream.Reader. It handles the messages that are not null, have a
// header object and, if they are responses, no list of app codes. For anything else, errors
// included, it reports false, having possibly changed h; decode then decodes the message
// through the reader, which overwrites the header and reports the error.
func decodeFast(h *Header, b *RawBody, data []byte, n int) bool {
	x, avail, wend, ok := bitwin.Window(data, 0)
	if !ok {
		if x, avail, wend, ok = bitwin.Tail(data, 0); !ok {
			return false
		}
	}
	if avail < 2 || x>>62 != 0 { // a null message or a null header
		return false
	}
	x <<= 2
	avail -= 2
	// flags, svcClass and msgType, and for a service message requestId. Each is read from the
	// window as it is, and only when its form turns out longer than the bits left in the window
	// is the window loaded again and the form read again: a header mostly needs two loads.
	flags, size := bitwin.Int32Form(x)
	if size > avail {
		if x, avail, wend, ok = bitwin.Window(data, wend-avail); !ok {
			if x, avail, wend, ok = bitwin.Refill(data, wend); !ok {
				return false
			}
		}
		if flags, size = bitwin.Int32Form(x); size > avail {
			return false
		}
	}
	x, avail = x<<(size&63), avail-size
	class, size := bitwin.Int32Form(x)
	if size > avail {
		if x, avail, wend, ok = bitwin.Window(data, wend-avail); !ok {
			if x, avail, wend, ok = bitwin.Refill(data, wend); !ok {
				return false
			}
		}
		if class, size = bitwin.Int32Form(x); size > avail {
			return false
		}
	}
	x, avail = x<<(size&63), avail-size
	msgType, size := bitwin.Int32Form(x)
	if size > avail {
		if x, avail, wend, ok = bitwin.Window(data, wend-avail); !ok {
			if x, avail, wend, ok = bitwin.Refill(data, wend); !ok {
				return false
			}
		}
		if msgType, size = bitwin.Int32Form(x); size > avail {
			return false
		}
	}
	x, avail = x<<(size&63), avail-size
	var id int32
	if flags&FlagNotify == 0 {
		if id, size = bitwin.Int32Form(x); size > avail {
			if x, avail, wend, ok = bitwin.Window(data, wend-avail); !ok {
				if x, avail, wend, ok = bitwin.Refill(data, wend); !ok {
					return false
				}
			}
			if id, size = bitwin.Int32Form(x); size > avail {
				return false
			}
		}
		x, avail = x<<(size&63), avail-size
	}
	h.setRequest(flags, ServiceClass(class), msgType, id)
	if h.IsService() {
		var s string
		if h.Flags&FlagResponse == 0 {
			// The log correlator, most often empty: its length inline.
			l, size := bitwin.Int32Form(x)
			if size > avail {
				if x, avail, wend, ok = bitwin.Window(data, wend-avail); !ok {
					if x, avail, wend, ok = bitwin.Refill(data, wend); !ok {
						return false
					}
				}
				l, size = bitwin.Int32Form(x)
			}
			if (l == 0 || l == -1) && size <= avail {
				x <<= size & 63
				avail -= size
			} else {
				if s, x, avail, wend, ok = stringAt(data, x, avail, wend); !ok {
					return false
				}
				h.LogCorrelator = s
			}
		} else {
			var result, app int32
			if result, x, avail, wend, ok = int32At(data, x, avail, wend); !ok {
				return false
			}
			if app, x, avail, wend, ok = int32At(data, x, avail, wend); !ok {
				return false
			}
			h.ResultCode, h.AppCode = ResultCode(result), AppCode(app)
			if h.AppCode == AppCodeMultiple {
				return false
			}
			if h.AppCode != 0 {
				if s, x, avail, wend, ok = stringAt(data, x, avail, wend); !ok {
					return false
				}
				if s != "" {
					h.AppString = s
				}
			}
		}
	}
	// The body's null bit.
	if avail == 0 {
		if x, avail, wend, ok = bitwin.Refill(data, wend); !ok {
			return false
		}
	}
	b.data, b.start, b.end, b.present = data, int(wend-avail+1), n*8, int64(x) >= 0
	return true
}

// int32At reads the compressed int32 at the window x (the avail bits before bit offset wend,
// left-aligned) and returns it and the window after it. It fails when the integer goes beyond
// the end of data.
func int32At(data []byte, x uint64, avail, wend uint) (v int32, x2 uint64, avail2, wend2 uint, ok bool) {
	if avail < 37 { // the longest form
		if x, avail, wend, ok = bitwin.Refill(data, wend-avail); !ok {
			return 0, x, avail, wend, false
		}
	}
	v, n := bitwin.Int32Form(x)
	if n > avail {
		return 0, x, avail, wend, false
	}
	return v, x << (n & 63), avail - n, wend, true
}

// stringAt reads the string at the window x (as for int32At) and returns it and the window after
// it. It fails when the string's length is negative, or the string goes beyond the end of data.
func stringAt(data []byte, x uint64, avail, wend uint) (s string, x2 uint64, avail2, wend2 uint, ok bool) {
	var l int32
	if l, x, avail, wend, ok = int32At(data, x, avail, wend); !ok {
		return "", x, avail, wend, false
	}
	if l == 0 || l == -1 {
		return "", x, avail, wend, true
	}
	i := (wend - avail + 7) >> 3 // the first byte, at the next byte boundary
	if l < 0 || int64(l) > int64(uint(len(data))-i) {
		return "", x, avail, wend, false
	}
	return string(data[i : i+uint(l)]), 0, 0, (i + uint(l)) * 8, true
}

// decodeRequest is decodeFast for the most common shape of all, a request whose header is in the
// first 16 bytes of data, for the caller to try first when isRequest(data): a first byte of 0010
// and a nibble without FlagNotify and FlagResponse (the message and the header are not null,
// flags is in the nibble form), and an empty log correlator in the nibble form. The 128 bits are held in two
// words, from which the window is taken again twice, at offsets known to leave enough bits for
// what follows, instead of checking each field's length against the window. It reports false for
// any other shape, having changed nothing.
func decodeRequest(h *Header, b *RawBody, data []byte, n int) bool {
	hi, lo := binary.BigEndian.Uint64(data), binary.BigEndian.Uint64(data[8:16])
	flags := int32(int64(hi<<4) >> 60)
	class, s := bitwin.Int32FormShortFirst(hi<<8 | lo>>56)
	p := 8 + s                   // 14..45
	x := hi<<p | lo>>((64-p)&63) // 64 bits
	msgType, s := bitwin.Int32FormShortFirst(x)
	p += s // 20..82: at least 46 bits are left, for requestId, the log correlator and the body
	switch {
	case s <= 20: // x holds at least the 44 bits they take
		x <<= s & 63
	case p < 64:
		x = hi<<p | lo>>((64-p)&63)
	default:
		x = lo << (p & 63)
	}
	id, s := bitwin.Int32FormShortFirst(x)
	x <<= s & 63
	// The log correlator's length: 0 or -1 in the nibble form (100000 or 101111).
	if x>>58 != 0b100000 && x>>58 != 0b101111 {
		return false
	}
	h.setRequest(flags, ServiceClass(class), msgType, id)
	b.data, b.start, b.end, b.present = data, int(p+s+7), n*8, int64(x<<6) >= 0
	return true
}

// isRequest reports whether data may hold a message for decodeRequest (see there).
func isRequest(data []byte) bool { return len(data) >= 16 && data[0]&0xf3 == 0x20 }

// setRequest makes h a header without a result: flags, service class, message type and request
// id set, the other fields cleared. The fields are set one by one, and the strings and the slice
// only when they are not empty already: a composite literal would be built on the stack and
// copied, and pointer stores cost write barriers while the garbage collector runs.
func (h *Header) setRequest(flags int32, class ServiceClass, msgType, id int32) {
	h.Flags, h.SvcClass, h.MsgType, h.RequestID = flags, class, msgType, id
	h.ResultCode, h.AppCode = 0, 0
	if h.LogCorrelator != "" {
		h.LogCorrelator = ""
	}
	if h.AppString != "" {
		h.AppString = ""
	}
	if h.AppCodes != nil {
		h.AppCodes = nil
	}
}
