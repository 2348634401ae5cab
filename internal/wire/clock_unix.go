//go:build unix

package wire

import "golang.org/x/sys/unix"

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
