package promtext

import (
	"syscall"
	"time"
)

// processCPU is the processor time this process has used, user and
// kernel, as the system counts it (GetProcessTimes).
func processCPU() (time.Duration, bool) {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0, false
	}
	var created, exited, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, false
	}
	ticks := func(f syscall.Filetime) time.Duration { // in units of 100 ns
		return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
	}
	return ticks(kernel) + ticks(user), true
}
