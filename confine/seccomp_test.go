package confine

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/bpf"

	"github.com/sabline/sabline/budget"
)

// Linux values the tests pass as arguments, beside those seccomp.go names.
const (
	testPid           = 4242
	testOtherPid      = 4243
	testAFUnix        = 1
	testAFNetlink     = 16
	testAFPacket      = 17
	testSockRaw       = 3
	testSockSeqpacket = 5
	testSockNonblock  = 0x800
	testSockCloexec   = 0x80000
	testCloneVM       = 0x100
	testCloneFS       = 0x200
	testCloneFiles    = 0x400
	testCloneSighand  = 0x800
	testCloneSysvsem  = 0x40000
	testCloneNewNS    = 0x20000
	testCloneNewUser  = 0x10000000
	testSIGCHLD       = 17
	testFIONREAD      = 0x541b
	testTCGETS        = 0x5401
	testTCGETS2       = 0x802c542a
	testTIOCGPGRP     = 0x540f
	testTIOCGWINSZ    = 0x5413
	testTIOCGPTN      = 0x80045430
	testTIOCSPTLCK    = 0x40045431
	testTCSETX        = 0x5433
	testIPProtoICMP   = 1
	testIPProtoICMPV6 = 58
	testIPProtoSCTP   = 132
	testAuditI386     = 0x40000003
	testAuditARM      = 0x40000028
	testPrioPgrp      = 1
	testPrioUser      = 2
	testIoprioWhoPgrp = 2
	testIoprioWhoUser = 3
	testRlimitAS      = 9
	testOWronly       = 0x1
	testOExcl         = 0x80
	testOCloexec      = 0x80000
	testOTmpfileAMD64 = 0x410000 // O_TMPFILE: __O_TMPFILE|O_DIRECTORY of amd64
	testOTmpfileARM64 = 0x404000 // and of arm64
	testSIfreg        = 0o100000
	testMapPrivAnon   = 0x22 // MAP_PRIVATE|MAP_ANONYMOUS
	testFGetown       = 9
	testFSetfl        = 4
	testPrSetVMA      = 0x53564d41
	testPrSetNNP      = 38
	// testHigh is also an address a program can map whose low word is 0:
	// a non-NULL pointer that looks NULL to a filter reading 32 bits.
	testHigh = uint64(1) << 32
	// testPointer looks like an address of the Go heap.
	testPointer = uint64(0xc000012340)
)

// goThreadFlags are the flags the Go runtime starts a thread with.
const goThreadFlags = testCloneVM | testCloneFS | testCloneFiles | testCloneSighand | testCloneSysvsem | cloneThread

// testPolicy is a policy the program is built for in these tests.
type testPolicy struct {
	name   string
	budget string
	strict bool
}

var seccompTestPolicies = []testPolicy{
	{name: "closed", budget: "io,fs:read:/srv/data"},
	{name: "hosts", budget: "net:example.org:443"},
	{name: "open", budget: "net"},
	{name: "widened", budget: "ffi:socket"},
	{name: "strict", budget: "net:example.org:443,ffi:socket", strict: true},
}

func (tp testPolicy) policy() Policy {
	return OSPolicy(budget.MustParse("/", tp.budget), Options{Strict: tp.strict})
}

func mustProgram(t *testing.T, p Policy, a Arch, pid int) []bpf.RawInstruction {
	t.Helper()
	prog, err := SeccompProgram(p, a, pid)
	if err != nil {
		t.Fatalf("SeccompProgram: %v", err)
	}
	raw, err := SeccompAssemble(prog)
	if err != nil {
		t.Fatalf("SeccompAssemble: %v", err)
	}
	return raw
}

// TestSeccompSimulation runs the program of every test policy, for both
// architectures, on every call number of the table and a few past it,
// through every ABI, with a grid of argument values, and compares what the
// BPF returns with what SeccompVerdict says it should.
func TestSeccompSimulation(t *testing.T) {
	values := []uint64{
		0, afInet, afInet6, testAFUnix, testAFNetlink, testAFPacket,
		testHigh | afInet, testHigh | testAFUnix,
		testPid, testHigh | testPid, testOtherPid, ^uint64(0), 0xffffffff,
		goThreadFlags, goThreadFlags | testCloneNewNS, goThreadFlags | testCloneNewUser, testSIGCHLD,
		tiocsti, testHigh | tiocsti, tioclinux, testFIONREAD, testHigh, testPointer,
		sockStream | testSockCloexec, sockDgram | testSockNonblock, testSockRaw, testSockSeqpacket,
		ipprotoMPTCP, testHigh | ipprotoMPTCP,
		ipprotoTCP, testHigh | ipprotoTCP, testHigh | ipprotoUDP, testIPProtoSCTP, testIPProtoICMPV6,
		fSetown, fSetownEx, fSetsig, testHigh | fSetown, testFGetown, fioSetown, siocSpgrp, testHigh | siocSpgrp,
		prSetMM, testHigh | prSetMM, prSchedCore, testPrSetVMA,
		oCreat | modeSetID, oCreat | 0o4755, testHigh | oCreat | 0o2000, testOTmpfileAMD64 | 0o4000,
		mapLocked | testMapPrivAnon, testHigh | mapLocked,
		// Terminal reads, and commands the filter leaves to the kernel.
		testTCGETS, testTCGETS2, testTIOCGPGRP, testTIOCGWINSZ, testTIOCGPTN, testTIOCSPTLCK, testTCSETX,
		// TCSETS2 with another size in its command word, and TCSETS with
		// a bit set above its low 16: commands the kernel does not take for
		// those, and nor may the filter.
		testHigh | testTCGETS, tcsets2 ^ 0x40000, tcsets | 0x10000,
	}
	// Every ioctl command the filter refuses, and with its high word set.
	for _, v := range seccompIoctlRefused {
		values = append(values, uint64(v), testHigh|uint64(v))
	}
	// openat's flags and mode are its third and fourth arguments, and
	// mmap's flags its fourth: pairs of file values fill each pair of
	// neighbouring arguments from the second to the fourth.
	fileValues := []uint64{
		0, oCreat, oCreat | testOWronly | testOCloexec, testHigh | oCreat, oTmpfile, testOTmpfileAMD64, testOTmpfileARM64,
		testHigh | testOTmpfileAMD64, 0o644, 0o4755, 0o2600, modeSetID, testSIfreg | 0o4600, testHigh | 0o4000,
		0o1777, mapLocked | testMapPrivAnon, testMapPrivAnon,
	}
	// The product of the first three arguments uses fewer values. 1 is
	// AF_UNIX, SOCK_STREAM, IPPROTO_ICMP, PRIO_PGRP and IOPRIO_WHO_PROCESS;
	// 0 is PRIO_PROCESS and a NULL pointer; 2 is PRIO_USER and
	// IOPRIO_WHO_PGRP; 3 (SOCK_RAW) is IOPRIO_WHO_USER; 17 (IPPROTO_UDP)
	// is SIGCHLD and AF_PACKET above.
	product := []uint64{
		0, afInet, afInet6, testAFUnix, testHigh | afInet, testHigh | testAFUnix,
		sockStream | testSockCloexec, sockDgram, testSockRaw, ipprotoMPTCP, testHigh | ipprotoMPTCP,
		testPid, testOtherPid, testHigh | testPid, testHigh, testPointer,
		ipprotoTCP, ipprotoUDP, testIPProtoSCTP, testIPProtoICMPV6, testHigh | ipprotoTCP, testHigh | ipprotoUDP,
	}
	var argSets [][6]uint64
	for _, v := range values {
		argSets = append(argSets, [6]uint64{v, v, v, v, v, v})
		for i := range 6 {
			var args [6]uint64
			args[i] = v
			argSets = append(argSets, args)
		}
	}
	var productSets [][6]uint64
	for _, a0 := range product {
		for _, a1 := range product {
			for _, a2 := range product {
				productSets = append(productSets, [6]uint64{a0, a1, a2})
			}
		}
	}
	for _, a := range fileValues {
		for _, b := range fileValues {
			for i := 1; i <= 2; i++ {
				var args [6]uint64
				args[i], args[i+1] = a, b
				productSets = append(productSets, args)
			}
		}
	}
	audits := []uint32{auditArchX86_64, auditArchAArch64, testAuditI386, testAuditARM}

	for _, a := range []Arch{ArchAMD64, ArchARM64} {
		var calls, nrs []int
		top := 0
		for _, nr := range a.Table {
			calls = append(calls, nr)
			nrs = append(nrs, nr, nr|x32SyscallBit)
			top = max(top, nr)
		}
		for nr := top + 1; nr <= top+8; nr++ {
			nrs = append(nrs, nr)
		}
		nrs = append(nrs, 0x3fffffff, 0x7fffffff, -1)
		slices.Sort(calls)
		slices.Sort(nrs)

		names := map[int]string{}
		for n, nr := range a.Table {
			names[nr] = n
		}
		for _, tp := range seccompTestPolicies {
			t.Run(a.Name+"/"+tp.name, func(t *testing.T) {
				t.Parallel()
				p := tp.policy()
				raw := mustProgram(t, p, a, testPid)
				// RunSeccompFilter checks the program on every run; it is
				// checked once here, and run unchecked below.
				if err := checkSeccompFilter(raw); err != nil {
					t.Fatal(err)
				}
				counts := map[SeccompAction]int{}
				check := func(audit uint32, nr int, args [6]uint64) {
					want := SeccompVerdict(p, a, audit, nr, args, testPid)
					got, err := runSeccompFilter(raw, SeccompData{Nr: int32(nr), Arch: audit, Args: args})
					if err != nil {
						t.Fatalf("RunSeccompFilter: %v", err)
					}
					if SeccompAction(got) != want {
						t.Fatalf("arch %#x, call %d (%s), args %#x: program returns %v, want %v",
							audit, nr, names[nr], args, SeccompAction(got), want)
					}
					counts[want]++
				}
				for _, nr := range nrs {
					for _, audit := range audits {
						for _, args := range argSets {
							check(audit, nr, args)
						}
					}
				}
				for _, nr := range calls {
					for _, args := range productSets {
						check(a.AuditArch, nr, args)
					}
				}
				total := 0
				for _, n := range counts {
					total += n
				}
				t.Logf("%s, %s: checked %d cases, %d instructions; %v", a.Name, tp.name, total, len(raw), counts)
				for _, act := range []SeccompAction{SeccompAllow, actEPERM, actENOSYS} {
					if counts[act] == 0 {
						t.Errorf("no case gave %v", act)
					}
				}
			})
		}
	}
}

// TestSeccompCases checks the famous cases, one by one, against both the
// specification and the program.
func TestSeccompCases(t *testing.T) {
	closed := seccompTestPolicies[0]
	hosts := seccompTestPolicies[1]
	open := seccompTestPolicies[2]
	widened := seccompTestPolicies[3]
	strict := seccompTestPolicies[4]
	eperm, enosys, eprotonosupport := SeccompErrno(1), SeccompErrno(38), SeccompErrno(93)
	tests := []struct {
		name   string
		arch   Arch
		policy testPolicy
		audit  uint32 // 0: the arch's own
		call   string
		x32    bool // the x32 number of call
		nr     int  // when call is ""
		args   [6]uint64
		want   SeccompAction
	}{
		{name: "socket(1<<32|AF_INET) refused under a closed network", arch: ArchAMD64, policy: closed, call: "socket", args: [6]uint64{testHigh | afInet, sockStream}, want: eperm},
		{name: "socket(AF_INET) refused under a closed network on arm64", arch: ArchARM64, policy: closed, call: "socket", args: [6]uint64{afInet, sockStream}, want: eperm},
		{name: "connect refused under a closed network", arch: ArchAMD64, policy: closed, call: "connect", want: eperm},
		{name: "sendto left alone under a closed network", arch: ArchAMD64, policy: closed, call: "sendto", want: SeccompAllow},
		{name: "socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC) allowed under net:HOST", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{afInet, sockStream | testSockCloexec}, want: SeccompAllow},
		{name: "socket(1<<32|AF_INET6, SOCK_DGRAM) allowed under net:HOST", arch: ArchARM64, policy: hosts, call: "socket", args: [6]uint64{testHigh | afInet6, sockDgram}, want: SeccompAllow},
		{name: "AF_UNIX refused under net:HOST", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{testAFUnix, sockStream}, want: eperm},
		{name: "1<<32|AF_UNIX refused under net:HOST", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{testHigh | testAFUnix, sockStream}, want: eperm},
		{name: "AF_NETLINK refused under net", arch: ArchAMD64, policy: open, call: "socket", args: [6]uint64{testAFNetlink, sockDgram}, want: eperm},
		{name: "SOCK_RAW refused under net:HOST", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{afInet, testSockRaw}, want: eperm},
		{name: "SOCK_SEQPACKET refused under net", arch: ArchARM64, policy: open, call: "socket", args: [6]uint64{afInet, testSockSeqpacket}, want: eperm},
		{name: "MPTCP refused with EPROTONOSUPPORT", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{afInet, sockStream | testSockCloexec | testSockNonblock, ipprotoMPTCP}, want: eprotonosupport},
		{name: "1<<32|IPPROTO_MPTCP refused", arch: ArchAMD64, policy: open, call: "socket", args: [6]uint64{afInet6, sockStream, testHigh | ipprotoMPTCP}, want: eprotonosupport},
		{name: "socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) allowed under net:HOST", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{afInet, sockStream, ipprotoTCP}, want: SeccompAllow},
		{name: "socket(AF_INET6, SOCK_DGRAM|SOCK_CLOEXEC, IPPROTO_UDP) allowed under net", arch: ArchARM64, policy: open, call: "socket", args: [6]uint64{afInet6, sockDgram | testSockCloexec, ipprotoUDP}, want: SeccompAllow},
		{name: "1<<32|IPPROTO_TCP allowed: the kernel sees IPPROTO_TCP", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{afInet, sockStream, testHigh | ipprotoTCP}, want: SeccompAllow},
		{name: "1<<32|IPPROTO_UDP allowed: the kernel sees IPPROTO_UDP", arch: ArchARM64, policy: hosts, call: "socket", args: [6]uint64{afInet6, sockDgram, testHigh | ipprotoUDP}, want: SeccompAllow},
		{name: "SOCK_DGRAM with IPPROTO_TCP left to the kernel, which refuses the pair", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{afInet, sockDgram, ipprotoTCP}, want: SeccompAllow},
		{name: "ICMP (ping) socket refused under net:HOST", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{afInet, sockDgram, testIPProtoICMP}, want: eperm},
		{name: "ICMPv6 (ping) socket refused under net on arm64", arch: ArchARM64, policy: open, call: "socket", args: [6]uint64{afInet6, sockDgram | testSockNonblock, testIPProtoICMPV6}, want: eperm},
		{name: "SCTP stream socket refused under net:HOST", arch: ArchAMD64, policy: hosts, call: "socket", args: [6]uint64{afInet, sockStream, testIPProtoSCTP}, want: eperm},
		{name: "1<<32|IPPROTO_SCTP refused under --confine strict", arch: ArchAMD64, policy: strict, call: "socket", args: [6]uint64{afInet6, sockStream, testHigh | testIPProtoSCTP}, want: eperm},
		{name: "MPTCP with SOCK_DGRAM still EPROTONOSUPPORT", arch: ArchARM64, policy: hosts, call: "socket", args: [6]uint64{afInet, sockDgram, ipprotoMPTCP}, want: eprotonosupport},
		{name: "ICMP socket refused when ffi:socket widens to any host", arch: ArchAMD64, policy: widened, call: "socket", args: [6]uint64{afInet, sockDgram, testIPProtoICMP}, want: eperm},
		{name: "socket(AF_INET6, SOCK_STREAM) allowed when ffi:socket widens to any host", arch: ArchARM64, policy: widened, call: "socket", args: [6]uint64{afInet6, sockStream | testSockCloexec}, want: SeccompAllow},
		{name: "socket(AF_INET, SOCK_DGRAM) allowed when ffi:socket widens to any host: the resolver", arch: ArchAMD64, policy: widened, call: "socket", args: [6]uint64{afInet, sockDgram}, want: SeccompAllow},
		{name: "socketpair refused under net:HOST", arch: ArchAMD64, policy: hosts, call: "socketpair", args: [6]uint64{testAFUnix, sockStream}, want: eperm},
		{name: "AF_UNIX refused when ffi:socket widens to any host", arch: ArchAMD64, policy: widened, call: "socket", args: [6]uint64{testAFUnix, sockStream}, want: eperm},
		{name: "AF_NETLINK refused when ffi:socket widens to any host on arm64", arch: ArchARM64, policy: widened, call: "socket", args: [6]uint64{testAFNetlink, sockDgram}, want: eperm},
		{name: "socketpair refused when ffi:socket widens to any host", arch: ArchAMD64, policy: widened, call: "socketpair", args: [6]uint64{testAFUnix, sockStream}, want: eperm},
		{name: "AF_UNIX refused under --confine strict", arch: ArchAMD64, policy: strict, call: "socket", args: [6]uint64{testAFUnix, sockStream}, want: eperm},
		{name: "i386 ABI refused", arch: ArchAMD64, policy: widened, audit: testAuditI386, call: "getpid", want: eperm},
		{name: "ARM ABI refused on arm64", arch: ArchARM64, policy: widened, audit: testAuditARM, call: "getpid", want: eperm},
		{name: "amd64 ABI refused on arm64", arch: ArchARM64, policy: closed, audit: auditArchX86_64, call: "getpid", want: eperm},
		{name: "x32 getpid refused", arch: ArchAMD64, policy: widened, call: "getpid", x32: true, want: eperm},
		{name: "getpid allowed", arch: ArchAMD64, policy: closed, call: "getpid", want: SeccompAllow},
		{name: "a number past the table allowed, for the kernel to answer ENOSYS", arch: ArchAMD64, policy: closed, nr: 1000, want: SeccompAllow},
		{name: "clone3 answered ENOSYS", arch: ArchAMD64, policy: widened, call: "clone3", want: enosys},
		{name: "clone of a Go thread allowed", arch: ArchAMD64, policy: closed, call: "clone", args: [6]uint64{goThreadFlags}, want: SeccompAllow},
		{name: "clone of a thread with CLONE_NEWNS refused", arch: ArchAMD64, policy: closed, call: "clone", args: [6]uint64{goThreadFlags | testCloneNewNS}, want: eperm},
		{name: "clone of a thread with CLONE_NEWUSER refused on arm64", arch: ArchARM64, policy: widened, call: "clone", args: [6]uint64{goThreadFlags | testCloneNewUser}, want: eperm},
		{name: "clone of a process refused", arch: ArchAMD64, policy: widened, call: "clone", args: [6]uint64{testSIGCHLD}, want: eperm},
		{name: "clone with CLONE_THREAD only in the high word refused", arch: ArchAMD64, policy: closed, call: "clone", args: [6]uint64{testHigh * cloneThread}, want: eperm},
		{name: "fork refused", arch: ArchAMD64, policy: widened, call: "fork", want: eperm},
		{name: "execve refused", arch: ArchARM64, policy: widened, call: "execve", want: eperm},
		{name: "kill(own pid) allowed", arch: ArchAMD64, policy: closed, call: "kill", args: [6]uint64{testPid, 9}, want: SeccompAllow},
		{name: "kill(own pid|1<<32) allowed: the kernel sees own pid", arch: ArchAMD64, policy: closed, call: "kill", args: [6]uint64{testHigh | testPid}, want: SeccompAllow},
		{name: "kill(0) refused", arch: ArchAMD64, policy: closed, call: "kill", args: [6]uint64{0, 9}, want: eperm},
		{name: "kill(-1) refused", arch: ArchAMD64, policy: closed, call: "kill", args: [6]uint64{^uint64(0), 9}, want: eperm},
		{name: "kill(-1 as 32 bits) refused", arch: ArchARM64, policy: closed, call: "kill", args: [6]uint64{0xffffffff, 9}, want: eperm},
		{name: "kill(another pid) refused", arch: ArchARM64, policy: widened, call: "kill", args: [6]uint64{testOtherPid, 9}, want: eperm},
		{name: "tgkill(own pid) allowed", arch: ArchARM64, policy: closed, call: "tgkill", args: [6]uint64{testPid, testPid + 7, 23}, want: SeccompAllow},
		{name: "tgkill(another pid) refused", arch: ArchAMD64, policy: closed, call: "tgkill", args: [6]uint64{testOtherPid, testPid, 23}, want: eperm},
		{name: "rt_sigqueueinfo(another pid) refused", arch: ArchAMD64, policy: closed, call: "rt_sigqueueinfo", args: [6]uint64{testOtherPid}, want: eperm},
		{name: "tkill refused", arch: ArchAMD64, policy: closed, call: "tkill", args: [6]uint64{testPid}, want: eperm},
		{name: "ioctl TIOCSTI refused", arch: ArchAMD64, policy: widened, call: "ioctl", args: [6]uint64{0, tiocsti}, want: eperm},
		{name: "ioctl TIOCSTI|1<<32 refused", arch: ArchAMD64, policy: widened, call: "ioctl", args: [6]uint64{0, testHigh | tiocsti}, want: eperm},
		{name: "ioctl TIOCLINUX refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{0, tioclinux}, want: eperm},
		{name: "ioctl FIONREAD allowed", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{0, testFIONREAD}, want: SeccompAllow},
		{name: "ioctl TCGETS allowed: reading a terminal's settings", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, testTCGETS, testPointer}, want: SeccompAllow},
		{name: "ioctl TCGETS2 allowed on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{1, testTCGETS2, testPointer}, want: SeccompAllow},
		{name: "ioctl TIOCGWINSZ allowed: reading a terminal's size", arch: ArchAMD64, policy: widened, call: "ioctl", args: [6]uint64{1, testTIOCGWINSZ, testPointer}, want: SeccompAllow},
		{name: "ioctl TIOCGPGRP allowed", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{0, testTIOCGPGRP, testPointer}, want: SeccompAllow},
		{name: "ioctl TIOCSPTLCK allowed: a pseudo-terminal's master is not held", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{3, testTIOCSPTLCK, testPointer}, want: SeccompAllow},
		{name: "ioctl TCSETX left to the kernel, which answers ENOTTY", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, testTCSETX, testPointer}, want: SeccompAllow},
		{name: "ioctl TCSETS refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsets, testPointer}, want: eperm},
		{name: "ioctl TCSETS|1<<32 refused: the kernel sees TCSETS", arch: ArchAMD64, policy: widened, call: "ioctl", args: [6]uint64{1, testHigh | tcsets, testPointer}, want: eperm},
		{name: "ioctl TCSETSW refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{0, tcsetsw, testPointer}, want: eperm},
		{name: "ioctl TCSETSF refused", arch: ArchAMD64, policy: open, call: "ioctl", args: [6]uint64{2, tcsetsf, testPointer}, want: eperm},
		{name: "ioctl TCSETA refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcseta, testPointer}, want: eperm},
		{name: "ioctl TCSETAW|1<<32 refused on arm64", arch: ArchARM64, policy: hosts, call: "ioctl", args: [6]uint64{1, testHigh | tcsetaw, testPointer}, want: eperm},
		{name: "ioctl TCSETAF refused", arch: ArchAMD64, policy: strict, call: "ioctl", args: [6]uint64{1, tcsetaf, testPointer}, want: eperm},
		{name: "ioctl TCSETS2 refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsets2, testPointer}, want: eperm},
		{name: "ioctl TCSETSW2|1<<32 refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{1, testHigh | tcsetsw2, testPointer}, want: eperm},
		{name: "ioctl TCSETSF2 refused", arch: ArchAMD64, policy: widened, call: "ioctl", args: [6]uint64{1, tcsetsf2, testPointer}, want: eperm},
		{name: "ioctl TCSETS2 with another size allowed: the kernel does not take it for TCSETS2", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsets2 ^ 0x40000, testPointer}, want: SeccompAllow},
		{name: "ioctl TIOCSPGRP refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{0, tiocspgrp, testPointer}, want: eperm},
		{name: "ioctl TIOCSCTTY refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{0, tiocsctty, 1}, want: eperm},
		{name: "ioctl TIOCNOTTY refused", arch: ArchAMD64, policy: widened, call: "ioctl", args: [6]uint64{0, tiocnotty}, want: eperm},
		{name: "ioctl TIOCVHANGUP|1<<32 refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{0, testHigh | tiocvhangup}, want: eperm},
		{name: "ioctl TIOCCONS refused on arm64", arch: ArchARM64, policy: open, call: "ioctl", args: [6]uint64{1, tioccons}, want: eperm},
		{name: "ioctl TIOCEXCL refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocexcl}, want: eperm},
		{name: "ioctl TIOCNXCL refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocnxcl}, want: eperm},
		{name: "ioctl TIOCSETD refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocsetd, testPointer}, want: eperm},
		{name: "ioctl TIOCSWINSZ refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocswinsz, testPointer}, want: eperm},
		{name: "ioctl TIOCSWINSZ|1<<32 refused on arm64", arch: ArchARM64, policy: widened, call: "ioctl", args: [6]uint64{1, testHigh | tiocswinsz, testPointer}, want: eperm},
		{name: "ioctl TIOCSLCKTRMIOS refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocslcktrmios, testPointer}, want: eperm},
		{name: "ioctl TIOCSSOFTCAR refused", arch: ArchAMD64, policy: hosts, call: "ioctl", args: [6]uint64{1, tiocssoftcar, testPointer}, want: eperm},
		{name: "ioctl TIOCSSERIAL refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocsserial, testPointer}, want: eperm},
		{name: "ioctl TIOCSRS485 refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocsrs485, testPointer}, want: eperm},
		{name: "ioctl TIOCSISO7816 refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocsiso7816, testPointer}, want: eperm},
		{name: "ioctl TIOCSERCONFIG refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocserconfig}, want: eperm},
		{name: "ioctl TIOCMSET refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocmset, testPointer}, want: eperm},
		{name: "ioctl TIOCMBIS refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocmbis, testPointer}, want: eperm},
		{name: "ioctl TIOCMBIC|1<<32 refused", arch: ArchAMD64, policy: open, call: "ioctl", args: [6]uint64{1, testHigh | tiocmbic, testPointer}, want: eperm},
		{name: "ioctl TCSBRK(0), a break, refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsbrk, 0}, want: eperm},
		{name: "ioctl TCSBRK(1), tcdrain, refused with it", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsbrk, 1}, want: eperm},
		{name: "ioctl TCSBRKP refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsbrkp, 0}, want: eperm},
		{name: "ioctl TIOCSBRK refused", arch: ArchAMD64, policy: widened, call: "ioctl", args: [6]uint64{1, tiocsbrk}, want: eperm},
		{name: "ioctl TIOCCBRK refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tioccbrk}, want: eperm},
		{name: "ioctl TCXONC(TCOOFF) refused", arch: ArchAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcxonc, 0}, want: eperm},
		{name: "ioctl TCFLSH(TCIFLUSH)|1<<32 refused on arm64", arch: ArchARM64, policy: closed, call: "ioctl", args: [6]uint64{0, testHigh | tcflsh, 0}, want: eperm},
		{name: "io_setup refused", arch: ArchAMD64, policy: closed, call: "io_setup", args: [6]uint64{1, testPointer}, want: eperm},
		{name: "io_setup refused on arm64", arch: ArchARM64, policy: widened, call: "io_setup", args: [6]uint64{1, testPointer}, want: eperm},
		{name: "io_submit refused", arch: ArchAMD64, policy: open, call: "io_submit", want: eperm},
		{name: "io_destroy refused on arm64", arch: ArchARM64, policy: closed, call: "io_destroy", want: eperm},
		{name: "io_getevents refused", arch: ArchAMD64, policy: closed, call: "io_getevents", want: eperm},
		{name: "io_pgetevents refused on arm64", arch: ArchARM64, policy: closed, call: "io_pgetevents", want: eperm},
		{name: "io_cancel refused", arch: ArchAMD64, policy: strict, call: "io_cancel", want: eperm},
		{name: "ptrace refused", arch: ArchAMD64, policy: widened, call: "ptrace", want: eperm},
		{name: "io_uring_setup refused", arch: ArchARM64, policy: closed, call: "io_uring_setup", want: eperm},
		{name: "modify_ldt refused", arch: ArchAMD64, policy: widened, call: "modify_ldt", want: eperm},
		{name: "kcmp refused on arm64", arch: ArchARM64, policy: closed, call: "kcmp", args: [6]uint64{testPid, testPid}, want: eperm},
		{name: "process_madvise refused", arch: ArchAMD64, policy: closed, call: "process_madvise", want: eperm},
		{name: "move_pages refused", arch: ArchARM64, policy: widened, call: "move_pages", args: [6]uint64{testOtherPid}, want: eperm},
		{name: "create_module refused", arch: ArchAMD64, policy: closed, call: "create_module", want: eperm},
		{name: "query_module refused", arch: ArchAMD64, policy: widened, call: "query_module", want: eperm},
		{name: "fanotify_init refused on arm64", arch: ArchARM64, policy: closed, call: "fanotify_init", want: eperm},
		{name: "inotify_init1 refused", arch: ArchAMD64, policy: widened, call: "inotify_init1", want: eperm},
		{name: "inotify_add_watch left alone: it needs a descriptor", arch: ArchAMD64, policy: closed, call: "inotify_add_watch", want: SeccompAllow},
		{name: "shmget refused", arch: ArchAMD64, policy: widened, call: "shmget", want: eperm},
		{name: "semop refused on arm64", arch: ArchARM64, policy: closed, call: "semop", want: eperm},
		{name: "shmdt left alone", arch: ArchAMD64, policy: closed, call: "shmdt", want: SeccompAllow},
		{name: "listmount refused", arch: ArchAMD64, policy: closed, call: "listmount", want: eperm},
		{name: "sethostname refused on arm64", arch: ArchARM64, policy: widened, call: "sethostname", want: eperm},
		{name: "sysfs refused", arch: ArchAMD64, policy: closed, call: "sysfs", want: eperm},
		{name: "chmod refused", arch: ArchAMD64, policy: widened, call: "chmod", want: eperm},
		{name: "fchmodat refused on arm64", arch: ArchARM64, policy: closed, call: "fchmodat", args: [6]uint64{^uint64(0), testPointer, 0o777}, want: eperm},
		{name: "fchmodat2 refused", arch: ArchAMD64, policy: closed, call: "fchmodat2", want: eperm},
		{name: "fchown refused", arch: ArchAMD64, policy: closed, call: "fchown", want: eperm},
		{name: "lchown refused", arch: ArchAMD64, policy: open, call: "lchown", want: eperm},
		{name: "fchownat refused on arm64", arch: ArchARM64, policy: widened, call: "fchownat", want: eperm},
		{name: "utimes refused", arch: ArchAMD64, policy: closed, call: "utimes", want: eperm},
		{name: "utimensat refused on arm64", arch: ArchARM64, policy: closed, call: "utimensat", want: eperm},
		{name: "fsetxattr refused", arch: ArchAMD64, policy: closed, call: "fsetxattr", want: eperm},
		{name: "removexattrat refused on arm64", arch: ArchARM64, policy: hosts, call: "removexattrat", want: eperm},
		{name: "getxattr left alone: it only reads", arch: ArchAMD64, policy: closed, call: "getxattr", want: SeccompAllow},
		{name: "setrlimit refused", arch: ArchAMD64, policy: closed, call: "setrlimit", args: [6]uint64{testRlimitAS, testPointer}, want: eperm},
		{name: "setrlimit refused on arm64", arch: ArchARM64, policy: widened, call: "setrlimit", args: [6]uint64{testRlimitAS, testPointer}, want: eperm},
		{name: "getrlimit allowed", arch: ArchAMD64, policy: closed, call: "getrlimit", args: [6]uint64{testRlimitAS, testPointer}, want: SeccompAllow},
		{name: "prlimit64(0, RLIMIT_AS, NULL, old) allowed", arch: ArchAMD64, policy: closed, call: "prlimit64", args: [6]uint64{0, testRlimitAS, 0, testPointer}, want: SeccompAllow},
		{name: "prlimit64(own pid, RLIMIT_AS, NULL, old) allowed on arm64", arch: ArchARM64, policy: closed, call: "prlimit64", args: [6]uint64{testPid, testRlimitAS, 0, testPointer}, want: SeccompAllow},
		{name: "prlimit64(own pid|1<<32, NULL) allowed: the kernel sees own pid", arch: ArchAMD64, policy: widened, call: "prlimit64", args: [6]uint64{testHigh | testPid, testRlimitAS, 0, testPointer}, want: SeccompAllow},
		{name: "prlimit64(0, RLIMIT_AS, new, NULL) refused", arch: ArchAMD64, policy: closed, call: "prlimit64", args: [6]uint64{0, testRlimitAS, testPointer}, want: eperm},
		{name: "prlimit64(0, RLIMIT_AS, new at 1<<32, NULL) refused: the low word of the pointer is 0", arch: ArchAMD64, policy: closed, call: "prlimit64", args: [6]uint64{0, testRlimitAS, testHigh}, want: eperm},
		{name: "prlimit64 with a new limit at 1<<32 refused on arm64", arch: ArchARM64, policy: open, call: "prlimit64", args: [6]uint64{testPid, testRlimitAS, testHigh, testPointer}, want: eperm},
		{name: "prlimit64(another pid, NULL) refused", arch: ArchAMD64, policy: closed, call: "prlimit64", args: [6]uint64{testOtherPid, testRlimitAS, 0, testPointer}, want: eperm},
		{name: "prlimit64(-1, NULL) refused", arch: ArchARM64, policy: closed, call: "prlimit64", args: [6]uint64{^uint64(0), testRlimitAS}, want: eperm},
		{name: "setpriority(PRIO_PROCESS, 0) refused: as root it could take a negative nice", arch: ArchAMD64, policy: closed, call: "setpriority", args: [6]uint64{prioProcess, 0, ^uint64(19)}, want: eperm},
		{name: "setpriority(PRIO_PROCESS, own pid) refused on arm64", arch: ArchARM64, policy: widened, call: "setpriority", args: [6]uint64{prioProcess, testPid, 10}, want: eperm},
		{name: "setpriority(PRIO_PROCESS, another pid) refused", arch: ArchAMD64, policy: closed, call: "setpriority", args: [6]uint64{prioProcess, testOtherPid, 10}, want: eperm},
		{name: "getpriority(PRIO_PROCESS, 0) allowed", arch: ArchAMD64, policy: closed, call: "getpriority", args: [6]uint64{prioProcess, 0}, want: SeccompAllow},
		{name: "getpriority(PRIO_PROCESS, own pid) allowed on arm64", arch: ArchARM64, policy: widened, call: "getpriority", args: [6]uint64{prioProcess, testPid}, want: SeccompAllow},
		{name: "getpriority(1<<32|PRIO_PROCESS, own pid|1<<32) allowed: the kernel sees PRIO_PROCESS and own pid", arch: ArchAMD64, policy: closed, call: "getpriority", args: [6]uint64{testHigh | prioProcess, testHigh | testPid}, want: SeccompAllow},
		{name: "getpriority(PRIO_PROCESS, another pid) refused", arch: ArchAMD64, policy: closed, call: "getpriority", args: [6]uint64{prioProcess, testOtherPid}, want: eperm},
		{name: "getpriority(PRIO_PGRP, 0) refused", arch: ArchAMD64, policy: open, call: "getpriority", args: [6]uint64{testPrioPgrp, 0}, want: eperm},
		{name: "getpriority(PRIO_USER, 0) refused on arm64", arch: ArchARM64, policy: closed, call: "getpriority", args: [6]uint64{testPrioUser, 0}, want: eperm},
		{name: "ioprio_set(IOPRIO_WHO_PROCESS, 0) refused: as root it could take the real-time class", arch: ArchAMD64, policy: closed, call: "ioprio_set", args: [6]uint64{ioprioWhoProcess, 0, 4}, want: eperm},
		{name: "ioprio_get(IOPRIO_WHO_PROCESS, 0) allowed", arch: ArchAMD64, policy: closed, call: "ioprio_get", args: [6]uint64{ioprioWhoProcess, 0}, want: SeccompAllow},
		{name: "ioprio_get(IOPRIO_WHO_PROCESS, own pid) allowed on arm64", arch: ArchARM64, policy: closed, call: "ioprio_get", args: [6]uint64{ioprioWhoProcess, testPid}, want: SeccompAllow},
		{name: "ioprio_get(IOPRIO_WHO_PROCESS, another pid) refused", arch: ArchAMD64, policy: widened, call: "ioprio_get", args: [6]uint64{ioprioWhoProcess, testOtherPid}, want: eperm},
		{name: "ioprio_get(IOPRIO_WHO_PGRP, 0) refused", arch: ArchAMD64, policy: closed, call: "ioprio_get", args: [6]uint64{testIoprioWhoPgrp, 0}, want: eperm},
		{name: "ioprio_get(IOPRIO_WHO_USER, 0) refused on arm64", arch: ArchARM64, policy: closed, call: "ioprio_get", args: [6]uint64{testIoprioWhoUser, 0}, want: eperm},
		{name: "ioprio_get(0, 0) refused: 0 is PRIO_PROCESS, not IOPRIO_WHO_PROCESS", arch: ArchAMD64, policy: closed, call: "ioprio_get", args: [6]uint64{0, 0}, want: eperm},
		{name: "sched_setaffinity(0) refused", arch: ArchAMD64, policy: closed, call: "sched_setaffinity", args: [6]uint64{0, 8, testPointer}, want: eperm},
		{name: "sched_setscheduler(0, SCHED_FIFO) refused on arm64", arch: ArchARM64, policy: closed, call: "sched_setscheduler", args: [6]uint64{0, 1, testPointer}, want: eperm},
		{name: "sched_setparam(own pid) refused", arch: ArchAMD64, policy: open, call: "sched_setparam", args: [6]uint64{testPid, testPointer}, want: eperm},
		{name: "sched_setattr(0) refused", arch: ArchAMD64, policy: closed, call: "sched_setattr", args: [6]uint64{0, testPointer}, want: eperm},
		{name: "sched_getaffinity(0) allowed: the Go runtime counts its CPUs so", arch: ArchAMD64, policy: closed, call: "sched_getaffinity", args: [6]uint64{0, 8192, testPointer}, want: SeccompAllow},
		{name: "sched_getaffinity(own pid) allowed on arm64", arch: ArchARM64, policy: closed, call: "sched_getaffinity", args: [6]uint64{testPid, 8192, testPointer}, want: SeccompAllow},
		{name: "sched_getaffinity(another pid) refused", arch: ArchAMD64, policy: closed, call: "sched_getaffinity", args: [6]uint64{testOtherPid, 8, testPointer}, want: eperm},
		{name: "sched_getattr(another pid|1<<32) refused", arch: ArchAMD64, policy: widened, call: "sched_getattr", args: [6]uint64{testHigh | testOtherPid, testPointer, 56}, want: eperm},
		{name: "sched_getscheduler(-1) refused on arm64", arch: ArchARM64, policy: closed, call: "sched_getscheduler", args: [6]uint64{^uint64(0)}, want: eperm},
		{name: "sched_rr_get_interval(another pid) refused", arch: ArchAMD64, policy: closed, call: "sched_rr_get_interval", args: [6]uint64{testOtherPid, testPointer}, want: eperm},
		{name: "getsid(0) allowed", arch: ArchAMD64, policy: closed, call: "getsid", want: SeccompAllow},
		{name: "getsid(another pid) refused", arch: ArchAMD64, policy: closed, call: "getsid", args: [6]uint64{testOtherPid}, want: eperm},
		{name: "getpgid(own pid) allowed on arm64", arch: ArchARM64, policy: closed, call: "getpgid", args: [6]uint64{testPid}, want: SeccompAllow},
		{name: "getpgid(another pid) refused on arm64", arch: ArchARM64, policy: closed, call: "getpgid", args: [6]uint64{testOtherPid}, want: eperm},
		{name: "getpgrp left alone: it names no process", arch: ArchAMD64, policy: closed, call: "getpgrp", want: SeccompAllow},
		{name: "setuid(0) refused", arch: ArchAMD64, policy: widened, call: "setuid", want: eperm},
		{name: "setresgid refused on arm64", arch: ArchARM64, policy: closed, call: "setresgid", args: [6]uint64{^uint64(0), ^uint64(0), ^uint64(0)}, want: eperm},
		{name: "setgroups refused", arch: ArchAMD64, policy: open, call: "setgroups", want: eperm},
		{name: "setfsuid refused on arm64", arch: ArchARM64, policy: closed, call: "setfsuid", want: eperm},
		{name: "setpgid(0, 0) refused", arch: ArchAMD64, policy: closed, call: "setpgid", want: eperm},
		{name: "mlock refused", arch: ArchAMD64, policy: closed, call: "mlock", args: [6]uint64{testPointer, 4096}, want: eperm},
		{name: "mlockall refused on arm64", arch: ArchARM64, policy: widened, call: "mlockall", args: [6]uint64{1}, want: eperm},
		{name: "memfd_secret refused", arch: ArchAMD64, policy: closed, call: "memfd_secret", want: eperm},
		{name: "mmap(MAP_PRIVATE|MAP_ANONYMOUS) allowed", arch: ArchAMD64, policy: closed, call: "mmap", args: [6]uint64{0, 4096, 3, testMapPrivAnon, ^uint64(0)}, want: SeccompAllow},
		{name: "mmap(MAP_LOCKED) refused", arch: ArchAMD64, policy: closed, call: "mmap", args: [6]uint64{0, 4096, 3, testMapPrivAnon | mapLocked, ^uint64(0)}, want: eperm},
		{name: "mmap(1<<32|MAP_LOCKED) refused on arm64", arch: ArchARM64, policy: open, call: "mmap", args: [6]uint64{0, 4096, 3, testHigh | testMapPrivAnon | mapLocked, ^uint64(0)}, want: eperm},
		{name: "mmap with MAP_LOCKED only in the high word allowed: the kernel has no such flag", arch: ArchAMD64, policy: closed, call: "mmap", args: [6]uint64{0, 4096, 3, testHigh*mapLocked | testMapPrivAnon, ^uint64(0)}, want: SeccompAllow},
		{name: "fcntl(F_SETOWN) refused", arch: ArchAMD64, policy: closed, call: "fcntl", args: [6]uint64{3, fSetown, testPid}, want: eperm},
		{name: "fcntl(1<<32|F_SETOWN) refused on arm64", arch: ArchARM64, policy: closed, call: "fcntl", args: [6]uint64{3, testHigh | fSetown, testOtherPid}, want: eperm},
		{name: "fcntl(F_SETOWN_EX) refused", arch: ArchAMD64, policy: widened, call: "fcntl", args: [6]uint64{3, fSetownEx, testPointer}, want: eperm},
		{name: "fcntl(F_SETSIG) refused", arch: ArchAMD64, policy: closed, call: "fcntl", args: [6]uint64{3, fSetsig, 23}, want: eperm},
		{name: "fcntl(F_GETOWN) allowed", arch: ArchAMD64, policy: closed, call: "fcntl", args: [6]uint64{3, testFGetown}, want: SeccompAllow},
		{name: "fcntl(F_SETFL) allowed", arch: ArchARM64, policy: closed, call: "fcntl", args: [6]uint64{3, testFSetfl, 0o4000}, want: SeccompAllow},
		{name: "ioctl FIOSETOWN refused", arch: ArchAMD64, policy: widened, call: "ioctl", args: [6]uint64{3, fioSetown, testPointer}, want: eperm},
		{name: "ioctl SIOCSPGRP|1<<32 refused on arm64", arch: ArchARM64, policy: open, call: "ioctl", args: [6]uint64{3, testHigh | siocSpgrp, testPointer}, want: eperm},
		{name: "prctl(PR_SET_MM) refused", arch: ArchAMD64, policy: widened, call: "prctl", args: [6]uint64{prSetMM, 6, testPointer}, want: eperm},
		{name: "prctl(1<<32|PR_SET_MM) refused on arm64", arch: ArchARM64, policy: closed, call: "prctl", args: [6]uint64{testHigh | prSetMM}, want: eperm},
		{name: "prctl(PR_SCHED_CORE) refused", arch: ArchAMD64, policy: closed, call: "prctl", args: [6]uint64{prSchedCore, 1, testOtherPid}, want: eperm},
		{name: "prctl(PR_SET_NO_NEW_PRIVS) allowed: it only tightens", arch: ArchAMD64, policy: closed, call: "prctl", args: [6]uint64{testPrSetNNP, 1}, want: SeccompAllow},
		{name: "prctl(PR_SET_VMA) allowed: the Go runtime names its mappings so", arch: ArchARM64, policy: closed, call: "prctl", args: [6]uint64{testPrSetVMA, 0, testPointer, 4096, testPointer}, want: SeccompAllow},
		{name: "openat(O_CREAT, 04755) refused", arch: ArchAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oCreat | testOWronly, 0o4755}, want: eperm},
		{name: "openat(O_CREAT, 02644) refused on arm64", arch: ArchARM64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oCreat | testOWronly | testOCloexec, 0o2644}, want: eperm},
		{name: "openat(O_CREAT, 0644) allowed, as fs.write creates", arch: ArchAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oCreat | testOWronly | testOCloexec, 0o644}, want: SeccompAllow},
		{name: "openat(O_CREAT, 01777) allowed: the sticky bit makes no set-ID file", arch: ArchAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oCreat, 0o1777}, want: SeccompAllow},
		{name: "openat(O_RDONLY, 04755) allowed: without O_CREAT the mode is not read", arch: ArchARM64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, testOCloexec, 0o4755}, want: SeccompAllow},
		{name: "openat(O_TMPFILE, 04700) refused", arch: ArchAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, testOTmpfileAMD64 | testOWronly, 0o4700}, want: eperm},
		{name: "openat(O_TMPFILE, 02700) refused on arm64", arch: ArchARM64, policy: widened, call: "openat", args: [6]uint64{^uint64(99), testPointer, testOTmpfileARM64 | testOWronly, 0o2700}, want: eperm},
		{name: "openat(1<<32|O_CREAT, 1<<32|04755) refused: the kernel sees O_CREAT and 04755", arch: ArchAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, testHigh | oCreat, testHigh | 0o4755}, want: eperm},
		{name: "open(O_CREAT, 04755) refused", arch: ArchAMD64, policy: closed, call: "open", args: [6]uint64{testPointer, oCreat | testOWronly, 0o4755}, want: eperm},
		{name: "creat(06755) refused", arch: ArchAMD64, policy: open, call: "creat", args: [6]uint64{testPointer, 0o6755}, want: eperm},
		{name: "creat(0644) allowed", arch: ArchAMD64, policy: closed, call: "creat", args: [6]uint64{testPointer, 0o644}, want: SeccompAllow},
		{name: "mknod(S_IFREG|04755) refused", arch: ArchAMD64, policy: closed, call: "mknod", args: [6]uint64{testPointer, testSIfreg | 0o4755}, want: eperm},
		{name: "mknodat(S_IFREG|02755) refused on arm64", arch: ArchARM64, policy: closed, call: "mknodat", args: [6]uint64{^uint64(99), testPointer, testSIfreg | 0o2755}, want: eperm},
		{name: "mknodat(S_IFREG|0644) allowed", arch: ArchAMD64, policy: closed, call: "mknodat", args: [6]uint64{^uint64(99), testPointer, testSIfreg | 0o644}, want: SeccompAllow},
		{name: "openat2 answered ENOSYS", arch: ArchAMD64, policy: closed, call: "openat2", want: enosys},
		{name: "openat2 answered ENOSYS on arm64", arch: ArchARM64, policy: widened, call: "openat2", want: enosys},
		{name: "landlock_restrict_self allowed", arch: ArchAMD64, policy: closed, call: "landlock_restrict_self", want: SeccompAllow},
		{name: "seccomp allowed", arch: ArchARM64, policy: closed, call: "seccomp", want: SeccompAllow},
		{name: "prctl allowed", arch: ArchAMD64, policy: closed, call: "prctl", want: SeccompAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nr := tt.nr
			if tt.call != "" {
				n, ok := tt.arch.Table[tt.call]
				if !ok {
					t.Fatalf("%s has no %s", tt.arch.Name, tt.call)
				}
				nr = n
			}
			if tt.x32 {
				nr |= x32SyscallBit
			}
			audit := tt.audit
			if audit == 0 {
				audit = tt.arch.AuditArch
			}
			p := tt.policy.policy()
			if got := SeccompVerdict(p, tt.arch, audit, nr, tt.args, testPid); got != tt.want {
				t.Errorf("SeccompVerdict = %v, want %v", got, tt.want)
			}
			raw := mustProgram(t, p, tt.arch, testPid)
			got, err := RunSeccompFilter(raw, SeccompData{Nr: int32(nr), Arch: audit, Args: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if SeccompAction(got) != tt.want {
				t.Errorf("program returns %v, want %v", SeccompAction(got), tt.want)
			}
		})
	}
}

func TestSeccompProgramErrors(t *testing.T) {
	closed := seccompTestPolicies[0].policy()
	tests := []struct {
		name    string
		policy  Policy
		arch    Arch
		pid     int
		wantErr string
	}{
		{name: "an unenforced policy has no filter", policy: OSPolicy(budget.MustParse("/", "ffi:os"), Options{}), arch: ArchAMD64, pid: testPid, wantErr: "not enforced"},
		{name: "pid 0", policy: closed, arch: ArchAMD64, pid: 0, wantErr: "not a process id"},
		{name: "negative pid", policy: closed, arch: ArchARM64, pid: -1, wantErr: "not a process id"},
		{name: "pid past 32 bits", policy: closed, arch: ArchAMD64, pid: 1 << 40, wantErr: "not a process id"},
		{name: "no table", policy: closed, arch: Arch{Name: "mips", AuditArch: 8}, pid: testPid, wantErr: `no system call table for "mips"`},
		{name: "two rules for one number", policy: closed, arch: Arch{Name: "amd64", AuditArch: ArchAMD64.AuditArch, Table: map[string]int{"kill": 62, "tgkill": 62}}, pid: testPid, wantErr: "kill and tgkill are both call 62"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, err := SeccompProgram(tt.policy, tt.arch, tt.pid)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("SeccompProgram error = %v, want one containing %q", err, tt.wantErr)
			}
			if prog != nil {
				t.Errorf("SeccompProgram returned %d instructions with its error", len(prog))
			}
		})
	}
}

// TestSeccompRuntimeCalls checks that the calls the Go runtime and the
// language's own effects make are allowed under every test policy, on
// each architecture that has them: memory, threads and their futexes,
// signals, time, randomness, polling, and the file calls Landlock holds;
// with no arguments, and where a rule reads them, with the arguments the
// runtime and the os package pass.
func TestSeccompRuntimeCalls(t *testing.T) {
	type call struct {
		name string
		args [6]uint64
	}
	var calls []call
	for _, name := range []string{
		"read", "write", "openat", "close", "lseek", "fcntl", "newfstatat", "fstat", "statx", "getdents64",
		"mkdirat", "unlinkat", "renameat", "renameat2", "ftruncate",
		"mmap", "munmap", "mprotect", "madvise", "mincore", "brk",
		"futex", "sched_yield", "sched_getaffinity", "gettid", "getpid", "exit_group", "prlimit64", "getrlimit", "getpriority",
		"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
		"clock_gettime", "nanosleep", "timer_create", "timer_settime", "timer_delete", "getrandom",
		"epoll_create1", "epoll_ctl", "epoll_pwait", "eventfd2", "pipe2", "prctl", "capget", "capset",
	} {
		calls = append(calls, call{name: name})
	}
	atFDCWD := ^uint64(99)
	calls = append(calls,
		// os.OpenFile(O_CREATE, 0644), os.CreateTemp (0600), and
		// os.MkdirAll's mode for mkdirat, which is never a file's.
		call{"openat", [6]uint64{atFDCWD, testPointer, oCreat | testOWronly | testOCloexec, 0o644}},
		call{"openat", [6]uint64{atFDCWD, testPointer, oCreat | testOWronly | testOCloexec | testOExcl, 0o600}},
		call{"mkdirat", [6]uint64{atFDCWD, testPointer, 0o755}},
		// The runtime's heap, and the names it gives its mappings.
		call{"mmap", [6]uint64{0, 1 << 26, 0, testMapPrivAnon, ^uint64(0)}},
		call{"prctl", [6]uint64{testPrSetVMA, 0, testPointer, 1 << 26, testPointer}},
		// The runtime's count of its CPUs, at start and from sysmon.
		call{"sched_getaffinity", [6]uint64{0, 8192, testPointer}},
		call{"fcntl", [6]uint64{3, testFSetfl, 0o4000}},
		call{"fcntl", [6]uint64{3, testFGetown}},
		// Apply's NO_NEW_PRIVS, which go-landlock and the installer set.
		call{"prctl", [6]uint64{testPrSetNNP, 1}},
		// Whether standard output is a terminal, and its size.
		call{"ioctl", [6]uint64{1, testTCGETS, testPointer}},
		call{"ioctl", [6]uint64{1, testTIOCGWINSZ, testPointer}},
	)
	for _, a := range []Arch{ArchAMD64, ArchARM64} {
		for _, tp := range seccompTestPolicies {
			t.Run(a.Name+"/"+tp.name, func(t *testing.T) {
				p := tp.policy()
				raw := mustProgram(t, p, a, testPid)
				for _, c := range calls {
					nr, ok := a.Table[c.name]
					if !ok {
						continue
					}
					if got := SeccompVerdict(p, a, a.AuditArch, nr, c.args, testPid); got != SeccompAllow {
						t.Errorf("SeccompVerdict(%s%#x) = %v, want ALLOW", c.name, c.args, got)
					}
					got, err := RunSeccompFilter(raw, SeccompData{Nr: int32(nr), Arch: a.AuditArch, Args: c.args})
					if err != nil {
						t.Fatal(err)
					}
					if SeccompAction(got) != SeccompAllow {
						t.Errorf("the program returns %v for %s%#x, want ALLOW", SeccompAction(got), c.name, c.args)
					}
				}
			})
		}
	}
	for _, c := range calls {
		_, amd := ArchAMD64.Table[c.name]
		_, arm := ArchARM64.Table[c.name]
		if !amd && !arm {
			t.Errorf("%s is a call of neither amd64 nor arm64", c.name)
		}
	}
}

// TestSeccompNames checks that every name the filter refers to is a call
// of at least one architecture, so a misspelt name cannot be skipped as
// missing everywhere.
func TestSeccompNames(t *testing.T) {
	var names []string
	for _, r := range seccompRules(seccompTestPolicies[0].policy(), testPid) {
		names = append(names, r.name)
	}
	for _, r := range seccompRules(seccompTestPolicies[1].policy(), testPid) {
		names = append(names, r.name)
	}
	for _, n := range names {
		_, amd := ArchAMD64.Table[n]
		_, arm := ArchARM64.Table[n]
		if !amd && !arm {
			t.Errorf("%s is a call of neither amd64 nor arm64", n)
		}
	}
	if len(names) < len(seccompDenyList)+len(seccompSocketCalls) {
		t.Errorf("the rules name %d calls, fewer than the deny list and the socket calls", len(names))
	}
}

// TestSeccompDenied checks SeccompDenied against the specification: a
// call is listed when, and only when, SeccompVerdict refuses it for every
// argument tried.
func TestSeccompDenied(t *testing.T) {
	args := [][6]uint64{
		{}, {testPid}, {goThreadFlags}, {afInet, sockStream}, {0, testFIONREAD}, {^uint64(0), ^uint64(0), ^uint64(0)},
		{ioprioWhoProcess, testPid}, {^uint64(99), testPointer, oCreat | modeSetID, modeSetID},
	}
	tests := []struct {
		name       string
		arch       Arch
		policy     testPolicy
		wantIn     []string
		wantNotIn  []string
		wantLength int // 0: not checked
	}{
		{name: "closed amd64", arch: ArchAMD64, policy: seccompTestPolicies[0],
			wantIn: []string{"socket", "fork", "clone3", "ptrace", "iopl", "modify_ldt", "shmget", "chmod", "lchown", "utimes", "setrlimit",
				"setuid", "setgroups", "setpriority", "ioprio_set", "sched_setattr", "setpgid", "mlockall", "memfd_secret", "openat2",
				"io_setup", "io_submit", "io_destroy", "io_getevents", "io_pgetevents", "io_cancel"},
			wantNotIn: []string{"kill", "clone", "ioctl", "sendto", "shmdt", "prlimit64", "getpriority", "ioprio_get", "sched_getaffinity",
				"getsid", "getpgrp", "open", "openat", "creat", "mknod", "fcntl", "prctl", "mmap", "capset"}},
		{name: "closed arm64", arch: ArchARM64, policy: seccompTestPolicies[0],
			wantIn: []string{"socket", "execve", "tkill", "kcmp", "fchmodat", "fchmodat2", "fchownat", "utimensat", "removexattrat", "setrlimit",
				"sched_setaffinity", "setresuid", "setfsgid", "munlockall", "mlock2", "io_setup", "io_pgetevents"},
			wantNotIn: []string{"fork", "vfork", "iopl", "modify_ldt", "inotify_init", "chmod", "utimes", "prlimit64", "open", "creat",
				"mknodat", "getpgid", "sched_getattr"}},
		{name: "hosts", arch: ArchAMD64, policy: seccompTestPolicies[1], wantIn: []string{"socketpair"}, wantNotIn: []string{"socket", "connect"}},
		{name: "widened", arch: ArchARM64, policy: seccompTestPolicies[3], wantIn: []string{"mount", "socketpair"}, wantNotIn: []string{"socket", "connect", "accept4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.policy.policy()
			got := SeccompDenied(p, tt.arch)
			if !slices.IsSorted(got) {
				t.Errorf("SeccompDenied is not sorted: %v", got)
			}
			for _, n := range tt.wantIn {
				if !slices.Contains(got, n) {
					t.Errorf("SeccompDenied lacks %s", n)
				}
			}
			for _, n := range tt.wantNotIn {
				if slices.Contains(got, n) {
					t.Errorf("SeccompDenied has %s", n)
				}
			}
			for name, nr := range tt.arch.Table {
				always := true
				for _, a := range args {
					if SeccompVerdict(p, tt.arch, tt.arch.AuditArch, nr, a, testPid) == SeccompAllow {
						always = false
					}
				}
				if listed := slices.Contains(got, name); listed != always {
					t.Errorf("%s: listed %v, but refused for every argument tried: %v", name, listed, always)
				}
			}
		})
	}
	if got := SeccompDenied(OSPolicy(budget.MustParse("/", "ffi:os"), Options{}), ArchAMD64); got != nil {
		t.Errorf("SeccompDenied of an unenforced policy = %v, want nil", got)
	}
}

func TestSeccompActionString(t *testing.T) {
	tests := []struct {
		name   string
		action SeccompAction
		want   string
	}{
		{name: "allow", action: SeccompAllow, want: "ALLOW"},
		{name: "eperm", action: SeccompErrno(1), want: "ERRNO(EPERM)"},
		{name: "enosys", action: SeccompErrno(38), want: "ERRNO(ENOSYS)"},
		{name: "eprotonosupport", action: SeccompErrno(93), want: "ERRNO(EPROTONOSUPPORT)"},
		{name: "an errno without a name", action: SeccompErrno(13), want: "ERRNO(13)"},
		{name: "kill process", action: 0x80000000, want: "KILL_PROCESS"},
		{name: "kill thread", action: 0, want: "KILL_THREAD"},
		{name: "trap with data", action: 0x00030001, want: "TRAP(1)"},
		{name: "log", action: 0x7ffc0000, want: "LOG"},
		{name: "unknown", action: 0x12340000, want: "ACTION(0x12340000)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.action.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSeccompGolden compares the disassembly of each test policy's
// program with testdata/seccomp/ARCH-POLICY.golden, and checks that the
// assembled program disassembles back to the same instructions.
func TestSeccompGolden(t *testing.T) {
	for _, a := range []Arch{ArchAMD64, ArchARM64} {
		for _, tp := range seccompTestPolicies {
			t.Run(a.Name+"/"+tp.name, func(t *testing.T) {
				prog, err := SeccompProgram(tp.policy(), a, testPid)
				if err != nil {
					t.Fatal(err)
				}
				raw, err := SeccompAssemble(prog)
				if err != nil {
					t.Fatal(err)
				}
				back, ok := bpf.Disassemble(raw)
				if !ok {
					t.Fatalf("the assembled program does not disassemble")
				}
				again, err := SeccompAssemble(back)
				if err != nil || !slices.Equal(again, raw) {
					t.Fatalf("the program does not survive disassembly: %v", err)
				}
				if len(raw) > bpfMaxInstructions {
					t.Fatalf("%d instructions, more than the kernel takes", len(raw))
				}
				var b strings.Builder
				fmt.Fprintf(&b, "# seccomp program for %s, budget %q, strict %v, pid %d: %d instructions\n",
					a.Name, tp.budget, tp.strict, testPid, len(prog))
				notes := annotate(prog, a)
				for i, ins := range prog {
					fmt.Fprintln(&b, strings.TrimRight(fmt.Sprintf("%4d  %-22s %s", i, ins, notes[i]), " "))
				}
				golden(t, "seccomp", a.Name+"-"+tp.name, []byte(b.String()))
			})
		}
	}
}

// annotate names, for the golden files, the action each return gives
// and the call numbers each block of the search runs for: "kill", or
// "mount..reboot" for a span of calls (by the names of its ends, or
// their numbers where they have none); and, on a comparison of the
// search, ">= kill" (or "< kill" where it prints as jlt). It follows what
// register A holds along every path, and while A holds the call number,
// the span the comparisons so far leave it in. The program only jumps
// forward, so one pass in order sees every path into an instruction
// before it.
func annotate(prog []bpf.Instruction, a Arch) []string {
	type held struct {
		what   string // "nr", a word of seccomp_data, or "?"
		lo, hi uint32 // the span of a call number
	}
	holds := make([]held, len(prog))
	reached := make([]bool, len(prog))
	flow := func(i int, h held) {
		switch {
		case !reached[i]:
			holds[i], reached[i] = h, true
		case holds[i] != h:
			holds[i] = held{what: "?"}
		}
	}
	name := func(nr uint32) string {
		if n := a.syscallName(int(nr)); n != "" {
			return n
		}
		return strconv.FormatUint(uint64(nr), 10)
	}
	flow(0, held{what: "?"})
	notes := make([]string, len(prog))
	for i, ins := range prog {
		h := holds[i]
		// An instruction reached with the call number in one span, other
		// than a comparison of the search, starts the span's block.
		_, jumpIf := ins.(bpf.JumpIf)
		_, ja := ins.(bpf.Jump)
		if h.what == "nr" && !jumpIf && !ja && (h.lo != 0 || h.hi != math.MaxUint32) {
			notes[i] = name(h.lo)
			if h.hi != h.lo {
				notes[i] += ".." + name(h.hi)
			}
			notes[i] += ": "
		}
		switch ins := ins.(type) {
		case bpf.LoadAbsolute:
			h = held{what: fmt.Sprintf("seccomp_data[%d]", ins.Off)}
			if ins.Off == seccompDataNr {
				h = held{what: "nr", hi: math.MaxUint32}
			}
		case bpf.ALUOpConstant:
			h = held{what: "?"}
		case bpf.JumpIf:
			taken, skipped := h, h
			if h.what == "nr" && ins.Cond == bpf.JumpGreaterOrEqual {
				// A comparison that jumps only when false prints as jlt.
				notes[i] = ">= " + name(ins.Val)
				if ins.SkipTrue == 0 {
					notes[i] = "< " + name(ins.Val)
				}
				taken.lo, skipped.hi = max(h.lo, ins.Val), min(h.hi, ins.Val-1)
			}
			flow(i+1+int(ins.SkipTrue), taken)
			flow(i+1+int(ins.SkipFalse), skipped)
			continue
		case bpf.Jump:
			flow(i+1+int(ins.Skip), h)
			continue
		case bpf.RetConstant:
			notes[i] += SeccompAction(ins.Val).String()
			continue
		}
		notes[i] = strings.TrimSuffix(notes[i], ": ")
		flow(i+1, h)
	}
	return notes
}

// TestSeccompVerdictOwnArch checks that an Arch written out by hand, not
// made by this package, names calls as ArchAMD64 does.
func TestSeccompVerdictOwnArch(t *testing.T) {
	own := Arch{Name: "amd64", AuditArch: ArchAMD64.AuditArch, Table: ArchAMD64.Table, X32: true}
	p := seccompTestPolicies[0].policy()
	tests := []struct {
		name string
		call string
		args [6]uint64
		want SeccompAction
	}{
		{name: "socket", call: "socket", args: [6]uint64{afInet, sockStream}, want: actEPERM},
		{name: "kill(own pid)", call: "kill", args: [6]uint64{testPid}, want: SeccompAllow},
		{name: "clone3", call: "clone3", want: actENOSYS},
		{name: "getpid", call: "getpid", want: SeccompAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SeccompVerdict(p, own, own.AuditArch, own.Table[tt.call], tt.args, testPid); got != tt.want {
				t.Errorf("SeccompVerdict = %v, want %v", got, tt.want)
			}
		})
	}
}
