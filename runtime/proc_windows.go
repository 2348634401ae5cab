//go:build windows

package runtime

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// passPipes lets the worker inherit the two pipe handles and names them as
// its arguments.
func passPipes(cmd *exec.Cmd, req, res *os.File) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		AdditionalInheritedHandles: []syscall.Handle{syscall.Handle(req.Fd()), syscall.Handle(res.Fd())},
	}
	cmd.Args = append(cmd.Args, strconv.FormatUint(uint64(req.Fd()), 10), strconv.FormatUint(uint64(res.Fd()), 10))
}

func killWorker(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// killedBy: Windows ends processes with exit codes, not signals.
func killedBy(*os.ProcessState) (int, bool) { return 0, false }

func signalName(sig int) string { return "signal " + strconv.Itoa(sig) }

func closeOnExec(uintptr) {}

// sleepCommand is a process for probes to end.
func sleepCommand() *exec.Cmd { return exec.Command("ping", "-n", "60", "127.0.0.1") }
