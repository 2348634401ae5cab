//go:build linux && (amd64 || arm64)

package run

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"unsafe"
)

// terminalStops are the signals a terminal stops its foreground job with:
// Ctrl-Z (SIGTSTP), and a read or a write of the terminal by a job in the
// background (SIGTTIN, SIGTTOU).
var terminalStops = []os.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}

// takeTerminal takes terminalStops from now on, for followTerminal, and
// returns where they come; signal.Stop of it gives them back.
func takeTerminal() chan os.Signal {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, terminalStops...)
	return sigs
}

// followTerminal has the worker w stop and go on with its supervisor, a
// command line's, until the returned function is called. A terminal's
// stop reaches the supervisor's process group alone: the worker, in a
// session of its own, would run on while the supervisor, which holds the
// run's timeout, stood still. On one of terminalStops the supervisor
// stops the worker's process group (SIGSTOP, which no program can take
// or ignore), then itself, as it would have stopped without taking the
// signal (stopWith); once it is continued (SIGCONT: a shell's fg or bg),
// it continues the worker's group. The time stopped counts toward the
// timeout, which is the run's wall-clock time. sigs are the stops taken
// before the worker started (takeTerminal): one that came while it
// started waits there, and stops the worker and the supervisor now.
func followTerminal(w *workerProc, sigs chan os.Signal) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case sig := <-sigs:
				stopWith(w, sig.(syscall.Signal))
			case <-quit:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(quit)
		<-done
	}
}

// stopWith stops the worker's process group, then this process with sig
// at its default action (raiseDefault), and continues the group once
// this process goes on. Where the kernel drops sig (this process's group
// is orphaned: no shell is left to continue it), this process and the
// worker go on at once.
func stopWith(w *workerProc, sig syscall.Signal) {
	group := -w.cmd.Process.Pid // the worker leads a session of its own
	held := !w.exited() && syscall.Kill(group, syscall.SIGSTOP) == nil
	raiseDefault(sig)
	if held {
		_ = syscall.Kill(group, syscall.SIGCONT)
	}
}

// sigaction is the kernel's struct sigaction on amd64 and arm64
// (rt_sigaction(2)); the zero value's handler is SIG_DFL.
type sigaction struct {
	handler, flags, restorer uintptr
	mask                     uint64
}

// raiseDefault has this thread take sig at its default action, as a
// process that never caught it would, and returns once it is continued
// (or at once, where the kernel drops it), with the Go runtime's handler
// back in place. The runtime keeps its handler for a stop signal once
// os/signal has asked for it (signal.Reset leaves it, and it then drops
// the signal), so the action is set here, for as long as the signal
// takes. The signal is sent to this thread (tgkill), whose return from
// the call takes it: sent to the process, another thread could take it
// after this one had gone on.
func raiseDefault(sig syscall.Signal) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var dfl, was sigaction
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig),
		uintptr(unsafe.Pointer(&dfl)), uintptr(unsafe.Pointer(&was)), 8, 0, 0); e != 0 {
		return
	}
	_ = syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), sig)
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig),
		uintptr(unsafe.Pointer(&was)), 0, 8, 0, 0)
}
