package testkit

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Patience is how many times longer than on a quiet machine a test waits
// for something that takes CPU time to arrive: the tasks that want a core
// per core (the one-minute load average, or the tasks runnable now, the
// larger), at least 1. Off Linux, where /proc/loadavg is not, it is 1.
//
// A wait that Patience scales is an upper bound on something the test
// waits for, never a sleep: on a quiet machine it ends when the thing
// arrives, on a loaded one it gives up later.
func Patience() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	// "0.52 0.58 0.59 3/512 12345": three averages, then runnable/total.
	f := strings.Fields(string(data))
	if len(f) < 4 {
		return 1
	}
	load, _ := strconv.ParseFloat(f[0], 64)
	if running, _, ok := strings.Cut(f[3], "/"); ok {
		if n, err := strconv.ParseFloat(running, 64); err == nil {
			load = max(load, n)
		}
	}
	return max(1, load/float64(runtime.NumCPU()))
}

// Bound is d scaled by Patience: the bound of a wait for something that
// takes d on a quiet machine, at most.
func Bound(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Patience())
}
