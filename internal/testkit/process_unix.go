//go:build unix

package testkit

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"testing"
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

// ReaderGone returns the writing end of a pipe whose reading end is
// closed: a write to it fails with EPIPE and raises SIGPIPE in the
// writer. It is closed when the test ends.
func ReaderGone(t testing.TB) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return w
}

// EndedBy returns the signal that ended the process ps describes, and
// whether one did.
func EndedBy(ps *os.ProcessState) (syscall.Signal, bool) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ws.Signal(), ok && ws.Signaled()
}
