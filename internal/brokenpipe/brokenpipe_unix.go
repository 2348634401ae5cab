//go:build unix

package brokenpipe

import (
	"errors"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// replaced holds the files AsError took out of os.Stdout and os.Stderr,
// so that their finalizers never close descriptors 1 and 2.
var replaced []*os.File

// dupFrom copies a descriptor to the lowest free number at or above 3,
// closed on exec; a variable so that the test can make it fail.
var dupFrom = func(fd int) (int, error) {
	return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
}

// AsError makes a write to the process's standard output or standard
// error whose reader has gone away fail with EPIPE instead of ending the
// process with SIGPIPE (the package doc says how). It is called once,
// from a command's main, before anything writes to either stream.
func AsError() {
	for _, s := range []struct {
		fd   int
		file **os.File
	}{{1, &os.Stdout}, {2, &os.Stderr}} {
		fd, err := dupFrom(s.fd)
		if errors.Is(err, unix.EBADF) {
			continue // not open: no write to it reaches a pipe
		}
		if err != nil {
			signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
			return
		}
		replaced = append(replaced, *s.file)
		*s.file = os.NewFile(uintptr(fd), (*s.file).Name())
	}
}
