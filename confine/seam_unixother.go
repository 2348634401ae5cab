//go:build unix && !linux && !darwin

package confine

import "os/exec"

// startLifetime starts the worker in a session of its own.
func startLifetime(cmd *exec.Cmd) *processStarted { return startSession(cmd) }
