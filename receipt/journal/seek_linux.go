package journal

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// dataFrom returns where the data of f at or after off begins, before
// end (lseek(2) SEEK_DATA): the holes of a sparse file, which read as
// zeros and hold no record, are passed over without reading them. A file
// with no data from off gives end; ok is false when the file system
// cannot say, and the caller reads on from off.
func dataFrom(f *os.File, off, end int64) (at int64, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		at, serr = unix.Seek(int(fd), off, unix.SEEK_DATA)
	}); err != nil {
		return 0, false
	}
	switch {
	case errors.Is(serr, unix.ENXIO): // no data at or after off
		return end, true
	case serr != nil || at < off:
		return 0, false
	}
	return min(at, end), true
}
