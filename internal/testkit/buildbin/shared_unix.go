//go:build unix

package buildbin

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// sharedDir is the directory the binaries are shared in, made when it is
// not there: $TMPDIR/sabline-testbin-UID, a directory (not a link) this
// user owns that no one else may write or read. When it is anything else
// (another user made it first, say), nothing is shared: a binary someone
// else could have written is never run.
func sharedDir() (string, bool) {
	d := filepath.Join(os.TempDir(), fmt.Sprintf("sabline-testbin-%d", os.Getuid()))
	return d, ours(d)
}

// ours makes d when it is not there, and reports whether it is a directory
// (not a link) that this user owns and no one else may write or read.
func ours(d string) bool {
	if err := os.Mkdir(d, 0o700); err != nil && !os.IsExist(err) {
		return false
	}
	info, err := os.Lstat(d)
	if err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// lock takes an exclusive lock of the file path, made when missing, and
// returns its release; where it cannot, it returns a release that does
// nothing, and the build goes on without it.
func lock(path string) (unlock func()) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return func() {}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() } // closing the descriptor releases the lock
}
