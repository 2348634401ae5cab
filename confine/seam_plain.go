//go:build !unix && !windows

package confine

import "os/exec"

// startLifetime: this system has no process groups; Kill ends the worker
// alone.
func startLifetime(cmd *exec.Cmd) *processStarted { return &processStarted{cmd: cmd} }
