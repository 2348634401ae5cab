package run

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
	"syscall"
)

// maxHeldScanned bounds the descriptors, and apart from them the
// mappings of removed files, of a worker that one measure of its unlinked
// files looks at (unlinkedHeld), so that a worker holding a great many
// costs the supervisor no more at each tick than one of maxHeldScanned:
// twice as many descriptors as a confined worker may hold
// (linux.MaxDescriptors), so that only a run with raw calls, which keeps
// the host's limit, can pass it. Each costs a stat through /proc, 6 to 12
// µs here: some 50 to 100 ms of processor time a measure at the bound, which
// the bounds watch then makes less often (measureShare). A worker
// holding more is not measured whole, and its run is stopped
// (tempDirWithin): a file removed while held past the bound (a program
// with raw calls that first held 4,100 descriptors, when the bound was
// 4,096, then a removed file of 1 GiB) was not counted, and the run
// ended ok.
const maxHeldScanned = 8192

// unlinkedHeld returns the apparent size of the regular files on the
// device dev (the private temporary directory's) that the process pid
// holds open or mapped and that no directory lists any more: a file made
// in its temporary directory and removed while it was open (its crash
// file among them), or made with O_TMPFILE. The walk of the directory
// (tempDirWithin) does not see them, yet they take its disk until the
// process ends. Each file counts once, however many descriptors and
// mappings hold it. What cannot be read counts nothing: the process gone,
// or its mappings' files (/proc/PID/map_files) to a supervisor without
// CAP_SYS_ADMIN, which then counts its descriptors alone. whole is false
// when the process holds more than maxHeldScanned descriptors, or maps
// more than maxHeldScanned removed files, of which those past the bound
// were not looked at.
func unlinkedHeld(pid int, dev uint64) (size int64, whole bool) {
	if pid <= 0 {
		return 0, true
	}
	proc := "/proc/" + strconv.Itoa(pid)
	seen := map[uint64]bool{}
	whole = true
	count := func(path string) {
		var st syscall.Stat_t
		if syscall.Stat(path, &st) != nil || st.Nlink != 0 || st.Mode&syscall.S_IFMT != syscall.S_IFREG ||
			uint64(st.Dev) != dev || seen[st.Ino] {
			return
		}
		seen[st.Ino] = true
		size += st.Size
	}
	if d, err := os.Open(proc + "/fd"); err == nil {
		names, _ := d.Readdirnames(maxHeldScanned + 1)
		d.Close()
		if len(names) > maxHeldScanned {
			names, whole = names[:maxHeldScanned], false
		}
		for _, name := range names {
			count(proc + "/fd/" + name)
		}
	}
	maps, err := os.Open(proc + "/maps")
	if err != nil {
		return size, whole
	}
	defer maps.Close()
	if !removedMappings(maps, func(span string) { count(proc + "/map_files/" + span) }) {
		whole = false
	}
	return size, whole
}

// removedMappings calls count with the START-END of each mapping of a
// removed file that the maps file read from maps names, the first
// maxHeldScanned of them, and reports whether it saw every line: false
// past the bound, or where the read was cut short (an error other than
// io.EOF), which counted a part.
func removedMappings(maps io.Reader, count func(span string)) (whole bool) {
	r := bufio.NewReaderSize(maps, 4096)
	for scanned := 0; ; {
		span, removed, err := nextMapping(r)
		if removed && span != "" {
			if scanned++; scanned > maxHeldScanned {
				return false
			}
			count(span)
		}
		if err != nil {
			return err == io.EOF // a read cut short counted a part
		}
	}
}

// removedMark ends the path of a removed file in a line of a maps file.
const removedMark = " (deleted)"

// nextMapping reads the next line of a maps file ([proc_pid_maps(5)]),
// "START-END PERMS OFFSET DEV INODE PATH", to its end however long it is,
// and returns its START-END (the text before its first space, "" where
// none is within r's buffer) and whether its path ends removedMark. A
// path is written whole, past PATH_MAX: a file beneath directories each
// made beneath the one before (mkdirat, openat) has a line as long as
// their names, 77 KB beneath 300 of 255 bytes. err is the read's, io.EOF
// after the last line.
//
// [proc_pid_maps(5)]: https://man7.org/linux/man-pages/man5/proc_pid_maps.5.html
func nextMapping(r *bufio.Reader) (span string, removed bool, err error) {
	var tail []byte // the line's last bytes read, at most len(removedMark)+1
	for first := true; ; first = false {
		chunk, err := r.ReadSlice('\n')
		if first {
			if s, _, ok := bytes.Cut(chunk, []byte(" ")); ok {
				span = string(s)
			}
		}
		tail = append(tail, chunk...)
		if n := len(removedMark) + 1; len(tail) > n {
			tail = append(tail[:0], tail[len(tail)-n:]...)
		}
		if err != bufio.ErrBufferFull {
			line := bytes.TrimSuffix(tail, []byte("\n"))
			return span, bytes.HasSuffix(line, []byte(removedMark)), err
		}
	}
}

// deviceOf returns the device dir lies on, and false where it cannot be
// read.
func deviceOf(dir string) (uint64, bool) {
	var st syscall.Stat_t
	if syscall.Stat(dir, &st) != nil {
		return 0, false
	}
	return uint64(st.Dev), true
}
