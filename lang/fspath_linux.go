package lang

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// oDir opens a directory of a walk as a path only: nothing is read, and
// no device is opened.
const oDir = unix.O_PATH

// dirPath is the canonical path of the open directory d, as the kernel
// reports it for the runtime's own descriptor.
func dirPath(d dirFD) (string, error) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(d)))
	if err != nil {
		return "", err
	}
	return p, nil
}

// onProcfs reports whether d is a directory of /proc (any mount of procfs).
func onProcfs(d dirFD) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(d), &st); err != nil {
		return true // fail closed
	}
	return st.Type == unix.PROC_SUPER_MAGIC
}
