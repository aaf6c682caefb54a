//go:build unix

package godot4

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup puts Chromium (a shell wrapper on Debian) and every process it starts into a
// process group of their own, so that stopProcessGroup ends them all.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// stopProcessGroup asks Chromium to terminate, so that it shuts its helper processes down
// and reaps them, waits for it to exit (exited delivers its Wait result), and then kills
// whatever is left of its process group.
func stopProcessGroup(cmd *exec.Cmd, exited <-chan error) {
	pgid := -cmd.Process.Pid
	syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
	}
	syscall.Kill(pgid, syscall.SIGKILL)
}
