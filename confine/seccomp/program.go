package seccomp

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"golang.org/x/net/bpf"
)

// Program lays the filter out as a search on the call number. The
// program reads seccomp_data.arch first and refuses any ABI but the
// native one, then reads the call number (and, on amd64, refuses x32
// numbers), then finds the call's block by a binary search. The numbers
// from 0 to 2^32-1 are cut into spans, each run by one block: an allowed
// call's rule (argument tests, each ending in its action, then ALLOW),
// EPERM for a call of the table the rules do not allow, ENOSYS for a
// number the table does not name. Spans next to each other with the same
// block, such as two neighbouring calls both refused, are one span. A node
// of the search splits its spans in two halves:
//
//	jge #FIRST, len(lower)   FIRST is the first number of the upper half
//	lower half               a node or, for one span, its block
//	upper half
//
// So a call runs about log2(spans) comparisons, then one block. Every
// jump goes forward. A conditional jump skips at most 255 instructions:
// a lower half longer than that is jumped over by a ja, whose offset has
// 32 bits:
//
//	jlt #FIRST, 1            the lower half: skip the ja
//	ja len(lower)            to the upper half
//	lower half
//	upper half
//
// Program checks that the whole program passes the kernel's own checks,
// every jump in range, before it returns one.

// Linux values of the filter itself. The Linux tests check each against
// golang.org/x/sys/unix.
const (
	seccompRetKillThread  = 0x00000000
	seccompRetKillProcess = 0x80000000
	seccompRetTrap        = 0x00030000
	seccompRetErrno       = 0x00050000
	seccompRetUserNotif   = 0x7fc00000
	seccompRetTrace       = 0x7ff00000
	seccompRetLog         = 0x7ffc0000
	seccompRetAllow       = 0x7fff0000
	seccompRetActionFull  = 0xffff0000
	seccompRetData        = 0x0000ffff

	x32SyscallBit = 0x40000000 // __X32_SYSCALL_BIT

	errEPERM  = 1
	errENOSYS = 38
)

// filterAction is a seccomp filter's return value: the action in the
// high 16 bits and its data, the errno of an ERRNO, in the low 16.
type filterAction uint32

// actAllow lets the call run.
const actAllow filterAction = seccompRetAllow

// errnoAction fails the call with errno, without running it.
func errnoAction(errno uint16) filterAction {
	return filterAction(seccompRetErrno | uint32(errno))
}

// The refusals the filter returns.
const (
	actEPERM  filterAction = seccompRetErrno | errEPERM
	actENOSYS filterAction = seccompRetErrno | errENOSYS
)

var seccompActionNames = map[uint32]string{
	seccompRetKillProcess: "KILL_PROCESS",
	seccompRetKillThread:  "KILL_THREAD",
	seccompRetTrap:        "TRAP",
	seccompRetErrno:       "ERRNO",
	seccompRetUserNotif:   "USER_NOTIF",
	seccompRetTrace:       "TRACE",
	seccompRetLog:         "LOG",
	seccompRetAllow:       "ALLOW",
}

var errnoNames = map[uint32]string{
	errEPERM:  "EPERM",
	errENOSYS: "ENOSYS",
}

// String names the action as the kernel's SECCOMP_RET_* constants do, with
// its data in parentheses: ALLOW, ERRNO(EPERM), ERRNO(13), TRAP(1).
func (s filterAction) String() string {
	action, data := uint32(s)&seccompRetActionFull, uint32(s)&seccompRetData
	name, ok := seccompActionNames[action]
	switch {
	case !ok:
		return fmt.Sprintf("ACTION(%#08x)", uint32(s))
	case action == seccompRetErrno:
		if e, ok := errnoNames[data]; ok {
			return name + "(" + e + ")"
		}
		return name + "(" + strconv.Itoa(int(data)) + ")"
	case data != 0:
		return name + "(" + strconv.Itoa(int(data)) + ")"
	}
	return name
}

// argTest ends a call with action when the low 32 bits of argument arg
// (its high 32 bits when high is set), ANDed with mask (0: not masked),
// equal one of values (onMatch) or none of them (!onMatch). Otherwise the
// next test of the rule runs. The action is a refusal, or, for a test
// that clears a call of the tests after it, actAllow. A test with a
// guard is made only when the guard holds; otherwise the next test runs.
type argTest struct {
	guard   *argEquals
	arg     int
	high    bool
	mask    uint32
	values  []uint32
	onMatch bool
	action  filterAction
}

// argEquals holds when the low 32 bits of argument arg equal value.
type argEquals struct {
	arg   int
	value uint32
}

// block is the BPF of one call: the argument tests in order, then
// result when none ended the call.
type block struct {
	tests  []argTest
	result filterAction
}

// Config is what a worker's filter depends on beside the rules table.
type Config struct {
	// Sockets says what the worker may do with sockets.
	Sockets Sockets
	// PID is the worker's process id, the only process it may signal.
	PID int
	// TruncateRefused: truncate(2), and an open or openat with O_TRUNC
	// that is not for writing (for reading alone, or for no access:
	// O_ACCMODE, 3), are refused (EPERM), for a worker whose
	// Landlock holds no truncation (below ABI 3, or not applied): the
	// kernel checks neither against the ruleset there, and either would
	// empty any file the worker's user may write. ftruncate(2) of a
	// descriptor open for writing stays: Landlock checked the open.
	TruncateRefused bool
}

// Sockets is how a filter treats sockets.
type Sockets int

const (
	// NoSockets: the calls of the rules marked net are refused, so the
	// worker holds no socket but the pipes and channels it was started
	// with.
	NoSockets Sockets = iota
	// HandedSockets: the worker makes no socket, connects, binds or
	// sends to an address of its own (socket, socketpair, connect, bind,
	// listen, accept, sendto, sendmsg and sendmmsg are refused), and may
	// use the connected sockets its supervisor hands it over the broker
	// channel: the calls of the rules marked net.
	HandedSockets
)

// ruleBlock is the BPF block of r in c's filter.
func ruleBlock(r rule, c Config) block {
	pid := uint32(c.PID)
	// self refuses a call whose argument arg names a thread other than
	// the caller (0) or a process other than the worker.
	self := func(arg int) argTest {
		return argTest{arg: arg, values: []uint32{0, pid},
			action: actEPERM}
	}
	// setID refuses a mode argument with S_ISUID or S_ISGID.
	setID := func(arg int) argTest {
		return argTest{arg: arg, mask: modeSetID, values: []uint32{0}, action: actEPERM}
	}
	switch r.args {
	case threadOnly:
		return block{result: actAllow, tests: []argTest{
			{arg: 0, mask: cloneThread | cloneFiles, values: []uint32{cloneThread | cloneFiles},
				action: actEPERM},
			{arg: 0, mask: ^uint32(threadCloneFlags), values: []uint32{0}, action: actEPERM},
		}}
	case ownProcess:
		return block{result: actAllow, tests: []argTest{{arg: 0, values: []uint32{pid},
			action: actEPERM}}}
	case selfOrOwn:
		return block{result: actAllow, tests: []argTest{self(0)}}
	case readLimit:
		// The new limit, a pointer, must be NULL on both its words.
		return block{result: actAllow, tests: []argTest{
			self(0),
			{arg: 2, values: []uint32{0}, action: actEPERM},
			{arg: 2, high: true, values: []uint32{0}, action: actEPERM},
		}}
	case noSetID:
		flags := openFlagsArg[r.name]
		// No access (O_ACCMODE, 3): Landlock checks no right for such an
		// open, which runs a device's open wherever the node is.
		tests := []argTest{{arg: flags, mask: oAccmode, values: []uint32{oAccmode}, onMatch: true,
			action: actEPERM}}
		if c.TruncateRefused {
			// Read alone (O_RDONLY): Landlock checks no write.
			tests = append(tests, argTest{arg: flags, mask: oAccmode | oTrunc,
				values: []uint32{oTrunc}, onMatch: true, action: actEPERM})
		}
		// A call that makes no file is cleared before its mode is read.
		return block{result: actAllow, tests: append(tests,
			argTest{arg: flags, mask: oCreat | oTmpfile, values: []uint32{0}, onMatch: true,
				action: actAllow},
			setID(flags+1),
		)}
	case mknodNoSetID:
		return block{result: actAllow, tests: []argTest{setID(2)}}
	case noLock:
		return block{result: actAllow, tests: []argTest{{arg: 3, mask: mapLocked, values: []uint32{0},
			action: actEPERM}}}
	case namedCommands:
		return block{result: actAllow, tests: []argTest{{arg: subArg[r.name],
			values: commandValues(r.name), action: actEPERM}}}
	case namedOptions:
		// A level no option names is refused; at each level named, an
		// option not named with it.
		levels := optionLevels(r.name)
		tests := []argTest{{arg: 1, values: levels, action: actEPERM}}
		for _, l := range levels {
			tests = append(tests, argTest{guard: &argEquals{arg: 1, value: l}, arg: 2,
				values: levelOptions(r.name, l), action: actEPERM})
		}
		return block{result: actAllow, tests: tests}
	case waitWake:
		return block{result: actAllow, tests: []argTest{
			{arg: 1, mask: futexPrivateFlag, values: []uint32{futexPrivateFlag}, action: actEPERM},
			{arg: 1, mask: futexCmdMask, values: futexCommandValues(), action: actEPERM}}}
	case ownClock:
		// A clock id from 0 is cleared; a negative one must name the
		// caller (0) or the worker in the bits above its low three.
		return block{result: actAllow, tests: []argTest{
			{arg: 0, mask: clockNegative, values: []uint32{0}, onMatch: true, action: actAllow},
			{arg: 0, mask: ^uint32(clockTypeMask), values: []uint32{cpuClockOf(0), cpuClockOf(pid)},
				action: actEPERM},
		}}
	case answerENOSYS:
		return block{result: actENOSYS}
	}
	return block{result: actAllow}
}

// cpuClockOf is the clock id of pid's CPU clocks with its low three
// bits clear: MAKE_PROCESS_CPUCLOCK(pid, 0), ~pid shifted left by three.
func cpuClockOf(pid uint32) uint32 { return ^pid << 3 }

// openFlagsArg is the argument of the open flags of each call with the
// noSetID rule; the mode is the argument after it.
var openFlagsArg = map[string]int{"open": 1, "openat": 2}

// allowedRules returns the rules c's filter holds on a: those of calls a
// has, the net rules only when c admits sockets, the truncating ones only
// when c does not refuse truncation.
func allowedRules(c Config, a Arch) []rule {
	var out []rule
	for _, r := range rules {
		if _, ok := a.Table[r.name]; !ok || r.net && c.Sockets == NoSockets ||
			r.truncates && c.TruncateRefused {
			continue
		}
		out = append(out, r)
	}
	return out
}

// seccompArgHigh is the offset of the high 32 bits of argument i: the
// word after its low word, on the little-endian architectures Sabline
// builds for.
func seccompArgHigh(i int) uint32 { return seccompArgLow(i) + 4 }

func retAction(a filterAction) bpf.Instruction { return bpf.RetConstant{Val: uint32(a)} }

// instructions loads the argument's word, masks it, and compares it
// with each value in turn; the action comes last, and a comparison that
// decides the test either lands on it or jumps past it. A guard comes
// first, and jumps past the rest when it does not hold. A test with more
// values than a jump can skip makes a block Program refuses.
func (t argTest) instructions() []bpf.Instruction {
	off := seccompArgLow(t.arg)
	if t.high {
		off = seccompArgHigh(t.arg)
	}
	ins := []bpf.Instruction{bpf.LoadAbsolute{Off: off, Size: 4}}
	if t.mask != 0 {
		ins = append(ins, bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: t.mask})
	}
	for i, v := range t.values {
		after := uint8(len(t.values) - 1 - i) // comparisons after this one
		jump := bpf.JumpIf{Cond: bpf.JumpEqual, Val: v}
		switch {
		case t.onMatch:
			jump.SkipTrue = after // to the action
			if after == 0 {
				jump.SkipFalse = 1 // matched nothing: past the action
			}
		default:
			jump.SkipTrue = after + 1 // past the action
		}
		ins = append(ins, jump)
	}
	ins = append(ins, retAction(t.action))
	if t.guard == nil {
		return ins
	}
	// When the guard does not hold, jump past the test to the next.
	return append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: seccompArgLow(t.guard.arg), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: t.guard.value, SkipFalse: uint8(len(ins))},
	}, ins...)
}

// instructions is the block's BPF, after its call-number comparison.
func (r block) instructions() []bpf.Instruction {
	var ins []bpf.Instruction
	for _, t := range r.tests {
		ins = append(ins, t.instructions()...)
	}
	return append(ins, retAction(r.result))
}

// span is a run of call numbers, from first to the next span's first,
// that one block handles.
type span struct {
	first uint32
	block []bpf.Instruction
}

// spans cuts the numbers from 0 to 2^32-1 into spans: one for each
// number up to the table's last, with its rule's block when the call is
// allowed, EPERM when the table names it and ENOSYS when it does not, and
// one ENOSYS span for every number past the table; neighbours with the
// same block are merged.
func spans(blocks map[int][]bpf.Instruction, a Arch) []span {
	perm, nosys := []bpf.Instruction{retAction(actEPERM)}, []bpf.Instruction{retAction(actENOSYS)}
	var out []span
	add := func(first int, b []bpf.Instruction) {
		if len(out) == 0 || !slices.Equal(out[len(out)-1].block, b) {
			out = append(out, span{first: uint32(first), block: b})
		}
	}
	top := a.top()
	for nr := 0; nr <= top; nr++ {
		switch b, ok := blocks[nr]; {
		case ok:
			add(nr, b)
		case a.syscallName(nr) != "":
			add(nr, perm)
		default:
			add(nr, nosys)
		}
	}
	add(top+1, nosys)
	return out
}

// appendSearch appends to prog the binary search over spans, sorted,
// that runs the block of the call number in A: the spans halved, a
// comparison with the first number of the upper half jumping past the
// lower half's search to the upper half's. It is laid out in place, each
// half's length reckoned before it is written (searchLen), so that a
// worker building its filter copies each block once.
func appendSearch(prog []bpf.Instruction, spans []span) []bpf.Instruction {
	if len(spans) == 1 {
		return append(prog, spans[0].block...)
	}
	half := len(spans) / 2
	first, lower := spans[half].first, searchLen(spans[:half])
	if lower <= math.MaxUint8 {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: first, SkipTrue: uint8(lower)})
	} else {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: first, SkipFalse: 1},
			bpf.Jump{Skip: uint32(lower)})
	}
	return appendSearch(appendSearch(prog, spans[:half]), spans[half:])
}

// searchLen is the number of instructions appendSearch lays out for
// spans.
func searchLen(spans []span) int {
	if len(spans) == 1 {
		return len(spans[0].block)
	}
	half := len(spans) / 2
	lower := searchLen(spans[:half])
	jump := 1 // a comparison that skips the lower half
	if lower > math.MaxUint8 {
		jump = 2 // a comparison, then a jump that can skip it
	}
	return jump + lower + searchLen(spans[half:])
}

// Program builds the filter of c for the ABI a. The program is checked as
// the kernel checks a filter before it is returned: at most 4096
// instructions, every jump in range.
func Program(c Config, a Arch) ([]bpf.Instruction, error) {
	if c.PID <= 0 || c.PID > math.MaxInt32 {
		return nil, fmt.Errorf("seccomp program: %d is not a process id", c.PID)
	}
	if a.AuditArch == 0 || len(a.Table) == 0 {
		return nil, fmt.Errorf("seccomp program: no system call table for %q", a.Name)
	}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: seccompDataArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: a.AuditArch, SkipTrue: 1},
		retAction(actEPERM),
		bpf.LoadAbsolute{Off: seccompDataNr, Size: 4},
	}
	if a.X32 {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: x32SyscallBit, SkipFalse: 1},
			retAction(actEPERM))
	}
	blocks := map[int][]bpf.Instruction{}
	for _, r := range allowedRules(c, a) {
		nr := a.Table[r.name]
		if _, dup := blocks[nr]; dup {
			return nil, fmt.Errorf("seccomp program: two rules for call %d (%s)", nr, r.name)
		}
		body := ruleBlock(r, c).instructions()
		if len(body) > math.MaxUint8 {
			return nil, fmt.Errorf("seccomp program: the block of %s is %d "+
				"instructions, more than a jump can skip", r.name, len(body))
		}
		blocks[nr] = body
	}
	all := spans(blocks, a)
	prog = appendSearch(slices.Grow(prog, searchLen(all)), all)
	raw, err := Assemble(prog)
	if err != nil {
		return nil, err
	}
	if err := checkFilter(raw); err != nil {
		return nil, fmt.Errorf("seccomp program for %s: %w", a.Name, err)
	}
	return prog, nil
}

// Assemble turns a program into the raw instructions the kernel takes.
func Assemble(ins []bpf.Instruction) ([]bpf.RawInstruction, error) {
	raw, err := bpf.Assemble(ins)
	if err != nil {
		return nil, fmt.Errorf("assemble seccomp program: %w", err)
	}
	return raw, nil
}
