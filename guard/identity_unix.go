//go:build !windows

package guard

import "syscall"

// statID is the identity of the entry at p, not followed where it is a
// link.
func statID(p string) (ID, bool) {
	var st syscall.Stat_t
	if syscall.Lstat(p, &st) != nil {
		return ID{}, false
	}
	return ID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
}
