//go:build !unix && !windows

package promtext

import "time"

// processCPU is not known here: process_cpu_seconds_total is not written.
func processCPU() (time.Duration, bool) { return 0, false }
