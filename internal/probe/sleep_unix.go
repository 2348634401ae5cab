//go:build !windows

package probe

import "os/exec"

// sleepCommand is a process for the probe to signal.
func sleepCommand() *exec.Cmd { return exec.Command("sleep", "60") }
