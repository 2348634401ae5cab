//go:build windows

package run

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// passPipes lets the worker inherit the pipe handles, and the tool
// channel's when there is one, and names them as its arguments. A
// Windows run has no broker channel (broker.Pair fails there): brokered
// is always nil.
func passPipes(cmd *exec.Cmd, req, res, stop, tool, _, _ *os.File) {
	files := []*os.File{req, res, stop}
	if tool != nil {
		files = append(files, tool)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	for _, f := range files {
		// The handles must be inheritable already: StartProcess only
		// lists them (syscall.SysProcAttr's AdditionalInheritedHandles).
		_ = windows.SetHandleInformation(windows.Handle(f.Fd()), windows.HANDLE_FLAG_INHERIT,
			windows.HANDLE_FLAG_INHERIT)
		cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles,
			syscall.Handle(f.Fd()))
		cmd.Args = append(cmd.Args, strconv.FormatUint(uint64(f.Fd()), 10))
	}
}

// killedBy: Windows ends processes with exit codes, not signals.
func killedBy(*os.ProcessState) (int, bool) { return 0, false }

func signalName(sig int) string { return "signal " + strconv.Itoa(sig) }

// sentSignal: Windows sends no signals a runtime catches and reports.
func sentSignal(string) (int, bool) { return 0, false }

// lockDir: no lock on Windows, and so no sweep (tryLockDir never succeeds):
// a directory left behind stays rather than risk another run's.
func lockDir(string) (func(), error) { return func() {}, nil }

func tryLockDir(string) (func(), bool) { return nil, false }

// removeTree: no run on Windows makes the raw system calls (ctypes is
// Linux's) that made, elsewhere, a directory os.RemoveAll leaves.
func removeTree(dir string) error { return os.RemoveAll(dir) }

// ownedPrivate: a directory made in the user's own profile is the user's;
// Windows holds it by its ACL, which MkdirAll inherits from the profile.
func ownedPrivate(string, os.FileInfo) error { return nil }

// ancestorsOurs: Windows holds the profile's directories by their ACLs,
// which are not read.
func ancestorsOurs(string) error { return nil }

// maxRSSKB: Windows's process state carries times, not memory; the
// receipt leaves it out.
func maxRSSKB(*os.ProcessState) int64 { return 0 }

// toolPair: Windows has no socket pair to relay the tool channel over;
// the host's handle is passed to the worker as it is (ours is nil).
func toolPair() (theirs, ours *os.File, err error) { return nil, nil, nil }

// endWrites: Windows relays no tool channel (toolPair), so there is no
// pair whose writing half to shut down.
func endWrites(*os.File) {}

// feed copies src, the caller's, to dst until it ends or dst refuses:
// Windows has no poll to wait on a file beside woken with, and a copy
// still waiting on the caller's input when the worker has gone ends at
// that input.
func feed(dst io.Writer, src io.Reader, woken *os.File) { _, _ = io.Copy(dst, src) }
