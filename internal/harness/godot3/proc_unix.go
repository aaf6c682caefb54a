//go:build unix

package godot3

import (
	"os/exec"
	"syscall"
)

// setProcessGroup gives the engine a process group of its own, so that killGroup ends it and
// anything it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills whatever is left of the engine's process group.
func killGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
