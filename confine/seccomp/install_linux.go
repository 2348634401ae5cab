package seccomp

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Install installs prog as a seccomp filter on every thread of the
// process, for good: a filter cannot be removed, and one installed later
// can only refuse more.
//
// It sets no_new_privs, which an unprivileged process needs before it may
// install a filter, and installs the filter with SECCOMP_FILTER_FLAG_TSYNC,
// which gives every other thread the calling thread's filters and its
// no_new_privs. Both are per-thread, so the goroutine is locked to its OS
// thread for the two calls; threads started afterwards inherit both. When a
// thread cannot be synchronized (it has a filter the calling thread lacks),
// nothing is installed and the error names the thread id the kernel
// reported.
//
// It makes the Go runtime's poller first (makePoller), which the filter
// refuses to make afterwards.
func Install(prog []bpf.RawInstruction) error {
	if len(prog) == 0 || len(prog) > bpfMaxInstructions {
		return fmt.Errorf("install seccomp filter: %d instructions, want 1 to %d", len(prog),
			bpfMaxInstructions)
	}
	if err := makePoller(); err != nil {
		return fmt.Errorf("install seccomp filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, ins := range prog {
		filter[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("install seccomp filter: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	tid, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("install seccomp filter: seccomp(SECCOMP_SET_MODE_FILTER, TSYNC): %w", errno)
	}
	if tid != 0 {
		return fmt.Errorf("install seccomp filter: thread %d could not "+
			"be synchronized, so no thread is filtered", tid)
	}
	return nil
}

// makePoller makes the Go runtime's network poller, an epoll instance and
// the eventfd that wakes it, if it is not made yet: the runtime makes it
// once, when the first descriptor that can be polled (here a pipe) joins
// it, and never again. The filter refuses epoll_create1, eventfd2 and
// pipe2, so a poller the runtime first needed after the filter would end
// the worker (netpollinit throws).
func makePoller() error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("make the runtime's poller: %w", err)
	}
	r.Close()
	w.Close()
	return nil
}
