package wire

import (
	"os"

	"golang.org/x/sys/unix"
)

// Unread is how many bytes the pipe f holds that no one has read yet,
// found without reading or waiting (FIONREAD, which the worker's filter
// allows), from either of its ends: a worker looks into its stop pipe as
// its run begins. 0 where it cannot be read.
func Unread(f *os.File) int {
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
