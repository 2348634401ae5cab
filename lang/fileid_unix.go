//go:build unix

package lang

import (
	"os"
	"syscall"
)

// FileIDOf is the identity of the file f is open on: its device and
// inode. ok is false when it cannot be read.
func FileIDOf(f *os.File) (id FileID, ok bool) {
	fi, err := f.Stat()
	if err != nil {
		return FileID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, false
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
}
