//go:build unix

package runtime

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// passPipes gives the worker the request pipe as descriptor 3 and the
// result pipe as 4, and starts it in a session of its own: a process
// group of its own, so that a timeout stops everything it started, and no
// controlling terminal, so that a terminal it inherited as standard input
// or output cannot be made to type, or to hand it the foreground.
func passPipes(cmd *exec.Cmd, req, res *os.File) {
	cmd.ExtraFiles = []*os.File{req, res}
	cmd.Args = append(cmd.Args, "3", "4")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	parentDeathSignal(cmd.SysProcAttr)
}

// killWorker kills the worker's process group.
func killWorker(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group may be gone already
	_ = cmd.Process.Kill()
}

func killedBy(ps *os.ProcessState) (int, bool) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return int(ws.Signal()), true
}

func signalName(sig int) string {
	if s := syscall.Signal(sig).String(); s != "" {
		return s
	}
	return "signal " + strconv.Itoa(sig)
}

// closeOnExec keeps the worker's pipes from any process a host module
// starts.
func closeOnExec(fd uintptr) { syscall.CloseOnExec(int(fd)) }

// sleepCommand is a process for probes to signal.
func sleepCommand() *exec.Cmd { return exec.Command("sleep", "60") }
