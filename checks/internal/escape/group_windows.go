package escape

import (
	"os"
	"os/exec"
)

// ownGroup does nothing on Windows, which has no process groups to kill.
func ownGroup(*exec.Cmd) {}

// killGroup kills cmd itself; a process it started is not reached.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// signaled reports true: on Windows no signal ends a process, another
// ends it (TerminateProcess) with the status it chooses, so any end of
// the victim is read as its killing.
func signaled(*os.ProcessState) bool { return true }
