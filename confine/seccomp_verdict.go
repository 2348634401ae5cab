package confine

import "slices"

// This file is the seccomp filter's specification: for one call, the
// action the filter must return, written as plain Go so that the BPF
// program SeccompProgram builds can be checked against it call by call.
// It shares with the builder only data: the lists of calls refused
// outright, of calls held to the worker's own pid and of ioctl commands
// refused, socketRuleOf (how a policy treats sockets) and the Linux
// constants, which the Linux tests check against golang.org/x/sys/unix.

// seccompDenyList names the calls a confined run is refused with EPERM
// whatever their arguments, on every architecture that has them. A name an
// architecture lacks (fork on arm64, iopl on arm64) is skipped there.
var seccompDenyList = []string{
	// Starting a process, and handles on other processes. Threads are
	// made with clone, which has its own rule.
	"fork", "vfork", "execve", "execveat",
	"tkill", "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
	// Reading or writing another process: its memory, comparing its
	// kernel objects with the worker's (kcmp), advising on or reaping its
	// memory through a pidfd (process_madvise, process_mrelease), moving
	// its pages between NUMA nodes (move_pages, migrate_pages, which take
	// a pid) and reading where its robust futex list lies
	// (get_robust_list).
	"ptrace", "process_vm_readv", "process_vm_writev",
	"kcmp", "process_madvise", "process_mrelease", "move_pages", "migrate_pages",
	"get_robust_list",
	// Mounts, namespaces and the root directory. listmount, statmount and
	// listns read the machine's mount table and namespaces by id, with no
	// path for Landlock to check.
	"mount", "umount2", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount",
	"open_tree", "open_tree_attr", "mount_setattr", "pivot_root", "chroot",
	"unshare", "setns", "listmount", "statmount", "listns",
	// Changing the kernel. create_module, get_kernel_syms and query_module
	// are the module calls of Linux 2.4, answered ENOSYS by kernels since
	// 2.6: refused here whatever the kernel does with them.
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"create_module", "get_kernel_syms", "query_module",
	"bpf", "perf_event_open",
	// Kernel keyrings.
	"add_key", "request_key", "keyctl",
	// io_uring, whose operations no seccomp filter sees.
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	// Linux AIO: every context io_setup makes takes its events from one
	// count the whole machine shares (fs.aio-max-nr, which root does not
	// pass either), and a worker that used it up would leave every other
	// process's io_setup failing with EAGAIN. The other calls only use a
	// context io_setup made, and go with it. Go makes none of them.
	"io_setup", "io_submit", "io_destroy", "io_getevents", "io_pgetevents", "io_cancel",
	// Page faults handled in user space, and files opened by handle
	// (which skips the path, and so Landlock's path rules).
	"userfaultfd", "open_by_handle_at", "name_to_handle_at",
	// Watching files: a watch is set on a path the kernel checks only for
	// read permission, not against Landlock's rules, and reports the names
	// and accesses of files outside the grants; as root, fanotify also
	// watches whole file systems and can hold other processes' opens.
	// inotify_add_watch and fanotify_mark need the descriptor these make.
	"inotify_init", "inotify_init1", "fanotify_init",
	// System V IPC: shared memory, message queues and semaphores are named
	// by a number, not a path, so Landlock does not hold them, and the
	// worker shares them with every process of the machine's IPC
	// namespace. shmdt only undoes the worker's own shmat. (POSIX message
	// queues are files of the mqueue file system, held by Landlock.)
	"shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
	"semget", "semop", "semtimedop", "semctl",
	// Setting the clock.
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	// The machine itself. sethostname and setdomainname rename it;
	// modify_ldt edits the process's x86 local descriptor table, kernel
	// code Go never calls; sysfs, ustat and _sysctl are old interfaces to
	// the kernel's file system types, file systems and parameters
	// (_sysctl is answered ENOSYS since Linux 5.5).
	"reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
	"personality", "iopl", "ioperm", "syslog", "vhangup", "lookup_dcookie",
	"uselib", "nfsservctl", "sethostname", "setdomainname", "modify_ldt",
	"sysfs", "ustat", "_sysctl",
	// A file's mode, owner, times and extended attributes. Landlock has no
	// right for any of them, so a worker running as root could change
	// them on any file it can name, inside its grants or not. The
	// language has no such effect, and the Go runtime and os package make
	// none of these calls for what the worker does after it is confined:
	// os.OpenFile, os.WriteFile and os.CreateTemp create with the mode
	// given to openat (0600 for CreateTemp), os.Mkdir, os.MkdirAll and
	// os.MkdirTemp with the mode given to mkdirat (0700 for MkdirTemp),
	// and os.Remove, os.RemoveAll, os.Rename, os.ReadDir and net.Dial
	// change no attribute. Only os.Chmod, os.Chown, os.Lchown, os.Chtimes
	// and the File methods of the same names make them, and os.Mkdir and
	// os.OpenFile when asked for the sticky bit, on the BSDs only
	// (setStickyBit).
	"chmod", "fchmod", "fchmodat", "fchmodat2",
	"chown", "fchown", "lchown", "fchownat",
	"utime", "utimes", "futimesat", "utimensat",
	"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
	"removexattr", "lremovexattr", "fremovexattr", "removexattrat",
	// Raising the worker's own limits: as root it may raise a hard limit,
	// RLIMIT_AS the memory limit among them. Go sets limits with
	// prlimit64, which has its own rule, and only while the process starts
	// (RLIMIT_NOFILE, in package syscall's init); Apply sets RLIMIT_AS
	// before it installs the filter.
	"setrlimit",
	// Changing the worker's identity. As root it could take any user's
	// or group's, and with it what that user may do beside the worker's
	// own grants. Go makes these calls only for syscall.Setuid and the
	// like, and in a child it starts, which a confined run never does.
	"setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid",
	"setfsuid", "setfsgid", "setgroups",
	// Priorities and scheduling, the worker's own too: as root it may
	// take a negative nice value, a real-time policy or the real-time I/O
	// class, and starve the machine; with a pid, it reaches another
	// process. The Go runtime makes none of these calls (it reads its CPU
	// mask with sched_getaffinity(0), at start and from sysmon, which has
	// a rule of its own).
	"setpriority", "ioprio_set", "sched_setscheduler", "sched_setparam", "sched_setattr",
	"sched_setaffinity",
	// Moving the worker into another process group, where it would take
	// that group's signals and its terminal's job control. The supervisor
	// starts the worker in a group of its own, before the filter.
	"setpgid",
	// Locking memory: as root, with no limit, pages the machine cannot
	// reclaim. memfd_secret's pages are locked as well; mmap with
	// MAP_LOCKED has its own rule. munlock and munlockall only undo these,
	// and go with them. The Go runtime makes none of these calls.
	"mlock", "mlock2", "mlockall", "munlock", "munlockall", "memfd_secret",
}

// seccompIoctlRefused are the ioctl commands a confined run is refused
// with EPERM, whatever the descriptor: the commands that change a terminal
// beyond the run, or reach other processes through it. The worker inherits
// its standard descriptors, often a terminal the user's shell shares, and
// Landlock's ioctl right holds only files opened after the ruleset, so
// only the filter holds these. The worker runs in a session of its own,
// with no controlling terminal, and so the kernel's job control, which
// stops a background process that changes its own terminal (SIGTTOU),
// does not stop it here.
//
// Reading a terminal (TCGETS, TIOCGWINSZ, TIOCGPGRP and the other TCGET
// and TIOCG commands) stays allowed, as do FIONREAD and every other
// command. Go's runtime and its os, os/signal, net and internal/poll
// packages make no ioctl on Linux; only syscall's code for a child it
// starts, which a confined run never does, takes a terminal (TIOCNOTTY,
// TIOCSCTTY, TIOCSPGRP). The kernel answers ENOTTY to TCSETX, TCSETXW and
// TCSETXF, which no terminal driver takes, and they are left to it. A
// pseudo-terminal's master side (TIOCSPTLCK, TIOCPKT, TIOCSIG) is not
// held: a process with a master can type into its terminal by writing to
// it, which no filter tells from any other write, and the worker is given
// none.
var seccompIoctlRefused = []uint32{
	// Input pushed at the terminal (which its shell then runs), and the
	// Linux console's own commands.
	tiocsti, tioclinux,
	// A socket's SIGIO sent to another process: fcntl's F_SETOWN as an
	// ioctl.
	fioSetown, siocSpgrp,
	// Job control: handing the foreground to another process group,
	// taking the terminal as the controlling terminal of the worker's
	// session or dropping it, hanging up every process on it, and sending
	// the console's messages to it.
	tiocspgrp, tiocsctty, tiocnotty, tiocvhangup, tioccons,
	// The line's settings, which the shell and every program after the
	// run keep: termios in its three forms (TCSETS, the older termio of
	// TCSETA, termios2 of TCSETS2), the settings locked against change,
	// the carrier, the line discipline, exclusive use, and the window
	// size, whose change also sends SIGWINCH to the foreground process
	// group.
	tcsets, tcsetsw, tcsetsf, tcseta, tcsetaw, tcsetaf, tcsets2, tcsetsw2, tcsetsf2,
	tiocslcktrmios, tiocssoftcar, tiocsetd, tiocexcl, tiocnxcl, tiocswinsz,
	// What flows on the line: a break (TCSBRK with a non-zero argument
	// is tcdrain, which only waits, and is refused with it), stopping or
	// starting its output or input, and discarding what was typed.
	tcsbrk, tcsbrkp, tiocsbrk, tioccbrk, tcxonc, tcflsh,
	// A serial port under the terminal: its modem lines and its settings.
	tiocmset, tiocmbis, tiocmbic, tiocsserial, tiocsrs485, tiocsiso7816, tiocserconfig,
}

// seccompPidReads are calls that read a process's scheduling, session or
// process group by its pid: allowed for the calling thread (pid 0) and for
// the worker, refused for any other process. getpriority and ioprio_get
// name their process with a which and a who, and have a rule of their own.
var seccompPidReads = []string{
	"sched_getscheduler", "sched_getparam", "sched_getattr", "sched_getaffinity",
	"sched_rr_get_interval", "getsid", "getpgid",
}

// seccompSocketCalls are the calls that make, name or take a socket:
// refused under a closed network. sendto, sendmsg, recvfrom and the like
// need a socket already, so they are left alone.
var seccompSocketCalls = []string{"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4"}

// socketRule is how a policy's filter treats sockets.
type socketRule int

const (
	// socketsRefused: no socket at all (seccompSocketCalls refused).
	socketsRefused socketRule = iota
	// socketsInet: socket only for IPv4 or IPv6 stream or datagram sockets
	// of TCP or UDP (protocol 0, IPPROTO_TCP or IPPROTO_UDP); socketpair
	// refused. The hosts are held by the language.
	socketsInet
)

// socketRuleOf returns how p's filter treats sockets: IPv4 and IPv6
// sockets of TCP and UDP only under any network, the budget's or one a
// granted module widened the policy to, and none under a closed network.
// Sabline's host modules that widen the policy to any host dial TCP and
// resolve names over UDP or TCP, so a widening needs no other socket, and
// a Unix socket named by its path (which Landlock does not check on
// connect, and the worker's CAP_DAC_OVERRIDE opens whatever its mode)
// stays refused. A network mode this code does not know is treated as
// closed.
func socketRuleOf(p Policy) socketRule {
	switch p.Network.Mode {
	case NetHosts, NetOpen:
		return socketsInet
	}
	return socketsRefused
}

// SeccompVerdict returns the action the seccomp filter of p, built for
// the ABI a and the worker whose process id is pid, must take on system
// call nr with args, made through the ABI that auditArch names. It is the
// specification the program of SeccompProgram is tested against. An
// unenforced policy has no filter: every call is allowed.
//
// Every argument the filter reads but two is a C int, an unsigned int or
// narrower in the kernel, so only its low 32 bits count:
// socket(1<<32|AF_INET, ...) is socket(AF_INET, ...). The two are
// prlimit64's new limit, a pointer, read whole, and mmap's flags, an
// unsigned long whose one bit read here lies in its low word.
func SeccompVerdict(p Policy, a Arch, auditArch uint32, nr int, args [6]uint64, pid int) SeccompAction {
	if !p.Enforced {
		return SeccompAllow
	}
	// A call through another ABI (int 0x80 on amd64, AArch32 on arm64)
	// has other numbers: refuse them all.
	if auditArch != a.AuditArch {
		return actEPERM
	}
	if a.X32 && uint32(nr)&x32SyscallBit != 0 {
		return actEPERM
	}
	arg := func(i int) uint32 { return uint32(args[i]) }
	self := func(who uint32) bool { return who == 0 || who == uint32(pid) }
	name := a.syscallName(nr)
	switch name {
	case "clone":
		// The Go runtime starts its threads with clone(CLONE_THREAD|...).
		// Anything else would start a process or enter a namespace.
		flags := arg(0)
		if flags&cloneThread == 0 || flags&cloneNamespaces != 0 {
			return actEPERM
		}
		return SeccompAllow
	case "clone3":
		// ENOSYS, as from a kernel without clone3, so that callers fall
		// back to clone and meet the rule above.
		return actENOSYS
	case "kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo":
		// Signals to this process only: the first argument is its pid
		// (tgid). kill(0) and kill(-1) reach others and are refused.
		if arg(0) != uint32(pid) {
			return actEPERM
		}
		return SeccompAllow
	case "prlimit64":
		// Reading the worker's own limits, as getrlimit does: the pid is 0
		// or the worker's, and there is no new limit. The new limit is a
		// pointer, which the kernel tests against NULL on all its 64
		// bits: 1<<32 is an address the worker can map, so its low word
		// alone says nothing.
		if !self(arg(0)) || args[2] != 0 {
			return actEPERM
		}
		return SeccompAllow
	case "getpriority", "ioprio_get":
		// The nice value or I/O priority of the worker's own threads:
		// which is PRIO_PROCESS or IOPRIO_WHO_PROCESS, and who is 0 (the
		// calling thread) or the worker's pid. Another pid, a process
		// group or a user shows what else runs on the machine.
		which := uint32(prioProcess)
		if name == "ioprio_get" {
			which = ioprioWhoProcess
		}
		if arg(0) != which || !self(arg(1)) {
			return actEPERM
		}
		return SeccompAllow
	case "fcntl":
		// F_SETOWN and F_SETOWN_EX name the process a descriptor's SIGIO
		// goes to, F_SETSIG the signal: a signal to another process that
		// kill's rule never sees.
		switch arg(1) {
		case fSetown, fSetownEx, fSetsig:
			return actEPERM
		}
		return SeccompAllow
	case "ioctl":
		// The command is an unsigned int: its low 32 bits are the
		// command the kernel runs.
		if slices.Contains(seccompIoctlRefused, arg(1)) {
			return actEPERM
		}
		return SeccompAllow
	case "prctl":
		// PR_SET_MM rewrites what the kernel shows of the worker (its
		// command line, environment and /proc/PID/exe) and where its heap
		// lies. PR_SCHED_CORE shares a core scheduling cookie with
		// another process, to run beside it on one core or to pull it
		// beside the worker. Every other option acts on the calling
		// process alone, or only tightens it (PR_SET_NO_NEW_PRIVS,
		// PR_SET_SECCOMP); the Go runtime names its memory with
		// PR_SET_VMA.
		switch arg(0) {
		case prSetMM, prSchedCore:
			return actEPERM
		}
		return SeccompAllow
	case "mmap":
		// MAP_LOCKED locks the mapping's pages, as mlock does. The flags
		// are an unsigned long; MAP_LOCKED lies in its low word.
		if arg(3)&mapLocked != 0 {
			return actEPERM
		}
		return SeccompAllow
	case "open", "openat", "creat":
		// A set-user-ID or set-group-ID file, made with O_CREAT, or with
		// O_TMPFILE and named later by linkat, in a directory granted
		// for writing, outlives the run: made by a worker running as
		// root, it is a program any user may start as root. The mode
		// counts only when the flags make a file (the kernel reads it
		// only then); creat always makes one.
		flags, mode := uint32(oCreat), arg(1)
		switch name {
		case "open":
			flags, mode = arg(1), arg(2)
		case "openat":
			flags, mode = arg(2), arg(3)
		}
		if flags&(oCreat|oTmpfile) != 0 && mode&modeSetID != 0 {
			return actEPERM
		}
		return SeccompAllow
	case "mknod", "mknodat":
		// The same file, made by mknod (a mode of type 0 or S_IFREG makes
		// a regular file).
		mode := arg(1)
		if name == "mknodat" {
			mode = arg(2)
		}
		if mode&modeSetID != 0 {
			return actEPERM
		}
		return SeccompAllow
	case "openat2":
		// Its flags and mode are in a structure the filter cannot read.
		// ENOSYS, as from a kernel before 5.6, so that a caller falls
		// back to openat and meets the rule above. Go's os and syscall
		// packages never call openat2.
		return actENOSYS
	}
	if slices.Contains(seccompPidReads, name) {
		// The calling thread (0) or the worker. The kernel takes any
		// thread id for a pid: one of the worker's other threads, named
		// by its id, is refused too.
		if !self(arg(0)) {
			return actEPERM
		}
		return SeccompAllow
	}
	if slices.Contains(seccompDenyList, name) {
		return actEPERM
	}
	switch socketRuleOf(p) {
	case socketsRefused:
		if slices.Contains(seccompSocketCalls, name) {
			return actEPERM
		}
	case socketsInet:
		switch name {
		case "socketpair":
			return actEPERM
		case "socket":
			domain, typ, proto := arg(0), arg(1)&sockTypeMask, arg(2)
			if domain != afInet && domain != afInet6 {
				return actEPERM
			}
			if typ != sockStream && typ != sockDgram {
				return actEPERM
			}
			if proto == ipprotoMPTCP {
				return actEPROTONOSUPPORT
			}
			// Not SCTP, ICMP ("ping") or UDP-Lite. The protocol is not
			// paired with the type here: the kernel registers TCP for
			// SOCK_STREAM only and UDP for SOCK_DGRAM only, and answers
			// EPROTONOSUPPORT to any other pair, while protocol 0 picks
			// TCP or UDP by the type.
			if proto != 0 && proto != ipprotoTCP && proto != ipprotoUDP {
				return actEPERM
			}
		}
	}
	return SeccompAllow
}
