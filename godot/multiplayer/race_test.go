//go:build race

package multiplayer

// raceEnabled scales the load tests down under the race detector, which slows them ~10×.
const raceEnabled = true
