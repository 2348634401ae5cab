package lang

import (
	"os"
	"strings"

	"golang.org/x/sys/windows"
)

// openedPath is the final path of the open file f, as the system reports it.
func openedPath(f *os.File) (string, error) {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetFinalPathNameByHandle(windows.Handle(f.Fd()), &buf[0], uint32(len(buf)), 0)
	if err != nil {
		return "", err
	}
	if int(n) > len(buf) {
		return "", windows.ERROR_FILENAME_EXCED_RANGE
	}
	p := windows.UTF16ToString(buf[:n])
	if strings.HasPrefix(p, `\\?\UNC\`) {
		return `\\` + p[len(`\\?\UNC\`):], nil
	}
	return strings.TrimPrefix(p, `\\?\`), nil
}
