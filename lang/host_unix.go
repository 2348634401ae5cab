//go:build unix

package lang

import (
	"os/exec"
	"syscall"
)

func shellCommand(c string) *exec.Cmd { return exec.Command("/bin/sh", "-c", c) }

// nativeWrite creates or truncates path and writes data with the system
// calls themselves, as a native library would.
func nativeWrite(path string, data []byte) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC,
		0o644)
	if err != nil {
		return err
	}
	_, err = syscall.Write(fd, data)
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	return err
}
