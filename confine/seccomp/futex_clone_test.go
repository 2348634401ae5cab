package seccomp

import (
	"encoding/binary"
	"slices"
	"testing"

	"golang.org/x/net/bpf"
)

// TestSeccompFutexEveryOp: futex's operation, on both arches and under
// both socket policies, each command of linux/futex.h (0 to 13) and a
// few past them, alone and with FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME
// or both, with and without a high word (the kernel takes an int): the
// program, run by this package's interpreter and by x/net/bpf's, and
// the verdict allow exactly the wait and wake forms written out here,
// apart from futexCommands (the Go runtime's FUTEX_WAIT and FUTEX_WAKE,
// a libc's bitset, requeue and wake-op forms), and those with
// FUTEX_PRIVATE_FLAG only. A form left out of the list would refuse a
// libc's condition variable; a priority-inheritance form let in lends the
// worker's priority to any thread of the machine, and a shared one
// reaches the waiters of every process that maps the file the word is in.
func TestSeccompFutexEveryOp(t *testing.T) {
	allowed := []uint64{0, 1, 3, 4, 5, 9, 10} // WAIT, WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP, *_BITSET
	for _, a := range []Arch{archAMD64, archARM64} {
		for _, tc := range testConfigs {
			c := tc.config()
			raw := mustProgram(t, c, a)
			vm := mustVM(t, raw)
			nr := a.Table["futex"]
			for cmd := uint64(0); cmd < 20; cmd++ {
				for _, flags := range []uint64{0, 128, 256, 128 | 256} {
					for _, high := range []uint64{0, testHigh} {
						op := high | flags | cmd
						want := actEPERM
						if slices.Contains(allowed, cmd) && flags&128 != 0 {
							want = actAllow
						}
						args := [6]uint64{testPointer, op, 0, 0, 0, 0}
						wantAction(t, a, tc.name, "futex", raw, vm, nr, args, want,
							verdict(c, a, a.AuditArch, nr, args))
					}
				}
			}
			// A bit above the flags makes another command, which the
			// kernel does not know: refused too.
			for _, op := range []uint64{1 << 9, 1<<9 | 128, 1 << 16, 1<<31 | 128} {
				args := [6]uint64{testPointer, op}
				wantAction(t, a, tc.name, "futex", raw, vm, nr, args, actEPERM,
					verdict(c, a, a.AuditArch, nr, args))
			}
		}
	}
}

// TestSeccompCloneEveryFlag: clone's flags, on both arches and under
// both socket policies: the flags a Go thread is made with, and glibc's
// (SETTLS, PARENT_SETTID, CHILD_CLEARTID beside them), are allowed;
// each of them taken away but CLONE_THREAD and CLONE_FILES (a process,
// a thread with a table of descriptors of its own) is refused, and each
// of the 32 bits of the low word added outside the thread flags is
// refused. Written out here apart from threadCloneFlags.
func TestSeccompCloneEveryFlag(t *testing.T) {
	const (
		vm, fs, files, sighand, thread, sysvsem = 0x100, 0x200, 0x400, 0x800, 0x10000, 0x40000
		settls, parentSettid, childCleartid     = 0x80000, 0x100000, 0x200000
	)
	goFlags := uint64(vm | fs | files | sighand | thread | sysvsem)
	glibcFlags := goFlags | settls | parentSettid | childCleartid
	may := glibcFlags
	for _, a := range []Arch{archAMD64, archARM64} {
		for _, tc := range testConfigs {
			c := tc.config()
			raw := mustProgram(t, c, a)
			machine := mustVM(t, raw)
			nr := a.Table["clone"]
			check := func(flags uint64, want filterAction) {
				args := [6]uint64{flags, testPointer}
				wantAction(t, a, tc.name, "clone", raw, machine, nr, args, want,
					verdict(c, a, a.AuditArch, nr, args))
			}
			check(goFlags, actAllow)
			check(glibcFlags, actAllow)
			for bit := uint64(1); bit < 1<<32; bit <<= 1 {
				switch {
				case bit&(thread|files) != 0:
					check(glibcFlags&^bit, actEPERM)
				case bit&may != 0:
					check(glibcFlags&^bit, actAllow)
				default:
					check(goFlags|bit, actEPERM)
				}
			}
		}
	}
}

// mustVM makes raw a program of x/net/bpf's machine.
func mustVM(t *testing.T, raw []bpf.RawInstruction) *bpf.VM {
	t.Helper()
	var ins []bpf.Instruction
	for _, r := range raw {
		ins = append(ins, r.Disassemble())
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatalf("the filter is no program x/net/bpf runs: %v", err)
	}
	return vm
}

// wantAction checks that the call nr of a with args gets want from the
// program raw (this package's interpreter and vm, x/net/bpf's) and from
// the verdict, got.
func wantAction(t *testing.T, a Arch, policy, call string, raw []bpf.RawInstruction, vm *bpf.VM,
	nr int, args [6]uint64, want, got filterAction) {
	t.Helper()
	ret, err := runChecked(raw, callData{Nr: int32(nr), Arch: a.AuditArch, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	// struct seccomp_data, each 32-bit word as x/net's machine loads it
	// (big-endian), where the kernel loads native words: a 64-bit
	// argument is its low word, then its high one.
	data := make([]byte, seccompDataSize)
	binary.BigEndian.PutUint32(data[seccompDataNr:], uint32(nr))
	binary.BigEndian.PutUint32(data[seccompDataArch:], a.AuditArch)
	for i, v := range args {
		binary.BigEndian.PutUint32(data[seccompDataArgs+8*i:], uint32(v))
		binary.BigEndian.PutUint32(data[seccompDataArgs+8*i+4:], uint32(v>>32))
	}
	other, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	if filterAction(ret) != want || filterAction(uint32(other)) != want || got != want {
		t.Errorf("%s, %s: %s(%#x, %#x): the program %v, x/net/bpf %v, the verdict %v; want %v",
			a.Name, policy, call, args[0], args[1], filterAction(ret), filterAction(uint32(other)),
			got, want)
	}
}
