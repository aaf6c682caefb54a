//go:build !unix

package gsfnet

import "time"

// raiseFileLimit reports no limit where there is no rlimit.
func raiseFileLimit(n uint64) uint64 { return n }

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
