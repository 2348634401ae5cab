//go:build unix

package confine

import (
	"os/exec"
	"syscall"
)

// startSession has cmd start the worker in a session of its own: a
// process group of its own, so that Kill stops everything it started, and
// no controlling terminal, so that a terminal it inherited as standard
// input or output cannot be made to type, or to hand it the foreground.
func startSession(cmd *exec.Cmd) *processStarted {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	return &processStarted{cmd: cmd, kill: killGroup}
}

// killGroup kills the process group the worker leads.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
