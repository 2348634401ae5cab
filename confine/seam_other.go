//go:build !linux && !darwin && !windows

package confine

import (
	"os/exec"

	"github.com/sabline/sabline/confine/core"
)

// prepareWorker ties the worker's life to the run as this system allows,
// and fails closed for a policy that enforces something: this build has
// no confinement here, and Apply in the worker says so too.
func prepareWorker(cmd *exec.Cmd, p core.Policy, _ WorkerOptions) (Started, error) {
	s := startLifetime(cmd)
	if p.Enforced {
		return s, core.ErrUnsupported
	}
	return s, nil
}
