//go:build unix

package lang

import (
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrnoName returns the symbolic name of an errno, such as "EACCES", or
// "errno N" for one this system does not name.
func ErrnoName(e syscall.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}
