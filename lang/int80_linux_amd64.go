package lang

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// int80 makes system call nr through the i386 entry, int $0x80, with its
// arguments in ebx, ecx, edx, esi, edi and ebp, and returns eax. The
// kernel takes it as a 32-bit call: seccomp sees AUDIT_ARCH_I386 and the
// i386 numbers (getpid is 20, not 39). It is not announced to the Go
// scheduler: a call that blocks holds its thread. Only syscall32 calls it.
func int80(nr, a1, a2, a3, a4, a5, a6 uintptr) uintptr

// ErrNoI386Entry is the error of a call through the i386 entry on a kernel
// that has none: built without IA32 emulation, or started with
// ia32_emulation=0. The kernel answers int $0x80 there with a general
// protection fault, before any call is made.
var ErrNoI386Entry = errors.New("this kernel has no i386 entry: int $0x80 faulted before any " +
	"call was made")

// syncSignals are the signals an instruction raises itself; they stay
// deliverable while syscall32 blocks the rest.
var syncSignals = []syscall.Signal{syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGILL,
	syscall.SIGTRAP}

// syscall32 makes the i386 call w[0] with arguments w[1:] and returns its
// result, or -1 and the errno, or ErrNoI386Entry.
//
// The call runs on a locked thread whose asynchronous signals are blocked
// for its length: the sixth argument travels in the frame pointer, and no
// signal handler may find it there (int80). The fault of a kernel without
// the entry is recovered from (debug.SetPanicOnFault) instead of ending
// the process.
func syscall32(w [7]uintptr) (r int64, errno syscall.Errno, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	blocked := ^uint64(0)
	for _, s := range syncSignals {
		blocked &^= 1 << (s - 1)
	}
	var old uint64
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_BLOCK,
		uintptr(unsafe.Pointer(&blocked)), uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 {
		return 0, 0, fmt.Errorf("block the signals of the call's thread: rt_sigprocmask: %w", e)
	}
	defer syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK,
		uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if _, fault := p.(interface{ Addr() uintptr }); !fault {
				panic(p)
			}
			r, errno, err = 0, 0, ErrNoI386Entry
		}
	}()
	ret := int32(int80(w[0], w[1], w[2], w[3], w[4], w[5], w[6]))
	if ret < 0 && ret >= -4095 {
		return -1, syscall.Errno(-ret), nil
	}
	return int64(ret), 0, nil
}
