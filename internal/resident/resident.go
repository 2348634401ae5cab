// Package resident reads how much memory a process holds of its own, as
// Sabline's memory limit counts it: its resident anonymous and shared
// memory and its swap, the RssAnon, RssShmem and VmSwap lines of its
// Linux status file ([proc_pid_status(5)]). That is the Go runtime's heap,
// stacks and metadata, and any mapping made outside the runtime, private
// or shared (a raw mmap, a memfd mapped), once written; the pages of the
// files it maps (its binary's own among them) are the page cache's, and
// are not counted, nor are a memfd's that it never maps.
//
// Two readers count with it, each with its own [Status]: a worker watches
// itself (/proc/self/status, opened before it is confined), and the
// supervisor watches each worker from outside ([OfProcess]), which holds
// where the worker's own watch cannot run: while the worker's Go runtime
// waits to stop a goroutine that one long operation keeps from stopping.
// Elsewhere than Linux, [Open] and [OfProcess] return an error that is
// [errors.ErrUnsupported].
//
// # Reading
//
// The kernel makes the file afresh at each read from its start, so a
// [Status] is opened once and read with one pread each time, into a
// buffer kept between reads; a read stops no goroutine of the reader's.
// A read takes at most 1 MiB of the file, and the counted lines are
// parsed strictly: each once, at the start of a line, in kB; a file that
// does not give them so is an error, never a count of 0.
//
// [proc_pid_status(5)]: https://man7.org/linux/man-pages/man5/proc_pid_status.5.html
package resident

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"syscall"
)

// maxStatus bounds what one read of a status file takes. The file is some
// 1.5 KB, and its Groups line, before the lines counted, grows with the
// user's supplementary groups (at most 65,536 of 11 bytes).
const maxStatus = 1 << 20

// Status is a process's status file, open, and the buffer it is read
// into. One goroutine reads it at a time.
type Status struct {
	f   *os.File
	rc  syscall.RawConn // f's, through which each read holds its descriptor
	buf []byte
}

// count reads the counted lines of a status file, in kB, and returns their
// sum in bytes. It says false unless each is there once, at the start of
// a line, with a number of kB.
func count(status []byte) (uint64, bool) {
	var sum uint64
	var seen [len(counted)]bool
	for line := range bytes.Lines(status) {
		name, value, _ := bytes.Cut(line, []byte(":"))
		i := slices.Index(counted[:], string(name))
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

// counted are the lines of a status file that count adds up.
var counted = [...]string{"RssAnon", "RssShmem", "VmSwap"}
