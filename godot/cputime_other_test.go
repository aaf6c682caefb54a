//go:build !unix

package godot

import "time"

// cpuTime returns the wall-clock time where the process's CPU time is not at hand.
func cpuTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
