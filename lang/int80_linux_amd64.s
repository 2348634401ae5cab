#include "textflag.h"

// func int80(nr, a1, a2, a3, a4, a5, a6 uintptr) uintptr
//
// BP carries the sixth argument, as the i386 convention has it, and is
// kept in R12 across the call: it is the frame pointer.
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
