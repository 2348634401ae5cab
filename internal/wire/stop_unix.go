//go:build unix

package wire

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// StopSignal is the signal that asks a worker to end its program where it
// is: the supervisor sends it when the run's deadline passes (and kills
// the worker if it has not ended within its grace), and the worker's
// interpreter stops at its next step. ok is false where a worker has no
// signal to be asked with.
func StopSignal() (sig os.Signal, ok bool) { return syscall.SIGUSR1, true }

// MonotonicNow is the machine's monotonic clock (CLOCK_MONOTONIC) in
// nanoseconds, which the supervisor and its worker read alike (no worker
// gets a time namespace of its own): a deadline one sets on it is the
// same instant for the other (Request.Deadline). ok is false where the
// clock cannot be read.
func MonotonicNow() (ns int64, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
