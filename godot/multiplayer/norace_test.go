//go:build !race

package multiplayer

const raceEnabled = false
