package seccomp

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/bpf"
)

func mustAssemble(t *testing.T, ins []bpf.Instruction) []bpf.RawInstruction {
	t.Helper()
	raw, err := bpf.Assemble(ins)
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	return raw
}

var (
	retA     = bpf.RetA{}
	retAllow = bpf.RetConstant{Val: uint32(actAllow)}
)

func ldK(k uint32) bpf.Instruction  { return bpf.LoadConstant{Dst: bpf.RegA, Val: k} }
func ldxK(k uint32) bpf.Instruction { return bpf.LoadConstant{Dst: bpf.RegX, Val: k} }
func ldAbs(off uint32) bpf.Instruction {
	return bpf.LoadAbsolute{Off: off, Size: 4}
}
func alu(op bpf.ALUOp, k uint32) bpf.Instruction { return bpf.ALUOpConstant{Op: op, Val: k} }
func aluX(op bpf.ALUOp) bpf.Instruction          { return bpf.ALUOpX{Op: op} }
func jif(c bpf.JumpTest, k uint32, t, f uint8) bpf.Instruction {
	return bpf.JumpIf{Cond: c, Val: k, SkipTrue: t, SkipFalse: f}
}
func jifX(c bpf.JumpTest, t, f uint8) bpf.Instruction {
	return bpf.JumpIfX{Cond: c, SkipTrue: t, SkipFalse: f}
}

// takenOrNot returns 1 when the jump is taken and 2 when it is not.
func takenOrNot(jump bpf.Instruction) []bpf.Instruction {
	return []bpf.Instruction{jump, bpf.RetConstant{Val: 2}, bpf.RetConstant{Val: 1}}
}

func TestRunFilter(t *testing.T) {
	data := callData{
		Nr:                 -2,
		Arch:               0xc000003e,
		InstructionPointer: 0x0102030405060708,
		Args:               [6]uint64{0x1122334455667788, 1, 2, 3, 4, 0xa0b0c0d0e0f00010},
	}
	long := make([]bpf.Instruction, bpfMaxInstructions)
	for i := range long {
		long[i] = ldAbs(seccompDataArch)
	}
	long[len(long)-1] = retA
	tests := []struct {
		name string
		prog []bpf.Instruction
		want uint32
	}{
		{name: "ret k", prog: []bpf.Instruction{bpf.RetConstant{Val: 0x7fff0000}}, want: 0x7fff0000},
		{name: "the call number, negative", prog: []bpf.Instruction{ldAbs(0), retA}, want: 0xfffffffe},
		{name: "the arch", prog: []bpf.Instruction{ldAbs(4), retA}, want: 0xc000003e},
		{name: "the instruction pointer, low word first", prog: []bpf.Instruction{ldAbs(8), retA}, want: 0x05060708},
		{name: "the instruction pointer, high word", prog: []bpf.Instruction{ldAbs(12), retA}, want: 0x01020304},
		{name: "argument 0, low word at 16", prog: []bpf.Instruction{ldAbs(16), retA}, want: 0x55667788},
		{name: "argument 0, high word at 20", prog: []bpf.Instruction{ldAbs(20), retA}, want: 0x11223344},
		{name: "argument 5, low word at 56", prog: []bpf.Instruction{ldAbs(56), retA}, want: 0xe0f00010},
		{name: "argument 5, high word at 60", prog: []bpf.Instruction{ldAbs(60), retA}, want: 0xa0b0c0d0},
		{name: "ld #len", prog: []bpf.Instruction{bpf.LoadExtension{Num: bpf.ExtLen}, retA}, want: 64},
		{name: "ldx #len", prog: []bpf.Instruction{bpf.RawInstruction{Op: 0x81}, bpf.TXA{}, retA}, want: 64},
		{name: "ld #k", prog: []bpf.Instruction{ldK(7), retA}, want: 7},
		{name: "ldx #k, txa", prog: []bpf.Instruction{ldxK(9), bpf.TXA{}, retA}, want: 9},
		{name: "tax", prog: []bpf.Instruction{ldK(5), bpf.TAX{}, ldK(0), bpf.TXA{}, retA}, want: 5},
		{name: "scratch memory", prog: []bpf.Instruction{ldK(3), bpf.StoreScratch{Src: bpf.RegA, N: 15}, ldxK(4), bpf.StoreScratch{Src: bpf.RegX, N: 0},
			bpf.LoadScratch{Dst: bpf.RegX, N: 15}, bpf.LoadScratch{Dst: bpf.RegA, N: 0}, aluX(bpf.ALUOpSub), retA}, want: 1},
		{name: "add", prog: []bpf.Instruction{ldK(7), alu(bpf.ALUOpAdd, 3), retA}, want: 10},
		{name: "add wraps", prog: []bpf.Instruction{ldK(0xffffffff), alu(bpf.ALUOpAdd, 2), retA}, want: 1},
		{name: "sub wraps", prog: []bpf.Instruction{ldK(1), alu(bpf.ALUOpSub, 2), retA}, want: 0xffffffff},
		{name: "mul", prog: []bpf.Instruction{ldK(6), alu(bpf.ALUOpMul, 7), retA}, want: 42},
		{name: "div", prog: []bpf.Instruction{ldK(43), alu(bpf.ALUOpDiv, 7), retA}, want: 6},
		{name: "or", prog: []bpf.Instruction{ldK(0x0f), alu(bpf.ALUOpOr, 0xf0), retA}, want: 0xff},
		{name: "and", prog: []bpf.Instruction{ldK(0x3c), alu(bpf.ALUOpAnd, 0x0f), retA}, want: 0x0c},
		{name: "xor", prog: []bpf.Instruction{ldK(0xff), alu(bpf.ALUOpXor, 0x0f), retA}, want: 0xf0},
		{name: "lsh", prog: []bpf.Instruction{ldK(3), alu(bpf.ALUOpShiftLeft, 4), retA}, want: 48},
		{name: "rsh", prog: []bpf.Instruction{ldK(0x80000000), alu(bpf.ALUOpShiftRight, 31), retA}, want: 1},
		{name: "neg", prog: []bpf.Instruction{ldK(1), bpf.NegateA{}, retA}, want: 0xffffffff},
		{name: "add x", prog: []bpf.Instruction{ldxK(4), ldK(5), aluX(bpf.ALUOpAdd), retA}, want: 9},
		{name: "mul x", prog: []bpf.Instruction{ldxK(4), ldK(5), aluX(bpf.ALUOpMul), retA}, want: 20},
		{name: "div x", prog: []bpf.Instruction{ldxK(4), ldK(9), aluX(bpf.ALUOpDiv), retA}, want: 2},
		{name: "div by an x of zero ends the filter with 0", prog: []bpf.Instruction{ldxK(0), ldK(9), aluX(bpf.ALUOpDiv), bpf.RetConstant{Val: 5}}, want: 0},
		{name: "or x", prog: []bpf.Instruction{ldxK(1), ldK(2), aluX(bpf.ALUOpOr), retA}, want: 3},
		{name: "and x", prog: []bpf.Instruction{ldxK(6), ldK(3), aluX(bpf.ALUOpAnd), retA}, want: 2},
		{name: "xor x", prog: []bpf.Instruction{ldxK(6), ldK(3), aluX(bpf.ALUOpXor), retA}, want: 5},
		{name: "lsh x", prog: []bpf.Instruction{ldxK(31), ldK(1), aluX(bpf.ALUOpShiftLeft), retA}, want: 0x80000000},
		{name: "rsh x", prog: []bpf.Instruction{ldxK(4), ldK(0xf0), aluX(bpf.ALUOpShiftRight), retA}, want: 0x0f},
		{name: "ja", prog: []bpf.Instruction{bpf.Jump{Skip: 1}, bpf.RetConstant{Val: 2}, bpf.RetConstant{Val: 1}}, want: 1},
		{name: "jeq taken", prog: append([]bpf.Instruction{ldK(5)}, takenOrNot(jif(bpf.JumpEqual, 5, 1, 0))...), want: 1},
		{name: "jeq not taken", prog: append([]bpf.Instruction{ldK(6)}, takenOrNot(jif(bpf.JumpEqual, 5, 1, 0))...), want: 2},
		{name: "jgt taken, unsigned", prog: append([]bpf.Instruction{ldK(0xffffffff)}, takenOrNot(jif(bpf.JumpGreaterThan, 5, 1, 0))...), want: 1},
		{name: "jgt not taken when equal", prog: append([]bpf.Instruction{ldK(5)}, takenOrNot(jif(bpf.JumpGreaterThan, 5, 1, 0))...), want: 2},
		{name: "jge taken when equal", prog: append([]bpf.Instruction{ldK(5)}, takenOrNot(jif(bpf.JumpGreaterOrEqual, 5, 1, 0))...), want: 1},
		{name: "jge not taken", prog: append([]bpf.Instruction{ldK(4)}, takenOrNot(jif(bpf.JumpGreaterOrEqual, 5, 1, 0))...), want: 2},
		{name: "jset taken", prog: append([]bpf.Instruction{ldK(6)}, takenOrNot(jif(bpf.JumpBitsSet, 2, 1, 0))...), want: 1},
		{name: "jset not taken", prog: append([]bpf.Instruction{ldK(5)}, takenOrNot(jif(bpf.JumpBitsSet, 2, 1, 0))...), want: 2},
		{name: "jeq x taken", prog: append([]bpf.Instruction{ldxK(8), ldK(8)}, takenOrNot(jifX(bpf.JumpEqual, 1, 0))...), want: 1},
		{name: "jgt x not taken", prog: append([]bpf.Instruction{ldxK(8), ldK(7)}, takenOrNot(jifX(bpf.JumpGreaterThan, 1, 0))...), want: 2},
		{name: "jge x taken", prog: append([]bpf.Instruction{ldxK(8), ldK(9)}, takenOrNot(jifX(bpf.JumpGreaterOrEqual, 1, 0))...), want: 1},
		{name: "jset x not taken", prog: append([]bpf.Instruction{ldxK(8), ldK(7)}, takenOrNot(jifX(bpf.JumpBitsSet, 1, 0))...), want: 2},
		{name: "the false branch skips", prog: []bpf.Instruction{ldK(1), jif(bpf.JumpEqual, 2, 0, 2), bpf.RetConstant{Val: 3}, bpf.RetConstant{Val: 2}, bpf.RetConstant{Val: 1}}, want: 1},
		{name: "the longest program", prog: long, want: 0xc000003e},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runChecked(mustAssemble(t, tt.prog), data)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("runChecked = %#x, want %#x", got, tt.want)
			}
		})
	}
}

// seccompCheckCases are programs the kernel refuses to load, each with
// the words of checkFilter's error, and programs it loads, which
// allow every call so that the Linux test may load them. A nil wantErr
// is a program the kernel takes.
var seccompCheckCases = []struct {
	name    string
	prog    []bpf.Instruction
	wantErr string
}{
	{name: "ret allow", prog: []bpf.Instruction{retAllow}},
	{name: "the last word of seccomp_data", prog: []bpf.Instruction{ldAbs(60), retAllow}},
	{name: "a load past seccomp_data", prog: []bpf.Instruction{ldAbs(64), retAllow}, wantErr: "not an aligned word of seccomp_data"},
	{name: "a misaligned load", prog: []bpf.Instruction{ldAbs(2), retAllow}, wantErr: "not an aligned word of seccomp_data"},
	{name: "a packet extension", prog: []bpf.Instruction{bpf.LoadExtension{Num: bpf.ExtProto}, retAllow}, wantErr: "not an aligned word of seccomp_data"},
	{name: "a byte load", prog: []bpf.Instruction{bpf.LoadAbsolute{Off: 0, Size: 1}, retAllow}, wantErr: "not an instruction a seccomp filter may use"},
	{name: "an indirect load", prog: []bpf.Instruction{bpf.LoadIndirect{Off: 0, Size: 4}, retAllow}, wantErr: "not an instruction a seccomp filter may use"},
	{name: "mod", prog: []bpf.Instruction{ldK(7), alu(bpf.ALUOpMod, 3), retAllow}, wantErr: "not an instruction a seccomp filter may use"},
	{name: "neg x", prog: []bpf.Instruction{bpf.RawInstruction{Op: 0x8c}, retAllow}, wantErr: "not an instruction a seccomp filter may use"},
	{name: "div by a zero constant", prog: []bpf.Instruction{ldK(7), alu(bpf.ALUOpDiv, 0), retAllow}, wantErr: "divides by zero"},
	{name: "div by a constant", prog: []bpf.Instruction{ldK(7), alu(bpf.ALUOpDiv, 2), retAllow}},
	{name: "lsh by 32", prog: []bpf.Instruction{ldK(7), alu(bpf.ALUOpShiftLeft, 32), retAllow}, wantErr: "shifts by 32 or more"},
	{name: "rsh by 32", prog: []bpf.Instruction{ldK(7), alu(bpf.ALUOpShiftRight, 32), retAllow}, wantErr: "shifts by 32 or more"},
	{name: "lsh by 31", prog: []bpf.Instruction{ldK(7), alu(bpf.ALUOpShiftLeft, 31), retAllow}},
	{name: "scratch word 16", prog: []bpf.Instruction{bpf.RawInstruction{Op: 0x02, K: 16}, retAllow}, wantErr: "no such scratch memory word"},
	{name: "scratch read before written", prog: []bpf.Instruction{bpf.LoadScratch{Dst: bpf.RegA, N: 0}, retAllow}, wantErr: "before it is written"},
	{name: "scratch written on one path only", prog: []bpf.Instruction{
		ldAbs(0), jif(bpf.JumpEqual, 1, 0, 1), bpf.StoreScratch{Src: bpf.RegA, N: 2}, bpf.LoadScratch{Dst: bpf.RegX, N: 2}, retAllow,
	}, wantErr: "before it is written"},
	{name: "scratch written on both paths", prog: []bpf.Instruction{
		ldAbs(0), bpf.StoreScratch{Src: bpf.RegA, N: 2}, jif(bpf.JumpEqual, 1, 0, 1), bpf.StoreScratch{Src: bpf.RegA, N: 3}, bpf.LoadScratch{Dst: bpf.RegX, N: 2}, retAllow,
	}},
	{name: "a jump to the end", prog: []bpf.Instruction{ldAbs(0), jif(bpf.JumpEqual, 1, 1, 0), retAllow}, wantErr: "jumps past the last instruction"},
	{name: "a ja to the end", prog: []bpf.Instruction{bpf.Jump{Skip: 1}, retAllow}, wantErr: "jumps past the last instruction"},
	{name: "no return last", prog: []bpf.Instruction{retAllow, ldAbs(0)}, wantErr: "does not return"},
	{name: "ret x", prog: []bpf.Instruction{bpf.RawInstruction{Op: 0x0e}}, wantErr: "not an instruction a seccomp filter may use"},
}

func TestCheckSeccompFilter(t *testing.T) {
	for _, tt := range seccompCheckCases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runChecked(mustAssemble(t, tt.prog), callData{})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("runChecked: %v, want the program accepted", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("runChecked error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	for _, n := range []int{0, bpfMaxInstructions + 1} {
		prog := slices.Repeat([]bpf.RawInstruction{{Op: opRetK}}, n)
		if _, err := runChecked(prog, callData{}); err == nil || !strings.Contains(err.Error(), "want 1 to 4096") {
			t.Errorf("%d instructions: error = %v, want one naming the limits", n, err)
		}
	}
	shift := mustAssemble(t, []bpf.Instruction{ldxK(32), ldK(1), aluX(bpf.ALUOpShiftLeft), retA})
	if _, err := runChecked(shift, callData{}); err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("a shift by an x of 32: error = %v, want one saying it is undefined", err)
	}
}
