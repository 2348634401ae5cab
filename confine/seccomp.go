package confine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"golang.org/x/net/bpf"
)

// The seccomp filter of a confined run is a deny-list: a call is allowed
// unless a rule refuses it, and a refusal is an errno the program can see
// (SECCOMP_RET_ERRNO), never a kill. seccomp_verdict.go says what each
// call gets; this file builds the classic BPF program that does it.
//
// The program reads seccomp_data.arch first and refuses any ABI but the
// native one, then reads the call number (and, on amd64, refuses x32
// numbers), then finds the call's block by a binary search. The numbers
// from 0 to 2^32-1 are cut into spans, each run by one block: a rule's
// body (argument tests, each ending in its action, then the rule's
// result) for its call, ALLOW for the numbers between two rules'. Spans
// next to each other with the same block, such as two neighbouring calls
// both refused, are one span. A node of the search splits its spans in
// two halves:
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
// SeccompProgram checks that the whole program passes the kernel's own
// checks, every jump in range, before it returns one.

// Linux values the filter uses. The Linux tests check each against
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

	errEPERM           = 1
	errENOSYS          = 38
	errEPROTONOSUPPORT = 93

	cloneThread = 0x00010000
	// cloneNamespaces are the clone flags that make new namespaces:
	// CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID and NEWNET.
	cloneNamespaces = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

	afInet       = 2
	afInet6      = 10
	sockStream   = 1
	sockDgram    = 2
	sockTypeMask = 0xf // the socket type without SOCK_NONBLOCK and SOCK_CLOEXEC
	ipprotoTCP   = 6
	ipprotoUDP   = 17
	ipprotoMPTCP = 262

	// The terminal ioctls the filter refuses, of asm-generic/ioctls.h,
	// which amd64 and arm64 both use.
	tcsets         = 0x5402
	tcsetsw        = 0x5403
	tcsetsf        = 0x5404
	tcseta         = 0x5406
	tcsetaw        = 0x5407
	tcsetaf        = 0x5408
	tcsbrk         = 0x5409
	tcxonc         = 0x540a
	tcflsh         = 0x540b
	tiocexcl       = 0x540c
	tiocnxcl       = 0x540d
	tiocsctty      = 0x540e
	tiocspgrp      = 0x5410
	tiocsti        = 0x5412
	tiocswinsz     = 0x5414
	tiocmbis       = 0x5416
	tiocmbic       = 0x5417
	tiocmset       = 0x5418
	tiocssoftcar   = 0x541a
	tioclinux      = 0x541c
	tioccons       = 0x541d
	tiocsserial    = 0x541f
	tiocnotty      = 0x5422
	tiocsetd       = 0x5423
	tcsbrkp        = 0x5425
	tiocsbrk       = 0x5427
	tioccbrk       = 0x5428
	tcsets2        = 0x402c542b // _IOW('T', 0x2b, struct termios2)
	tcsetsw2       = 0x402c542c
	tcsetsf2       = 0x402c542d
	tiocsrs485     = 0x542f
	tiocvhangup    = 0x5437
	tiocsiso7816   = 0xc0285443 // _IOWR('T', 0x43, struct serial_iso7816)
	tiocserconfig  = 0x5453
	tiocslcktrmios = 0x5457
	// fioSetown and siocSpgrp are FIOSETOWN and SIOCSPGRP of
	// asm-generic/sockios.h (golang.org/x/sys/unix names the second
	// only): they set, as fcntl's F_SETOWN does, the process a socket
	// sends SIGIO to.
	fioSetown = 0x8901
	siocSpgrp = 0x8902

	fSetown   = 8  // F_SETOWN
	fSetsig   = 10 // F_SETSIG
	fSetownEx = 15 // F_SETOWN_EX

	prSetMM     = 35 // PR_SET_MM, an option of prctl
	prSchedCore = 62 // PR_SCHED_CORE

	prioProcess = 0 // PRIO_PROCESS, the which of getpriority
	// ioprioWhoProcess is IOPRIO_WHO_PROCESS of linux/ioprio.h, the which
	// of ioprio_get. golang.org/x/sys/unix does not name it; the Linux
	// tests show the kernel taking it for a thread id.
	ioprioWhoProcess = 1

	// oCreat and oTmpfile are the open flags that make a file: O_CREAT,
	// and __O_TMPFILE, the bit O_TMPFILE adds to O_DIRECTORY. The kernel
	// takes the mode argument only when one of them is set. Both have the
	// same value on amd64 and arm64 (O_DIRECTORY does not).
	oCreat   = 0x40
	oTmpfile = 0x400000
	// modeSetID is S_ISUID|S_ISGID, the mode bits of a set-user-ID or
	// set-group-ID file.
	modeSetID = 0o6000

	mapLocked = 0x2000 // MAP_LOCKED, on amd64 and arm64
)

// SeccompAction is a seccomp filter's return value: the action in the
// high 16 bits and its data, the errno of an ERRNO, in the low 16.
type SeccompAction uint32

// SeccompAllow lets the call run.
const SeccompAllow SeccompAction = seccompRetAllow

// SeccompErrno fails the call with errno, without running it.
func SeccompErrno(errno uint16) SeccompAction {
	return SeccompAction(seccompRetErrno | uint32(errno))
}

// The refusals the filter returns.
const (
	actEPERM  SeccompAction = seccompRetErrno | errEPERM
	actENOSYS SeccompAction = seccompRetErrno | errENOSYS
	// An MPTCP socket is refused with EPROTONOSUPPORT, what a kernel
	// without MPTCP answers. Go's net package (mptcpsock_linux.go) probes
	// MPTCP once with socket(..., IPPROTO_MPTCP): on EPROTONOSUPPORT or
	// EINVAL it takes MPTCP as unsupported and uses plain TCP from then
	// on, while any other error, EPERM included, leaves it trying MPTCP
	// first on every dial and listen.
	actEPROTONOSUPPORT SeccompAction = seccompRetErrno | errEPROTONOSUPPORT
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
	errEPERM:           "EPERM",
	errENOSYS:          "ENOSYS",
	errEPROTONOSUPPORT: "EPROTONOSUPPORT",
}

// String names the action as the kernel's SECCOMP_RET_* constants do, with
// its data in parentheses: ALLOW, ERRNO(EPERM), ERRNO(13), TRAP(1).
func (s SeccompAction) String() string {
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
// that clears a call of the tests after it, SeccompAllow.
type argTest struct {
	arg     int
	high    bool
	mask    uint32
	values  []uint32
	onMatch bool
	action  SeccompAction
}

// seccompRule is one block of the program: for the call name, the
// argument tests in order, then result when none ended the call.
type seccompRule struct {
	name   string
	tests  []argTest
	result SeccompAction
}

// seccompRules lists the rules of p's filter for the worker pid, in the
// order of the program. Names an architecture lacks are kept here and
// skipped when the program is built.
func seccompRules(p Policy, pid uint32) []seccompRule {
	refuse := func(arg int, values ...uint32) argTest {
		return argTest{arg: arg, values: values, onMatch: true, action: actEPERM}
	}
	ownPid := []argTest{{arg: 0, values: []uint32{pid}, action: actEPERM}}
	// self refuses a call whose argument arg names a thread other than
	// the caller (0) or a process other than the worker.
	self := func(arg int) argTest { return argTest{arg: arg, values: []uint32{0, pid}, action: actEPERM} }
	// setID refuses a mode argument with S_ISUID or S_ISGID.
	setID := func(arg int) argTest {
		return argTest{arg: arg, mask: modeSetID, values: []uint32{0}, action: actEPERM}
	}
	// creates lets a call through when its flags argument makes no file.
	creates := func(arg int) argTest {
		return argTest{arg: arg, mask: oCreat | oTmpfile, values: []uint32{0}, onMatch: true, action: SeccompAllow}
	}
	rules := []seccompRule{
		{name: "clone", result: SeccompAllow, tests: []argTest{
			{arg: 0, mask: cloneThread, values: []uint32{cloneThread}, action: actEPERM},
			{arg: 0, mask: cloneNamespaces, values: []uint32{0}, action: actEPERM},
		}},
		{name: "clone3", result: actENOSYS},
		{name: "kill", tests: ownPid, result: SeccompAllow},
		{name: "tgkill", tests: ownPid, result: SeccompAllow},
		{name: "rt_sigqueueinfo", tests: ownPid, result: SeccompAllow},
		{name: "rt_tgsigqueueinfo", tests: ownPid, result: SeccompAllow},
		{name: "ioctl", result: SeccompAllow, tests: []argTest{refuse(1, seccompIoctlRefused...)}},
		{name: "fcntl", result: SeccompAllow, tests: []argTest{refuse(1, fSetown, fSetownEx, fSetsig)}},
		{name: "prctl", result: SeccompAllow, tests: []argTest{refuse(0, prSetMM, prSchedCore)}},
		{name: "mmap", result: SeccompAllow, tests: []argTest{{arg: 3, mask: mapLocked, values: []uint32{0}, action: actEPERM}}},
		// The new limit, a pointer, must be NULL on both its words.
		{name: "prlimit64", result: SeccompAllow, tests: []argTest{
			self(0),
			{arg: 2, values: []uint32{0}, action: actEPERM},
			{arg: 2, high: true, values: []uint32{0}, action: actEPERM},
		}},
		{name: "getpriority", result: SeccompAllow, tests: []argTest{
			{arg: 0, values: []uint32{prioProcess}, action: actEPERM}, self(1),
		}},
		{name: "ioprio_get", result: SeccompAllow, tests: []argTest{
			{arg: 0, values: []uint32{ioprioWhoProcess}, action: actEPERM}, self(1),
		}},
		{name: "open", result: SeccompAllow, tests: []argTest{creates(1), setID(2)}},
		{name: "openat", result: SeccompAllow, tests: []argTest{creates(2), setID(3)}},
		{name: "creat", result: SeccompAllow, tests: []argTest{setID(1)}},
		{name: "mknod", result: SeccompAllow, tests: []argTest{setID(1)}},
		{name: "mknodat", result: SeccompAllow, tests: []argTest{setID(2)}},
		{name: "openat2", result: actENOSYS},
	}
	for _, name := range seccompPidReads {
		rules = append(rules, seccompRule{name: name, tests: []argTest{self(0)}, result: SeccompAllow})
	}
	for _, name := range seccompDenyList {
		rules = append(rules, seccompRule{name: name, result: actEPERM})
	}
	switch socketRuleOf(p) {
	case socketsRefused:
		for _, name := range seccompSocketCalls {
			rules = append(rules, seccompRule{name: name, result: actEPERM})
		}
	case socketsInet:
		rules = append(rules,
			seccompRule{name: "socketpair", result: actEPERM},
			seccompRule{name: "socket", result: SeccompAllow, tests: []argTest{
				{arg: 0, values: []uint32{afInet, afInet6}, action: actEPERM},
				{arg: 1, mask: sockTypeMask, values: []uint32{sockStream, sockDgram}, action: actEPERM},
				{arg: 2, values: []uint32{ipprotoMPTCP}, onMatch: true, action: actEPROTONOSUPPORT},
				{arg: 2, values: []uint32{0, ipprotoTCP, ipprotoUDP}, action: actEPERM},
			}})
	}
	return rules
}

// seccompArgHigh is the offset of the high 32 bits of argument i: the
// word after its low word, on the little-endian architectures Sabline
// builds for.
func seccompArgHigh(i int) uint32 { return seccompArgLow(i) + 4 }

func retAction(a SeccompAction) bpf.Instruction { return bpf.RetConstant{Val: uint32(a)} }

// instructions loads the argument's word, masks it, and compares it
// with each value in turn; the action comes last, and a comparison that
// decides the test either lands on it or jumps past it. A test with more
// values than a jump can skip makes a block SeccompProgram refuses.
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
	return append(ins, retAction(t.action))
}

// body is the rule's block after its call-number comparison.
func (r seccompRule) body() []bpf.Instruction {
	var ins []bpf.Instruction
	for _, t := range r.tests {
		ins = append(ins, t.instructions()...)
	}
	return append(ins, retAction(r.result))
}

// seccompSpan is a run of call numbers, from first to the next span's
// first, that block handles: the rule for the call name, or, with no
// name, ALLOW.
type seccompSpan struct {
	first uint32
	name  string
	block []bpf.Instruction
}

// seccompSpans cuts the numbers from 0 to 2^32-1 into spans: those of
// rules, one number each, and ALLOW spans between them, merged where two
// neighbours have the same block. Two rules for one number are an error.
func seccompSpans(rules []seccompSpan) ([]seccompSpan, error) {
	slices.SortStableFunc(rules, func(x, y seccompSpan) int { return cmp.Compare(x.first, y.first) })
	allow := seccompSpan{block: []bpf.Instruction{retAction(SeccompAllow)}}
	var spans []seccompSpan
	add := func(s seccompSpan) {
		if len(spans) == 0 || !slices.Equal(spans[len(spans)-1].block, s.block) {
			spans = append(spans, s)
		}
	}
	next := uint64(0) // the first number no span has yet
	for i, r := range rules {
		if i > 0 && r.first == rules[i-1].first {
			return nil, fmt.Errorf("confine: seccomp program: %s and %s are both call %d", rules[i-1].name, r.name, r.first)
		}
		if uint64(r.first) > next {
			allow.first = uint32(next)
			add(allow)
		}
		add(r)
		next = uint64(r.first) + 1
	}
	if next <= math.MaxUint32 {
		allow.first = uint32(next)
		add(allow)
	}
	return spans, nil
}

// seccompSearch lays out the binary search over spans, sorted, that runs
// the block of the call number in A.
func seccompSearch(spans []seccompSpan) []bpf.Instruction {
	if len(spans) == 1 {
		return spans[0].block
	}
	half := len(spans) / 2
	lower, upper := seccompSearch(spans[:half]), seccompSearch(spans[half:])
	first := spans[half].first
	var ins []bpf.Instruction
	if len(lower) <= math.MaxUint8 {
		ins = []bpf.Instruction{bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: first, SkipTrue: uint8(len(lower))}}
	} else {
		ins = []bpf.Instruction{
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: first, SkipFalse: 1},
			bpf.Jump{Skip: uint32(len(lower))},
		}
	}
	return append(append(ins, lower...), upper...)
}

// SeccompProgram builds the seccomp filter of p for the ABI a, for the
// worker whose process id is pid (the only process it may signal). The
// program is checked as the kernel checks a filter before it is returned:
// at most 4096 instructions, every jump in range. An unenforced policy has
// no filter: that is an error, and the caller installs none.
func SeccompProgram(p Policy, a Arch, pid int) ([]bpf.Instruction, error) {
	if !p.Enforced {
		return nil, errors.New("confine: seccomp program: the policy is not enforced, so there is no filter")
	}
	if pid <= 0 || pid > math.MaxInt32 {
		return nil, fmt.Errorf("confine: seccomp program: %d is not a process id", pid)
	}
	if a.AuditArch == 0 || len(a.Table) == 0 {
		return nil, fmt.Errorf("confine: seccomp program: no system call table for %q", a.Name)
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
	var spans []seccompSpan
	for _, r := range seccompRules(p, uint32(pid)) {
		nr, ok := a.Table[r.name]
		if !ok {
			continue
		}
		body := r.body()
		if len(body) > math.MaxUint8 {
			return nil, fmt.Errorf("confine: seccomp program: the block of %s is %d instructions, more than a jump can skip", r.name, len(body))
		}
		spans = append(spans, seccompSpan{first: uint32(nr), name: r.name, block: body})
	}
	spans, err := seccompSpans(spans)
	if err != nil {
		return nil, err
	}
	prog = append(prog, seccompSearch(spans)...)
	raw, err := SeccompAssemble(prog)
	if err != nil {
		return nil, err
	}
	if err := checkSeccompFilter(raw); err != nil {
		return nil, fmt.Errorf("confine: seccomp program for %s: %w", a.Name, err)
	}
	return prog, nil
}

// SeccompAssemble turns a program into the raw instructions the kernel
// takes.
func SeccompAssemble(ins []bpf.Instruction) ([]bpf.RawInstruction, error) {
	raw, err := bpf.Assemble(ins)
	if err != nil {
		return nil, fmt.Errorf("confine: assemble seccomp program: %w", err)
	}
	return raw, nil
}

// SeccompDenied returns, sorted, the names of the calls p's filter for a
// refuses whatever their arguments: what docs, receipts and the doctor
// list. Calls refused only for some arguments (clone, kill, ioctl, fcntl,
// prctl, mmap, prlimit64, the calls that create files, getpriority and
// the other calls that read a process's scheduling, socket under a net
// grant) and calls through another ABI are not named. It is nil for an
// unenforced policy.
func SeccompDenied(p Policy, a Arch) []string {
	if !p.Enforced {
		return nil
	}
	var names []string
	// The pid only shapes argument tests, and calls with tests are not
	// listed.
	for _, r := range seccompRules(p, 0) {
		if _, ok := a.Table[r.name]; ok && len(r.tests) == 0 && r.result != SeccompAllow {
			names = append(names, r.name)
		}
	}
	sort.Strings(names)
	return names
}
