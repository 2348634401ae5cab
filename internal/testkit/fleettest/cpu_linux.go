package fleettest

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on
// Linux's every architecture Sabline builds for).
const clockTick = 10 * time.Millisecond

// CPU is the processor time the replicas have used so far: each serve
// process and its live children (its workers, its store agent), user and
// system, from /proc. Sampled before and after a load, the difference is
// what the load cost them.
func (f *Fleet) CPU() (time.Duration, bool) {
	var total time.Duration
	for i := range f.Replicas {
		pid := f.Pid(i)
		total += procCPU(pid)
		kids, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) +
			"/children")
		if err != nil {
			return 0, false
		}
		for _, k := range strings.Fields(string(kids)) {
			if n, err := strconv.Atoi(k); err == nil {
				total += procCPU(n)
			}
		}
	}
	return total, true
}

// procCPU is pid's user and system time, 0 when it is gone.
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis: utime and
	// stime are the 12th and 13th of them.
	i := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(fields[11], 10, 64)
	s, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(u+s) * clockTick
}
