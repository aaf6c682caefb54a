//go:build !linux

package enet

// initRawRead leaves rawRead nil: the read loop reads through net.PacketConn and the service
// goroutine sends the acknowledgements.
func (h *Host) initRawRead() {}
