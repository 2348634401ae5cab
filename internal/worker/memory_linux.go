package worker

import (
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"

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

// statmPath is the worker's own statm file (proc_pid_statm(5)): its
// sizes in pages, the resident one second and the shared one (resident
// pages a file or shared memory backs) third.
const statmPath = "/proc/self/statm"

// heldGauge returns a pool worker's measure of what a job left: the
// anonymous memory its process holds resident (statm's resident pages
// less its shared ones), which the Go runtime's heap and stacks, and a
// job's garbage among them, are. The file is opened now, before the
// worker is confined (its policy grants no /proc), and read with one
// pread at each call, some 2 µs; where it cannot be opened or read, what
// the Go runtime holds (runtimeHeld) stands in. It needs no
// runtime/metrics, whose initialisation every start of the sabline
// binary would pay.
func heldGauge() func() uint64 {
	f, err := os.Open(statmPath)
	if err != nil {
		return runtimeHeld
	}
	page := uint64(os.Getpagesize())
	var buf [128]byte
	return func() uint64 {
		n, err := f.ReadAt(buf[:], 0)
		if err != nil && err != io.EOF {
			return runtimeHeld()
		}
		resident, shared, ok := statmHeld(buf[:n])
		if !ok {
			return runtimeHeld()
		}
		return (resident - shared) * page
	}
}

// statmHeld reads a statm file's resident and shared pages, and whether
// it could: shared is at most resident.
func statmHeld(b []byte) (resident, shared uint64, ok bool) {
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0, 0, false
	}
	r, err1 := strconv.ParseUint(f[1], 10, 64)
	s, err2 := strconv.ParseUint(f[2], 10, 64)
	if err1 != nil || err2 != nil || s > r {
		return 0, 0, false
	}
	return r, s, true
}
