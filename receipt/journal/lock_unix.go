//go:build unix

package journal

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock(2) of f without waiting.
func lockFile(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if !errors.Is(lerr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if errors.Is(lerr, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return lerr
}
