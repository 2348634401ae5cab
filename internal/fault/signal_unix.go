//go:build unix

package fault

import (
	"strings"
	"syscall"
)

func extraSignal(s string) (syscall.Signal, bool) {
	switch strings.TrimPrefix(strings.ToUpper(s), "SIG") {
	case "USR1":
		return syscall.SIGUSR1, true
	case "USR2":
		return syscall.SIGUSR2, true
	}
	return 0, false
}

func sendSignal(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }
