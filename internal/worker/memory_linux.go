package worker

import (
	"bytes"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
)

// statusPath is where Linux gives a process's state, among it its
// resident memory by kind (proc_pid_status(5)): RssAnon, private
// anonymous pages; RssFile, pages mapped from files; RssShmem, shared
// memory (a shared anonymous mapping, a memfd, a file of a tmpfs mapped).
const statusPath = "/proc/self/status"

// maxStatus bounds what one read of statusPath takes: the file is some
// 1.5 KB, and the lines the gauge reads come early in it.
const maxStatus = 4096

// memoryGauge returns the memory watch's measure: the bytes of memory the
// worker's process holds of its own, its resident anonymous and shared
// memory (RssAnon + RssShmem). That is the Go runtime's heap, stacks and
// metadata, and any mapping made outside the runtime, private or shared
// (a raw mmap through ffi:ctypes, once written); the pages of files it
// maps, the binary's own among them, are not. A read is the kernel's
// counters: it stops no goroutine, and needs no runtime/metrics, whose
// initialisation every start of the sabline binary would pay.
func memoryGauge() func() uint64 { return statusGauge(statusPath, os.Stderr) }

// statusGauge is memoryGauge reading the file at path. The file is opened
// now, before the worker is confined (its policy grants no /proc), and
// read again at each call, which one goroutine makes at a time (the
// watch's). Where it cannot be opened (said on warn) or read, what the
// Go runtime holds (runtimeHeld) stands in.
func statusGauge(path string, warn io.Writer) func() uint64 {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(warn, noStatusWarning, err)
		return runtimeHeld
	}
	buf := make([]byte, maxStatus)
	return func() uint64 {
		n, err := f.ReadAt(buf, 0)
		if err != nil && err != io.EOF {
			return runtimeHeld()
		}
		held, ok := residentHeld(buf[:n])
		if !ok {
			return runtimeHeld()
		}
		return held
	}
}

// noStatusWarning is what a worker says when its memory watch cannot read
// the process's memory from the kernel.
const noStatusWarning = "sabline: worker: the memory watch reads what the Go runtime holds, " +
	"which leaves out a mapping made outside it: %v\n"

// residentHeld reads the RssAnon and RssShmem lines of a status file, in
// kB, and returns their sum in bytes. It says false unless each is there
// once, at the start of a line, with a number of kB.
func residentHeld(status []byte) (uint64, bool) {
	var sum uint64
	var seen [len(heldLines)]bool
	for line := range bytes.Lines(status) {
		name, value, _ := bytes.Cut(line, []byte(":"))
		i := slices.Index(heldLines[:], string(name))
		if i < 0 {
			continue
		}
		f := bytes.Fields(value)
		if seen[i] || len(f) != 2 || string(f[1]) != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseUint(string(f[0]), 10, 44) // at most 16 EiB in bytes
		if err != nil {
			return 0, false
		}
		sum, seen[i] = sum+kb<<10, true
	}
	if slices.Contains(seen[:], false) {
		return 0, false
	}
	return sum, true
}

// heldLines are the lines of a status file that the gauge adds up.
var heldLines = [...]string{"RssAnon", "RssShmem"}

// runtimeHeld is what the Go runtime holds from the system less what it
// gave back, the total its soft limit counts. ReadMemStats stops the
// world for a moment: it is the stand-in where the status file cannot be
// read.
func runtimeHeld() uint64 {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.Sys - m.HeapReleased
}
