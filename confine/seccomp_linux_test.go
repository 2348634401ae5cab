package confine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
)

// TestSeccompConstants checks the Linux values seccomp.go, systab.go and
// the tests write out against golang.org/x/sys/unix.
func TestSeccompConstants(t *testing.T) {
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{name: "AUDIT_ARCH_X86_64", got: auditArchX86_64, want: unix.AUDIT_ARCH_X86_64},
		{name: "AUDIT_ARCH_AARCH64", got: auditArchAArch64, want: unix.AUDIT_ARCH_AARCH64},
		{name: "AUDIT_ARCH_I386", got: testAuditI386, want: unix.AUDIT_ARCH_I386},
		{name: "AUDIT_ARCH_ARM", got: testAuditARM, want: unix.AUDIT_ARCH_ARM},
		{name: "SECCOMP_RET_KILL_THREAD", got: seccompRetKillThread, want: unix.SECCOMP_RET_KILL_THREAD},
		{name: "SECCOMP_RET_KILL_PROCESS", got: seccompRetKillProcess, want: unix.SECCOMP_RET_KILL_PROCESS},
		{name: "SECCOMP_RET_TRAP", got: seccompRetTrap, want: unix.SECCOMP_RET_TRAP},
		{name: "SECCOMP_RET_ERRNO", got: seccompRetErrno, want: unix.SECCOMP_RET_ERRNO},
		{name: "SECCOMP_RET_USER_NOTIF", got: seccompRetUserNotif, want: unix.SECCOMP_RET_USER_NOTIF},
		{name: "SECCOMP_RET_TRACE", got: seccompRetTrace, want: unix.SECCOMP_RET_TRACE},
		{name: "SECCOMP_RET_LOG", got: seccompRetLog, want: unix.SECCOMP_RET_LOG},
		{name: "SECCOMP_RET_ALLOW", got: seccompRetAllow, want: unix.SECCOMP_RET_ALLOW},
		{name: "SECCOMP_RET_ACTION_FULL", got: seccompRetActionFull, want: unix.SECCOMP_RET_ACTION_FULL},
		{name: "SECCOMP_RET_DATA", got: seccompRetData, want: unix.SECCOMP_RET_DATA},
		{name: "EPERM", got: errEPERM, want: uint64(unix.EPERM)},
		{name: "ENOSYS", got: errENOSYS, want: uint64(unix.ENOSYS)},
		{name: "EPROTONOSUPPORT", got: errEPROTONOSUPPORT, want: uint64(unix.EPROTONOSUPPORT)},
		{name: "CLONE_THREAD", got: cloneThread, want: unix.CLONE_THREAD},
		{name: "the namespace flags", got: cloneNamespaces, want: unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET},
		{name: "the flags of a Go thread", got: goThreadFlags, want: unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_SYSVSEM | unix.CLONE_THREAD},
		{name: "CLONE_NEWNS", got: testCloneNewNS, want: unix.CLONE_NEWNS},
		{name: "CLONE_NEWUSER", got: testCloneNewUser, want: unix.CLONE_NEWUSER},
		{name: "AF_INET", got: afInet, want: unix.AF_INET},
		{name: "AF_INET6", got: afInet6, want: unix.AF_INET6},
		{name: "AF_UNIX", got: testAFUnix, want: unix.AF_UNIX},
		{name: "AF_NETLINK", got: testAFNetlink, want: unix.AF_NETLINK},
		{name: "AF_PACKET", got: testAFPacket, want: unix.AF_PACKET},
		{name: "SOCK_STREAM", got: sockStream, want: unix.SOCK_STREAM},
		{name: "SOCK_DGRAM", got: sockDgram, want: unix.SOCK_DGRAM},
		{name: "SOCK_RAW", got: testSockRaw, want: unix.SOCK_RAW},
		{name: "SOCK_SEQPACKET", got: testSockSeqpacket, want: unix.SOCK_SEQPACKET},
		{name: "SOCK_NONBLOCK", got: testSockNonblock, want: unix.SOCK_NONBLOCK},
		{name: "SOCK_CLOEXEC", got: testSockCloexec, want: unix.SOCK_CLOEXEC},
		{name: "the socket type mask keeps the flags out", got: sockTypeMask & (unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC), want: 0},
		{name: "IPPROTO_MPTCP", got: ipprotoMPTCP, want: unix.IPPROTO_MPTCP},
		{name: "IPPROTO_TCP", got: ipprotoTCP, want: unix.IPPROTO_TCP},
		{name: "IPPROTO_UDP", got: ipprotoUDP, want: unix.IPPROTO_UDP},
		{name: "IPPROTO_ICMP", got: testIPProtoICMP, want: unix.IPPROTO_ICMP},
		{name: "IPPROTO_ICMPV6", got: testIPProtoICMPV6, want: unix.IPPROTO_ICMPV6},
		{name: "IPPROTO_SCTP", got: testIPProtoSCTP, want: unix.IPPROTO_SCTP},
		{name: "TIOCSTI", got: tiocsti, want: unix.TIOCSTI},
		{name: "TIOCLINUX", got: tioclinux, want: unix.TIOCLINUX},
		{name: "FIONREAD (TIOCINQ)", got: testFIONREAD, want: unix.TIOCINQ},
		{name: "SIGCHLD", got: testSIGCHLD, want: uint64(unix.SIGCHLD)},
		{name: "PRIO_PROCESS", got: prioProcess, want: unix.PRIO_PROCESS},
		{name: "PRIO_PGRP", got: testPrioPgrp, want: unix.PRIO_PGRP},
		{name: "PRIO_USER", got: testPrioUser, want: unix.PRIO_USER},
		{name: "RLIMIT_AS", got: testRlimitAS, want: unix.RLIMIT_AS},
	}
	if arch, ok := NativeArch(); ok {
		// The generated table of this machine's architecture, against the
		// constants x/sys/unix compiles here.
		for _, c := range []struct {
			name string
			nr   uint64
		}{
			{"socket", unix.SYS_SOCKET}, {"clone", unix.SYS_CLONE}, {"clone3", unix.SYS_CLONE3},
			{"kill", unix.SYS_KILL}, {"tgkill", unix.SYS_TGKILL}, {"ioctl", unix.SYS_IOCTL},
			{"execve", unix.SYS_EXECVE}, {"ptrace", unix.SYS_PTRACE}, {"unshare", unix.SYS_UNSHARE},
			{"io_uring_setup", unix.SYS_IO_URING_SETUP}, {"open_tree_attr", unix.SYS_OPEN_TREE_ATTR},
			{"seccomp", unix.SYS_SECCOMP}, {"landlock_restrict_self", unix.SYS_LANDLOCK_RESTRICT_SELF},
			{"kcmp", unix.SYS_KCMP}, {"fanotify_init", unix.SYS_FANOTIFY_INIT}, {"shmget", unix.SYS_SHMGET},
			{"fchmodat", unix.SYS_FCHMODAT}, {"fchmodat2", unix.SYS_FCHMODAT2}, {"removexattrat", unix.SYS_REMOVEXATTRAT},
			{"setrlimit", unix.SYS_SETRLIMIT}, {"prlimit64", unix.SYS_PRLIMIT64}, {"setpriority", unix.SYS_SETPRIORITY},
			{"ioprio_set", unix.SYS_IOPRIO_SET}, {"sched_setattr", unix.SYS_SCHED_SETATTR},
		} {
			tests = append(tests, struct {
				name string
				got  uint64
				want uint64
			}{name: arch.Name + " " + c.name, got: uint64(arch.Table[c.name]), want: c.nr})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %#x, want %#x", tt.got, tt.want)
			}
		})
	}
}

// The kernel tests install filters, which cannot be removed, so they run
// in a child: the test binary runs itself again with seccompChildEnv set
// to a scenario's name, and only TestSeccompKernelChild does anything.
const seccompChildEnv = "SABLINE_SECCOMP_CHILD"

// seccompOtherEnv names, in the child's environment, the pid of a sleep
// TestSeccompKernel started in a process group of its own: the other
// process the checks aim at. Nothing is done to it that changes it.
const seccompOtherEnv = "SABLINE_SECCOMP_OTHER"

// kernelCheck is one call made in the child after the filter is installed.
// When want is an errno, the call is made before as well, as the control:
// there it must not fail with that errno, and must succeed when works is
// set, so that the refusal seen after is the filter's.
type kernelCheck struct {
	name   string
	locked bool // made on the thread locked before the filter was installed
	call   func(*childEnv) error
	want   error // nil: the call succeeds
	works  bool  // the control succeeds
}

// childEnv is what the checks use, made before the filter is installed.
type childEnv struct {
	pid    int
	pipe   [2]int
	locked *lockedThread
	file   string // a scratch file the child made
	other  int    // the sleep of seccompOtherEnv, its own process group
	thread int    // a thread of the child other than its main thread
	// lowZero is the address of a page the child mapped at k<<32, whose
	// low 32 bits are 0, holding the RLIMIT_AS the child started with.
	lowZero uintptr
}

// lockedThread is a goroutine locked to its OS thread, running functions
// on that thread.
type lockedThread struct {
	tid   int
	calls chan func()
}

func startLockedThread() *lockedThread {
	lt := &lockedThread{calls: make(chan func())}
	ready := make(chan int)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the process
		ready <- unix.Gettid()
		for f := range lt.calls {
			f()
		}
	}()
	lt.tid = <-ready
	return lt
}

func (lt *lockedThread) run(f func()) {
	done := make(chan struct{})
	lt.calls <- func() { f(); close(done) }
	<-done
}

func rawCall(nr uintptr, args ...uintptr) (uintptr, error) {
	var a [6]uintptr
	copy(a[:], args)
	r, _, errno := unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	if errno != 0 {
		return r, errno
	}
	return r, nil
}

// fdCall makes a call that returns a descriptor, and closes it.
func fdCall(nr uintptr, args ...uintptr) error {
	fd, err := rawCall(nr, args...)
	if err == nil {
		unix.Close(int(fd))
	}
	return err
}

func socketCall(domain, typ, proto uint64) func(*childEnv) error {
	return func(*childEnv) error { return fdCall(unix.SYS_SOCKET, uintptr(domain), uintptr(typ), uintptr(proto)) }
}

func socketpairCall(*childEnv) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
	}
	return err
}

// loopbackCall listens on and connects to a loopback port with Go's net
// package, asking for MPTCP on both sides: it works only if Go falls back
// to plain TCP when the filter refuses MPTCP.
func loopbackCall(*childEnv) error {
	var lc net.ListenConfig
	lc.SetMultipathTCP(true)
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Write([]byte("ok"))
			c.Close()
		}
	}()
	var d net.Dialer
	d.SetMultipathTCP(true)
	c, err := d.Dial("tcp", l.Addr().String())
	if err != nil {
		return err
	}
	defer c.Close()
	got, err := io.ReadAll(c)
	if err != nil {
		return err
	}
	if string(got) != "ok" {
		return fmt.Errorf("read %q over loopback, want %q", got, "ok")
	}
	return nil
}

// testKcmpFile is KCMP_FILE of linux/kcmp.h, which x/sys/unix does not
// name: kcmp compares two descriptors.
const testKcmpFile = 0

// testIPCKey is a System V IPC key no segment is expected to have.
const testIPCKey = 0x5ab11e00

// denyListChecks are calls of the deny-list, each made by its number in
// arch's table (skipped where arch lacks it) in a shape that changes
// nothing without the filter: the call returns 0, a descriptor closed at
// once, or an error other than EPERM.
func denyListChecks(arch Arch) []kernelCheck {
	var checks []kernelCheck
	for _, c := range []struct {
		name string
		call string
		args func(*childEnv) []uintptr
		fd   bool // the call returns a descriptor
	}{
		// Reads the descriptor table into no buffer: 0.
		{name: "modify_ldt(0, NULL, 0)", call: "modify_ldt"},
		{name: "kcmp(own pid, own pid, KCMP_FILE, pipe, pipe)", call: "kcmp", args: func(e *childEnv) []uintptr {
			return []uintptr{uintptr(e.pid), uintptr(e.pid), testKcmpFile, uintptr(e.pipe[0]), uintptr(e.pipe[0])}
		}},
		// EBADF.
		{name: "process_madvise(-1, NULL, 0, 0, 0)", call: "process_madvise", args: func(*childEnv) []uintptr {
			return []uintptr{^uintptr(0)}
		}},
		// EFAULT: the answer has nowhere to go.
		{name: "get_robust_list(own pid, NULL, NULL)", call: "get_robust_list", args: func(e *childEnv) []uintptr {
			return []uintptr{uintptr(e.pid)}
		}},
		// EFAULT: no request to read.
		{name: "listmount(NULL, NULL, 0, 0)", call: "listmount"},
		// ENOENT, without IPC_CREAT.
		{name: "shmget of a missing key", call: "shmget", args: func(*childEnv) []uintptr {
			return []uintptr{testIPCKey, 0, 0}
		}},
		{name: "inotify_init1(IN_CLOEXEC)", call: "inotify_init1", fd: true, args: func(*childEnv) []uintptr {
			return []uintptr{unix.IN_CLOEXEC}
		}},
		// FAN_REPORT_FID, without which a process lacking CAP_SYS_ADMIN
		// is refused EPERM by the kernel itself.
		{name: "fanotify_init(FAN_CLASS_NOTIF|FAN_REPORT_FID|FAN_CLOEXEC, O_RDONLY)", call: "fanotify_init", fd: true,
			args: func(*childEnv) []uintptr {
				return []uintptr{unix.FAN_CLASS_NOTIF | unix.FAN_REPORT_FID | unix.FAN_CLOEXEC, unix.O_RDONLY}
			}},
	} {
		nr, ok := arch.Table[c.call]
		if !ok {
			continue
		}
		checks = append(checks, kernelCheck{name: c.name, want: unix.EPERM, call: func(e *childEnv) error {
			var args []uintptr
			if c.args != nil {
				args = c.args(e)
			}
			if c.fd {
				return fdCall(uintptr(nr), args...)
			}
			_, err := rawCall(uintptr(nr), args...)
			return err
		}})
	}
	return checks
}

// errnoOf turns the errno of a raw call into an error, nil for 0.
func errnoOf(errno unix.Errno) error {
	if errno != 0 {
		return errno
	}
	return nil
}

// toggleMode flips the group bits of path's mode with chmod, then reads
// the mode back: it must be the new one when chmod succeeded and the old
// one when it failed. It returns chmod's error.
func toggleMode(path string, chmod func(mode uint32) error) error {
	var before, after unix.Stat_t
	if err := unix.Stat(path, &before); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	mode := before.Mode&0o7777 ^ 0o070
	err := chmod(mode)
	if serr := unix.Stat(path, &after); serr != nil {
		return fmt.Errorf("stat %s: %w", path, serr)
	}
	want := before.Mode & 0o7777
	if err == nil {
		want = mode
	}
	if got := after.Mode & 0o7777; got != want {
		// %v, not %w: a refusal that changed the mode is no refusal.
		return fmt.Errorf("chmod returned %v and left mode %#o, want %#o", err, got, want)
	}
	return err
}

// attributeChecks change the mode, owner, times and extended attributes
// of the child's scratch file: each works without the filter (setxattr
// where the file system has user attributes) and is refused by it. chown
// to -1, -1 and times of UTIME_OMIT change nothing.
func attributeChecks(arch Arch) []kernelCheck {
	eperm := unix.EPERM
	checks := []kernelCheck{
		{name: "chmod of the scratch file (fchmodat)", want: eperm, works: true, call: func(e *childEnv) error {
			return toggleMode(e.file, func(mode uint32) error { return unix.Chmod(e.file, mode) })
		}},
		{name: "fchmod of the scratch file", want: eperm, works: true, call: func(e *childEnv) error {
			fd, err := unix.Open(e.file, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return fmt.Errorf("open %s: %w", e.file, err)
			}
			defer unix.Close(fd)
			return toggleMode(e.file, func(mode uint32) error { return unix.Fchmod(fd, mode) })
		}},
		{name: "fchownat(scratch file, -1, -1)", want: eperm, works: true, call: func(e *childEnv) error {
			return unix.Fchownat(unix.AT_FDCWD, e.file, -1, -1, 0)
		}},
		{name: "utimensat(scratch file, UTIME_OMIT, UTIME_OMIT)", want: eperm, works: true, call: func(e *childEnv) error {
			omit := []unix.Timespec{{Nsec: unix.UTIME_OMIT}, {Nsec: unix.UTIME_OMIT}}
			return unix.UtimesNanoAt(unix.AT_FDCWD, e.file, omit, 0)
		}},
		// Without the filter: 0, or EOPNOTSUPP on a file system without
		// user attributes.
		{name: "setxattr(scratch file, user.sabline-test)", want: eperm, call: func(e *childEnv) error {
			return unix.Setxattr(e.file, "user.sabline-test", []byte("1"), 0)
		}},
	}
	if nr, ok := arch.Table["chmod"]; ok {
		checks = append(checks, kernelCheck{name: "chmod of the scratch file (chmod)", want: eperm, works: true,
			call: func(e *childEnv) error {
				path, err := unix.BytePtrFromString(e.file)
				if err != nil {
					return err
				}
				return toggleMode(e.file, func(mode uint32) error {
					_, _, errno := unix.Syscall(uintptr(nr), uintptr(unsafe.Pointer(path)), uintptr(mode), 0)
					return errnoOf(errno)
				})
			}})
	}
	return checks
}

// startRlimitAS is the RLIMIT_AS the child started with, which the limit
// checks set again: without the filter, setting it changes nothing.
func startRlimitAS() (unix.Rlimit, error) {
	var r unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_AS, nil, &r); err != nil {
		return r, fmt.Errorf("prlimit64(0, RLIMIT_AS, NULL, &old): %w", err)
	}
	return r, nil
}

// limitChecks set RLIMIT_AS, to the limit it has, and read it.
func limitChecks() []kernelCheck {
	eperm := unix.EPERM
	read := func(pid func(*childEnv) int) func(*childEnv) error {
		return func(e *childEnv) error {
			var old unix.Rlimit
			return unix.Prlimit(pid(e), unix.RLIMIT_AS, nil, &old)
		}
	}
	return []kernelCheck{
		{name: "setrlimit(RLIMIT_AS, the limit it has)", want: eperm, works: true, call: func(*childEnv) error {
			r, err := startRlimitAS()
			if err != nil {
				return err
			}
			_, _, errno := unix.Syscall(unix.SYS_SETRLIMIT, unix.RLIMIT_AS, uintptr(unsafe.Pointer(&r)), 0)
			return errnoOf(errno)
		}},
		{name: "prlimit64(0, RLIMIT_AS, the limit it has, NULL)", want: eperm, works: true, call: func(*childEnv) error {
			r, err := startRlimitAS()
			if err != nil {
				return err
			}
			return unix.Prlimit(0, unix.RLIMIT_AS, &r, nil)
		}},
		{name: "prlimit64(0, RLIMIT_AS, the limit it has at k<<32, NULL)", want: eperm, works: true, call: func(e *childEnv) error {
			_, _, errno := unix.Syscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_AS, e.lowZero, 0, 0, 0)
			return errnoOf(errno)
		}},
		{name: "prlimit64(0, RLIMIT_AS, NULL, &old)", call: read(func(*childEnv) int { return 0 })},
		{name: "prlimit64(own pid, RLIMIT_AS, NULL, &old)", call: read(func(e *childEnv) int { return e.pid })},
		{name: "prlimit64(the sleep, RLIMIT_AS, NULL, &old)", want: eperm, works: true, call: read(func(e *childEnv) int { return e.other })},
		{name: "getrlimit(RLIMIT_AS)", call: func(*childEnv) error {
			var r unix.Rlimit
			return unix.Getrlimit(unix.RLIMIT_AS, &r)
		}},
	}
}

// mapLowZero maps a page at the first free k<<32, so that its address
// has a low word of 0, and has the kernel write the current RLIMIT_AS
// there.
func mapLowZero() (uintptr, error) {
	page := uintptr(os.Getpagesize())
	for k := uintptr(1); k <= 64; k++ {
		want := k << 32
		addr, err := rawCall(unix.SYS_MMAP, want, page, unix.PROT_READ|unix.PROT_WRITE,
			unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED_NOREPLACE, ^uintptr(0), 0)
		if err != nil {
			continue
		}
		if addr != want { // a kernel that takes the address as a hint
			rawCall(unix.SYS_MUNMAP, addr, page)
			continue
		}
		if _, err := rawCall(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_AS, 0, addr); err != nil {
			return 0, fmt.Errorf("prlimit64(0, RLIMIT_AS, NULL, %#x): %w", addr, err)
		}
		return addr, nil
	}
	return 0, errors.New("no page free at k<<32 for k up to 64")
}

// schedulingChecks set the nice value, I/O priority, CPU affinity and
// scheduling of the child's own threads and of the sleep, each to what it
// has: without the filter, nothing changes. The calls on 0 are made on the
// locked thread, so that what is read and what is set are one thread's.
func schedulingChecks() []kernelCheck {
	eperm := unix.EPERM
	nice := func(which, who int) error {
		prio, err := unix.Getpriority(which, who) // the kernel answers 20 - nice
		if err != nil {
			return fmt.Errorf("getpriority(%d, %d): %w", which, who, err)
		}
		return unix.Setpriority(which, who, 20-prio)
	}
	ioprio := func(who int) error { // IOPRIO_WHO_PROCESS, which x/sys/unix does not name
		prio, err := rawCall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(who))
		if err != nil {
			return fmt.Errorf("ioprio_get(IOPRIO_WHO_PROCESS, %d): %w", who, err)
		}
		_, err = rawCall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(who), prio)
		return err
	}
	affinity := func(pid int) error {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(pid, &set); err != nil {
			return fmt.Errorf("sched_getaffinity(%d): %w", pid, err)
		}
		return unix.SchedSetaffinity(pid, &set)
	}
	attr := func(pid int) error {
		a, err := unix.SchedGetAttr(pid, 0)
		if err != nil {
			return fmt.Errorf("sched_getattr(%d): %w", pid, err)
		}
		return unix.SchedSetAttr(pid, a, 0)
	}
	// param reads the sleep's scheduling parameter, and its policy with
	// it when set is SYS_SCHED_SETSCHEDULER, and sets them again with set.
	param := func(set uintptr) func(*childEnv) error {
		return func(e *childEnv) error {
			var p int32 // struct sched_param
			if _, _, errno := unix.Syscall(unix.SYS_SCHED_GETPARAM, uintptr(e.other), uintptr(unsafe.Pointer(&p)), 0); errno != 0 {
				return fmt.Errorf("sched_getparam(%d): %w", e.other, errno)
			}
			if set == unix.SYS_SCHED_SETPARAM {
				_, _, errno := unix.Syscall(set, uintptr(e.other), uintptr(unsafe.Pointer(&p)), 0)
				return errnoOf(errno)
			}
			policy, err := rawCall(unix.SYS_SCHED_GETSCHEDULER, uintptr(e.other))
			if err != nil {
				return fmt.Errorf("sched_getscheduler(%d): %w", e.other, err)
			}
			_, _, errno := unix.Syscall(set, uintptr(e.other), policy, uintptr(unsafe.Pointer(&p)))
			return errnoOf(errno)
		}
	}
	return []kernelCheck{
		{name: "setpriority(PRIO_PROCESS, 0, its nice)", locked: true, call: func(*childEnv) error { return nice(unix.PRIO_PROCESS, 0) }},
		{name: "setpriority(PRIO_PROCESS, own pid, its nice)", call: func(e *childEnv) error { return nice(unix.PRIO_PROCESS, e.pid) }},
		{name: "setpriority(PRIO_PROCESS, the sleep, its nice)", want: eperm, works: true, call: func(e *childEnv) error {
			return nice(unix.PRIO_PROCESS, e.other)
		}},
		{name: "setpriority(PRIO_PGRP, the sleep's group, its nice)", want: eperm, works: true, call: func(e *childEnv) error {
			return nice(unix.PRIO_PGRP, e.other)
		}},
		{name: "getpriority(PRIO_PROCESS, the sleep)", call: func(e *childEnv) error {
			_, err := unix.Getpriority(unix.PRIO_PROCESS, e.other)
			return err
		}},
		{name: "ioprio_set(IOPRIO_WHO_PROCESS, 0, its priority)", locked: true, call: func(*childEnv) error { return ioprio(0) }},
		{name: "ioprio_set(IOPRIO_WHO_PROCESS, the sleep, its priority)", want: eperm, works: true, call: func(e *childEnv) error {
			return ioprio(e.other)
		}},
		// A thread id is no process group or user id: that the control
		// works shows that ioprioWhoProcess names a thread.
		{name: "ioprio_set(IOPRIO_WHO_PROCESS, another thread of the child, its priority)", want: eperm, works: true,
			call: func(e *childEnv) error { return ioprio(e.thread) }},
		{name: "setpriority(PRIO_PROCESS, another thread of the child, its nice)", want: eperm, works: true,
			call: func(e *childEnv) error { return nice(unix.PRIO_PROCESS, e.thread) }},
		{name: "sched_setaffinity(0, its mask)", locked: true, call: func(*childEnv) error { return affinity(0) }},
		{name: "sched_setaffinity(the sleep, its mask)", want: eperm, works: true, call: func(e *childEnv) error { return affinity(e.other) }},
		{name: "sched_setattr(0, its attributes)", locked: true, call: func(*childEnv) error { return attr(0) }},
		{name: "sched_setattr(own pid, its attributes)", call: func(e *childEnv) error { return attr(e.pid) }},
		{name: "sched_setattr(the sleep, its attributes)", want: eperm, works: true, call: func(e *childEnv) error { return attr(e.other) }},
		{name: "sched_setscheduler(the sleep, its policy and parameter)", want: eperm, works: true, call: param(unix.SYS_SCHED_SETSCHEDULER)},
		{name: "sched_setparam(the sleep, its parameter)", want: eperm, works: true, call: param(unix.SYS_SCHED_SETPARAM)},
	}
}

// seccompScenario is a policy the child installs, from a budget, and the
// checks it makes under it.
type seccompScenario struct {
	name   string
	budget string
	checks []kernelCheck
}

// seccompScenarios are the scenarios of TestSeccompKernel.
func seccompScenarios() []seccompScenario {
	eperm := unix.EPERM
	common := []kernelCheck{
		{name: "getpid", call: func(*childEnv) error { unix.Getpid(); return nil }},
		{name: "write to a pipe", call: func(e *childEnv) error {
			_, err := unix.Write(e.pipe[1], []byte{1})
			return err
		}},
		{name: "read from a pipe", call: func(e *childEnv) error {
			_, err := unix.Read(e.pipe[0], make([]byte, 1))
			return err
		}},
		{name: "ioctl(FIONREAD) on a pipe", call: func(e *childEnv) error {
			_, err := unix.IoctlGetInt(e.pipe[0], unix.TIOCINQ)
			return err
		}},
		{name: "ioctl(TIOCSTI)", want: eperm, call: func(e *childEnv) error {
			c := byte('x')
			_, err := rawCall(unix.SYS_IOCTL, uintptr(e.pipe[0]), unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
			return err
		}},
		{name: "ioctl(TIOCSTI|1<<32)", want: eperm, call: func(e *childEnv) error {
			c := byte('x')
			_, err := rawCall(unix.SYS_IOCTL, uintptr(e.pipe[0]), uintptr(testHigh)|unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
			return err
		}},
		{name: "ioctl(TIOCLINUX)", want: eperm, call: func(e *childEnv) error {
			c := byte(0)
			_, err := rawCall(unix.SYS_IOCTL, uintptr(e.pipe[0]), unix.TIOCLINUX, uintptr(unsafe.Pointer(&c)))
			return err
		}},
		{name: "kill(own pid, 0)", call: func(e *childEnv) error { return unix.Kill(e.pid, 0) }},
		{name: "kill(own pid|1<<32, 0)", call: func(e *childEnv) error {
			_, err := rawCall(unix.SYS_KILL, uintptr(e.pid)|uintptr(testHigh), 0)
			return err
		}},
		{name: "tgkill(own pid, locked thread, 0)", call: func(e *childEnv) error { return unix.Tgkill(e.pid, e.locked.tid, 0) }},
		{name: "kill(parent, 0)", want: eperm, call: func(*childEnv) error { return unix.Kill(os.Getppid(), 0) }},
		{name: "kill(0, 0)", want: eperm, call: func(*childEnv) error { return unix.Kill(0, 0) }},
		{name: "kill(-1, 0)", want: eperm, call: func(*childEnv) error { return unix.Kill(-1, 0) }},
		{name: "tgkill(parent, parent, 0)", want: eperm, call: func(*childEnv) error { return unix.Tgkill(os.Getppid(), os.Getppid(), 0) }},
		{name: "tkill(locked thread, 0)", want: eperm, call: func(e *childEnv) error {
			_, err := rawCall(unix.SYS_TKILL, uintptr(e.locked.tid), 0)
			return err
		}},
		{name: "clone3(NULL, 0)", want: unix.ENOSYS, call: func(*childEnv) error {
			_, err := rawCall(unix.SYS_CLONE3, 0, 0)
			return err
		}},
		// Both clone calls are malformed, so that without the filter the
		// kernel refuses them (EINVAL) before making anything.
		{name: "clone(CLONE_SIGHAND) without CLONE_THREAD", want: eperm, call: func(*childEnv) error {
			_, err := rawCall(unix.SYS_CLONE, unix.CLONE_SIGHAND)
			return err
		}},
		{name: "clone(CLONE_THREAD|CLONE_NEWNS)", want: eperm, call: func(*childEnv) error {
			_, err := rawCall(unix.SYS_CLONE, unix.CLONE_THREAD|unix.CLONE_NEWNS)
			return err
		}},
		{name: "execve of a missing file", want: eperm, call: func(*childEnv) error {
			return unix.Exec("/nonexistent/sabline-seccomp-test", []string{"x"}, nil)
		}},
		{name: "chroot to a missing directory", want: eperm, call: func(*childEnv) error {
			return unix.Chroot("/nonexistent/sabline-seccomp-test")
		}},
		{name: "unshare(0)", want: eperm, call: func(*childEnv) error { return unix.Unshare(0) }},
		{name: "prctl(PR_GET_NO_NEW_PRIVS)", call: func(*childEnv) error {
			_, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
			return err
		}},
	}
	arch, _ := NativeArch()
	if arch.X32 {
		common = append(common, kernelCheck{name: "x32 getpid", want: eperm, call: func(*childEnv) error {
			_, err := rawCall(x32SyscallBit | unix.SYS_GETPID)
			return err
		}})
	}
	common = slices.Concat(common, denyListChecks(arch), attributeChecks(arch), limitChecks(), schedulingChecks())
	inet := socketCall(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	inetHigh := socketCall(testHigh|unix.AF_INET, unix.SOCK_STREAM, 0)
	local := socketCall(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	netlink := socketCall(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
	sockets := []kernelCheck{
		{name: "socket(AF_INET, SOCK_STREAM)", call: inet},
		{name: "socket(1<<32|AF_INET, SOCK_STREAM)", call: inetHigh},
		{name: "socket(AF_INET6, SOCK_DGRAM)", call: socketCall(unix.AF_INET6, unix.SOCK_DGRAM, 0)},
		{name: "socket(AF_INET, SOCK_DGRAM, 0)", call: socketCall(unix.AF_INET, unix.SOCK_DGRAM, 0)},
		{name: "socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP)", call: socketCall(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_UDP)},
		{name: "socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP)", call: socketCall(unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP)},
		{name: "socket(AF_INET, SOCK_STREAM, 1<<32|IPPROTO_TCP)", call: socketCall(unix.AF_INET, unix.SOCK_STREAM, testHigh|unix.IPPROTO_TCP)},
		{name: "socket(AF_INET6, SOCK_DGRAM, 1<<32|IPPROTO_UDP)", call: socketCall(unix.AF_INET6, unix.SOCK_DGRAM, testHigh|unix.IPPROTO_UDP)},
		{name: "listen and dial on loopback with MPTCP asked", call: loopbackCall},
	}
	inetOnly := slices.Concat(sockets, []kernelCheck{
		{name: "socket(AF_UNIX)", want: eperm, call: local},
		{name: "socket(AF_UNIX) on the locked thread", locked: true, want: eperm, call: local},
		{name: "socket(AF_NETLINK)", want: eperm, call: netlink},
		{name: "socket(AF_INET, SOCK_RAW)", want: eperm, call: socketCall(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)},
		{name: "socketpair(AF_UNIX)", want: eperm, call: socketpairCall},
		// Without the filter, a ping socket is made, or refused EACCES
		// by net.ipv4.ping_group_range.
		{name: "socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)", want: eperm, call: socketCall(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP)},
		{name: "socket(AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6)", want: eperm, call: socketCall(unix.AF_INET6, unix.SOCK_DGRAM, unix.IPPROTO_ICMPV6)},
		{name: "socket(AF_INET, SOCK_DGRAM, 1<<32|IPPROTO_ICMP)", want: eperm, call: socketCall(unix.AF_INET, unix.SOCK_DGRAM, testHigh|unix.IPPROTO_ICMP)},
	})
	if _, err := os.Stat("/proc/sys/net/sctp"); err == nil {
		// Without SCTP loaded, the control would have the kernel load it.
		inetOnly = append(inetOnly, kernelCheck{name: "socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)", want: eperm,
			call: socketCall(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP)})
	}
	if _, err := os.Stat("/proc/sys/net/mptcp"); err == nil {
		// Without MPTCP in the kernel there is no control for this one.
		inetOnly = append(inetOnly, kernelCheck{name: "socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)", want: unix.EPROTONOSUPPORT,
			call: socketCall(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)})
	}
	return []seccompScenario{
		{name: "closed", budget: "io", checks: slices.Concat(common, []kernelCheck{
			{name: "socket(AF_INET, SOCK_STREAM)", want: eperm, call: inet},
			{name: "socket(1<<32|AF_INET, SOCK_STREAM)", want: eperm, call: inetHigh},
			{name: "socket(AF_INET) on the locked thread", locked: true, want: eperm, call: inet},
			{name: "socketpair(AF_UNIX)", want: eperm, call: socketpairCall},
			{name: "listen on loopback", want: eperm, call: loopbackCall},
		})},
		{name: "hosts", budget: "net:127.0.0.1", checks: slices.Concat(common, inetOnly)},
		{name: "open", budget: "net", checks: slices.Concat(common, inetOnly)},
		{name: "widened", budget: "ffi:socket", checks: slices.Concat(common, sockets, []kernelCheck{
			{name: "socket(AF_UNIX)", call: local},
			{name: "socket(AF_NETLINK)", call: netlink},
			{name: "socketpair(AF_UNIX)", call: socketpairCall},
		})},
	}
}

// TestSeccompKernel runs TestSeccompKernelChild once per scenario, and
// once to compare the kernel's check of a filter with checkSeccompFilter,
// each in a process of its own.
func TestSeccompKernel(t *testing.T) {
	if _, ok := NativeArch(); !ok {
		t.Skipf("no system call table for %s", runtime.GOARCH)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "\nSeccomp:") {
		t.Skip("this kernel has no seccomp")
	}
	var names []string
	for _, sc := range seccompScenarios() {
		names = append(names, sc.name)
	}
	sleep := exec.Command("sleep", "600")
	sleep.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sleep.Start(); err != nil {
		t.Fatalf("start the other process: %v", err)
	}
	t.Cleanup(func() {
		sleep.Process.Kill()
		sleep.Wait()
	})
	for _, name := range append(names, "checker") {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSeccompKernelChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), seccompChildEnv+"="+name, seccompOtherEnv+"="+strconv.Itoa(sleep.Process.Pid))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the child failed: %v\n%s", err, out)
			}
			i := strings.Index(string(out), "seccomp child "+name+": ")
			if i < 0 {
				t.Fatalf("the child did not report its checks:\n%s", out)
			}
			line, _, _ := strings.Cut(string(out[i:]), "\n")
			t.Log(line)
		})
	}
}

// TestSeccompKernelChild does the work of TestSeccompKernel in the child.
func TestSeccompKernelChild(t *testing.T) {
	name := os.Getenv(seccompChildEnv)
	if name == "" {
		t.Skip("run by TestSeccompKernel, in a process of its own")
	}
	if name == "checker" {
		kernelChecksFilters(t)
		return
	}
	i := slices.IndexFunc(seccompScenarios(), func(s seccompScenario) bool { return s.name == name })
	if i < 0 {
		t.Fatalf("no scenario %q", name)
	}
	sc := seccompScenarios()[i]

	other, err := strconv.Atoi(os.Getenv(seccompOtherEnv))
	if err != nil || other <= 0 {
		t.Fatalf("%s=%q is not a pid", seccompOtherEnv, os.Getenv(seccompOtherEnv))
	}
	lowZero, err := mapLowZero()
	if err != nil {
		t.Fatal(err)
	}
	e := &childEnv{pid: os.Getpid(), locked: startLockedThread(), file: filepath.Join(t.TempDir(), "scratch"),
		other: other, lowZero: lowZero}
	for tid := range taskStatus(t) {
		if tid != e.pid {
			e.thread = tid
		}
	}
	if e.thread == 0 {
		t.Fatal("the child has no thread but its main thread")
	}
	if err := unix.Pipe(e.pipe[:]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.file, []byte("scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(c kernelCheck) error {
		if !c.locked {
			return c.call(e)
		}
		var err error
		e.locked.run(func() { err = c.call(e) })
		return err
	}
	controls := 0
	for _, c := range sc.checks {
		if c.want == nil {
			continue
		}
		switch err := run(c); {
		case errors.Is(err, c.want):
			t.Errorf("control: %s fails with %v without the filter too", c.name, err)
		case c.works && err != nil:
			t.Errorf("control: %s fails without the filter: %v", c.name, err)
		}
		controls++
	}
	for tid, st := range taskStatus(t) {
		if st["Seccomp"] != "0" {
			t.Fatalf("control: thread %d has Seccomp: %s before the filter is installed", tid, st["Seccomp"])
		}
	}

	arch, _ := NativeArch()
	prog, err := SeccompProgram(OSPolicy(budget.MustParse("/", sc.budget), Options{}), arch, e.pid)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := SeccompAssemble(prog)
	if err != nil {
		t.Fatal(err)
	}
	if err := InstallSeccomp(raw); err != nil {
		t.Fatal(err)
	}

	for _, c := range sc.checks {
		err := run(c)
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s: %v, want success", c.name, err)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	tasks := taskStatus(t)
	if _, ok := tasks[e.locked.tid]; !ok {
		t.Errorf("the locked thread %d is not among the tasks", e.locked.tid)
	}
	for tid, st := range tasks {
		if st["Seccomp"] != "2" || st["NoNewPrivs"] != "1" {
			t.Errorf("thread %d: Seccomp: %s, NoNewPrivs: %s; want 2 and 1", tid, st["Seccomp"], st["NoNewPrivs"])
		}
	}
	t.Logf("seccomp child %s: %d checks after the filter, %d controls before it, %d threads filtered",
		name, len(sc.checks), controls, len(tasks))
}

// taskStatus reads the Seccomp and NoNewPrivs lines of every thread of
// the process.
func taskStatus(t *testing.T) map[int]map[string]string {
	t.Helper()
	paths, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no thread status: %v", err)
	}
	tasks := map[int]map[string]string{}
	for _, p := range paths {
		var tid int
		if _, err := fmt.Sscanf(filepath.Base(filepath.Dir(p)), "%d", &tid); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			continue // the thread ended
		}
		st := map[string]string{}
		s := bufio.NewScanner(f)
		for s.Scan() {
			k, v, _ := strings.Cut(s.Text(), ":")
			if k == "Seccomp" || k == "NoNewPrivs" {
				st[k] = strings.TrimSpace(v)
			}
		}
		f.Close()
		tasks[tid] = st
	}
	return tasks
}

// kernelChecksFilters loads each program of seccompCheckCases into the
// kernel and checks that the kernel takes exactly those checkSeccompFilter
// takes. The programs it takes allow every call, so loading them changes
// nothing but the kernel's work.
func kernelChecksFilters(t *testing.T) {
	for _, tt := range seccompCheckCases {
		raw, err := bpf.Assemble(tt.prog)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		checked := checkSeccompFilter(raw)
		loaded := InstallSeccomp(raw)
		switch {
		case (checked == nil) != (tt.wantErr == ""):
			t.Errorf("%s: checkSeccompFilter: %v", tt.name, checked)
		case (loaded == nil) != (checked == nil):
			t.Errorf("%s: the kernel says %v, checkSeccompFilter says %v", tt.name, loaded, checked)
		case loaded != nil && !errors.Is(loaded, unix.EINVAL):
			t.Errorf("%s: the kernel refuses with %v, want EINVAL", tt.name, loaded)
		}
	}
	t.Logf("seccomp child checker: %d programs, the kernel agrees on each", len(seccompCheckCases))
}
