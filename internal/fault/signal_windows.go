//go:build windows

package fault

import (
	"os"
	"syscall"
)

func extraSignal(string) (syscall.Signal, bool) { return 0, false }

// sendSignal ends the process: Windows has no signals to send another
// process, and termination is what the fault hook's signal stands for.
func sendSignal(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
