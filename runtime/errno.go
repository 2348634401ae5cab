package runtime

import (
	"strconv"
	"strings"
	"syscall"
)

// errnoNames are the errnos confinement and the escape checks talk about.
var errnoNames = map[syscall.Errno]string{
	syscall.EPERM:        "EPERM",
	syscall.EACCES:       "EACCES",
	syscall.ENOSYS:       "ENOSYS",
	syscall.ENOENT:       "ENOENT",
	syscall.EXDEV:        "EXDEV",
	syscall.EINVAL:       "EINVAL",
	syscall.EBADF:        "EBADF",
	syscall.EFAULT:       "EFAULT",
	syscall.ENOTTY:       "ENOTTY",
	syscall.ESRCH:        "ESRCH",
	syscall.EEXIST:       "EEXIST",
	syscall.ENOTDIR:      "ENOTDIR",
	syscall.EISDIR:       "EISDIR",
	syscall.ECONNREFUSED: "ECONNREFUSED",
	syscall.EAFNOSUPPORT: "EAFNOSUPPORT",
	syscall.ENAMETOOLONG: "ENAMETOOLONG",
	syscall.ELOOP:        "ELOOP",
	syscall.EROFS:        "EROFS",
	syscall.ENOTCONN:     "ENOTCONN",
}

// ErrnoName returns the symbolic name of an errno, such as "EACCES", or
// "errno N" for one this table does not name.
func ErrnoName(e syscall.Errno) string {
	if n, ok := errnoNames[e]; ok {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}

func layerList(layers []string) string {
	return strings.Join(layers, ", ")
}
