//go:build !race

package godot

// slabOwner is empty without the race detector: procPin alone makes a goroutine the only user
// of its P's slab.
type slabOwner struct{}

func (*slabOwner) enter() {}
func (*slabOwner) leave() {}
