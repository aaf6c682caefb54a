//go:build !unix

package main

import "os"

// maxRSS is 0 where the system does not say a process's peak resident memory.
func maxRSS(*os.ProcessState) int64 { return 0 }
