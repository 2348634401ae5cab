package escape

import "os/exec"

// ownGroup does nothing on Windows, which has no process groups to kill.
func ownGroup(*exec.Cmd) {}

// killGroup kills cmd itself; a process it started is not reached.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
