//go:build !unix

package browser

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
