#include "textflag.h"

// func int80(nr, a1, a2, a3, a4, a5, a6 uintptr) uintptr
//
// The i386 convention passes the sixth argument in EBP, which is this
// architecture's frame pointer. BP is saved in R12 and holds the argument
// only across the INT instruction; the caller has blocked every
// asynchronous signal on this thread for that time (see syscall32), so
// no signal handler runs while BP is not a frame pointer. The one signal
// the INT itself can raise, SIGSEGV on a kernel without the i386 entry, is
// synchronous, and syscall32 recovers from it before it unblocks the rest.
TEXT ·int80(SB), NOSPLIT, $0-64
	MOVQ BP, R12
	MOVQ nr+0(FP), AX
	MOVQ a1+8(FP), BX
	MOVQ a2+16(FP), CX
	MOVQ a3+24(FP), DX
	MOVQ a4+32(FP), SI
	MOVQ a5+40(FP), DI
	MOVQ a6+48(FP), BP
	INT $0x80
	MOVQ R12, BP
	MOVQ AX, ret+56(FP)
	RET
