package worker

import (
	"fmt"
	"io"
	"os"
	goruntime "runtime"

	"github.com/sabline/sabline/internal/resident"
)

// statusPath is the worker's own status file (proc_pid_status(5)), whose
// lines the watch counts (package resident).
const statusPath = "/proc/self/status"

// memoryGauge returns the memory watch's measure: the bytes of memory the
// worker's process holds of its own, as package resident counts them
// (its resident anonymous and shared memory and its swap: the Go
// runtime's, and any mapping made outside it, once written). A read is
// the kernel's counters: it stops no goroutine, and needs no
// runtime/metrics, whose initialisation every start of the sabline
// binary would pay.
func memoryGauge() func() uint64 { return statusGauge(statusPath, os.Stderr) }

// statusGauge is memoryGauge reading the file at path. The file is opened
// and read now, before the worker is confined (its policy grants no
// /proc), and read again at each call, which one goroutine makes at a
// time (the watch's). Where it cannot be opened or read now (said on
// warn), or read later, what the Go runtime holds (runtimeHeld) stands
// in.
func statusGauge(path string, warn io.Writer) func() uint64 {
	status, err := resident.Open(path)
	if err != nil {
		fmt.Fprintf(warn, noStatusWarning, err)
		return runtimeHeld
	}
	return func() uint64 {
		held, err := status.Held()
		if err != nil {
			return runtimeHeld()
		}
		return held
	}
}

// noStatusWarning is what a worker says when its memory watch cannot read
// the process's memory from the kernel.
const noStatusWarning = "sabline: worker: the memory watch reads what the Go runtime holds, " +
	"which leaves out a mapping made outside it: %v\n"

// runtimeHeld is what the Go runtime holds from the system less what it
// gave back, the total its soft limit counts. ReadMemStats stops the
// world for a moment: it is the stand-in where the status file cannot be
// read.
func runtimeHeld() uint64 {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.Sys - m.HeapReleased
}
