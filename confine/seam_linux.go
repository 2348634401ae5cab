//go:build linux

package confine

import (
	"os/exec"
	"syscall"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
)

// prepareWorker starts the worker in a session of its own and has the
// kernel kill it if the supervisor dies without stopping it (kill -9 of
// the supervisor, say). The worker holds itself (Apply); nothing of the
// policy is the supervisor's to do. A memory limit is held by a cgroup of
// the worker's own too, where this machine lets the supervisor make one
// (see planCgroup). A worker held to a policy that enforces something is
// started in a mount namespace of its own where this process can make one
// (linux.MountNamespace), in which Apply refuses device nodes outside /dev.
func prepareWorker(cmd *exec.Cmd, p core.Policy, o WorkerOptions) (Started, error) {
	s := startSession(cmd)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	linux.MountNamespace(cmd, p)
	if o.MaxMemoryMB > 0 {
		if cg, why := linux.NewMemoryCgroup(o.MaxMemoryMB); cg != nil {
			s.cgroup, s.memory = cg, core.MemoryHold{By: linux.CgroupHolds}
		} else {
			s.memory = core.MemoryHold{Why: why}
		}
	}
	return s, nil
}
