//go:build !unix

package godot4

import (
	"os/exec"
	"time"
)

func setProcessGroup(cmd *exec.Cmd) {}

func stopProcessGroup(cmd *exec.Cmd, exited <-chan error) {
	cmd.Process.Kill()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
	}
}
