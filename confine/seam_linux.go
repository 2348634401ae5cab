//go:build linux

package confine

import (
	"os/exec"
	"syscall"
)

// prepareWorker starts the worker in a session of its own and has the
// kernel kill it if the supervisor dies without stopping it (kill -9 of
// the supervisor, say). The worker holds itself (Apply); nothing of the
// policy is the supervisor's to do.
func prepareWorker(cmd *exec.Cmd, _ Policy, _ WorkerOptions) (Started, error) {
	s := startSession(cmd)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	return s, nil
}
