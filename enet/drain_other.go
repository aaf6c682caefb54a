//go:build !linux

package enet

// drainCheck is unavailable here: the read loop hands acknowledgements to the service goroutine.
type drainCheck struct{}

func (d *drainCheck) init(*Host) bool { return false }

func (d *drainCheck) empty() bool { return true }
