package worker

import (
	"bytes"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// statusPath is where Linux gives a process's state, among it its
// resident memory by kind (proc_pid_status(5)): RssAnon, private
// anonymous pages; RssFile, pages mapped from files; RssShmem, shared
// memory (a shared anonymous mapping, a memfd, a file of a tmpfs mapped);
// and VmSwap, its anonymous pages swapped out.
const statusPath = "/proc/self/status"

// maxStatus bounds what one read of statusPath takes. The file is some
// 1.5 KB, and its Groups line, before the lines the gauge reads, grows
// with the user's supplementary groups (at most 65,536 of 11 bytes).
const maxStatus = 1 << 20

// memoryGauge returns the memory watch's measure: the bytes of memory the
// worker's process holds of its own, its resident anonymous and shared
// memory and its swap (RssAnon + RssShmem + VmSwap). That is the Go
// runtime's heap, stacks and metadata, and any mapping made outside the
// runtime, private or shared (a raw mmap through ffi:ctypes, once
// written); the pages of files it maps, the binary's own among them, are
// not. A read is the kernel's counters: it stops no goroutine, and needs
// no runtime/metrics, whose initialisation every start of the sabline
// binary would pay.
func memoryGauge() func() uint64 { return statusGauge(statusPath, os.Stderr) }

// statusGauge is memoryGauge reading the file at path. The file is opened
// and read now, before the worker is confined (its policy grants no
// /proc), and read again at each call, which one goroutine makes at a
// time (the watch's). Where it cannot be opened or read now (said on
// warn), or read later, what the Go runtime holds (runtimeHeld) stands
// in.
func statusGauge(path string, warn io.Writer) func() uint64 {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(warn, noStatusWarning, err)
		return runtimeHeld
	}
	buf := make([]byte, 4096)
	if _, err := readStatus(f, &buf); err != nil {
		f.Close()
		fmt.Fprintf(warn, noStatusWarning, err)
		return runtimeHeld
	}
	return func() uint64 {
		held, err := readStatus(f, &buf)
		if err != nil {
			return runtimeHeld()
		}
		return held
	}
}

// readStatus reads the status file f whole, in one pread (the kernel
// makes the file afresh at each read from its start), into buf, which it
// grows when the file filled it, up to maxStatus; and sums its lines
// (residentHeld).
func readStatus(f *os.File, buf *[]byte) (uint64, error) {
	for {
		n, err := unix.Pread(int(f.Fd()), *buf, 0)
		switch {
		case err != nil:
			return 0, fmt.Errorf("read %s: %w", f.Name(), err)
		case n == len(*buf) && n < maxStatus:
			*buf = make([]byte, 2*n)
			continue
		}
		held, ok := residentHeld((*buf)[:n])
		if !ok {
			return 0, fmt.Errorf("read %s: no RssAnon, RssShmem and VmSwap lines in kB in its "+
				"first %d bytes", f.Name(), n)
		}
		return held, nil
	}
}

// noStatusWarning is what a worker says when its memory watch cannot read
// the process's memory from the kernel.
const noStatusWarning = "sabline: worker: the memory watch reads what the Go runtime holds, " +
	"which leaves out a mapping made outside it: %v\n"

// residentHeld reads the heldLines of a status file, in kB, and returns
// their sum in bytes. It says false unless each is there once, at the
// start of a line, with a number of kB.
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
		kb, err := strconv.ParseUint(string(f[0]), 10, 44) // at most 16 PiB in bytes
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
var heldLines = [...]string{"RssAnon", "RssShmem", "VmSwap"}

// runtimeHeld is what the Go runtime holds from the system less what it
// gave back, the total its soft limit counts. ReadMemStats stops the
// world for a moment: it is the stand-in where the status file cannot be
// read.
func runtimeHeld() uint64 {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.Sys - m.HeapReleased
}
