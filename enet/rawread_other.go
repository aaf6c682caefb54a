//go:build !linux

package enet

// initRawRead leaves rawRead nil: the read loop reads through net.PacketConn and the service
// goroutine sends the acknowledgements.
func (h *Host) initRawRead() {}

// batchWrite reports false: every datagram is sent on its own.
func (h *Host) batchWrite(*Peer, []byte) bool { return false }

// writeBatch is Linux's (unsafe.go).
type writeBatch struct{}
