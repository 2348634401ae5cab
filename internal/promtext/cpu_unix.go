//go:build unix

package promtext

import (
	"syscall"
	"time"
)

// processCPU is the processor time this process has used, user and
// system, over every thread, as the kernel counts it (getrusage(2)).
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
