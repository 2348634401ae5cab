//go:build darwin

package confine

import (
	"os/exec"

	"github.com/sabline/sabline/confine/core"
)

// prepareWorker starts the worker in a session of its own. macOS has no
// parent-death signal: a supervisor killed with SIGKILL leaves its worker
// running until the run's own end. The worker holds itself (Apply, with
// sandbox_init); nothing of the policy is the supervisor's to do.
func prepareWorker(cmd *exec.Cmd, _ core.Policy, _ WorkerOptions) (Started, error) {
	return startSession(cmd), nil
}
