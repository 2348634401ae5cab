//go:build unix

package runtime

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// passPipes gives the worker the request pipe as descriptor 3, the result
// pipe as 4 and, when the host passed one, the tool channel as 5, and
// starts it in a session of its own: a process
// group of its own, so that a timeout stops everything it started, and no
// controlling terminal, so that a terminal it inherited as standard input
// or output cannot be made to type, or to hand it the foreground.
func passPipes(cmd *exec.Cmd, req, res, tool *os.File) {
	cmd.ExtraFiles = []*os.File{req, res}
	cmd.Args = append(cmd.Args, "3", "4")
	if tool != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, tool)
		cmd.Args = append(cmd.Args, "5")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	parentDeathSignal(cmd.SysProcAttr)
}

// killWorker kills the worker's process group.
func killWorker(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group may be gone already
	_ = cmd.Process.Kill()
}

func killedBy(ps *os.ProcessState) (int, bool) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return int(ws.Signal()), true
}

func signalName(sig int) string {
	if s := syscall.Signal(sig).String(); s != "" {
		return s
	}
	return "signal " + strconv.Itoa(sig)
}

// closeOnExec keeps the worker's pipes from any process a host module
// starts.
func closeOnExec(fd uintptr) { syscall.CloseOnExec(int(fd)) }

// sleepCommand is a process for probes to signal.
func sleepCommand() *exec.Cmd { return exec.Command("sleep", "60") }

// crashToFile makes f the worker's standard error, the descriptor the Go
// runtime writes a crash report to, and keeps the standard error the
// worker inherited as os.Stderr, for its own messages. It runs before the
// policy is applied.
func crashToFile(f *os.File) error {
	saved, err := unix.FcntlInt(2, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return fmt.Errorf("keep standard error: %w", err)
	}
	if err := unix.Dup2(int(f.Fd()), 2); err != nil {
		unix.Close(saved)
		return fmt.Errorf("standard error to the crash file: %w", err)
	}
	os.Stderr = os.NewFile(uintptr(saved), "/dev/stderr")
	return nil
}

// lockDir holds an exclusive lock on dir until unlock: the lock goes when
// the process does, however it ends.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("flock: %w", err)
	}
	return func() { f.Close() }, nil
}

// tryLockDir takes dir's lock if no process holds it; ok is false when one
// does, or when dir cannot be opened as a directory.
func tryLockDir(dir string) (unlock func(), ok bool) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
