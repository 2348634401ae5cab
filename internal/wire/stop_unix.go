//go:build unix

package wire

import (
	"os"
	"syscall"
)

// StopSignal is the signal that asks a worker to end its program where it
// is: the supervisor sends it when the run's deadline passes (and kills
// the worker if it has not ended within its grace), and the worker's
// interpreter stops at its next step. ok is false where a worker has no
// signal to be asked with.
func StopSignal() (sig os.Signal, ok bool) { return syscall.SIGUSR1, true }
