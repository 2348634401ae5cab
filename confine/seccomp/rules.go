package seccomp

import "slices"

// This file is the rules table: the one list of the calls a confined
// worker may make. Program builds the filter from it and verdict, the
// specification, reads it; nothing else names an allowed call.
//
// What the worker needs was found by running it under strace -f: the
// examples, the command-line scripts, the conformance suites (the strict
// runs of every host module, ctypes' raw calls among them, and the escape
// targets), the fault hook, net client runs, timeouts and memory limits.
// Each rule says which of them made the call (its by field).

// need is a set of what in the worker makes a call.
type need uint8

const (
	// byRuntime: the Go runtime, in every run: its threads, memory,
	// scheduler, signals, timers and the poller under os and net.
	byRuntime need = 1 << iota
	// byLanguage: the language's own effects (io, fs, clock, rand, tool),
	// the result the worker writes to the supervisor, and its own files
	// kept between two pooled runs (the crash file, the temporary
	// directory).
	byLanguage
	// byNet: a net client run (net.connect, net.udp, http_get, and the
	// host modules socket, urllib and requests): the connections its
	// supervisor hands in over the broker channel.
	byNet
	// byHostModule: a host module's own I/O, pathlib's and ctypes' raw
	// calls under --confine strict (the ffi suite and the escape targets
	// make them), held by Landlock as the language's calls are.
	byHostModule
	// byCgo: a build with cgo, as go test makes by default: glibc's
	// pthread_create for the runtime's threads. Sabline itself is built
	// without cgo.
	byCgo
)

// needNames name the bits of need, in order, for the docs and tests.
var needNames = []string{"the Go runtime", "the language", "net client runs", "host modules",
	"a build with cgo"}

// group is a family of allowed calls, for the enforcement table.
type group int

const (
	groupMemory group = iota
	groupThreads
	groupSignals
	groupTime
	groupDescriptors
	groupPaths
	groupIdentity
	groupSockets
)

// groupTitles say what each group lets the worker do, in the enforcement
// table's words.
var groupTitles = map[group]string{
	groupMemory:      "its own memory",
	groupThreads:     "its own threads, made by clone with thread flags only, and their futexes",
	groupSignals:     "signal handlers, and signals to its own process only",
	groupTime:        "the clock, sleeping and random numbers",
	groupDescriptors: "the descriptors it holds, and polling them",
	groupPaths:       "files by path, which Landlock holds",
	groupIdentity:    "reading its own ids and limits",
	groupSockets: "under a network grant only, the connected sockets the supervisor hands in: " +
		"received, read and shut down; no socket, connect, bind or addressed send of the worker's own",
}

// argRule is how a call's arguments are held. Program and verdict each
// implement every kind, the one as BPF and the other as plain Go.
type argRule int

const (
	// anyArgs: the call is allowed whatever its arguments.
	anyArgs argRule = iota
	// threadOnly (clone): the flags make a thread (CLONE_THREAD) that
	// shares the worker's descriptors (CLONE_FILES), and have no bit
	// outside threadCloneFlags.
	threadOnly
	// ownProcess (kill, tgkill): the first argument is the worker's pid.
	ownProcess
	// selfOrOwn (sched_getaffinity): the first argument is 0, the
	// calling thread, or the worker's pid.
	selfOrOwn
	// readLimit (prlimit64): the worker's own limits (pid 0 or its own)
	// and no new limit: the pointer is NULL on both its words.
	readLimit
	// noSetID (open, openat): a file made (O_CREAT or O_TMPFILE) has no
	// S_ISUID or S_ISGID in its mode; an open is for reading, writing or
	// both, never for no access (O_ACCMODE, 3), which Landlock checks no
	// right for; and where the Config refuses truncation
	// (TruncateRefused), an open for reading alone has no O_TRUNC.
	// mknodSetID is the same for mknodat, whose mode is always read.
	noSetID
	mknodNoSetID
	// noLock (mmap): no MAP_LOCKED.
	noLock
	// namedCommands: the argument subArg, on its low 32 bits, is one of
	// subCommands[call].
	namedCommands
	// namedOptions (getsockopt): the level and the option,
	// the second and third arguments on their low 32 bits, are a pair of
	// socketOptions[call].
	namedOptions
	// answerENOSYS: never run, answered ENOSYS as by a kernel without the
	// call, so that the caller falls back to one the filter reads.
	answerENOSYS
	// waitWake (futex): the operation has FUTEX_PRIVATE_FLAG, and,
	// FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME masked off, is one of
	// futexCommands.
	waitWake
	// ownClock (clock_gettime): the clock id, on its low 32 bits, is not
	// negative (a clock of the machine's, or the caller's own CPU clock),
	// or is a CPU clock whose process or thread id, the bits above its
	// low three, names the caller (0) or the worker's pid.
	ownClock
)

// rule allows one call.
type rule struct {
	name  string
	group group
	args  argRule
	net   bool // only when the filter admits sockets
	// truncates: refused where the Config refuses truncation
	// (TruncateRefused)
	truncates bool
	by        need
	why       string
}

// rules is the allow-list. A name an architecture lacks (open, rename,
// arch_prctl on arm64) is skipped there.
var rules = []rule{
	// Memory.
	{name: "mmap", group: groupMemory, args: noLock, by: byRuntime,
		why: "the runtime's heap, stacks and getrandom's state; " +
			"MAP_LOCKED would pin pages the machine cannot reclaim"},
	{name: "munmap", group: groupMemory, by: byRuntime, why: "the runtime gives back what it mapped"},
	{name: "madvise", group: groupMemory, by: byRuntime,
		why: "the scavenger returns free pages (MADV_DONTNEED)"},
	{name: "mprotect", group: groupMemory, by: byRuntime | byCgo,
		why: "glibc's pthread_create guards a new thread's stack; the " +
			"runtime faults freed memory (sysFault) when asked to"},

	// Threads.
	{name: "clone", group: groupThreads, args: threadOnly, by: byRuntime,
		why: "the runtime starts an OS thread with CLONE_THREAD and CLONE_FILES; a process, a " +
			"namespace or a thread with a table of descriptors of its own is refused"},
	{name: "clone3", group: groupThreads, args: answerENOSYS, by: byRuntime,
		why: "its flags lie in a structure the filter cannot " +
			"read: ENOSYS makes a caller fall back to clone"},
	{name: "arch_prctl", group: groupThreads, args: namedCommands, by: byRuntime,
		why: "a new thread sets its TLS base (ARCH_SET_FS) on amd64"},
	{name: "futex", group: groupThreads, args: waitWake, by: byRuntime | byCgo,
		why: "the runtime parks and wakes its threads (FUTEX_WAIT, FUTEX_WAKE), as a libc's " +
			"locks and condition variables do, on its own memory (FUTEX_PRIVATE_FLAG): a shared " +
			"futex, known by the file page it lies in, is another process's too, and a " +
			"priority-inheritance lock names any process's thread as its owner and lends it " +
			"the caller's priority; both are refused"},
	{name: "sched_yield", group: groupThreads, by: byRuntime,
		why: "the runtime's spinning locks yield the CPU"},
	{name: "sched_getaffinity", group: groupThreads, args: selfOrOwn, by: byRuntime,
		why: "the runtime counts its CPUs at start and from sysmon"},
	{name: "gettid", group: groupThreads, by: byRuntime,
		why: "a new thread learns its id, for signals aimed at it"},
	{name: "exit", group: groupThreads, by: byRuntime, why: "an OS thread ends"},
	{name: "set_robust_list", group: groupThreads, by: byCgo,
		why: "glibc registers a new thread's robust futex list"},
	{name: "rseq", group: groupThreads, by: byCgo,
		why: "glibc registers a new thread's restartable sequence"},
	{name: "exit_group", group: groupThreads, by: byRuntime | byLanguage, why: "the worker ends"},
	{name: "prctl", group: groupThreads, args: namedCommands, by: byRuntime,
		why: "the runtime names its anonymous mappings (PR_SET_VMA)"},

	// Signals.
	{name: "rt_sigaction", group: groupSignals, by: byRuntime,
		why: "the runtime and os/signal install handlers"},
	{name: "rt_sigprocmask", group: groupSignals, by: byRuntime, why: "a thread sets its signal mask"},
	{name: "rt_sigreturn", group: groupSignals, by: byRuntime, why: "a signal handler returns"},
	{name: "restart_syscall", group: groupSignals, by: byRuntime,
		why: "the kernel resumes a timed sleep (nanosleep, futex) " +
			"a signal interrupted, SIGURG's preemption among them"},
	{name: "sigaltstack", group: groupSignals, by: byRuntime, why: "a thread's signal stack"},
	{name: "tgkill", group: groupSignals, args: ownProcess, by: byRuntime,
		why: "the scheduler preempts a goroutine with SIGURG to one of the worker's threads"},
	{name: "kill", group: groupSignals, args: ownProcess, by: byRuntime,
		why: "the runtime raises a signal on its own process (a crash, a re-raised signal)"},
	{name: "getpid", group: groupSignals, by: byRuntime,
		why: "the runtime names its own process to tgkill and kill"},

	// Time and randomness.
	{name: "clock_gettime", group: groupTime, args: ownClock, by: byRuntime | byLanguage,
		why: "the clock, when the vDSO does not answer (clock.now, deadlines); the CPU " +
			"clock of another process, which the kernel reads for any pid without a " +
			"permission check, is refused"},
	{name: "nanosleep", group: groupTime, by: byRuntime, why: "the runtime's short sleeps (usleep)"},
	{name: "getrandom", group: groupTime, by: byRuntime | byLanguage,
		why: "rand, the runtime's seeds and crypto/rand"},

	// Descriptors the worker holds.
	{name: "read", group: groupDescriptors, by: byRuntime | byLanguage,
		why: "io.read_line, fs.read, tool answers, sockets"},
	{name: "write", group: groupDescriptors, by: byRuntime | byLanguage,
		why: "io.print, fs.write, the result record to the supervisor"},
	{name: "pread64", group: groupDescriptors, by: byRuntime,
		why: "the runtime rereads its cgroup CPU limit from sysmon"},
	{name: "lseek", group: groupDescriptors, args: namedCommands, by: byLanguage,
		why: "a pool worker reads its temporary directory again from its start between two runs"},
	{name: "close", group: groupDescriptors, by: byRuntime | byLanguage,
		why: "every descriptor the worker opened"},
	{name: "fstat", group: groupDescriptors, by: byLanguage,
		why: "os.File.Stat and os.ReadFile's size"},
	{name: "fcntl", group: groupDescriptors, args: namedCommands, by: byRuntime | byLanguage | byNet,
		why: "the poller reads and sets a descriptor's flags (F_GETFL, F_SETFL) and close-on-exec"},
	{name: "ioctl", group: groupDescriptors, args: namedCommands, by: byHostModule,
		why: "reads only, for a module an embedder registers: is a descriptor a " +
			"terminal, its size, the bytes waiting; none of Sabline's own makes it"},
	// The Go runtime's poller, an epoll instance and its eventfd, is made
	// once, before the filter (Install makes it), so epoll_create1,
	// eventfd2 and pipe2 are refused: each makes a kernel object no memory
	// limit counts (no page of the worker's), and an epoll watch is
	// charged to a quota every process of the worker's user shares
	// (fs.epoll.max_user_watches): a worker's own instances, each
	// watching every descriptor it holds, filled that quota, and every
	// other Go program of its user died at its first descriptor.
	{name: "epoll_ctl", group: groupDescriptors, by: byRuntime | byNet,
		why: "a descriptor joins the poller"},
	{name: "epoll_pwait", group: groupDescriptors, by: byRuntime, why: "the poller waits"},
	{name: "getdents64", group: groupDescriptors, by: byLanguage,
		why: "fs.list reads an open directory"},
	{name: "fstatfs", group: groupDescriptors, by: byLanguage, why: "the path walk asks which file " +
		"system a directory it opened lies on, to refuse a link in /proc"},
	{name: "ftruncate", group: groupDescriptors, by: byLanguage,
		why: "fs.write empties the file it opened and judged; " +
			"Landlock's truncate right holds a file opened in the run"},

	// Files by path. Landlock holds each of these beneath the grants:
	// reads, writes, making and removing files and directories, links
	// and renames. The legacy forms (open, rename, link, symlink,
	// truncate) are made by ctypes under --confine strict.
	{name: "openat", group: groupPaths, args: noSetID, by: byRuntime | byLanguage | byHostModule,
		why: "fs.read, fs.write, imports, the resolver's files; " +
			"a set-user-ID or set-group-ID file is refused"},
	{name: "open", group: groupPaths, args: noSetID, by: byHostModule,
		why: "ctypes.syscall(\"open\") under --confine strict; " +
			"a set-user-ID or set-group-ID file is refused"},
	{name: "openat2", group: groupPaths, args: answerENOSYS, by: byHostModule,
		why: "its flags and mode lie in a structure the filter " +
			"cannot read: ENOSYS makes a caller fall back to openat"},
	{name: "newfstatat", group: groupPaths, by: byLanguage,
		why: "fs.exists, os.Stat, os.MkdirAll and the resolver's checks"},
	{name: "readlinkat", group: groupPaths, by: byLanguage,
		why: "os.Readlink, and os.Root's walk of a path's links"},
	{name: "mkdirat", group: groupPaths, by: byLanguage, why: "fs.mkdir makes a directory"},
	{name: "unlinkat", group: groupPaths, by: byLanguage,
		why: "fs.remove removes a file or an empty directory"},
	{name: "renameat", group: groupPaths, by: byLanguage, why: "os.Rename, on amd64"},
	{name: "renameat2", group: groupPaths, by: byLanguage, why: "os.Rename, on arm64"},
	{name: "rename", group: groupPaths, by: byHostModule,
		why: "ctypes.syscall(\"rename\") under --confine strict"},
	{name: "link", group: groupPaths, by: byHostModule,
		why: "ctypes.syscall(\"link\") in the escape targets"},
	{name: "symlink", group: groupPaths, by: byHostModule,
		why: "ctypes.syscall(\"symlink\") in the escape targets"},
	{name: "truncate", group: groupPaths, truncates: true, by: byHostModule,
		why: "ctypes.syscall(\"truncate\") in the escape targets; refused where Landlock " +
			"holds no truncation"},
	{name: "mknodat", group: groupPaths, args: mknodNoSetID, by: byHostModule,
		why: "ctypes' FIFO in the escape targets; a set-user-ID or set-group-ID file is refused"},

	// Reading the worker's own ids and limits.
	{name: "getuid", group: groupIdentity, by: byLanguage, why: "the worker reads its own user id"},
	{name: "geteuid", group: groupIdentity, by: byLanguage,
		why: "the worker reads its own effective user id"},
	{name: "prlimit64", group: groupIdentity, args: readLimit, by: byRuntime,
		why: "getrlimit: the worker's own limits, read; setting one is refused"},

	// Sockets, under a network grant only: those the supervisor made
	// and handed in. The worker makes none (socket, socketpair), and
	// connects, binds and sends to an address (connect, bind, sendto,
	// sendmsg, sendmmsg) with none: a handed-in datagram socket stays
	// connected where the supervisor connected it.
	{name: "recvmsg", group: groupSockets, net: true, by: byNet,
		why: "a connection the supervisor made arrives on the broker channel (SCM_RIGHTS)"},
	{name: "getsockopt", group: groupSockets, args: namedOptions, net: true, by: byNet,
		why: "net.FileConn reads the type of a socket handed in (SO_TYPE)"},
	{name: "getsockname", group: groupSockets, net: true, by: byNet,
		why: "net.FileConn reads a socket's own address"},
	{name: "getpeername", group: groupSockets, net: true, by: byNet,
		why: "net.FileConn reads a socket's peer"},
	{name: "shutdown", group: groupSockets, net: true, by: byNet,
		why: "closing a connection ends it for its peer: the supervisor holds the socket too"},
}

// subArg is the argument that carries the sub-command of each call with
// the namedCommands rule.
var subArg = map[string]int{"ioctl": 1, "fcntl": 1, "prctl": 0, "arch_prctl": 0, "lseek": 2}

// subCommands are the sub-commands each multiplexing call may use, with
// what needs each. Every other is refused with EPERM.
var subCommands = map[string][]command{
	// Reads only. Every command that changes a terminal (TIOCSTI,
	// TCSETS, TIOCSPGRP, ...) or points a socket's SIGIO at a process
	// (FIOSETOWN) is refused.
	"ioctl": {
		{tcgets, "TCGETS"},         // whether a descriptor is a terminal, as isatty asks
		{tiocgwinsz, "TIOCGWINSZ"}, // a terminal's size
		{fionread, "FIONREAD"},     // the bytes a pipe or socket holds
	},
	// F_SETOWN, F_SETOWN_EX and F_SETSIG (SIGIO to another process),
	// locks (which block other processes), leases, F_NOTIFY (watching a
	// directory) and seals are refused.
	"fcntl": {
		{fDupfd, "F_DUPFD"}, {fDupfdCloexec, "F_DUPFD_CLOEXEC"}, // os.File.Dup and net's FileConn
		{fGetfd, "F_GETFD"}, {fSetfd, "F_SETFD"}, // close-on-exec
		{fGetfl, "F_GETFL"}, {fSetfl, "F_SETFL"}, // the poller's O_NONBLOCK
	},
	// PR_SET_MM, PR_SCHED_CORE and every other option are refused.
	"prctl": {{prSetVMA, "PR_SET_VMA"}},
	// ARCH_SET_GS, ARCH_SET_CPUID, ARCH_MAP_VDSO_* and the shadow stack
	// options are refused.
	"arch_prctl": {{archSetFS, "ARCH_SET_FS"}},
	// An offset from the start only (its whence): SEEK_CUR, SEEK_END,
	// SEEK_DATA and SEEK_HOLE (where a file's holes are) are refused.
	"lseek": {{seekSet, "SEEK_SET"}},
}

// futexCommands are the futex operations the worker may use, FUTEX_CMD_MASK
// applied (FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME, which only say how
// the word is found and which clock a wait reads, masked off): waiting on
// a word of its memory and waking its waiters, as the Go runtime (its
// private FUTEX_WAIT and FUTEX_WAKE) and a libc (the bitset, requeue and
// wake-op forms too) do. Each with FUTEX_PRIVATE_FLAG only, which finds
// the word in the worker's own memory: without it a word is known by the
// file page it lies in, and a file the worker may only read was another
// process's lock (its waiters moved off it with FUTEX_CMP_REQUEUE, and
// its own wake then woke none: internal/run's
// TestWorkerTakesNoFutexWaiterOfAnotherProcess). The priority-inheritance
// operations (FUTEX_LOCK_PI, FUTEX_LOCK_PI2, FUTEX_TRYLOCK_PI,
// FUTEX_UNLOCK_PI and the requeue-PI pair) are refused: a word holding the
// thread id of any process of the machine made FUTEX_LOCK_PI take that
// thread as the lock's owner and raise its priority to the worker's (a
// nice 19 sleep of another process read priority 20, not 39, in its
// /proc/PID/stat while the worker waited: internal/run's
// TestWorkerLendsNoPriority).
var futexCommands = []command{
	{futexWait, "FUTEX_WAIT"}, {futexWake, "FUTEX_WAKE"},
	{futexRequeue, "FUTEX_REQUEUE"}, {futexCmpRequeue, "FUTEX_CMP_REQUEUE"},
	{futexWakeOp, "FUTEX_WAKE_OP"},
	{futexWaitBitset, "FUTEX_WAIT_BITSET"}, {futexWakeBitset, "FUTEX_WAKE_BITSET"},
}

// futexCommandValues returns the values of futexCommands.
func futexCommandValues() []uint32 {
	var v []uint32
	for _, c := range futexCommands {
		v = append(v, c.value)
	}
	return v
}

// socketOptions are the options each socket option call may name, by
// level and option, as Go's net package reads them of a socket handed in
// (net.FileConn); every other pair is refused with EPERM. setsockopt is
// not allowed at all: net.FileConn tries TCP_NODELAY and the keep-alive
// options on a TCP socket and takes the refusal silently, so the options
// the supervisor's dial set are those the connection keeps.
var socketOptions = map[string][]sockOption{
	"getsockopt": {
		{solSocket, soType, "SO_TYPE"}, // stream or datagram
	},
}

// sockOption is an option of a socket option call, at its level.
type sockOption struct {
	level, option uint32
	name          string
}

// optionLevels returns the levels of call's options, in the order of
// socketOptions, each once.
func optionLevels(call string) []uint32 {
	var levels []uint32
	for _, o := range socketOptions[call] {
		if !slices.Contains(levels, o.level) {
			levels = append(levels, o.level)
		}
	}
	return levels
}

// levelOptions returns the options call may name at level.
func levelOptions(call string, level uint32) []uint32 {
	var opts []uint32
	for _, o := range socketOptions[call] {
		if o.level == level {
			opts = append(opts, o.option)
		}
	}
	return opts
}

// command is a sub-command of a multiplexing call.
type command struct {
	value uint32
	name  string
}

// commandValues returns the values of the sub-commands call may use.
func commandValues(call string) []uint32 {
	var v []uint32
	for _, c := range subCommands[call] {
		v = append(v, c.value)
	}
	return v
}

// Linux values of the rules, alike on amd64 and arm64 unless said. The
// Linux tests check each against golang.org/x/sys/unix.
const (
	cloneThread = 0x00010000 // CLONE_THREAD
	// cloneFiles (CLONE_FILES) is the flag a thread must be made with
	// beside CLONE_THREAD: the Go runtime and every libc pass it. A
	// thread made without it has a copy of the worker's table of
	// descriptors, and holds what the worker closes: past the
	// descriptor limit (RLIMIT_NOFILE bounds each table), and past the
	// supervisor, which reads the worker's own table (/proc/PID/fd): a
	// file removed from the private temporary directory, held by such a
	// thread alone, was not counted, and its run ended ok.
	cloneFiles = 0x00000400
	// threadCloneFlags are the flags a thread may be made with: those the
	// Go runtime passes (CLONE_VM, FS, FILES, SIGHAND, SYSVSEM, THREAD),
	// and those a libc's pthread_create adds (SETTLS, PARENT_SETTID,
	// CHILD_CLEARTID). No exit signal, no namespace, no vfork.
	threadCloneFlags = 0x00000100 | 0x00000200 | cloneFiles | 0x00000800 | 0x00040000 | cloneThread |
		0x00080000 | 0x00100000 | 0x00200000

	solSocket = 1 // SOL_SOCKET
	soType    = 3 // SO_TYPE

	tcgets     = 0x5401 // TCGETS
	tiocgwinsz = 0x5413 // TIOCGWINSZ
	fionread   = 0x541b // FIONREAD

	fDupfd        = 0    // F_DUPFD
	fGetfd        = 1    // F_GETFD
	fSetfd        = 2    // F_SETFD
	fGetfl        = 3    // F_GETFL
	fSetfl        = 4    // F_SETFL
	fDupfdCloexec = 1030 // F_DUPFD_CLOEXEC

	prSetVMA  = 0x53564d41 // PR_SET_VMA
	archSetFS = 0x1002     // ARCH_SET_FS, amd64
	seekSet   = 0          // SEEK_SET

	// oCreat and oTmpfile are the open flags that make a file: O_CREAT,
	// and __O_TMPFILE, the bit O_TMPFILE adds to O_DIRECTORY. The kernel
	// takes the mode argument only when one of them is set.
	oCreat   = 0x40
	oTmpfile = 0x400000
	// oTrunc is O_TRUNC, and oAccmode O_ACCMODE. An open whose access is
	// none (3, which Linux opens for ioctl alone) meets no Landlock right;
	// one with O_TRUNC whose access is O_RDONLY (0) cuts the file to
	// nothing, and Landlock below ABI 3 checks no write for it.
	oTrunc   = 0x200
	oAccmode = 0x3
	// modeSetID is S_ISUID|S_ISGID.
	modeSetID = 0o6000

	mapLocked = 0x2000 // MAP_LOCKED

	// clockNegative is the sign bit of a clock id (clockid_t, an int): a
	// negative id names a CPU clock, of the process or thread whose id
	// is ~(id >> 3) (CPUCLOCK_PID), or a descriptor's clock (CLOCKFD).
	// clockTypeMask is its low three bits (CLOCKFD_MASK): which CPU clock,
	// and whether of a thread.
	clockNegative = 0x80000000
	clockTypeMask = 0x7

	futexWait       = 0  // FUTEX_WAIT
	futexWake       = 1  // FUTEX_WAKE
	futexRequeue    = 3  // FUTEX_REQUEUE
	futexCmpRequeue = 4  // FUTEX_CMP_REQUEUE
	futexWakeOp     = 5  // FUTEX_WAKE_OP
	futexWaitBitset = 9  // FUTEX_WAIT_BITSET
	futexWakeBitset = 10 // FUTEX_WAKE_BITSET
	// futexCmdMask is FUTEX_CMD_MASK: every bit of the operation but
	// FUTEX_PRIVATE_FLAG (128) and FUTEX_CLOCK_REALTIME (256).
	futexCmdMask = ^uint32(128 | 256)
	// futexPrivateFlag is FUTEX_PRIVATE_FLAG: the word is the caller's
	// own memory's, not the page's of whatever maps it.
	futexPrivateFlag = 128
)
