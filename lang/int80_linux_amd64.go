package lang

import "syscall"

// int80 makes system call nr through the i386 entry, int $0x80, with its
// arguments in ebx, ecx, edx, esi, edi and ebp, and returns eax. The
// kernel takes it as a 32-bit call: seccomp sees AUDIT_ARCH_I386 and the
// i386 numbers (getpid is 20, not 39). It is not announced to the Go
// scheduler: a call that blocks holds its thread.
func int80(nr, a1, a2, a3, a4, a5, a6 uintptr) uintptr

// syscall32 makes the i386 call w[0] with arguments w[1:] and returns its
// result, or -1 and the errno.
func syscall32(w [7]uintptr) (int64, syscall.Errno, error) {
	r := int32(int80(w[0], w[1], w[2], w[3], w[4], w[5], w[6]))
	if r < 0 && r >= -4095 {
		return -1, syscall.Errno(-r), nil
	}
	return int64(r), 0, nil
}
