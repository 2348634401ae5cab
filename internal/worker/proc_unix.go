//go:build unix

package worker

import (
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// crashToFile makes f descriptor 2, the one the Go runtime writes a crash
// report to. os.Stderr, for the worker's own messages, is already the
// standard error the worker inherited on a descriptor of its own
// (brokenpipe.Reopen, first thing in Main), which also keeps descriptor
// 2's former file from its finalizer: that would close descriptor 2, now
// the crash file, and the next file opened would take its number, crash
// report and all (TestCrashFileStays). It runs before the policy is
// applied, and refuses to run before Reopen.
func crashToFile(f *os.File) error {
	if os.Stderr.Fd() == 2 {
		return errors.New("standard error to the crash file: os.Stderr is still descriptor 2 " +
			"(brokenpipe.Reopen first)")
	}
	if err := unix.Dup2(int(f.Fd()), 2); err != nil {
		return fmt.Errorf("standard error to the crash file: %w", err)
	}
	return nil
}

// closeInherited closes every descriptor above standard error that the
// worker inherited without asking: whatever the operator's shell or an
// embedding host left open reaches the worker through exec, and a file
// opened outside every grant is no longer held by Landlock once it is
// open. A descriptor that survived exec is one without FD_CLOEXEC, and
// the Go runtime opens all of its own with it, so the ones that lack it
// here, but for the pipes workerPipes already marked, are the inherited
// ones. It runs first thing in the worker, before the policy.
func closeInherited() error {
	dir := "/proc/self/fd"
	if goruntime.GOOS != "linux" {
		dir = "/dev/fd"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list the worker's descriptors: %w", err)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // the directory's own descriptor, gone already, or the runtime's
		}
		if err := unix.Close(fd); err != nil {
			return fmt.Errorf("close inherited descriptor %d: %w", fd, err)
		}
	}
	return nil
}

// umaskAtLeast is the least umask a worker runs with: no file or
// directory a run makes is writable by its group or by others, whatever
// mode it asks for. The language makes files 0644 and directories 0755,
// but a raw mkdirat(2) or openat(2) names its own mode: under an
// operator's umask of 0 a strict run at full made a directory 0777 and a
// file 0666 in its granted directory, and another user then put a file
// in the one and wrote in the other, for the operator's next run to read.
const umaskAtLeast = 0o022

// narrowUmask adds umaskAtLeast to the umask the worker inherited, before
// the program and anything a host module starts. It runs before the
// policy is applied.
func narrowUmask() {
	old := unix.Umask(umaskAtLeast)
	unix.Umask(old | umaskAtLeast)
}

// closeOnExec keeps the worker's pipes from any process a host module
// starts.
func closeOnExec(fd uintptr) { syscall.CloseOnExec(int(fd)) }

// pollable makes the pipe fd non-blocking, which os.NewFile then has the
// runtime's poller wait on: the pipe is the worker's alone (its other end
// is the supervisor's), so no other process sees the change. Not on
// macOS, where Go polls no pipe (kqueue does not report its writer
// closing) and a non-blocking read would fail where it should wait.
func pollable(fd uintptr) {
	if goruntime.GOOS != "darwin" {
		_ = syscall.SetNonblock(int(fd), true)
	}
}
