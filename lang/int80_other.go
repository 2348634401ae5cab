//go:build linux && !amd64

package lang

import (
	"fmt"
	goruntime "runtime"
	"syscall"
)

// syscall32: the i386 entry, int $0x80, is offered on linux/amd64 only.
func syscall32([7]uintptr) (int64, syscall.Errno, error) {
	return 0, 0, fmt.Errorf("the i386 entry (int $0x80) is offered on linux/amd64 only, not linux/%s",
		goruntime.GOARCH)
}
