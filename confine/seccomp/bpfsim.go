package seccomp

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/net/bpf"
)

// callData is the kernel's struct seccomp_data: what a seccomp filter
// reads about a call.
type callData struct {
	Nr                 int32     // the system call number
	Arch               uint32    // the AUDIT_ARCH_* value of the ABI used
	InstructionPointer uint64    // where the call was made
	Args               [6]uint64 // the arguments, as the registers hold them
}

// The layout of struct seccomp_data.
const (
	seccompDataNr   = 0  // int nr
	seccompDataArch = 4  // __u32 arch
	seccompDataArgs = 16 // __u64 args[6], after __u64 instruction_pointer
	seccompDataSize = 64
)

// seccompArgLow is the offset of the low 32 bits of argument i. Both
// architectures Sabline builds for are little-endian, so a 64-bit argument
// has its low word first and its high word at +4 (seccompArgHigh), which
// only the filter's pointer tests read.
func seccompArgLow(i int) uint32 {
	return seccompDataArgs + 8*uint32(i)
}

// bytes lays d out in memory as a little-endian kernel does.
func (d callData) bytes() [seccompDataSize]byte {
	var b [seccompDataSize]byte
	binary.LittleEndian.PutUint32(b[seccompDataNr:], uint32(d.Nr))
	binary.LittleEndian.PutUint32(b[seccompDataArch:], d.Arch)
	binary.LittleEndian.PutUint64(b[8:], d.InstructionPointer)
	for i, a := range d.Args {
		binary.LittleEndian.PutUint64(b[seccompDataArgs+8*i:], a)
	}
	return b
}

// The classic BPF opcodes a seccomp filter may use, and their parts. The
// kernel accepts no other (seccomp_check_filter in kernel/seccomp.c).
const (
	bpfMaxInstructions = 4096 // BPF_MAXINSNS
	bpfMemWords        = 16   // BPF_MEMWORDS

	opLdAbs  = 0x20 // A = seccomp_data[k], a 32-bit word
	opLdLen  = 0x80 // A = sizeof(seccomp_data)
	opLdxLen = 0x81 // X = sizeof(seccomp_data)
	opLdImm  = 0x00 // A = k
	opLdxImm = 0x01 // X = k
	opLdMem  = 0x60 // A = M[k]
	opLdxMem = 0x61 // X = M[k]
	opSt     = 0x02 // M[k] = A
	opStx    = 0x03 // M[k] = X
	opTax    = 0x07 // X = A
	opTxa    = 0x87 // A = X
	opJa     = 0x05 // pc += k
	opRetK   = 0x06 // return k
	opRetA   = 0x16 // return A
	opNeg    = 0x84 // A = -A

	classMask = 0x07
	classALU  = 0x04
	classJmp  = 0x05
	srcX      = 0x08 // the operand is X, not k
	codeMask  = 0xf0

	aluAdd = 0x00
	aluSub = 0x10
	aluMul = 0x20
	aluDiv = 0x30
	aluOr  = 0x40
	aluAnd = 0x50
	aluLsh = 0x60
	aluRsh = 0x70
	aluXor = 0xa0

	jmpJeq  = 0x10
	jmpJgt  = 0x20
	jmpJge  = 0x30
	jmpJset = 0x40
)

// isALU reports whether op is an ALU instruction with k or X other than
// negation.
func isALU(op uint16) bool {
	if op&classMask != classALU {
		return false
	}
	switch op & codeMask {
	case aluAdd, aluSub, aluMul, aluDiv, aluOr, aluAnd, aluLsh, aluRsh, aluXor:
		return true
	}
	return false
}

// isCondJump reports whether op is a conditional jump on k or X.
func isCondJump(op uint16) bool {
	if op&classMask != classJmp {
		return false
	}
	switch op & codeMask {
	case jmpJeq, jmpJgt, jmpJge, jmpJset:
		return true
	}
	return false
}

// checkFilter makes the checks the kernel makes before it takes a
// seccomp filter (bpf_check_classic, then seccomp_check_filter): a length
// from 1 to 4096, only the opcodes above, loads of aligned words inside
// seccomp_data, no division by a zero constant, no constant shift of 32
// or more, scratch memory indices below 16 and never read before written
// on every path, every jump inside the program, and a return last.
func checkFilter(prog []bpf.RawInstruction) error {
	n := len(prog)
	if n == 0 || n > bpfMaxInstructions {
		return fmt.Errorf("%d instructions, want 1 to %d", n, bpfMaxInstructions)
	}
	for pc, ins := range prog {
		bad := func(why string) error {
			return fmt.Errorf("instruction %d (op %#02x, k %d): %s", pc, ins.Op, ins.K, why)
		}
		switch {
		case ins.Op == opLdAbs:
			if ins.K >= seccompDataSize || ins.K%4 != 0 {
				return bad("not an aligned word of seccomp_data")
			}
		case ins.Op == opLdMem, ins.Op == opLdxMem, ins.Op == opSt, ins.Op == opStx:
			if ins.K >= bpfMemWords {
				return bad("no such scratch memory word")
			}
		case ins.Op == opJa:
			if int(ins.K) >= n-pc-1 {
				return bad("jumps past the last instruction")
			}
		case isCondJump(ins.Op):
			if pc+int(ins.Jt)+1 >= n || pc+int(ins.Jf)+1 >= n {
				return bad("jumps past the last instruction")
			}
		case isALU(ins.Op):
			if ins.Op&srcX == 0 && ins.Op&codeMask == aluDiv && ins.K == 0 {
				return bad("divides by zero")
			}
			if ins.Op&srcX == 0 && (ins.Op&codeMask == aluLsh || ins.Op&codeMask == aluRsh) && ins.K >= 32 {
				return bad("shifts by 32 or more")
			}
		case ins.Op == opLdLen, ins.Op == opLdxLen, ins.Op == opLdImm, ins.Op == opLdxImm,
			ins.Op == opTax, ins.Op == opTxa, ins.Op == opRetK, ins.Op == opRetA, ins.Op == opNeg:
		default:
			return bad("not an instruction a seccomp filter may use")
		}
	}
	if last := prog[n-1].Op; last != opRetK && last != opRetA {
		return fmt.Errorf("the last instruction (op %#02x) does not return", last)
	}
	return checkMemoryWrites(prog)
}

// checkMemoryWrites refuses a program that may read a scratch memory word
// before writing it, as the kernel's check_load_and_stores does: it walks
// the program in order, carrying the words written on every path that
// reaches each instruction.
func checkMemoryWrites(prog []bpf.RawInstruction) error {
	masks := make([]uint16, len(prog))
	for i := range masks {
		masks[i] = 0xffff
	}
	var valid uint16
	for pc, ins := range prog {
		valid &= masks[pc]
		switch {
		case ins.Op == opSt, ins.Op == opStx:
			valid |= 1 << ins.K
		case ins.Op == opLdMem, ins.Op == opLdxMem:
			if valid&(1<<ins.K) == 0 {
				return fmt.Errorf("instruction %d reads scratch word %d before it is written", pc, ins.K)
			}
		case ins.Op == opJa:
			masks[pc+1+int(ins.K)] &= valid
			valid = 0xffff
		case isCondJump(ins.Op):
			masks[pc+1+int(ins.Jt)] &= valid
			masks[pc+1+int(ins.Jf)] &= valid
			valid = 0xffff
		}
	}
	return nil
}

// runChecked runs a seccomp filter on one call as a little-endian
// kernel does and returns the filter's 32-bit return value (a
// filterAction). A program the kernel would refuse to load is an error,
// and so is a shift by X of 32 or more, which the kernel leaves undefined;
// a division by an X of zero ends the filter with 0, as in the kernel.
//
// It is not golang.org/x/net/bpf's VM, which reads packets big-endian and
// returns a packet length.
func runChecked(prog []bpf.RawInstruction, data callData) (uint32, error) {
	if err := checkFilter(prog); err != nil {
		return 0, fmt.Errorf("seccomp filter: %w", err)
	}
	return runFilter(prog, data)
}

// runFilter is runChecked for a program checkFilter has accepted.
func runFilter(prog []bpf.RawInstruction, data callData) (uint32, error) {
	ret, _, err := runFilterSteps(prog, data)
	return ret, err
}

// runFilterSteps is runFilter, and also says how many instructions ran.
func runFilterSteps(prog []bpf.RawInstruction, data callData) (ret uint32, steps int, err error) {
	in := data.bytes()
	var a, x uint32
	var mem [bpfMemWords]uint32
	// checkFilter has made sure that every instruction is one of
	// the cases below, every jump lands inside the program, and the last
	// instruction returns; jumps only go forward, so the loop ends.
	for pc := 0; ; pc++ {
		steps++
		ins := prog[pc]
		operand := ins.K
		if ins.Op&srcX != 0 {
			operand = x
		}
		switch {
		case ins.Op == opLdAbs:
			a = binary.LittleEndian.Uint32(in[ins.K:])
		case ins.Op == opLdLen:
			a = seccompDataSize
		case ins.Op == opLdxLen:
			x = seccompDataSize
		case ins.Op == opLdImm:
			a = ins.K
		case ins.Op == opLdxImm:
			x = ins.K
		case ins.Op == opLdMem:
			a = mem[ins.K]
		case ins.Op == opLdxMem:
			x = mem[ins.K]
		case ins.Op == opSt:
			mem[ins.K] = a
		case ins.Op == opStx:
			mem[ins.K] = x
		case ins.Op == opTax:
			x = a
		case ins.Op == opTxa:
			a = x
		case ins.Op == opNeg:
			a = -a
		case ins.Op == opRetK:
			return ins.K, steps, nil
		case ins.Op == opRetA:
			return a, steps, nil
		case ins.Op == opJa:
			pc += int(ins.K)
		case isCondJump(ins.Op):
			var taken bool
			switch ins.Op & codeMask {
			case jmpJeq:
				taken = a == operand
			case jmpJgt:
				taken = a > operand
			case jmpJge:
				taken = a >= operand
			case jmpJset:
				taken = a&operand != 0
			}
			if taken {
				pc += int(ins.Jt)
			} else {
				pc += int(ins.Jf)
			}
		case isALU(ins.Op):
			switch ins.Op & codeMask {
			case aluAdd:
				a += operand
			case aluSub:
				a -= operand
			case aluMul:
				a *= operand
			case aluDiv:
				if operand == 0 {
					return 0, steps, nil
				}
				a /= operand
			case aluOr:
				a |= operand
			case aluAnd:
				a &= operand
			case aluXor:
				a ^= operand
			case aluLsh, aluRsh:
				if operand >= 32 {
					return 0, steps, fmt.Errorf("seccomp filter: instruction %d shifts by %d, which is undefined",
						pc, operand)
				}
				if ins.Op&codeMask == aluLsh {
					a <<= operand
				} else {
					a >>= operand
				}
			}
		}
	}
}
