//go:build unix

package browser

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts Chromium and every process it starts into a process group of their own,
// so that killGroup ends them all.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills whatever is left of Chromium's process group.
func killGroup(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
