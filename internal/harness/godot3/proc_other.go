//go:build !unix

package godot3

import "os/exec"

// setProcessGroup does nothing where there are no process groups.
func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the engine's process.
func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
