package run

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// maxHeldScanned bounds the descriptors and mappings of a worker that one
// measure of its unlinked files looks at (unlinkedHeld), so that a worker
// holding a great many costs the supervisor no more at each tick than
// one of maxHeldScanned: as many descriptors as a confined worker may
// hold.
const maxHeldScanned = 4096

// unlinkedHeld returns the apparent size of the regular files on the
// device dev (the private temporary directory's) that the process pid
// holds open or mapped and that no directory lists any more: a file made
// in its temporary directory and removed while it was open (its crash
// file among them), or made with O_TMPFILE. The walk of the directory
// (tempDirWithin) does not see them, yet they take its disk until the
// process ends. Each file counts once, however many descriptors and
// mappings hold it. What cannot be read counts nothing: the process gone,
// or its mappings' files (/proc/PID/map_files) to a supervisor without
// CAP_SYS_ADMIN, which then counts its descriptors alone.
func unlinkedHeld(pid int, dev uint64) int64 {
	if pid <= 0 {
		return 0
	}
	proc := "/proc/" + strconv.Itoa(pid)
	seen := map[uint64]bool{}
	var size int64
	count := func(path string) {
		var st syscall.Stat_t
		if syscall.Stat(path, &st) != nil || st.Nlink != 0 || st.Mode&syscall.S_IFMT != syscall.S_IFREG ||
			uint64(st.Dev) != dev || seen[st.Ino] {
			return
		}
		seen[st.Ino] = true
		size += st.Size
	}
	scanned := 0
	if d, err := os.Open(proc + "/fd"); err == nil {
		names, _ := d.Readdirnames(maxHeldScanned)
		d.Close()
		for _, name := range names {
			count(proc + "/fd/" + name)
		}
		scanned = len(names)
	}
	maps, err := os.Open(proc + "/maps")
	if err != nil {
		return size
	}
	defer maps.Close()
	// A line: "START-END PERMS OFFSET DEV INODE PATH", the path of a
	// removed file ending " (deleted)".
	lines := bufio.NewScanner(maps)
	for lines.Scan() && scanned < maxHeldScanned {
		line := lines.Bytes()
		if !bytes.HasSuffix(line, []byte(" (deleted)")) {
			continue
		}
		scanned++
		if span, _, ok := bytes.Cut(line, []byte(" ")); ok {
			count(proc + "/map_files/" + string(span))
		}
	}
	return size
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
