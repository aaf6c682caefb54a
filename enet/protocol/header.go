package protocol

import (
	"encoding/binary"
	"hash/crc32"
)

// Header is the protocol header of a datagram: a 16-bit field holding the peer id (12 bits), the
// session id (2 bits) and the flags (compressed, sent time), then the sent time when its flag is
// set, then the checksum when the hosts use one.
type Header struct {
	// PeerID is the receiver's peer id, MaximumPeerID (0xFFF) when the sender has none yet.
	PeerID uint16
	// SessionID is the 2-bit session id of the connection.
	SessionID uint8
	// Compressed says the commands after the header are compressed.
	Compressed bool
	// HasSentTime says the header carries SentTime (a datagram with reliable commands does).
	HasSentTime bool
	// SentTime is the low 16 bits of the sender's clock in milliseconds.
	SentTime uint16
	// Checksum is the CRC32 field (see [Checksum]) when the hosts use checksums.
	Checksum uint32
}

// Size returns the encoded size of h: 2, 4, 6 or 8 bytes.
func (h *Header) Size(checksum bool) int {
	n := 2
	if h.HasSentTime {
		n += 2
	}
	if checksum {
		n += 4
	}
	return n
}

// ConsumeHeader reads a header from b. checksum says whether the hosts use checksums (the header
// does not say). It returns the header and its length.
func ConsumeHeader(b []byte, checksum bool) (Header, int, error) {
	var h Header
	if len(b) < 2 {
		return h, 0, &DecodeError{Offset: 0, Field: "peerID", Err: ErrTruncated}
	}
	v := binary.BigEndian.Uint16(b)
	h.PeerID = v &^ (HeaderFlagMask | HeaderSessionMask)
	h.SessionID = uint8((v & HeaderSessionMask) >> HeaderSessionShift)
	h.Compressed = v&HeaderFlagCompressed != 0
	h.HasSentTime = v&HeaderFlagSentTime != 0
	n := 2
	if h.HasSentTime {
		if len(b) < 4 {
			return h, 0, &DecodeError{Offset: 2, Field: "sentTime", Err: ErrTruncated}
		}
		h.SentTime = binary.BigEndian.Uint16(b[2:])
		n = 4
	}
	if checksum {
		if len(b) < n+4 {
			return h, 0, &DecodeError{Offset: int64(n), Field: "checksum", Err: ErrTruncated}
		}
		h.Checksum = binary.BigEndian.Uint32(b[n:])
		n += 4
	}
	return h, n, nil
}

// AppendHeader appends h to b; checksum says whether to append the Checksum field.
func AppendHeader(b []byte, h *Header, checksum bool) []byte {
	v := h.PeerID&^(HeaderFlagMask|HeaderSessionMask) | uint16(h.SessionID&3)<<HeaderSessionShift
	if h.Compressed {
		v |= HeaderFlagCompressed
	}
	if h.HasSentTime {
		v |= HeaderFlagSentTime
	}
	b = binary.BigEndian.AppendUint16(b, v)
	if h.HasSentTime {
		b = binary.BigEndian.AppendUint16(b, h.SentTime)
	}
	if checksum {
		b = binary.BigEndian.AppendUint32(b, h.Checksum)
	}
	return b
}

// Checksum computes ENet's CRC32 of an uncompressed datagram whose header ends at headerLen
// and whose last four header bytes are the checksum field, as C ENet does: the field is taken as
// the connect id (0 for a datagram to or from peer id 0xFFF) while the CRC-32 (IEEE) of the whole
// datagram is computed. The datagram is not modified.
func Checksum(datagram []byte, headerLen int, connectID uint32) uint32 {
	var id [4]byte
	binary.BigEndian.PutUint32(id[:], connectID)
	c := crc32.Update(0, crc32.IEEETable, datagram[:headerLen-4])
	c = crc32.Update(c, crc32.IEEETable, id[:])
	return crc32.Update(c, crc32.IEEETable, datagram[headerLen:])
}

// SetChecksum fills the checksum field (the last four bytes of the header, which ends at
// headerLen) of datagram.
func SetChecksum(datagram []byte, headerLen int, connectID uint32) {
	binary.BigEndian.PutUint32(datagram[headerLen-4:], Checksum(datagram, headerLen, connectID))
}
