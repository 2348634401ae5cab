//go:build windows

package lang

import (
	"strconv"
	"syscall"
)

// errnoNames are the errnos Windows' syscall package invents for the Unix
// names the runtime's messages use.
var errnoNames = map[syscall.Errno]string{
	syscall.EPERM:   "EPERM",
	syscall.EACCES:  "EACCES",
	syscall.ENOENT:  "ENOENT",
	syscall.ENOSYS:  "ENOSYS",
	syscall.EINVAL:  "EINVAL",
	syscall.EBADF:   "EBADF",
	syscall.EEXIST:  "EEXIST",
	syscall.ENOTDIR: "ENOTDIR",
}

// ErrnoName returns the symbolic name of an errno: one of the Unix names
// the runtime's messages use ("EACCES"), or "errno N". A refusal of a
// layer is named by the run's Refusal, as winerror.h names it.
func ErrnoName(e syscall.Errno) string {
	if n, ok := errnoNames[e]; ok {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}
