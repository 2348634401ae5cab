package seccomp

import "slices"

// This file is the filter's specification: for one call, the action the
// filter must return, written as plain Go so that the program Program
// builds can be checked against it call by call. It reads the rules table
// for which calls are allowed and which argument rule each has, and says
// here, independently of the builder's BPF, what each argument rule admits.

// verdict returns the action the filter of c, built for the ABI a, must
// take on system call nr with args, made through the ABI that auditArch
// names.
//
// Every argument the filter reads but two is a C int, an unsigned int or
// narrower in the kernel, so only its low 32 bits count:
// socket(1<<32|AF_INET, ...) is socket(AF_INET, ...). The two are
// prlimit64's new limit, a pointer, read whole, and mmap's flags, an
// unsigned long whose one bit read here lies in its low word. clone's
// flags are an unsigned long of which the kernel keeps the low 32 bits.
func verdict(c Config, a Arch, auditArch uint32, nr int, args [6]uint64) filterAction {
	// A call through another ABI (int 0x80 on amd64, AArch32 on arm64)
	// has other numbers: refuse them all.
	if auditArch != a.AuditArch {
		return actEPERM
	}
	if a.X32 && uint32(nr)&x32SyscallBit != 0 {
		return actEPERM
	}
	name := a.syscallName(nr)
	if name == "" {
		// Past the table, or in a gap of it: what a kernel without the
		// call answers, so that a caller falls back.
		return actENOSYS
	}
	i := slices.IndexFunc(rules, func(r rule) bool { return r.name == name })
	if i < 0 || rules[i].net && c.Sockets == NoSockets || rules[i].truncates && c.TruncateRefused {
		return actEPERM
	}
	return argVerdict(rules[i], args, c)
}

// argVerdict is what r's argument rule makes of args in c's filter.
func argVerdict(r rule, args [6]uint64, c Config) filterAction {
	pid := uint32(c.PID)
	arg := func(i int) uint32 { return uint32(args[i]) }
	allowIf := func(ok bool) filterAction {
		if ok {
			return actAllow
		}
		return actEPERM
	}
	self := func(who uint32) bool { return who == 0 || who == pid }
	switch r.args {
	case threadOnly:
		// The Go runtime starts its threads with clone(CLONE_THREAD|
		// CLONE_FILES|...). Anything else would start a process, enter a
		// namespace, or make a thread with descriptors of its own.
		flags := arg(0)
		return allowIf(flags&cloneThread != 0 && flags&cloneFiles != 0 && flags&^threadCloneFlags == 0)
	case ownProcess:
		// Signals to this process only: the first argument is its pid
		// (tgid). kill(0) and kill(-1) reach others.
		return allowIf(arg(0) == pid)
	case selfOrOwn:
		// The kernel takes any thread id for a pid: one of the worker's
		// other threads, named by its id, is refused too.
		return allowIf(self(arg(0)))
	case readLimit:
		// The new limit is a pointer, which the kernel tests against NULL
		// on all its 64 bits: 1<<32 is an address the worker can map.
		return allowIf(self(arg(0)) && args[2] == 0)
	case noSetID:
		// A set-user-ID or set-group-ID file, made with O_CREAT, or with
		// O_TMPFILE and named later by linkat, in a directory granted for
		// writing, outlives the run: made by a worker running as root, it
		// is a program any user may start as root. The mode counts only
		// when the flags make a file.
		flags, mode := arg(2), arg(3)
		if r.name == "open" {
			flags, mode = arg(1), arg(2)
		}
		// An open for no access (O_ACCMODE, which Linux takes as 3: ioctl
		// only) meets no Landlock right at any ABI: it opens any file the
		// worker's user may read and write, and runs a device's open
		// wherever its node is. Below Landlock ABI 3 an open is checked
		// for the access it opens for alone: read, with O_TRUNC, it
		// empties a file a read grant reaches, or any the worker's user
		// may write.
		access := flags & oAccmode
		if access == oAccmode || c.TruncateRefused && flags&oTrunc != 0 && access == 0 {
			return actEPERM
		}
		return allowIf(flags&(oCreat|oTmpfile) == 0 || mode&modeSetID == 0)
	case mknodNoSetID:
		return allowIf(arg(2)&modeSetID == 0)
	case noLock:
		// MAP_LOCKED locks the mapping's pages, as mlock does.
		return allowIf(arg(3)&mapLocked == 0)
	case namedCommands:
		var which uint32
		switch r.name {
		case "prctl", "arch_prctl":
			which = arg(0)
		case "lseek": // its whence follows the descriptor and the offset
			which = arg(2)
		default: // ioctl and fcntl: the command follows the descriptor
			which = arg(1)
		}
		return allowIf(slices.ContainsFunc(subCommands[r.name],
			func(c command) bool { return c.value == which }))
	case namedOptions:
		// getsockopt(fd, level, option, ...): the pair must be one the
		// worker reads of a socket handed in.
		level, option := arg(1), arg(2)
		return allowIf(slices.ContainsFunc(socketOptions[r.name], func(o sockOption) bool {
			return o.level == level && o.option == option
		}))
	case waitWake:
		// futex(uaddr, op, ...): the kernel takes op's command with
		// FUTEX_CMD_MASK, an int; a word of the worker's own memory only.
		cmd := arg(1) &^ (128 | 256)
		return allowIf(arg(1)&futexPrivateFlag != 0 &&
			slices.ContainsFunc(futexCommands, func(c command) bool { return c.value == cmd }))
	case ownClock:
		// clock_gettime(id, ...): a clockid_t is an int. The kernel reads a
		// negative id as a CPU clock of the process or thread ~(id >> 3),
		// an arithmetic shift (CPUCLOCK_PID), 0 meaning the caller, and
		// answers a process's for any pid, with no permission check: how
		// much processor time any process of the machine has used, to the
		// nanosecond. A thread's is answered for the caller's own threads
		// only, and a descriptor's clock (CLOCKFD) is not needed.
		id := int32(arg(0))
		return allowIf(id >= 0 || id>>3 == ^int32(0) || id>>3 == ^int32(pid))
	case answerENOSYS:
		return actENOSYS
	}
	return actAllow
}
