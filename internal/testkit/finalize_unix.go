//go:build unix

package testkit

import (
	"errors"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// CollectDropped drops a file on the write end of a pipe and runs the
// collector until that file's finalizer has closed it (the pipe's read
// end then reads its end), at most 1,000 times: after it, the finalizers
// of files no one held have run. A test of a file kept from its
// finalizer has its control here.
func CollectDropped() error {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return err
	}
	defer unix.Close(p[0])
	if err := unix.SetNonblock(p[0], true); err != nil {
		unix.Close(p[1])
		return err
	}
	os.NewFile(uintptr(p[1]), "dropped")
	for range 1000 {
		if n, err := unix.Read(p[0], make([]byte, 1)); n == 0 && err == nil {
			return nil
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	return errors.New("a dropped file was not closed after 1,000 collections")
}
