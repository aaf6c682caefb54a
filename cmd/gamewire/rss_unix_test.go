//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident memory of a finished process in bytes, or 0 where the system does
// not say.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	return 0
}
