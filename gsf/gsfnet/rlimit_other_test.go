//go:build !unix

package gsfnet

// raiseFileLimit reports no limit where there is no rlimit.
func raiseFileLimit(n uint64) uint64 { return n }
