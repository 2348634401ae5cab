package worker

import (
	"os"

	"golang.org/x/sys/unix"
)

// unread is how many bytes the pipe f holds not yet read (FIONREAD,
// which the worker's filter allows), found without reading or waiting.
func unread(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	if rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }) != nil {
		return 0
	}
	return n
}
