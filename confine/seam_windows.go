//go:build windows

package confine

import (
	"os/exec"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/confine/windows"
)

// prepareWorker makes the run's job object and, for a budget the plan
// gives one, its AppContainer (windows.PrepareWorker).
func prepareWorker(cmd *exec.Cmd, p core.Policy, o WorkerOptions) (Started, error) {
	return windows.PrepareWorker(cmd, p, o.RunID, o.TempDir, o.MaxMemoryMB)
}
