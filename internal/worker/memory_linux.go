package worker

import (
	"bytes"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
)

// statmPath is where Linux gives a process's memory in pages: its size,
// resident, shared (resident and backed by a file or shared memory), text,
// lib, data and dt, in that order (proc_pid_statm(5)).
const statmPath = "/proc/self/statm"

// memoryGauge returns the memory watch's measure: the bytes of memory the
// worker's process holds of its own, the resident pages no file backs
// (statm's resident less shared). That is the Go runtime's heap, stacks
// and metadata, and any mapping made outside the runtime (a raw mmap
// through ffi:ctypes, once written); the binary's own pages, which the
// page cache holds, are not. A read is the kernel's counters: it stops no
// goroutine, and it links no runtime/metrics, whose initialisation every
// start of the sabline binary would pay.
func memoryGauge() func() uint64 { return statmGauge(statmPath) }

// statmGauge is memoryGauge reading the file at path. The file is opened
// now, before the worker is confined (its policy grants no /proc), and
// read again at each call, which one goroutine makes at a time (the
// watch's). Where it cannot be opened or read, what the Go runtime holds
// (runtimeHeld) stands in.
func statmGauge(path string) func() uint64 {
	f, err := os.Open(path)
	if err != nil {
		return runtimeHeld
	}
	page := uint64(os.Getpagesize())
	var buf [256]byte
	return func() uint64 {
		n, err := f.ReadAt(buf[:], 0)
		if err != nil && err != io.EOF {
			return runtimeHeld()
		}
		pages, ok := anonymousPages(buf[:n])
		if !ok {
			return runtimeHeld()
		}
		return pages * page
	}
}

// anonymousPages reads statm's line: its resident pages less its shared
// ones. It says false for a line that does not begin with three numbers.
func anonymousPages(line []byte) (uint64, bool) {
	f := bytes.Fields(line)
	if len(f) < 3 {
		return 0, false
	}
	resident, err1 := strconv.ParseUint(string(f[1]), 10, 64)
	shared, err2 := strconv.ParseUint(string(f[2]), 10, 64)
	if err1 != nil || err2 != nil || shared > resident {
		return 0, false
	}
	return resident - shared, true
}

// runtimeHeld is what the Go runtime holds from the system less what it
// gave back, the total its soft limit counts. ReadMemStats stops the
// world for a moment: it is the stand-in where statm cannot be read.
func runtimeHeld() uint64 {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.Sys - m.HeapReleased
}
