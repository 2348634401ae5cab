package seccomp

import (
	"bufio"
	"context"
	"encoding/binary"
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
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/sabline/sabline/internal/testkit"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
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
		{name: "CLONE_THREAD", got: cloneThread, want: unix.CLONE_THREAD},
		{name: "CLONE_FILES", got: cloneFiles, want: unix.CLONE_FILES},
		// linux/futex.h; x/sys/unix names no futex operation
		{name: "FUTEX_WAIT", got: futexWait, want: 0},
		{name: "FUTEX_WAKE", got: futexWake, want: 1},
		{name: "FUTEX_REQUEUE", got: futexRequeue, want: 3},
		{name: "FUTEX_CMP_REQUEUE", got: futexCmpRequeue, want: 4},
		{name: "FUTEX_WAKE_OP", got: futexWakeOp, want: 5},
		{name: "FUTEX_WAIT_BITSET", got: futexWaitBitset, want: 9},
		{name: "FUTEX_WAKE_BITSET", got: futexWakeBitset, want: 10},
		{name: "FUTEX_CMD_MASK", got: uint64(futexCmdMask), want: uint64(^uint32(futexPrivateFlag | futexClockRealtime))},
		{name: "the flags a thread is made with", got: threadCloneFlags, want: unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES |
			unix.CLONE_SIGHAND | unix.CLONE_SYSVSEM | unix.CLONE_THREAD | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID},
		{name: "TCGETS, allowed", got: tcgets, want: unix.TCGETS},
		{name: "TIOCGWINSZ, allowed", got: tiocgwinsz, want: unix.TIOCGWINSZ},
		{name: "FIONREAD (TIOCINQ), allowed", got: fionread, want: unix.TIOCINQ},
		{name: "F_DUPFD", got: fDupfd, want: unix.F_DUPFD},
		{name: "F_DUPFD_CLOEXEC", got: fDupfdCloexec, want: unix.F_DUPFD_CLOEXEC},
		{name: "F_GETFD", got: fGetfd, want: unix.F_GETFD},
		{name: "F_SETFD", got: fSetfd, want: unix.F_SETFD},
		{name: "F_GETFL", got: fGetfl, want: unix.F_GETFL},
		{name: "F_SETFL, allowed", got: fSetfl, want: unix.F_SETFL},
		{name: "PR_SET_VMA, allowed", got: prSetVMA, want: unix.PR_SET_VMA},
		{name: "SEEK_SET, allowed", got: seekSet, want: unix.SEEK_SET},
		{name: "ARCH_SET_FS", got: archSetFS, want: 0x1002}, // asm/prctl.h; x/sys/unix names it on amd64 only
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
		{name: "IPPROTO_IPV6", got: ipprotoIPv6, want: unix.IPPROTO_IPV6},
		{name: "SOL_SOCKET", got: solSocket, want: unix.SOL_SOCKET},
		{name: "SO_ERROR, read", got: soError, want: unix.SO_ERROR},
		{name: "SO_BROADCAST, set", got: soBroadcast, want: unix.SO_BROADCAST},
		{name: "SO_KEEPALIVE, set", got: soKeepalive, want: unix.SO_KEEPALIVE},
		{name: "TCP_NODELAY, set", got: tcpNodelay, want: unix.TCP_NODELAY},
		{name: "TCP_KEEPIDLE, set", got: tcpKeepidle, want: unix.TCP_KEEPIDLE},
		{name: "TCP_KEEPINTVL, set", got: tcpKeepintvl, want: unix.TCP_KEEPINTVL},
		{name: "TCP_KEEPCNT, set", got: tcpKeepcnt, want: unix.TCP_KEEPCNT},
		{name: "IPV6_V6ONLY, set", got: ipv6V6only, want: unix.IPV6_V6ONLY},
		{name: "SO_REUSEADDR", got: testSoReuseaddr, want: unix.SO_REUSEADDR},
		{name: "SO_REUSEPORT", got: testSoReuseport, want: unix.SO_REUSEPORT},
		{name: "SO_BINDTODEVICE", got: testSoBindtodevice, want: unix.SO_BINDTODEVICE},
		{name: "SOL_IP", got: testSolIP, want: unix.SOL_IP},
		{name: "IP_TRANSPARENT", got: testIPTransparent, want: unix.IP_TRANSPARENT},
		{name: "IP_FREEBIND", got: testIPFreebind, want: unix.IP_FREEBIND},
		{name: "TIOCSTI", got: tiocsti, want: unix.TIOCSTI},
		{name: "TIOCLINUX", got: tioclinux, want: unix.TIOCLINUX},
		{name: "FIONREAD (TIOCINQ)", got: testFIONREAD, want: unix.TIOCINQ},
		{name: "SIGCHLD", got: testSIGCHLD, want: uint64(unix.SIGCHLD)},
		{name: "PRIO_PROCESS", got: prioProcess, want: unix.PRIO_PROCESS},
		{name: "PRIO_PGRP", got: testPrioPgrp, want: unix.PRIO_PGRP},
		{name: "PRIO_USER", got: testPrioUser, want: unix.PRIO_USER},
		{name: "RLIMIT_AS", got: testRlimitAS, want: unix.RLIMIT_AS},
		{name: "F_SETOWN", got: fSetown, want: unix.F_SETOWN},
		{name: "F_SETOWN_EX", got: fSetownEx, want: unix.F_SETOWN_EX},
		{name: "F_SETSIG", got: fSetsig, want: unix.F_SETSIG},
		{name: "SIOCSPGRP", got: siocSpgrp, want: unix.SIOCSPGRP},
		{name: "PR_SET_MM", got: prSetMM, want: unix.PR_SET_MM},
		{name: "PR_SCHED_CORE", got: prSchedCore, want: unix.PR_SCHED_CORE},
		{name: "O_CREAT", got: oCreat, want: unix.O_CREAT},
		{name: "__O_TMPFILE, O_TMPFILE without O_DIRECTORY", got: oTmpfile, want: unix.O_TMPFILE &^ unix.O_DIRECTORY},
		{name: "S_ISUID|S_ISGID", got: modeSetID, want: unix.S_ISUID | unix.S_ISGID},
		{name: "MAP_LOCKED", got: mapLocked, want: unix.MAP_LOCKED},
		{name: "MAP_PRIVATE|MAP_ANONYMOUS", got: testMapPrivAnon, want: unix.MAP_PRIVATE | unix.MAP_ANONYMOUS},
		{name: "O_WRONLY", got: testOWronly, want: unix.O_WRONLY},
		{name: "O_EXCL", got: testOExcl, want: unix.O_EXCL},
		{name: "O_CLOEXEC", got: testOCloexec, want: unix.O_CLOEXEC},
		{name: "S_IFREG", got: testSIfreg, want: unix.S_IFREG},
		{name: "F_GETOWN", got: testFGetown, want: unix.F_GETOWN},
		{name: "F_SETFL", got: testFSetfl, want: unix.F_SETFL},
		{name: "PR_SET_VMA", got: testPrSetVMA, want: unix.PR_SET_VMA},
		{name: "PR_SET_NO_NEW_PRIVS", got: testPrSetNNP, want: unix.PR_SET_NO_NEW_PRIVS},
		{name: "TCGETS", got: testTCGETS, want: unix.TCGETS},
		{name: "TCGETS2", got: testTCGETS2, want: unix.TCGETS2},
		{name: "TIOCGPGRP", got: testTIOCGPGRP, want: unix.TIOCGPGRP},
		{name: "TIOCGWINSZ", got: testTIOCGWINSZ, want: unix.TIOCGWINSZ},
		{name: "TIOCGPTN", got: testTIOCGPTN, want: unix.TIOCGPTN},
		{name: "TIOCSPTLCK", got: testTIOCSPTLCK, want: unix.TIOCSPTLCK},
		{name: "TCSETX", got: testTCSETX, want: unix.TCSETX},
	}
	for _, c := range ioctlCommands {
		tests = append(tests, struct {
			name string
			got  uint64
			want uint64
		}{name: c.name, got: uint64(c.got), want: c.want})
	}
	if arch, ok := NativeArch(); ok {
		tmpfile := map[string]uint64{"amd64": testOTmpfileAMD64, "arm64": testOTmpfileARM64}[arch.Name]
		tests = append(tests, struct {
			name string
			got  uint64
			want uint64
		}{name: arch.Name + " O_TMPFILE", got: tmpfile, want: unix.O_TMPFILE})
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
			{"setuid", unix.SYS_SETUID}, {"setgroups", unix.SYS_SETGROUPS}, {"setpgid", unix.SYS_SETPGID},
			{"getsid", unix.SYS_GETSID}, {"sched_rr_get_interval", unix.SYS_SCHED_RR_GET_INTERVAL},
			{"ioprio_get", unix.SYS_IOPRIO_GET}, {"mlock2", unix.SYS_MLOCK2}, {"memfd_secret", unix.SYS_MEMFD_SECRET},
			{"openat", unix.SYS_OPENAT}, {"openat2", unix.SYS_OPENAT2}, {"mknodat", unix.SYS_MKNODAT},
			{"fcntl", unix.SYS_FCNTL}, {"prctl", unix.SYS_PRCTL}, {"mmap", unix.SYS_MMAP},
			{"io_setup", unix.SYS_IO_SETUP}, {"io_submit", unix.SYS_IO_SUBMIT}, {"io_pgetevents", unix.SYS_IO_PGETEVENTS},
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

// ioctlCommands name the commands of testIoctlRefused, each with its
// value in golang.org/x/sys/unix. FIOSETOWN, of asm-generic/sockios.h, is
// not named there: ownerChecks shows the kernel taking 0x8901 for it, by
// setting a socket's owner with it.
var ioctlCommands = []struct {
	name string
	got  uint32
	want uint64
}{
	{"TIOCSTI", tiocsti, unix.TIOCSTI}, {"TIOCLINUX", tioclinux, unix.TIOCLINUX},
	{"FIOSETOWN", fioSetown, 0x8901}, {"SIOCSPGRP", siocSpgrp, unix.SIOCSPGRP},
	{"TIOCSPGRP", tiocspgrp, unix.TIOCSPGRP}, {"TIOCSCTTY", tiocsctty, unix.TIOCSCTTY},
	{"TIOCNOTTY", tiocnotty, unix.TIOCNOTTY}, {"TIOCVHANGUP", tiocvhangup, unix.TIOCVHANGUP},
	{"TIOCCONS", tioccons, unix.TIOCCONS},
	{"TCSETS", tcsets, unix.TCSETS}, {"TCSETSW", tcsetsw, unix.TCSETSW}, {"TCSETSF", tcsetsf, unix.TCSETSF},
	{"TCSETA", tcseta, unix.TCSETA}, {"TCSETAW", tcsetaw, unix.TCSETAW}, {"TCSETAF", tcsetaf, unix.TCSETAF},
	{"TCSETS2", tcsets2, unix.TCSETS2}, {"TCSETSW2", tcsetsw2, unix.TCSETSW2}, {"TCSETSF2", tcsetsf2, unix.TCSETSF2},
	{"TIOCSLCKTRMIOS", tiocslcktrmios, unix.TIOCSLCKTRMIOS}, {"TIOCSSOFTCAR", tiocssoftcar, unix.TIOCSSOFTCAR},
	{"TIOCSETD", tiocsetd, unix.TIOCSETD}, {"TIOCEXCL", tiocexcl, unix.TIOCEXCL}, {"TIOCNXCL", tiocnxcl, unix.TIOCNXCL},
	{"TIOCSWINSZ", tiocswinsz, unix.TIOCSWINSZ},
	{"TCSBRK", tcsbrk, unix.TCSBRK}, {"TCSBRKP", tcsbrkp, unix.TCSBRKP}, {"TIOCSBRK", tiocsbrk, unix.TIOCSBRK},
	{"TIOCCBRK", tioccbrk, unix.TIOCCBRK}, {"TCXONC", tcxonc, unix.TCXONC}, {"TCFLSH", tcflsh, unix.TCFLSH},
	{"TIOCMSET", tiocmset, unix.TIOCMSET}, {"TIOCMBIS", tiocmbis, unix.TIOCMBIS}, {"TIOCMBIC", tiocmbic, unix.TIOCMBIC},
	{"TIOCSSERIAL", tiocsserial, unix.TIOCSSERIAL}, {"TIOCSRS485", tiocsrs485, unix.TIOCSRS485},
	{"TIOCSISO7816", tiocsiso7816, unix.TIOCSISO7816}, {"TIOCSERCONFIG", tiocserconfig, unix.TIOCSERCONFIG},
}

// TestSeccompIoctlCommands checks that ioctlCommands names every command
// of testIoctlRefused once, and that the filter refuses each under every
// configuration, on every architecture.
func TestSeccompIoctlCommands(t *testing.T) {
	named := map[uint32]string{}
	for _, c := range ioctlCommands {
		if other, ok := named[c.got]; ok {
			t.Errorf("%s and %s are both %#x", other, c.name, c.got)
		}
		named[c.got] = c.name
		for _, a := range []Arch{archAMD64, archARM64} {
			for _, tc := range testConfigs {
				if got := verdict(tc.config(), a, a.AuditArch, a.Table["ioctl"], [6]uint64{0, uint64(c.got)}); got != actEPERM {
					t.Errorf("%s, %s: ioctl %s = %v, want EPERM", a.Name, tc.name, c.name, got)
				}
			}
		}
	}
	for _, v := range testIoctlRefused {
		if _, ok := named[v]; !ok {
			t.Errorf("%#x is in testIoctlRefused, which ioctlCommands does not name", v)
		}
	}
	if len(named) != len(testIoctlRefused) {
		t.Errorf("%d commands named, %d listed", len(named), len(testIoctlRefused))
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
	dir    string // the scratch directory file is in
	// opens is an inotify descriptor, made before the filter, watching
	// file for IN_OPEN: whether the kernel opened it (opened).
	opens  int
	other  int // the sleep of seccompOtherEnv, its own process group
	thread int // a thread of the child other than its main thread
	sock   int // a UDP socket, made before the filter
	// broker is the child's end of the broker channel (brokerFD), on
	// which TestSeccompKernel, playing the supervisor, handed in one
	// connected TCP socket before the child started.
	broker int
	// handed is that socket once a check received it, -1 until then;
	// conn is it wrapped by net.FileConn, and handedFile the file that
	// owns it. standIn is the UDP socket the checks on the handed socket
	// use before it arrives: their controls, made before the filter.
	handed     int
	handedFile *os.File
	conn       net.Conn
	standIn    int
	// handedUDP, handedUDPFile, udpConn and standInUDP are the same of
	// the UDP socket handed in after the TCP one.
	handedUDP     int
	handedUDPFile *os.File
	udpConn       net.Conn
	standInUDP    int
	// page is a page the child mapped, outside the Go heap, for the
	// kernel to read and write; buf is its address.
	page []byte
	buf  uintptr
	// lowZero is the address of a page the child mapped at k<<32, whose
	// low 32 bits are 0, holding the RLIMIT_AS the child started with.
	lowZero uintptr
	// pty is the terminal side of a pseudo-terminal the child opened,
	// and ptmx its master, kept open so that the terminal does not hang
	// up. The checks touch no other terminal.
	pty, ptmx int
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

// seccompLoopbackEnv names, in the child's environment, the address of
// a loopback listener TestSeccompKernel started, which answers "ok" to
// each connection and asks for MPTCP, as Go's listeners may.
const seccompLoopbackEnv = "SABLINE_SECCOMP_LOOPBACK"

// loopbackCall connects to the parent's loopback listener with Go's net
// package, asking for MPTCP, as a worker's own dial would: it works
// without the filter, and no filter lets the worker dial.
func loopbackCall(*childEnv) error {
	var d net.Dialer
	d.SetMultipathTCP(true)
	c, err := d.Dial("tcp", os.Getenv(seccompLoopbackEnv))
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

// udpDialCall dials UDP to the port of the parent's loopback listener
// with Go's net package, as net.udp does: a socket, SO_BROADCAST and a
// connect, which sends nothing.
func udpDialCall(*childEnv) error {
	c, err := net.Dial("udp", os.Getenv(seccompLoopbackEnv))
	if err != nil {
		return err
	}
	return c.Close()
}

// listenCall listens on an unbound TCP socket, which the kernel binds to
// a free port first: no bind call, so no Landlock TCP bind right, holds
// it. The listener is closed at once.
func listenCall(*childEnv) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	return unix.Listen(fd, 1)
}

// serveLoopback answers "ok" on a loopback listener until it is closed.
func serveLoopback(t *testing.T) string {
	var lc net.ListenConfig
	lc.SetMultipathTCP(true)
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("loopback listener: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("ok"))
			c.Close()
		}
	}()
	return l.Addr().String()
}

// testKcmpFile is KCMP_FILE of linux/kcmp.h, which x/sys/unix does not
// name: kcmp compares two descriptors.
const testKcmpFile = 0

// testFOwnerPID is F_OWNER_PID of linux/fcntl.h, which x/sys/unix does
// not name: the owner F_SETOWN_EX sets is a process.
const testFOwnerPID = 1

// testIPCKey is a System V IPC key no segment is expected to have.
const testIPCKey = 0x5ab11e00

// denyListChecks are calls the allow-list leaves out, each made by its number in
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
		// The newest calls of the table, none on the allow-list. Without
		// the filter: EFAULT or EINVAL, nothing to read or do.
		{name: "listns(NULL, NULL, 0, 0)", call: "listns"},
		{name: "file_getattr(AT_FDCWD, NULL, NULL, 0, 0)", call: "file_getattr", args: func(*childEnv) []uintptr {
			return []uintptr{atFDCWD}
		}},
		{name: "getxattrat(AT_FDCWD, NULL, 0, NULL, NULL, 0)", call: "getxattrat", args: func(*childEnv) []uintptr {
			return []uintptr{atFDCWD}
		}},
		{name: "lsm_get_self_attr(0, NULL, NULL, 0)", call: "lsm_get_self_attr"},
		{name: "open_tree_attr(-1, NULL, 0, NULL, 0)", call: "open_tree_attr", fd: true, args: func(*childEnv) []uintptr {
			return []uintptr{^uintptr(0)}
		}},
		{name: "mq_getsetattr(-1, NULL, NULL)", call: "mq_getsetattr", args: func(*childEnv) []uintptr {
			return []uintptr{^uintptr(0)}
		}},
		{name: "keyctl(KEYCTL_GET_KEYRING_ID, 0, 0)", call: "keyctl"},
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

// offsetOf is the offset of the descriptor fd as the kernel holds it,
// read from /proc/self/fdinfo.
func offsetOf(fd int) (int64, error) {
	info, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", fd))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(info)) {
		if v, ok := strings.CutPrefix(line, "pos:"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("no pos: in the fdinfo of %d: %q", fd, info)
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
		// getrlimit is not on the allow-list: the runtime reads its limits
		// with prlimit64.
		{name: "getrlimit(RLIMIT_AS)", want: eperm, works: true, call: func(*childEnv) error {
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

// atFDCWD is AT_FDCWD, -100, as a raw call's argument.
const atFDCWD = ^uintptr(-unix.AT_FDCWD - 1)

// withPath calls f with the address of path as a C string, kept alive
// until f returns: on the Go heap, which does not move.
func withPath(path string, f func(p uintptr) error) error {
	b, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	err = f(uintptr(unsafe.Pointer(b)))
	runtime.KeepAlive(b)
	return err
}

// schedulingChecks set the nice value, I/O priority, CPU affinity and
// scheduling of the child's own threads, each to what it has: without the
// filter, nothing changes; with it, each is refused, for the caller too.
// They then read the priorities and scheduling of the caller (0), of the
// child (its pid), of another thread of the child and of the sleep: only
// the first two may be read. The calls on 0 are made on the locked
// thread, so that what is read and what is set are one thread's.
func schedulingChecks() []kernelCheck {
	eperm := unix.EPERM
	nice := func(who int) error {
		prio, err := unix.Getpriority(unix.PRIO_PROCESS, who) // the kernel answers 20 - nice
		if err != nil {
			return fmt.Errorf("getpriority(PRIO_PROCESS, %d): %w", who, err)
		}
		return unix.Setpriority(unix.PRIO_PROCESS, who, 20-prio)
	}
	ioprioGet := func(who int) (uintptr, error) { // IOPRIO_WHO_PROCESS, which x/sys/unix does not name
		return rawCall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(who))
	}
	ioprio := func(*childEnv) error {
		prio, err := ioprioGet(0)
		if err != nil {
			return fmt.Errorf("ioprio_get(IOPRIO_WHO_PROCESS, 0): %w", err)
		}
		_, err = rawCall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, 0, prio)
		return err
	}
	affinity := func(*childEnv) error {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			return fmt.Errorf("sched_getaffinity(0): %w", err)
		}
		return unix.SchedSetaffinity(0, &set)
	}
	attr := func(*childEnv) error {
		a, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			return fmt.Errorf("sched_getattr(0): %w", err)
		}
		return unix.SchedSetAttr(0, a, 0)
	}
	// param reads the caller's scheduling parameter, and its policy with
	// it when set is SYS_SCHED_SETSCHEDULER, and sets them again with set.
	param := func(set uintptr) func(*childEnv) error {
		return func(e *childEnv) error {
			if _, err := rawCall(unix.SYS_SCHED_GETPARAM, 0, e.buf); err != nil {
				return fmt.Errorf("sched_getparam(0): %w", err)
			}
			if set == unix.SYS_SCHED_SETPARAM {
				_, err := rawCall(set, 0, e.buf)
				return err
			}
			policy, err := rawCall(unix.SYS_SCHED_GETSCHEDULER, 0)
			if err != nil {
				return fmt.Errorf("sched_getscheduler(0): %w", err)
			}
			_, err = rawCall(set, 0, policy, e.buf)
			return err
		}
	}
	checks := []kernelCheck{
		{name: "setpriority(PRIO_PROCESS, 0, its nice)", locked: true, want: eperm, works: true, call: func(*childEnv) error { return nice(0) }},
		{name: "setpriority(PRIO_PROCESS, own pid, its nice)", want: eperm, works: true, call: func(e *childEnv) error { return nice(e.pid) }},
		{name: "ioprio_set(IOPRIO_WHO_PROCESS, 0, its priority)", locked: true, want: eperm, works: true, call: ioprio},
		{name: "sched_setaffinity(0, its mask)", locked: true, want: eperm, works: true, call: affinity},
		{name: "sched_setattr(0, its attributes)", locked: true, want: eperm, works: true, call: attr},
		{name: "sched_setscheduler(0, its policy and parameter)", locked: true, want: eperm, works: true, call: param(unix.SYS_SCHED_SETSCHEDULER)},
		{name: "sched_setparam(0, its parameter)", locked: true, want: eperm, works: true, call: param(unix.SYS_SCHED_SETPARAM)},
	}
	// Reads, by who they name: the caller, the child, another thread of
	// the child, the sleep, and the sleep with the high word set.
	whos := []struct {
		name    string
		who     func(*childEnv) uintptr
		refused bool
	}{
		{name: "0", who: func(*childEnv) uintptr { return 0 }},
		{name: "own pid", who: func(e *childEnv) uintptr { return uintptr(e.pid) }},
		{name: "another thread of the child", who: func(e *childEnv) uintptr { return uintptr(e.thread) }, refused: true},
		{name: "the sleep", who: func(e *childEnv) uintptr { return uintptr(e.other) }, refused: true},
		{name: "the sleep|1<<32", who: func(e *childEnv) uintptr { return uintptr(testHigh) | uintptr(e.other) }, refused: true},
	}
	reads := []struct {
		name string
		call func(who, buf uintptr) error
	}{
		{name: "getpriority(PRIO_PROCESS, %s)", call: func(who, _ uintptr) error {
			_, err := rawCall(unix.SYS_GETPRIORITY, unix.PRIO_PROCESS, who)
			return err
		}},
		{name: "ioprio_get(IOPRIO_WHO_PROCESS, %s)", call: func(who, _ uintptr) error {
			_, err := ioprioGet(int(who))
			return err
		}},
		{name: "sched_getscheduler(%s)", call: func(who, _ uintptr) error {
			_, err := rawCall(unix.SYS_SCHED_GETSCHEDULER, who)
			return err
		}},
		{name: "sched_getparam(%s)", call: func(who, buf uintptr) error {
			_, err := rawCall(unix.SYS_SCHED_GETPARAM, who, buf)
			return err
		}},
		// 56 bytes: struct sched_attr of SCHED_ATTR_SIZE_VER1.
		{name: "sched_getattr(%s)", call: func(who, buf uintptr) error {
			_, err := rawCall(unix.SYS_SCHED_GETATTR, who, buf, 56, 0)
			return err
		}},
		{name: "sched_getaffinity(%s)", call: func(who, buf uintptr) error {
			_, err := rawCall(unix.SYS_SCHED_GETAFFINITY, who, 128, buf)
			return err
		}},
		{name: "sched_rr_get_interval(%s)", call: func(who, buf uintptr) error {
			_, err := rawCall(unix.SYS_SCHED_RR_GET_INTERVAL, who, buf)
			return err
		}},
		{name: "getsid(%s)", call: func(who, _ uintptr) error {
			_, err := rawCall(unix.SYS_GETSID, who)
			return err
		}},
		{name: "getpgid(%s)", call: func(who, _ uintptr) error {
			_, err := rawCall(unix.SYS_GETPGID, who)
			return err
		}},
	}
	for _, r := range reads {
		for _, w := range whos {
			c := kernelCheck{name: fmt.Sprintf(r.name, w.name), locked: w.name == "0", call: func(e *childEnv) error {
				return r.call(w.who(e), e.buf)
			}}
			// Only sched_getaffinity is on the allow-list, and only for
			// the caller and the child: the runtime counts its CPUs so.
			if w.refused || !strings.HasPrefix(r.name, "sched_getaffinity") {
				c.want, c.works = eperm, true
			}
			checks = append(checks, c)
		}
	}
	// CPU clocks, by whose they are: the kernel answers a process's for
	// any pid, without a permission check. The caller's and the child's
	// are read; another thread's, and the sleep's, refused. The machine's
	// clocks are read whatever the rest of the word.
	clock := func(id func(*childEnv) uintptr) func(*childEnv) error {
		return func(e *childEnv) error {
			_, err := rawCall(unix.SYS_CLOCK_GETTIME, id(e), e.buf)
			return err
		}
	}
	cpuClock := func(pid int, which int32) uintptr { return uintptr(testCPUClock(int32(pid), which)) }
	checks = append(checks,
		kernelCheck{name: "clock_gettime(CLOCK_MONOTONIC)", call: clock(func(*childEnv) uintptr { return unix.CLOCK_MONOTONIC })},
		kernelCheck{name: "clock_gettime(1<<32|CLOCK_MONOTONIC)", call: clock(func(*childEnv) uintptr {
			return uintptr(testHigh) | unix.CLOCK_MONOTONIC
		})},
		kernelCheck{name: "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)", call: clock(func(*childEnv) uintptr {
			return unix.CLOCK_PROCESS_CPUTIME_ID
		})},
		kernelCheck{name: "clock_gettime(the CPU clock of pid 0)", call: clock(func(*childEnv) uintptr { return cpuClock(0, 2) })},
		kernelCheck{name: "clock_gettime(the CPU clock of own pid)", call: clock(func(e *childEnv) uintptr { return cpuClock(e.pid, 2) })},
		kernelCheck{name: "clock_gettime(the calling thread's CPU clock, tid 0)", locked: true, call: clock(func(*childEnv) uintptr {
			return cpuClock(0, 6)
		})},
		kernelCheck{name: "clock_gettime(the CPU clock of another thread of the child)", want: eperm, works: true,
			call: clock(func(e *childEnv) uintptr { return cpuClock(e.thread, 6) })},
		kernelCheck{name: "clock_gettime(the sleep's CPU clock)", want: eperm, works: true,
			call: clock(func(e *childEnv) uintptr { return cpuClock(e.other, 2) })},
		kernelCheck{name: "clock_gettime(the sleep's CPU clock, 1<<32 above)", want: eperm, works: true,
			call: clock(func(e *childEnv) uintptr { return uintptr(testHigh) | uintptr(uint32(cpuClock(e.other, 0))) })},
	)
	// A process group and a user are other processes too.
	for _, which := range []int{unix.PRIO_PGRP, unix.PRIO_USER} {
		checks = append(checks, kernelCheck{name: fmt.Sprintf("getpriority(%d, 0)", which), want: eperm, works: true,
			call: func(*childEnv) error {
				_, err := unix.Getpriority(which, 0)
				return err
			}})
	}
	return checks
}

// makeFile has mk make path, and checks what became of it: a regular
// file with the set-ID bits setID when mk succeeded, which is then
// removed, and no file when it failed. It returns mk's error.
func makeFile(path string, setID uint32, mk func(path string) error) error {
	err := mk(path)
	var st unix.Stat_t
	serr := unix.Lstat(path, &st)
	switch {
	case err == nil && serr != nil:
		return fmt.Errorf("made %s, but: %w", path, serr)
	case err == nil:
		if rerr := unix.Unlink(path); rerr != nil {
			return fmt.Errorf("remove %s: %w", path, rerr)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&modeSetID != setID {
			return fmt.Errorf("made %s with mode %#o, want a regular file with set-ID bits %#o", path, st.Mode, setID)
		}
	case !errors.Is(serr, unix.ENOENT):
		// %v, not %w: a refusal that left a file is no refusal.
		return fmt.Errorf("failed with %v, but %s is there: %v", err, path, serr)
	}
	return err
}

// setIDChecks make set-user-ID and set-group-ID files in the child's
// scratch directory, by every call that makes one, and remove each file
// made: without the filter each is made, with it none is. Files without
// those bits are still made, and a file opened without O_CREAT may name
// any mode. The modes have no execute bit: no file made here is a program.
func setIDChecks(arch Arch) []kernelCheck {
	eperm := unix.EPERM
	const suid, sgid = unix.S_ISUID | 0o600, unix.S_ISGID | 0o600
	openat := func(flags int, mode uint32) func(string) error {
		return func(path string) error {
			fd, err := unix.Openat(unix.AT_FDCWD, path, flags|unix.O_WRONLY|unix.O_EXCL|unix.O_CLOEXEC, mode)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}
	}
	mknodat := func(mode uint32) func(string) error {
		return func(path string) error { return unix.Mknodat(unix.AT_FDCWD, path, unix.S_IFREG|mode, 0) }
	}
	made := func(name string, setID uint32, mk func(string) error) func(*childEnv) error {
		return func(e *childEnv) error { return makeFile(filepath.Join(e.dir, name), setID, mk) }
	}
	checks := []kernelCheck{
		{name: "openat(O_CREAT, S_ISUID|0600)", want: eperm, works: true, call: made("suid", unix.S_ISUID, openat(unix.O_CREAT, suid))},
		{name: "openat(O_CREAT, S_ISGID|0600)", want: eperm, works: true, call: made("sgid", unix.S_ISGID, openat(unix.O_CREAT, sgid))},
		{name: "openat(1<<32|O_CREAT, 1<<32|S_ISUID|0600)", want: eperm, works: true, call: made("suid-high", unix.S_ISUID, func(path string) error {
			return withPath(path, func(p uintptr) error {
				return fdCall(unix.SYS_OPENAT, atFDCWD, p,
					uintptr(testHigh)|unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, uintptr(testHigh)|suid)
			})
		})},
		{name: "mknodat(S_IFREG|S_ISUID|0600)", want: eperm, works: true, call: made("suid-node", unix.S_ISUID, mknodat(suid))},
		{name: "mknodat(S_IFREG|S_ISGID|0600)", want: eperm, works: true, call: made("sgid-node", unix.S_ISGID, mknodat(sgid))},
		{name: "openat(O_TMPFILE, S_ISGID|0600)", want: eperm, works: true, call: func(e *childEnv) error {
			fd, err := unix.Openat(unix.AT_FDCWD, e.dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, sgid)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			var st unix.Stat_t
			if err := unix.Fstat(fd, &st); err != nil {
				return fmt.Errorf("fstat of the O_TMPFILE file: %w", err)
			}
			if st.Mode&modeSetID != unix.S_ISGID {
				return fmt.Errorf("the O_TMPFILE file has mode %#o, want S_ISGID", st.Mode)
			}
			return nil
		}},
		{name: "openat(O_CREAT, 0600)", call: made("plain", 0, openat(unix.O_CREAT, 0o600))},
		{name: "os.OpenFile(O_CREATE, 0644), as fs.write makes a file", call: made("written", 0, func(path string) error {
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
			if err == nil {
				f.Close()
			}
			return err
		})},
		{name: "mknodat(S_IFREG|0600)", call: made("plain-node", 0, mknodat(0o600))},
		// Without O_CREAT or O_TMPFILE the kernel ignores the mode.
		{name: "openat(scratch file, O_RDONLY, S_ISUID|0600)", call: func(e *childEnv) error {
			return withPath(e.file, func(p uintptr) error {
				return fdCall(unix.SYS_OPENAT, atFDCWD, p, unix.O_RDONLY|unix.O_CLOEXEC, suid)
			})
		}},
		{name: "openat2 of a missing file", want: unix.ENOSYS, call: func(e *childEnv) error {
			fd, err := unix.Openat2(unix.AT_FDCWD, filepath.Join(e.dir, "missing"), &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC})
			if err == nil {
				unix.Close(fd)
			}
			return err
		}},
	}
	// The calls of amd64 that arm64 does not have.
	for _, c := range []struct {
		name, call, file string
		setID            uint32
		fd               bool // the call returns a descriptor
		args             func(path uintptr) []uintptr
	}{
		{name: "open(O_CREAT, S_ISUID|0600)", call: "open", file: "suid-open", setID: unix.S_ISUID, fd: true, args: func(p uintptr) []uintptr {
			return []uintptr{p, unix.O_CREAT | unix.O_EXCL | unix.O_WRONLY | unix.O_CLOEXEC, suid}
		}},
		{name: "creat(S_ISGID|0600)", call: "creat", file: "sgid-creat", setID: unix.S_ISGID, fd: true, args: func(p uintptr) []uintptr {
			return []uintptr{p, sgid}
		}},
		{name: "mknod(S_IFREG|S_ISUID|0600)", call: "mknod", file: "suid-mknod", setID: unix.S_ISUID, args: func(p uintptr) []uintptr {
			return []uintptr{p, unix.S_IFREG | suid, 0}
		}},
	} {
		nr, ok := arch.Table[c.call]
		if !ok {
			continue
		}
		checks = append(checks, kernelCheck{name: c.name, want: eperm, works: true, call: made(c.file, c.setID, func(path string) error {
			return withPath(path, func(p uintptr) error {
				if c.fd {
					return fdCall(uintptr(nr), c.args(p)...)
				}
				_, err := rawCall(uintptr(nr), c.args(p)...)
				return err
			})
		})})
	}
	return checks
}

// identityChecks set the child's user and group ids, and its
// supplementary groups, to what they are, or only read them: without the
// filter each call works and changes nothing, with it each is refused.
// They are made on the locked thread, since the kernel keeps credentials
// per thread.
func identityChecks() []kernelCheck {
	eperm := unix.EPERM
	uid, gid := uintptr(os.Getuid()), uintptr(os.Getgid())
	keep := ^uintptr(0) // -1: this id is left as it is
	call := func(nr uintptr, args ...uintptr) func(*childEnv) error {
		return func(*childEnv) error {
			_, err := rawCall(nr, args...)
			return err
		}
	}
	checks := []kernelCheck{
		{name: "setuid(its uid)", call: call(unix.SYS_SETUID, uid)},
		{name: "setgid(its gid)", call: call(unix.SYS_SETGID, gid)},
		{name: "setreuid(-1, -1)", call: call(unix.SYS_SETREUID, keep, keep)},
		{name: "setregid(-1, -1)", call: call(unix.SYS_SETREGID, keep, keep)},
		{name: "setresuid(-1, -1, -1)", call: call(unix.SYS_SETRESUID, keep, keep, keep)},
		{name: "setresgid(-1, -1, -1)", call: call(unix.SYS_SETRESGID, keep, keep, keep)},
		// An id of -1 only asks for the current one.
		{name: "setfsuid(-1)", call: call(unix.SYS_SETFSUID, keep)},
		{name: "setfsgid(-1)", call: call(unix.SYS_SETFSGID, keep)},
	}
	if os.Geteuid() == 0 {
		// Only a process with CAP_SETGID may call setgroups at all.
		checks = append(checks, kernelCheck{name: "setgroups(its groups)", call: func(*childEnv) error {
			groups, err := unix.Getgroups()
			if err != nil {
				return fmt.Errorf("getgroups: %w", err)
			}
			list := make([]uint32, len(groups)+1) // never empty, so that its address is one
			for i, g := range groups {
				list[i] = uint32(g)
			}
			_, _, errno := unix.Syscall(unix.SYS_SETGROUPS, uintptr(len(groups)), uintptr(unsafe.Pointer(&list[0])), 0)
			return errnoOf(errno)
		}})
	}
	for i := range checks {
		checks[i].locked, checks[i].want, checks[i].works = true, eperm, true
	}
	return checks
}

// ownerChecks make the child's socket signal the child, with each call
// that names the process a descriptor's SIGIO goes to, read the owner
// back, and set it to none again: without the filter each works, with it
// each is refused. The socket is not in O_ASYNC mode, so no signal is
// sent either way.
func ownerChecks() []kernelCheck {
	eperm := unix.EPERM
	owner := func(e *childEnv) (int, error) {
		r, err := rawCall(unix.SYS_FCNTL, uintptr(e.sock), unix.F_GETOWN)
		return int(r), err
	}
	// setAndClear has set make the child the socket's owner, then no
	// process, and checks each with F_GETOWN.
	setAndClear := func(set func(e *childEnv, pid int) error) func(*childEnv) error {
		return func(e *childEnv) error {
			for _, pid := range []int{e.pid, 0} {
				if err := set(e, pid); err != nil {
					return err
				}
				if got, err := owner(e); err != nil || got != pid {
					return fmt.Errorf("F_GETOWN = %d, %v after setting the owner to %d", got, err, pid)
				}
			}
			return nil
		}
	}
	fcntl := func(cmd uintptr) func(*childEnv, int) error {
		return func(e *childEnv, pid int) error {
			_, err := rawCall(unix.SYS_FCNTL, uintptr(e.sock), cmd, uintptr(pid))
			return err
		}
	}
	ioctl := func(cmd uintptr) func(*childEnv, int) error {
		return func(e *childEnv, pid int) error {
			binary.NativeEndian.PutUint32(e.page, uint32(pid))
			_, err := rawCall(unix.SYS_IOCTL, uintptr(e.sock), cmd, e.buf)
			return err
		}
	}
	return []kernelCheck{
		{name: "fcntl(socket, F_GETOWN)", want: eperm, works: true, call: func(e *childEnv) error { _, err := owner(e); return err }},
		{name: "fcntl(socket, F_SETOWN, own pid)", want: eperm, works: true, call: setAndClear(fcntl(unix.F_SETOWN))},
		{name: "fcntl(socket, 1<<32|F_SETOWN, own pid)", want: eperm, works: true, call: setAndClear(fcntl(uintptr(testHigh) | unix.F_SETOWN))},
		{name: "fcntl(socket, F_SETOWN_EX, F_OWNER_PID own pid)", want: eperm, works: true, call: setAndClear(func(e *childEnv, pid int) error {
			// struct f_owner_ex: the owner's type, then its id.
			binary.NativeEndian.PutUint32(e.page, testFOwnerPID)
			binary.NativeEndian.PutUint32(e.page[4:], uint32(pid))
			_, err := rawCall(unix.SYS_FCNTL, uintptr(e.sock), unix.F_SETOWN_EX, e.buf)
			return err
		})},
		{name: "ioctl(socket, FIOSETOWN, own pid)", want: eperm, works: true, call: setAndClear(ioctl(fioSetown))},
		{name: "ioctl(socket, SIOCSPGRP, own pid)", want: eperm, works: true, call: setAndClear(ioctl(unix.SIOCSPGRP))},
		// The signal SIGIO is sent as: SIGURG, then the default again.
		{name: "fcntl(socket, F_SETSIG, SIGURG)", want: eperm, works: true, call: func(e *childEnv) error {
			for _, sig := range []int{int(unix.SIGURG), 0} {
				if _, err := rawCall(unix.SYS_FCNTL, uintptr(e.sock), unix.F_SETSIG, uintptr(sig)); err != nil {
					return err
				}
				if got, err := rawCall(unix.SYS_FCNTL, uintptr(e.sock), unix.F_GETSIG); err != nil || int(got) != sig {
					return fmt.Errorf("F_GETSIG = %d, %v after F_SETSIG %d", got, err, sig)
				}
			}
			return nil
		}},
	}
}

// memoryChecks lock a page of the child's, and unlock it again, with each
// call that locks memory: without the filter each works, with it each is
// refused. mlockall is given no flags, which the kernel refuses (EINVAL)
// before it locks anything.
func memoryChecks() []kernelCheck {
	eperm := unix.EPERM
	page := uintptr(os.Getpagesize())
	// lockPage maps a page, has lock lock it and unlock unlock it, and
	// unmaps it.
	lockPage := func(lock func(addr uintptr) error, unlock bool) func(*childEnv) error {
		return func(*childEnv) error {
			addr, err := rawCall(unix.SYS_MMAP, 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS, ^uintptr(0), 0)
			if err != nil {
				return fmt.Errorf("mmap: %w", err)
			}
			defer rawCall(unix.SYS_MUNMAP, addr, page)
			if err := lock(addr); err != nil || !unlock {
				return err
			}
			_, err = rawCall(unix.SYS_MUNLOCK, addr, page)
			return err
		}
	}
	return []kernelCheck{
		{name: "mlock(a page)", want: eperm, works: true, call: lockPage(func(addr uintptr) error {
			_, err := rawCall(unix.SYS_MLOCK, addr, page)
			return err
		}, true)},
		{name: "mlock2(a page, 0)", want: eperm, works: true, call: lockPage(func(addr uintptr) error {
			_, err := rawCall(unix.SYS_MLOCK2, addr, page, 0)
			return err
		}, true)},
		{name: "munlock(a page)", want: eperm, works: true, call: lockPage(func(addr uintptr) error {
			_, err := rawCall(unix.SYS_MUNLOCK, addr, page)
			return err
		}, false)},
		{name: "mlockall(0)", want: eperm, call: func(*childEnv) error {
			_, err := rawCall(unix.SYS_MLOCKALL, 0)
			return err
		}},
		{name: "munlockall()", want: eperm, works: true, call: func(*childEnv) error {
			_, err := rawCall(unix.SYS_MUNLOCKALL)
			return err
		}},
		{name: "mmap(MAP_LOCKED, a page)", want: eperm, works: true, call: func(*childEnv) error {
			addr, err := rawCall(unix.SYS_MMAP, 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_LOCKED, ^uintptr(0), 0)
			if err == nil {
				rawCall(unix.SYS_MUNMAP, addr, page)
			}
			return err
		}},
		{name: "mmap(a page), as the Go runtime maps", call: lockPage(func(uintptr) error { return nil }, false)},
		// Without secret memory in the kernel, ENOSYS.
		{name: "memfd_secret(0)", want: eperm, call: func(*childEnv) error { return fdCall(unix.SYS_MEMFD_SECRET, 0) }},
		// Kernel objects no memory limit counts: the runtime's poller was
		// made before the filter, and no other is made.
		{name: "epoll_create1(EPOLL_CLOEXEC)", want: eperm, works: true, call: func(*childEnv) error {
			return fdCall(unix.SYS_EPOLL_CREATE1, unix.EPOLL_CLOEXEC)
		}},
		{name: "eventfd2(0, EFD_CLOEXEC)", want: eperm, works: true, call: func(*childEnv) error {
			return fdCall(unix.SYS_EVENTFD2, 0, unix.EFD_CLOEXEC)
		}},
		{name: "pipe2(O_CLOEXEC)", want: eperm, works: true, call: func(*childEnv) error {
			var p [2]int
			err := unix.Pipe2(p[:], unix.O_CLOEXEC)
			if err == nil {
				unix.Close(p[0])
				unix.Close(p[1])
			}
			return err
		}},
	}
}

// processChecks are prctl's options and the process group: PR_SET_MM
// asked only for the size of its map (which changes nothing), with the
// option's high word set too, PR_SCHED_CORE asked for the caller's cookie
// (EINVAL from a kernel without core scheduling), and setpgid into the
// group the child is in. Without the filter none fails with EPERM.
func processChecks() []kernelCheck {
	eperm := unix.EPERM
	mmMapSize := func(option uintptr) func(*childEnv) error {
		return func(e *childEnv) error {
			_, err := rawCall(unix.SYS_PRCTL, option, unix.PR_SET_MM_MAP_SIZE, e.buf, 0, 0)
			return err
		}
	}
	return []kernelCheck{
		{name: "prctl(PR_SET_MM, PR_SET_MM_MAP_SIZE)", want: eperm, works: true, call: mmMapSize(unix.PR_SET_MM)},
		{name: "prctl(1<<32|PR_SET_MM, PR_SET_MM_MAP_SIZE)", want: eperm, works: true, call: mmMapSize(uintptr(testHigh) | unix.PR_SET_MM)},
		{name: "prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0)", want: eperm, call: func(e *childEnv) error {
			_, err := rawCall(unix.SYS_PRCTL, unix.PR_SCHED_CORE, unix.PR_SCHED_CORE_GET, 0, 0 /* PIDTYPE_PID */, e.buf)
			return err
		}},
		{name: "prctl(PR_GET_DUMPABLE)", want: eperm, works: true, call: func(*childEnv) error {
			_, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
			return err
		}},
		{name: "setpgid(0, its process group)", want: eperm, works: true, call: func(*childEnv) error {
			return unix.Setpgid(0, unix.Getpgrp())
		}},
	}
}

// openPty opens a pseudo-terminal, as posix_openpt, grantpt, unlockpt
// and ptsname do, and returns its master and its terminal side, neither
// of them the controlling terminal of the process.
func openPty() (ptmx, pty int, err error) {
	ptmx, err = unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, -1, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	n, err := unix.IoctlGetUint32(ptmx, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(ptmx, unix.TIOCSPTLCK, 0)
	}
	if err == nil {
		pty, err = unix.Open("/dev/pts/"+strconv.Itoa(int(n)), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		unix.Close(ptmx)
		return -1, -1, fmt.Errorf("open the terminal of /dev/ptmx: %w", err)
	}
	return ptmx, pty, nil
}

// terminalChecks make every ioctl command the filter refuses on no
// descriptor (-1), as is and with its high word set: without the filter
// the kernel answers EBADF, since it looks the descriptor up first, and
// with it the filter answers EPERM before that. Then, on the child's own
// pseudo-terminal, they read each setting a pseudo-terminal has and set it
// again to what it is, and make each command that only waits or flushes
// what is empty: without the filter each works and changes nothing, with
// it each is refused. Reading the terminal and writing to it stay
// allowed. TIOCCONS and TIOCVHANGUP, which would redirect the console to
// the terminal or hang it up, are made on no descriptor only.
func terminalChecks() []kernelCheck {
	eperm := unix.EPERM
	var checks []kernelCheck
	for _, c := range ioctlCommands {
		for _, high := range []uintptr{0, uintptr(testHigh)} {
			name := fmt.Sprintf("ioctl(-1, %s)", c.name)
			if high != 0 {
				name = fmt.Sprintf("ioctl(-1, 1<<32|%s)", c.name)
			}
			checks = append(checks, kernelCheck{name: name, want: eperm, call: func(*childEnv) error {
				_, err := rawCall(unix.SYS_IOCTL, ^uintptr(0), high|uintptr(c.want), 0)
				return err
			}})
		}
	}
	ioctl := func(e *childEnv, cmd, arg uintptr) error {
		_, err := rawCall(unix.SYS_IOCTL, uintptr(e.pty), cmd, arg)
		return err
	}
	// read reads a setting into the child's page.
	read := func(cmd uintptr) func(*childEnv) error {
		return func(e *childEnv) error { return ioctl(e, cmd, e.buf) }
	}
	// again reads a setting with get into the child's page, and sets it
	// from there with set.
	again := func(get, set uintptr) func(*childEnv) error {
		return func(e *childEnv) error {
			if err := ioctl(e, get, e.buf); err != nil {
				return fmt.Errorf("ioctl(pty, %#x): %w", get, err)
			}
			return ioctl(e, set, e.buf)
		}
	}
	// each makes the commands in turn, with their arguments.
	each := func(cmds ...[2]uintptr) func(*childEnv) error {
		return func(e *childEnv) error {
			for _, c := range cmds {
				if err := ioctl(e, c[0], c[1]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	checks = append(checks,
		kernelCheck{name: "ioctl(pty, TCGETS)", call: read(unix.TCGETS)},
		kernelCheck{name: "ioctl(pty, TCGETS2)", want: eperm, works: true, call: read(unix.TCGETS2)},
		kernelCheck{name: "ioctl(pty, TIOCGWINSZ)", call: read(unix.TIOCGWINSZ)},
		kernelCheck{name: "ioctl(pty, TIOCGETD)", want: eperm, works: true, call: read(unix.TIOCGETD)},
		kernelCheck{name: "ioctl(pty, FIONREAD)", call: read(unix.TIOCINQ)},
		kernelCheck{name: "ioctl(pty, TCSETS, its termios)", want: eperm, works: true, call: again(unix.TCGETS, unix.TCSETS)},
		kernelCheck{name: "ioctl(pty, 1<<32|TCSETS, its termios)", want: eperm, works: true, call: again(unix.TCGETS, uintptr(testHigh)|unix.TCSETS)},
		kernelCheck{name: "ioctl(pty, TCSETSW, its termios)", want: eperm, works: true, call: again(unix.TCGETS, unix.TCSETSW)},
		kernelCheck{name: "ioctl(pty, TCSETSF, its termios)", want: eperm, works: true, call: again(unix.TCGETS, unix.TCSETSF)},
		kernelCheck{name: "ioctl(pty, TCSETA, its termio)", want: eperm, works: true, call: again(unix.TCGETA, unix.TCSETA)},
		kernelCheck{name: "ioctl(pty, TCSETAW, its termio)", want: eperm, works: true, call: again(unix.TCGETA, unix.TCSETAW)},
		kernelCheck{name: "ioctl(pty, TCSETAF, its termio)", want: eperm, works: true, call: again(unix.TCGETA, unix.TCSETAF)},
		kernelCheck{name: "ioctl(pty, TCSETS2, its termios2)", want: eperm, works: true, call: again(unix.TCGETS2, unix.TCSETS2)},
		kernelCheck{name: "ioctl(pty, TCSETSW2, its termios2)", want: eperm, works: true, call: again(unix.TCGETS2, unix.TCSETSW2)},
		kernelCheck{name: "ioctl(pty, TCSETSF2, its termios2)", want: eperm, works: true, call: again(unix.TCGETS2, unix.TCSETSF2)},
		kernelCheck{name: "ioctl(pty, TIOCSWINSZ, its size)", want: eperm, works: true, call: again(unix.TIOCGWINSZ, unix.TIOCSWINSZ)},
		kernelCheck{name: "ioctl(pty, 1<<32|TIOCSWINSZ, its size)", want: eperm, works: true, call: again(unix.TIOCGWINSZ, uintptr(testHigh)|unix.TIOCSWINSZ)},
		kernelCheck{name: "ioctl(pty, TIOCSETD, its discipline)", want: eperm, works: true, call: again(unix.TIOCGETD, unix.TIOCSETD)},
		kernelCheck{name: "ioctl(pty, TIOCSSOFTCAR, its carrier)", want: eperm, works: true, call: again(unix.TIOCGSOFTCAR, unix.TIOCSSOFTCAR)},
		kernelCheck{name: "ioctl(pty, TIOCEXCL), then TIOCNXCL", want: eperm, works: true, call: each([2]uintptr{unix.TIOCEXCL}, [2]uintptr{unix.TIOCNXCL})},
		kernelCheck{name: "ioctl(pty, TIOCNXCL)", want: eperm, works: true, call: each([2]uintptr{unix.TIOCNXCL})},
		// A pseudo-terminal has no line to break: these only wait.
		kernelCheck{name: "ioctl(pty, TCSBRK, 1), tcdrain", want: eperm, works: true, call: each([2]uintptr{unix.TCSBRK, 1})},
		kernelCheck{name: "ioctl(pty, TIOCSBRK), then TIOCCBRK", want: eperm, works: true, call: each([2]uintptr{unix.TIOCSBRK}, [2]uintptr{unix.TIOCCBRK})},
		kernelCheck{name: "ioctl(pty, TCXONC, TCOON)", want: eperm, works: true, call: each([2]uintptr{unix.TCXONC, unix.TCOON})},
		kernelCheck{name: "ioctl(pty, TCFLSH, TCIFLUSH)", want: eperm, works: true, call: each([2]uintptr{unix.TCFLSH, unix.TCIFLUSH})},
		kernelCheck{name: "write to the pty", call: func(e *childEnv) error {
			_, err := unix.Write(e.pty, []byte("x"))
			return err
		}},
	)
	if os.Geteuid() == 0 {
		// Only a process with CAP_SYS_ADMIN may set the locked settings.
		checks = append(checks, kernelCheck{name: "ioctl(pty, TIOCSLCKTRMIOS, its locked termios)", want: eperm, works: true,
			call: again(unix.TIOCGLCKTRMIOS, unix.TIOCSLCKTRMIOS)})
	}
	return checks
}

// aioChecks make Linux AIO's calls: a context made and destroyed, which
// without the filter takes from the machine's count only for that
// moment, and the other calls on context 0, which the kernel refuses
// (EINVAL, or EFAULT for what it reads first). With the filter each is
// refused.
func aioChecks() []kernelCheck {
	eperm := unix.EPERM
	_, err := os.Stat("/proc/sys/fs/aio-max-nr")
	aio := err == nil // without AIO in the kernel, ENOSYS
	call := func(nr uintptr, args ...uintptr) func(*childEnv) error {
		return func(*childEnv) error {
			_, err := rawCall(nr, args...)
			return err
		}
	}
	return []kernelCheck{
		{name: "io_setup(1), then io_destroy", want: eperm, works: aio, call: func(e *childEnv) error {
			binary.NativeEndian.PutUint64(e.page, 0) // the kernel wants a context of 0 to fill in
			if _, err := rawCall(unix.SYS_IO_SETUP, 1, e.buf); err != nil {
				return err
			}
			_, err := rawCall(unix.SYS_IO_DESTROY, uintptr(binary.NativeEndian.Uint64(e.page)))
			return err
		}},
		{name: "io_submit(0, 0, NULL)", want: eperm, call: call(unix.SYS_IO_SUBMIT, 0, 0, 0)},
		{name: "io_getevents(0, 0, 0, NULL, NULL)", want: eperm, call: call(unix.SYS_IO_GETEVENTS, 0, 0, 0, 0, 0)},
		{name: "io_pgetevents(0, 0, 0, NULL, NULL, NULL)", want: eperm, call: call(unix.SYS_IO_PGETEVENTS, 0, 0, 0, 0, 0, 0)},
		{name: "io_cancel(0, NULL, NULL)", want: eperm, call: call(unix.SYS_IO_CANCEL, 0, 0, 0)},
		{name: "io_destroy(0)", want: eperm, call: call(unix.SYS_IO_DESTROY, 0)},
	}
}

// seccompScenario is a policy the child installs, from a budget, and the
// checks it makes under it.
type seccompScenario struct {
	name     string
	sockets  Sockets
	truncate bool // TruncateRefused
	checks   []kernelCheck
}

// seccompScenarios are the scenarios of TestSeccompKernel.
func seccompScenarios() []seccompScenario {
	eperm := unix.EPERM
	common := []kernelCheck{
		{name: "getpid", call: func(*childEnv) error { unix.Getpid(); return nil }},
		// The Go runtime as a worker runs it, under the filter's clone
		// (CLONE_FILES) and futex (wait and wake only) rules: a refused
		// clone or futex wake ends the process (the runtime throws).
		{name: "the Go runtime: goroutines, timers, locks and new threads", call: runtimeBusy},
		{name: "write to a pipe", call: func(e *childEnv) error {
			_, err := unix.Write(e.pipe[1], []byte{1})
			return err
		}},
		{name: "read from a pipe", call: func(e *childEnv) error {
			_, err := unix.Read(e.pipe[0], make([]byte, 1))
			return err
		}},
		// What a pool worker does to empty its temporary directory
		// between two runs: read it again from its start.
		{name: "lseek of a directory, read again from its start", call: func(e *childEnv) error {
			fd, err := unix.Open(e.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			buf := make([]byte, 4096)
			first, err := unix.Getdents(fd, buf)
			if err != nil {
				return err
			}
			if _, err := unix.Seek(fd, 0, io.SeekStart); err != nil {
				return err
			}
			again, err := unix.Getdents(fd, buf)
			if err == nil && (first == 0 || again != first) {
				err = fmt.Errorf("%d bytes of entries read, %d read again after the seek", first, again)
			}
			return err
		}},
		// Any other whence is refused: the offset, read back from /proc,
		// is where it was.
		{name: "lseek(scratch file, 1, SEEK_CUR)", want: eperm, works: true,
			call: func(e *childEnv) error {
				fd, err := unix.Open(e.file, unix.O_RDONLY|unix.O_CLOEXEC, 0)
				if err != nil {
					return fmt.Errorf("open %s: %w", e.file, err)
				}
				defer unix.Close(fd)
				_, err = unix.Seek(fd, 1, io.SeekCurrent)
				pos, perr := offsetOf(fd)
				if perr != nil {
					return perr
				}
				want := int64(0)
				if err == nil {
					want = 1
				}
				if pos != want {
					// %v, not %w: a refusal that moved the offset is no refusal.
					return fmt.Errorf("lseek returned %v and left the offset at %d, want %d", err, pos, want)
				}
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
		// A word naming the sleep, another process, as a lock's owner:
		// without the filter the kernel takes its thread as the owner
		// (and, for FUTEX_LOCK_PI, lends it the caller's priority), and
		// the trylock answers EAGAIN; with it, EPERM. A wake on the same
		// word, as the runtime's, is allowed.
		{name: "futex(FUTEX_TRYLOCK_PI) of a word naming the sleep", want: eperm,
			call: func(e *childEnv) error {
				*(*uint32)(unsafe.Pointer(&e.page[64])) = uint32(e.other)
				_, err := rawCall(unix.SYS_FUTEX, e.buf+64, futexTrylockPI)
				return err
			}},
		{name: "futex(FUTEX_WAKE_PRIVATE) of that word", works: true, call: func(e *childEnv) error {
			_, err := rawCall(unix.SYS_FUTEX, e.buf+64, futexWake|futexPrivateFlag, 1)
			return err
		}},
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
		// A thread with a table of descriptors of its own: the kernel
		// refuses these flags too (CLONE_SIGHAND needs CLONE_VM), the
		// filter first. internal/run's TestTempDirCountsWhatAThreadHolds
		// makes such a thread whole, in a worker.
		{name: "clone(CLONE_THREAD|CLONE_SIGHAND) without CLONE_FILES", want: eperm, call: func(*childEnv) error {
			_, err := rawCall(unix.SYS_CLONE, unix.CLONE_THREAD|unix.CLONE_SIGHAND)
			return err
		}},
		{name: "execve of a missing file", want: eperm, call: func(*childEnv) error {
			return unix.Exec("/nonexistent/sabline-seccomp-test", []string{"x"}, nil)
		}},
		{name: "chroot to a missing directory", want: eperm, call: func(*childEnv) error {
			return unix.Chroot("/nonexistent/sabline-seccomp-test")
		}},
		{name: "unshare(0)", want: eperm, call: func(*childEnv) error { return unix.Unshare(0) }},
		{name: "prctl(PR_GET_NO_NEW_PRIVS)", want: eperm, works: true, call: func(*childEnv) error {
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
	common = slices.Concat(common, denyListChecks(arch), attributeChecks(arch), limitChecks(), schedulingChecks(),
		setIDChecks(arch), identityChecks(), ownerChecks(), memoryChecks(), processChecks(), terminalChecks(), aioChecks())
	inet := socketCall(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	inetHigh := socketCall(testHigh|unix.AF_INET, unix.SOCK_STREAM, 0)
	local := socketCall(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	netlink := socketCall(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
	soType := func(e *childEnv) error {
		typ, err := unix.GetsockoptInt(e.sock, unix.SOL_SOCKET, unix.SO_TYPE)
		if err == nil && typ != unix.SOCK_DGRAM {
			return fmt.Errorf("SO_TYPE of a UDP socket = %d", typ)
		}
		return err
	}
	// Under any grant, no socket of the worker's own, by any spelling:
	// its supervisor makes each connection and hands the socket in.
	ownSockets := []kernelCheck{
		{name: "socket(AF_INET, SOCK_STREAM)", want: eperm, works: true, call: inet},
		{name: "socket(1<<32|AF_INET, SOCK_STREAM)", want: eperm, works: true, call: inetHigh},
		{name: "socket(AF_INET) on the locked thread", locked: true, want: eperm, works: true, call: inet},
		{name: "socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP)", want: eperm,
			call: socketCall(unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP)},
		{name: "socket(AF_INET6, SOCK_DGRAM)", want: eperm,
			call: socketCall(unix.AF_INET6, unix.SOCK_DGRAM, 0)},
		{name: "socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP)", want: eperm, works: true,
			call: socketCall(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_UDP)},
		{name: "socket(AF_INET, SOCK_DGRAM|SOCK_NONBLOCK|SOCK_CLOEXEC)", want: eperm, works: true,
			call: socketCall(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)},
		{name: "socket(AF_UNIX)", want: eperm, works: true, call: local},
		{name: "socket(AF_NETLINK)", want: eperm, call: netlink},
		{name: "socket(AF_INET, SOCK_RAW)", want: eperm,
			call: socketCall(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)},
		{name: "socketpair(AF_UNIX)", want: eperm, works: true, call: socketpairCall},
		{name: "dial loopback", want: eperm, works: true, call: loopbackCall},
		{name: "dial UDP", want: eperm, works: true, call: udpDialCall},
		{name: "listen on an unbound socket", want: eperm, works: true, call: listenCall},
		// Without the filter, a ping socket is made, or refused EACCES
		// by net.ipv4.ping_group_range.
		{name: "socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)", want: eperm,
			call: socketCall(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP)},
		{name: "socket(AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6)", want: eperm,
			call: socketCall(unix.AF_INET6, unix.SOCK_DGRAM, unix.IPPROTO_ICMPV6)},
		// The option calls on the UDP socket made before the filter: none
		// is set under any grant.
		{name: "setsockopt(SOL_SOCKET, SO_REUSEADDR) on the UDP socket made before the filter",
			want: eperm, works: true,
			call: func(e *childEnv) error {
				return unix.SetsockoptInt(e.sock, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
			}},
		{name: "setsockopt(SOL_SOCKET, SO_BROADCAST) on the UDP socket made before the filter",
			want: eperm, works: true,
			call: func(e *childEnv) error {
				return unix.SetsockoptInt(e.sock, unix.SOL_SOCKET, unix.SO_BROADCAST, 1)
			}},
		{name: "getsockopt(SOL_SOCKET, SO_ERROR) on the UDP socket made before the filter",
			want: eperm, works: true, call: func(e *childEnv) error {
				_, err := unix.GetsockoptInt(e.sock, unix.SOL_SOCKET, unix.SO_ERROR)
				return err
			}},
	}
	if _, err := os.Stat("/proc/sys/net/sctp"); err == nil {
		// Without SCTP loaded, the control would have the kernel load it.
		ownSockets = append(ownSockets, kernelCheck{name: "socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)",
			want: eperm, call: socketCall(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP)})
	}
	if _, err := os.Stat("/proc/sys/net/mptcp"); err == nil {
		// Without MPTCP in the kernel there is no control for this one.
		ownSockets = append(ownSockets, kernelCheck{name: "socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)",
			want: eperm, works: true, call: socketCall(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)})
	}
	truncates, keeps := truncateChecks(arch)
	return []seccompScenario{
		{name: "closed", sockets: NoSockets, checks: slices.Concat(common, ownSockets, []kernelCheck{
			{name: "getsockopt(SOL_SOCKET, SO_TYPE) on the UDP socket made before the filter",
				want: eperm, works: true, call: soType},
			{name: "recvmsg(MSG_PEEK) on the broker channel", want: eperm, works: true, call: peekBroker},
		}, truncates)},
		{name: "closed-no-truncate", sockets: NoSockets, truncate: true,
			checks: slices.Concat(common, ownSockets, keeps)},
		{name: "handed", sockets: HandedSockets, checks: slices.Concat(common, ownSockets, []kernelCheck{
			{name: "getsockopt(SOL_SOCKET, SO_TYPE) on the UDP socket made before the filter", call: soType},
		}, handedChecks())},
	}
}

// Futex values of linux/futex.h the checks use beside the filter's own.
const (
	futexTrylockPI     = 8
	futexClockRealtime = 256
)

// TestSeccompKernel runs TestSeccompKernelChild once per scenario, and
// once to compare the kernel's check of a filter with checkFilter,
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
	loopback := serveLoopback(t)
	lines := serveLines(t)
	untouchedAddr, reached := serveUntouched(t)
	datagrams, untouchedUDP := serveDatagrams(t), serveDatagrams(t)
	for _, name := range append(names, "checker") {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSeccompKernelChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), seccompChildEnv+"="+name, seccompOtherEnv+"="+strconv.Itoa(sleep.Process.Pid),
				seccompLoopbackEnv+"="+loopback, seccompLineEnv+"="+lines.addr,
				seccompUntouchedEnv+"="+untouchedAddr,
				seccompDatagramEnv+"="+datagrams.conn.LocalAddr().String(),
				seccompUntouchedUDPEnv+"="+untouchedUDP.conn.LocalAddr().String())
			var broker *os.File
			if name != "checker" {
				broker = handIn(t, lines.addr, datagrams.conn.LocalAddr().String())
				cmd.ExtraFiles = []*os.File{broker}
			}
			out, err := cmd.CombinedOutput()
			if broker != nil {
				// The last holder of the channel: closing it ends the
				// handed socket, if the child did not take it.
				broker.Close()
			}
			if err != nil {
				// What the listeners saw is checked still: it shows from
				// outside what the child's failure let through.
				t.Errorf("the child failed: %v\n%s", err, out)
			}
			if broker != nil {
				// What the line listener read of the handed socket, seen
				// from outside the child: the line only where the filter
				// let the child receive the socket and write on it.
				want := ""
				if name == "handed" {
					want = handedLine
				}
				if got := lines.next(t); got != want {
					t.Errorf("the line listener read %q of the handed socket, want %q", got, want)
				}
				// And what the datagram listeners received: the handed UDP
				// socket's datagram, and at the untouched one the control's
				// only, never the escape tried under the filter.
				var wantDatagrams, wantUntouched []string
				if name == "handed" {
					wantDatagrams, wantUntouched = []string{handedDatagram}, []string{controlDatagram}
				}
				if got := datagrams.received(t); !slices.Equal(got, wantDatagrams) {
					t.Errorf("the datagram listener received %q, want %q", got, wantDatagrams)
				}
				if got := untouchedUDP.received(t); !slices.Equal(got, wantUntouched) {
					t.Errorf("the untouched datagram listener received %q, want %q", got, wantUntouched)
				}
			}
			if n := reached.Load(); n != 0 {
				t.Errorf("the untouched listener accepted %d connections, want none", n)
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
	testkit.EndChildBeforeCoverage(t)
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
	dir := t.TempDir()
	e := &childEnv{pid: os.Getpid(), locked: startLockedThread(), file: filepath.Join(dir, "scratch"), dir: dir,
		other: other, lowZero: lowZero}
	if e.page, err = unix.Mmap(-1, 0, os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		t.Fatalf("mmap: %v", err)
	}
	e.buf = uintptr(unsafe.Pointer(&e.page[0]))
	if e.sock, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err != nil {
		t.Fatalf("socket: %v", err)
	}
	if e.standIn, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err != nil {
		t.Fatalf("socket: %v", err)
	}
	if e.standInUDP, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err != nil {
		t.Fatalf("socket: %v", err)
	}
	e.broker, e.handed, e.handedUDP = brokerFD, -1, -1
	typ, err := unix.GetsockoptInt(e.broker, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil || typ != unix.SOCK_SEQPACKET {
		t.Fatalf("descriptor %d is not the broker channel: SO_TYPE %d, %v", brokerFD, typ, err)
	}
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
	if e.ptmx, e.pty, err = openPty(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.file, []byte("scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if e.opens, err = unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.InotifyAddWatch(e.opens, e.file, unix.IN_OPEN); err != nil {
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

	installFilter(t, Config{Sockets: sc.sockets, PID: e.pid, TruncateRefused: sc.truncate})

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
// kernel and checks that the kernel takes exactly those checkFilter
// takes. The programs it takes allow every call, so loading them changes
// nothing but the kernel's work.
func kernelChecksFilters(t *testing.T) {
	for _, tt := range seccompCheckCases {
		raw, err := bpf.Assemble(tt.prog)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		checked := checkFilter(raw)
		loaded := Install(raw)
		switch {
		case (checked == nil) != (tt.wantErr == ""):
			t.Errorf("%s: checkFilter: %v", tt.name, checked)
		case (loaded == nil) != (checked == nil):
			t.Errorf("%s: the kernel says %v, checkFilter says %v", tt.name, loaded, checked)
		case loaded != nil && !errors.Is(loaded, unix.EINVAL):
			t.Errorf("%s: the kernel refuses with %v, want EINVAL", tt.name, loaded)
		}
	}
	t.Logf("seccomp child checker: %d programs, the kernel agrees on each", len(seccompCheckCases))
}

// installFilter builds the filter of c for this machine's architecture and
// installs it on every thread of the calling (child) process.
func installFilter(t *testing.T, c Config) {
	t.Helper()
	arch, _ := NativeArch()
	prog, err := Program(c, arch)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := Assemble(prog)
	if err != nil {
		t.Fatal(err)
	}
	if err := Install(raw); err != nil {
		t.Fatal(err)
	}
}

// opened reports whether the kernel opened the child's scratch file since
// the last call, as its inotify watch (opens) saw, and drains the watch.
func (e *childEnv) opened() (bool, error) {
	var buf [4096]byte
	seen := false
	for {
		n, err := unix.Read(e.opens, buf[:])
		switch {
		case errors.Is(err, unix.EAGAIN):
			return seen, nil
		case err != nil:
			return seen, fmt.Errorf("read the inotify watch: %w", err)
		case n == 0:
			return seen, nil
		}
		seen = true
	}
}

// truncateChecks are the truncations of a file the child makes, each by
// a call Landlock below ABI 3 does not check: truncate(2), and an open
// with O_TRUNC for reading alone or for no access (O_ACCMODE, which every
// filter refuses). What became of the file is read after
// each (its size): one refused is whole, one allowed is empty. truncates
// are them under a filter that leaves truncation to Landlock, each made;
// keeps under one that refuses it (TruncateRefused), each refused, and
// the truncations Landlock checks there still made (an open for writing
// with O_TRUNC, ftruncate of a descriptor so opened).
func truncateChecks(arch Arch) (truncates, keeps []kernelCheck) {
	eperm := unix.EPERM
	const kept = "kept\n"
	// cut makes the file afresh, has do truncate it, and checks its size.
	cut := func(name string, do func(path string) error) func(*childEnv) error {
		return func(e *childEnv) error {
			path := filepath.Join(e.dir, name)
			if err := os.WriteFile(path, []byte(kept), 0o600); err != nil {
				return fmt.Errorf("make %s: %w", path, err)
			}
			err := do(path)
			var st unix.Stat_t
			if serr := unix.Stat(path, &st); serr != nil {
				return fmt.Errorf("stat %s: %w", path, serr)
			}
			switch {
			case err == nil && st.Size != 0:
				return fmt.Errorf("succeeded, and %s has %d bytes", path, st.Size)
			case err != nil && st.Size != int64(len(kept)):
				// %v, not %w: a refusal that cut the file is no refusal.
				return fmt.Errorf("failed with %v, but %s has %d bytes", err, path, st.Size)
			}
			return err
		}
	}
	openCut := func(nr uintptr, flags uint64) func(string) error {
		return func(path string) error {
			return withPath(path, func(p uintptr) error {
				if nr == unix.SYS_OPENAT {
					return fdCall(nr, atFDCWD, p, uintptr(flags|unix.O_CLOEXEC))
				}
				return fdCall(nr, p, uintptr(flags|unix.O_CLOEXEC))
			})
		}
	}
	refused := []struct {
		name string
		do   func(string) error
	}{
		{"truncate(2)", func(path string) error { return unix.Truncate(path, 0) }},
		{"openat(O_RDONLY|O_TRUNC)", openCut(unix.SYS_OPENAT, unix.O_RDONLY|unix.O_TRUNC)},
		{"openat(1<<32|O_RDONLY|O_TRUNC)", openCut(unix.SYS_OPENAT, testHigh|unix.O_RDONLY|unix.O_TRUNC)},
	}
	if nr, ok := arch.Table["open"]; ok {
		refused = append(refused, struct {
			name string
			do   func(string) error
		}{"open(O_RDONLY|O_TRUNC)", openCut(uintptr(nr), unix.O_RDONLY|unix.O_TRUNC)})
	}
	for i, r := range refused {
		file := fmt.Sprintf("cut-%d", i)
		truncates = append(truncates, kernelCheck{name: r.name + ", left to Landlock", call: cut(file, r.do)})
		keeps = append(keeps, kernelCheck{name: r.name + ", refused", want: eperm, works: true,
			call: cut(file, r.do)})
	}
	// Access mode 3, for no access (ioctl alone): Landlock checks no
	// right of such an open at any ABI (it opens any file the worker's
	// user may read and write, a device's open run wherever its node is),
	// so every filter refuses it; with O_TRUNC its effect is seen.
	for _, l := range []*[]kernelCheck{&truncates, &keeps} {
		*l = append(*l, kernelCheck{name: "openat(O_ACCMODE|O_TRUNC), refused by every filter",
			want: eperm, works: true, call: cut("cut-a", openCut(unix.SYS_OPENAT,
				unix.O_ACCMODE|unix.O_TRUNC))},
			kernelCheck{name: "openat(O_ACCMODE), refused by every filter", want: eperm, works: true,
				call: func(e *childEnv) error {
					if _, err := e.opened(); err != nil {
						return err
					}
					err := withPath(e.file, func(p uintptr) error {
						return fdCall(unix.SYS_OPENAT, atFDCWD, p, unix.O_ACCMODE|unix.O_CLOEXEC)
					})
					opened, rerr := e.opened()
					switch {
					case rerr != nil:
						return rerr
					case err == nil && !opened:
						return fmt.Errorf("succeeded, and the kernel saw no open of %s", e.file)
					case err != nil && opened:
						// %v, not %w: a refusal after the open is no refusal.
						return fmt.Errorf("failed with %v, but the kernel opened %s", err, e.file)
					}
					return err
				}})
	}
	keeps = append(keeps,
		kernelCheck{name: "openat(O_WRONLY|O_TRUNC), which Landlock checks", call: cut("cut-w",
			openCut(unix.SYS_OPENAT, unix.O_WRONLY|unix.O_TRUNC))},
		kernelCheck{name: "ftruncate of a descriptor open for writing", call: cut("cut-f",
			func(path string) error {
				fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
				if err != nil {
					return err
				}
				defer unix.Close(fd)
				return unix.Ftruncate(fd, 0)
			})})
	return truncates, keeps
}

// runtimeBusy makes the Go runtime do, under the filter, what a worker's
// does: 512 goroutines park on timers, channels, a contended mutex and
// a condition variable, and wake; 16 of them are locked to threads of
// their own and park there, so that the runtime makes threads (clone)
// for the rest; a collection runs. It fails when the process has made
// no thread more, or the goroutines do not all end within a bound.
func runtimeBusy(*childEnv) error {
	before, err := threadCount()
	if err != nil {
		return err
	}
	const goroutines, locked = 512, 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		shared  int
		ready   = sync.NewCond(&mu)
		release = make(chan struct{})
		parked  sync.WaitGroup
	)
	parked.Add(locked)
	for i := range goroutines {
		wg.Go(func() {
			if i < locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				parked.Done()
				<-release // parks this goroutine's thread with it
			}
			timer := time.NewTimer(time.Duration(i%7) * time.Millisecond)
			select {
			case <-timer.C:
			case <-time.After(time.Second):
			}
			time.Sleep(time.Duration(i%3) * time.Millisecond)
			mu.Lock()
			shared++
			if shared == goroutines {
				ready.Broadcast()
			}
			for shared < goroutines {
				ready.Wait()
			}
			mu.Unlock()
		})
	}
	parked.Wait()
	during, err := threadCount()
	close(release)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(testkit.Bound(30 * time.Second)):
		return fmt.Errorf("%d goroutines did not all end", goroutines)
	}
	runtime.GC()
	switch {
	case err != nil:
		return err
	case during <= before || during <= locked:
		return fmt.Errorf("%d threads before, %d with %d parked on threads of their own: "+
			"the runtime made too few", before, during, locked)
	}
	return nil
}

// threadCount is the Threads line of /proc/self/status.
func threadCount() (int, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, errors.New("no Threads line in /proc/self/status")
}
