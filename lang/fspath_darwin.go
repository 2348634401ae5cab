package lang

import (
	"bytes"
	goruntime "runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// oDir opens a directory of a walk for reading: Darwin has no O_PATH.
const oDir = unix.O_RDONLY

// dirPath is the canonical path of the open directory d (F_GETPATH).
func dirPath(d dirFD) (string, error) {
	buf := make([]byte, unix.PathMax+1)
	if _, err := unix.FcntlInt(uintptr(d), unix.F_GETPATH,
		int(uintptr(unsafe.Pointer(&buf[0])))); err != nil {
		return "", err
	}
	goruntime.KeepAlive(buf)
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	return string(buf), nil
}

// onProcfs is false: Darwin has no /proc.
func onProcfs(dirFD) bool { return false }
