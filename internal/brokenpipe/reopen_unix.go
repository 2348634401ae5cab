//go:build unix

package brokenpipe

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Reopen does what Ignore does for os.Stdout and os.Stderr, with no
// signal ignored or asked for: each becomes a file of a descriptor of its
// own, a duplicate of 1 or 2 above standard error, closed on exec. Go
// raises SIGPIPE for a broken pipe only on a write to descriptor 1 or 2
// through an os.File; the kernel's SIGPIPE for any other write, Go's
// runtime drops. So a write through either whose reader has gone fails
// with EPIPE, and the programs the process starts find SIGPIPE at its
// default, having inherited descriptors 1 and 2 as they were. A writer
// that took descriptor 1 or 2 before the call (a package's, at its
// initialisation) is not covered: the worker makes descriptor 2 its
// crash file, a regular file, before it runs anything of a program's.
// The files replaced are kept, so that no finalizer closes descriptor 1
// or 2 under what the process puts there.
func Reopen() error {
	for _, f := range []**os.File{&os.Stdout, &os.Stderr} {
		fd, err := unix.FcntlInt((*f).Fd(), unix.F_DUPFD_CLOEXEC, 3)
		if err != nil {
			return fmt.Errorf("reopen %s: %w", (*f).Name(), err)
		}
		replaced = append(replaced, *f)
		*f = os.NewFile(uintptr(fd), (*f).Name())
	}
	return nil
}

// replaced holds the files Reopen took out of os.Stdout and os.Stderr.
var replaced []*os.File
