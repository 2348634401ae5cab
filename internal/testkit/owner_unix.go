//go:build unix

package testkit

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedHere reports whether fi is this process's effective user's.
func ownedHere(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
