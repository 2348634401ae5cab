//go:build windows

package lang

import (
	"strconv"
	"syscall"

	"github.com/sabline/sabline/confine"
)

// errnoNames are the errnos Windows' syscall package invents for the Unix
// names the runtime's messages use.
var errnoNames = map[syscall.Errno]string{
	syscall.EPERM: "EPERM", syscall.EACCES: "EACCES", syscall.ENOENT: "ENOENT", syscall.ENOSYS: "ENOSYS",
	syscall.EINVAL: "EINVAL", syscall.EBADF: "EBADF", syscall.EEXIST: "EEXIST", syscall.ENOTDIR: "ENOTDIR",
}

// ErrnoName returns the symbolic name of an errno: a Windows error of
// confine.Refusals as winerror.h names it ("ERROR_ACCESS_DENIED"), one of
// the Unix names the runtime's messages use ("EACCES"), or "errno N" for
// one neither names.
func ErrnoName(e syscall.Errno) string {
	if n, ok := confine.WindowsErrnoName(uint32(e)); ok {
		return n
	}
	if n, ok := errnoNames[e]; ok {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}
