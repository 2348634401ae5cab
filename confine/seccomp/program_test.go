package seccomp

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/bpf"
)

// Linux values the tests pass as arguments, beside those rules.go names.
// The Linux tests check each against golang.org/x/sys/unix.
const (
	tiocsti          = 0x5412
	tioclinux        = 0x541c
	tcsets           = 0x5402
	tcsetsw          = 0x5403
	tcsetsf          = 0x5404
	tcseta           = 0x5406
	tcsetaw          = 0x5407
	tcsetaf          = 0x5408
	tcsbrk           = 0x5409
	tcxonc           = 0x540a
	tcflsh           = 0x540b
	tiocexcl         = 0x540c
	tiocnxcl         = 0x540d
	tiocsctty        = 0x540e
	tiocspgrp        = 0x5410
	tiocswinsz       = 0x5414
	tiocmbis         = 0x5416
	tiocmbic         = 0x5417
	tiocmset         = 0x5418
	tiocssoftcar     = 0x541a
	tioccons         = 0x541d
	tiocsserial      = 0x541f
	tiocnotty        = 0x5422
	tiocsetd         = 0x5423
	tcsbrkp          = 0x5425
	tiocsbrk         = 0x5427
	tioccbrk         = 0x5428
	tcsets2          = 0x402c542b
	tcsetsw2         = 0x402c542c
	tcsetsf2         = 0x402c542d
	tiocsrs485       = 0x542f
	tiocvhangup      = 0x5437
	tiocsiso7816     = 0xc0285443
	tiocserconfig    = 0x5453
	tiocslcktrmios   = 0x5457
	fioSetown        = 0x8901
	siocSpgrp        = 0x8902
	fSetown          = 8
	fSetsig          = 10
	fSetownEx        = 15
	prSetMM          = 35
	prSchedCore      = 62
	prioProcess      = 0
	ioprioWhoProcess = 1
	cloneNamespaces  = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

	testPid            = 4242
	testOtherPid       = 4243
	testAFUnix         = 1
	testAFNetlink      = 16
	testAFPacket       = 17
	testSockRaw        = 3
	testSockSeqpacket  = 5
	testSockNonblock   = 0x800
	testSockCloexec    = 0x80000
	testCloneVM        = 0x100
	testCloneFS        = 0x200
	testCloneFiles     = 0x400
	testCloneSighand   = 0x800
	testCloneSysvsem   = 0x40000
	testCloneNewNS     = 0x20000
	testCloneNewUser   = 0x10000000
	testSIGCHLD        = 17
	testFIONREAD       = 0x541b
	testTCGETS         = 0x5401
	testTCGETS2        = 0x802c542a
	testTIOCGPGRP      = 0x540f
	testTIOCGWINSZ     = 0x5413
	testTIOCGPTN       = 0x80045430
	testTIOCSPTLCK     = 0x40045431
	testTCSETX         = 0x5433
	testIPProtoICMP    = 1
	testSoReuseaddr    = 2
	testSoReuseport    = 15
	testSoBindtodevice = 25
	testSolIP          = 0
	testIPTransparent  = 19
	testIPFreebind     = 15
	testIPProtoICMPV6  = 58
	testIPProtoSCTP    = 132
	testAuditI386      = 0x40000003
	testAuditARM       = 0x40000028
	testPrioPgrp       = 1
	testPrioUser       = 2
	testIoprioWhoPgrp  = 2
	testIoprioWhoUser  = 3
	testRlimitAS       = 9
	testOWronly        = 0x1
	testORdwr          = 0x2
	testOExcl          = 0x80
	testOCloexec       = 0x80000
	testOTmpfileAMD64  = 0x410000 // O_TMPFILE: __O_TMPFILE|O_DIRECTORY of amd64
	testOTmpfileARM64  = 0x404000 // and of arm64
	testSIfreg         = 0o100000
	testMapPrivAnon    = 0x22 // MAP_PRIVATE|MAP_ANONYMOUS
	testFGetown        = 9
	testFSetfl         = 4
	testPrSetVMA       = 0x53564d41
	testPrSetNNP       = 38
	// testHigh is also an address a program can map whose low word is 0:
	// a non-NULL pointer that looks NULL to a filter reading 32 bits.
	testHigh = uint64(1) << 32
	// testPointer looks like an address of the Go heap.
	testPointer = uint64(0xc000012340)
)

// testCPUClock is the clock id of pid's CPU clock which (CPUCLOCK_PROF 0,
// CPUCLOCK_VIRT 1, CPUCLOCK_SCHED 2, a thread's with 4 added; CLOCKFD 3
// names descriptor pid's clock), as the kernel's MAKE_PROCESS_CPUCLOCK
// makes it, sign-extended as a C int passed in a register is.
func testCPUClock(pid, which int32) uint64 { return uint64(int64(^pid<<3 | which)) }

// goThreadFlags are the flags the Go runtime starts a thread with.
const goThreadFlags = testCloneVM | testCloneFS | testCloneFiles | testCloneSighand | testCloneSysvsem | cloneThread

// testIoctlRefused are ioctl commands that change a terminal or point a
// socket's SIGIO at a process: none may be on the allow-list.
var testIoctlRefused = []uint32{
	tiocsti, tioclinux, fioSetown, siocSpgrp, tiocspgrp, tiocsctty, tiocnotty, tiocvhangup, tioccons,
	tcsets, tcsetsw, tcsetsf, tcseta, tcsetaw, tcsetaf, tcsets2, tcsetsw2, tcsetsf2,
	tiocslcktrmios, tiocssoftcar, tiocsetd, tiocexcl, tiocnxcl, tiocswinsz,
	tcsbrk, tcsbrkp, tiocsbrk, tioccbrk, tcxonc, tcflsh,
	tiocmset, tiocmbis, tiocmbic, tiocsserial, tiocsrs485, tiocsiso7816, tiocserconfig,
}

// testConfig is a filter configuration the program is built for in these
// tests.
type testConfig struct {
	name     string
	sockets  Sockets
	truncate bool // TruncateRefused
}

var (
	closed   = testConfig{name: "closed", sockets: NoSockets}
	handed   = testConfig{name: "handed", sockets: HandedSockets}
	closedNT = testConfig{name: "closed-no-truncate", sockets: NoSockets, truncate: true}
	handedNT = testConfig{name: "handed-no-truncate", sockets: HandedSockets, truncate: true}
	// testConfigs are every filter a worker can be given.
	testConfigs = []testConfig{closed, handed, closedNT, handedNT}
)

func (tc testConfig) config() Config {
	return Config{Sockets: tc.sockets, PID: testPid, TruncateRefused: tc.truncate}
}

func mustProgram(t *testing.T, c Config, a Arch) []bpf.RawInstruction {
	t.Helper()
	prog, err := Program(c, a)
	if err != nil {
		t.Fatalf("Program: %v", err)
	}
	raw, err := Assemble(prog)
	if err != nil {
		t.Fatalf("Assemble: %v", err)
	}
	return raw
}

// TestSeccompSimulation runs the program of every test policy, for both
// architectures, on every call number of the table and a few past it,
// through every ABI, with a grid of argument values, and compares what the
// BPF returns with what verdict says it should.
func TestSeccompSimulation(t *testing.T) {
	values := []uint64{
		0, afInet, afInet6, testAFUnix, testAFNetlink, testAFPacket,
		testHigh | afInet, testHigh | testAFUnix,
		testPid, testHigh | testPid, testOtherPid, ^uint64(0), 0xffffffff,
		goThreadFlags, goThreadFlags | testCloneNewNS, goThreadFlags | testCloneNewUser, testSIGCHLD,
		goThreadFlags &^ testCloneFiles, 128, 129, 6, 6 | 128, 9 | 128 | 256, 13,
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
		// CPU clocks: the caller's (0), the worker's, another process's
		// and another thread's, and another's in the low word alone.
		testCPUClock(0, 2), testCPUClock(testPid, 2), testCPUClock(testOtherPid, 2),
		testCPUClock(testOtherPid, 6), testHigh | uint64(uint32(testCPUClock(testOtherPid, 0))),
	}
	// Every ioctl command the filter refuses, and with its high word set.
	for _, v := range testIoctlRefused {
		values = append(values, uint64(v), testHigh|uint64(v))
	}
	// openat's flags and mode are its third and fourth arguments, and
	// mmap's flags its fourth: pairs of file values fill each pair of
	// neighbouring arguments from the second to the fourth.
	fileValues := []uint64{
		0, oCreat, oCreat | testOWronly | testOCloexec, testHigh | oCreat, oTmpfile, testOTmpfileAMD64, testOTmpfileARM64,
		oTrunc, oTrunc | testOCloexec, oTrunc | testOWronly, oTrunc | testORdwr, oTrunc | oAccmode, testHigh | oTrunc, oTrunc | oCreat | 0o644,
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
	// setsockopt's and getsockopt's level and option are their second
	// and third arguments.
	levels := []uint64{0, solSocket, ipprotoTCP, ipprotoIPv6, ipprotoUDP, testHigh | solSocket, testHigh | ipprotoTCP, 0xffffffff}
	options := []uint64{0, tcpNodelay, testSoReuseaddr, soError, tcpKeepintvl, soBroadcast, soKeepalive, testSoReuseport,
		testSoBindtodevice, ipv6V6only, testHigh | testSoReuseaddr, testHigh | soKeepalive, 0xffffffff,
		soType, testHigh | soType}
	for _, l := range levels {
		for _, o := range options {
			productSets = append(productSets, [6]uint64{3, l, o, testPointer, 4})
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

	for _, a := range []Arch{archAMD64, archARM64} {
		// Every number from 0 to past the table, each also with the x32
		// bit, and a few far past it.
		var calls, nrs []int
		top := a.top()
		for nr := 0; nr <= top+8; nr++ {
			nrs = append(nrs, nr, nr|x32SyscallBit)
		}
		for _, nr := range a.Table {
			calls = append(calls, nr)
		}
		nrs = append(nrs, 1000, 100000, 0x3fffffff, 0x7fffffff, -1)
		slices.Sort(calls)
		slices.Sort(nrs)

		for _, tc := range testConfigs {
			t.Run(a.Name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				c := tc.config()
				raw := mustProgram(t, c, a)
				// runChecked checks the program on every run; it is
				// checked once here, and run unchecked below.
				if err := checkFilter(raw); err != nil {
					t.Fatal(err)
				}
				counts := map[filterAction]int{}
				check := func(audit uint32, nr int, args [6]uint64) {
					want := verdict(c, a, audit, nr, args)
					got, err := runFilter(raw, callData{Nr: int32(nr), Arch: audit, Args: args})
					if err != nil {
						t.Fatalf("runChecked: %v", err)
					}
					if filterAction(got) != want {
						t.Fatalf("arch %#x, call %d (%s), args %#x: program returns %v, want %v",
							audit, nr, a.syscallName(nr), args, filterAction(got), want)
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
				t.Logf("%s, %s: checked %d cases, %d instructions; %v", a.Name, tc.name, total, len(raw), counts)
				for _, act := range []filterAction{actAllow, actEPERM, actENOSYS} {
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
	eperm, enosys := errnoAction(1), errnoAction(38)
	tests := []struct {
		name   string
		arch   Arch
		policy testConfig
		audit  uint32 // 0: the arch's own
		call   string
		x32    bool // the x32 number of call
		nr     int  // when call is ""
		args   [6]uint64
		want   filterAction
	}{
		{name: "socket(1<<32|AF_INET) refused under a closed network", arch: archAMD64, policy: closed,
			call: "socket", args: [6]uint64{testHigh | afInet, sockStream}, want: eperm},
		{name: "socket(AF_INET) refused under a closed network on arm64", arch: archARM64, policy: closed,
			call: "socket", args: [6]uint64{afInet, sockStream}, want: eperm},
		{name: "connect refused under a closed network", arch: archAMD64, policy: closed, call: "connect",
			want: eperm},
		{name: "sendto refused under a closed network", arch: archAMD64, policy: closed, call: "sendto",
			want: eperm},
		{name: "recvmsg refused under a closed network: no broker channel", arch: archAMD64,
			policy: closed, call: "recvmsg", args: [6]uint64{3, testPointer}, want: eperm},
		{name: "getsockname refused under a closed network on arm64", arch: archARM64, policy: closed,
			call: "getsockname", args: [6]uint64{3, testPointer, testPointer}, want: eperm},
		{name: "shutdown refused under a closed network", arch: archAMD64, policy: closed,
			call: "shutdown", args: [6]uint64{3, 1}, want: eperm},
		// Under a net grant the supervisor makes each connection and hands
		// the socket in: the worker makes, connects, binds and sends to an
		// address with none of its own, whatever the arguments.
		{name: "socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC) refused under net:HOST", arch: archAMD64,
			policy: handed, call: "socket", args: [6]uint64{afInet, sockStream | testSockCloexec}, want: eperm},
		{name: "socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP) refused under net on arm64", arch: archARM64,
			policy: handed, call: "socket", args: [6]uint64{afInet6, sockStream, ipprotoTCP}, want: eperm},
		{name: "socket(1<<32|AF_INET6, SOCK_DGRAM) refused under net:udp:HOST", arch: archARM64,
			policy: handed, call: "socket", args: [6]uint64{testHigh | afInet6, sockDgram}, want: eperm},
		{name: "socket(AF_INET, SOCK_DGRAM|SOCK_NONBLOCK|SOCK_CLOEXEC, IPPROTO_UDP) refused",
			arch: archAMD64, policy: handed, call: "socket",
			args: [6]uint64{afInet, sockDgram | testSockNonblock | testSockCloexec, ipprotoUDP}, want: eperm},
		{name: "socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP) refused with EPERM: no socket at all",
			arch: archAMD64, policy: handed, call: "socket",
			args: [6]uint64{afInet, sockStream | testSockCloexec, ipprotoMPTCP}, want: eperm},
		{name: "AF_UNIX refused under net:HOST", arch: archAMD64, policy: handed, call: "socket",
			args: [6]uint64{testAFUnix, sockStream}, want: eperm},
		{name: "1<<32|AF_UNIX refused under net:HOST", arch: archAMD64, policy: handed, call: "socket",
			args: [6]uint64{testHigh | testAFUnix, sockStream}, want: eperm},
		{name: "AF_NETLINK refused under net", arch: archAMD64, policy: handed, call: "socket",
			args: [6]uint64{testAFNetlink, sockDgram}, want: eperm},
		{name: "SOCK_RAW refused under net:HOST", arch: archAMD64, policy: handed, call: "socket",
			args: [6]uint64{afInet, testSockRaw}, want: eperm},
		{name: "ICMP (ping) socket refused under net:udp", arch: archAMD64, policy: handed, call: "socket",
			args: [6]uint64{afInet, sockDgram, testIPProtoICMP}, want: eperm},
		{name: "socketpair refused under net:HOST", arch: archAMD64, policy: handed, call: "socketpair",
			args: [6]uint64{testAFUnix, sockStream}, want: eperm},
		{name: "connect refused under net: a handed socket is not connected elsewhere",
			arch: archAMD64, policy: handed, call: "connect", args: [6]uint64{3, testPointer, 16},
			want: eperm},
		{name: "connect(AF_UNSPEC's address) refused on arm64: no disconnect either", arch: archARM64,
			policy: handed, call: "connect", args: [6]uint64{3, testPointer, 2}, want: eperm},
		{name: "bind refused under net", arch: archAMD64, policy: handed, call: "bind",
			args: [6]uint64{3, testPointer, 16}, want: eperm},
		{name: "listen refused under net", arch: archAMD64, policy: handed, call: "listen",
			args: [6]uint64{3, 1}, want: eperm},
		{name: "accept4 refused under net on arm64", arch: archARM64, policy: handed, call: "accept4",
			args: [6]uint64{3}, want: eperm},
		{name: "sendto refused under net:udp: no datagram to an address", arch: archAMD64,
			policy: handed, call: "sendto", args: [6]uint64{3, testPointer, 1, 0, testPointer, 16},
			want: eperm},
		{name: "sendto without an address refused too", arch: archARM64, policy: handed, call: "sendto",
			args: [6]uint64{3, testPointer, 1}, want: eperm},
		{name: "sendmsg refused under net: no descriptor passed back", arch: archAMD64, policy: handed,
			call: "sendmsg", args: [6]uint64{3, testPointer}, want: eperm},
		{name: "sendmmsg refused under net on arm64", arch: archARM64, policy: handed, call: "sendmmsg",
			args: [6]uint64{3, testPointer, 1}, want: eperm},
		{name: "recvfrom refused under net: a handed socket is read", arch: archAMD64, policy: handed,
			call: "recvfrom", args: [6]uint64{3, testPointer, 1}, want: eperm},
		{name: "uname refused under net: the worker resolves no name", arch: archAMD64, policy: handed,
			call: "uname", args: [6]uint64{testPointer}, want: eperm},
		{name: "setsockopt(SOL_SOCKET, SO_KEEPALIVE) refused under net: no option is set",
			arch: archAMD64, policy: handed, call: "setsockopt",
			args: [6]uint64{3, solSocket, soKeepalive, testPointer, 4}, want: eperm},
		{name: "setsockopt(IPPROTO_TCP, TCP_NODELAY) refused on arm64", arch: archARM64, policy: handed,
			call: "setsockopt", args: [6]uint64{3, ipprotoTCP, tcpNodelay, testPointer, 4}, want: eperm},
		{name: "setsockopt(SOL_SOCKET, SO_REUSEADDR) refused", arch: archAMD64, policy: handed,
			call: "setsockopt", args: [6]uint64{3, solSocket, testSoReuseaddr, testPointer, 4}, want: eperm},
		{name: "setsockopt(SOL_SOCKET, SO_TYPE) refused: read, never set", arch: archAMD64,
			policy: handed, call: "setsockopt", args: [6]uint64{3, solSocket, soType, testPointer, 4},
			want: eperm},
		{name: "recvmsg allowed under net: a connection arrives on the broker channel",
			arch: archAMD64, policy: handed, call: "recvmsg", args: [6]uint64{3, testPointer, testOCloexec},
			want: actAllow},
		{name: "recvmsg allowed under net on arm64", arch: archARM64, policy: handed, call: "recvmsg",
			args: [6]uint64{3, testPointer}, want: actAllow},
		{name: "getsockopt(SOL_SOCKET, SO_TYPE) allowed under net: net.FileConn reads it",
			arch: archAMD64, policy: handed, call: "getsockopt",
			args: [6]uint64{3, solSocket, soType, testPointer, testPointer}, want: actAllow},
		{name: "getsockopt(1<<32|SOL_SOCKET, 1<<32|SO_TYPE) allowed: the kernel sees SO_TYPE",
			arch: archARM64, policy: handed, call: "getsockopt",
			args: [6]uint64{3, testHigh | solSocket, testHigh | soType, testPointer, testPointer},
			want: actAllow},
		{name: "getsockopt(SOL_SOCKET, SO_ERROR) refused: no dial's outcome to read", arch: archAMD64,
			policy: handed, call: "getsockopt", args: [6]uint64{3, solSocket, soError, testPointer, testPointer},
			want: eperm},
		{name: "getsockopt(IPPROTO_TCP, SO_TYPE's number) refused: TCP_MAXSEG at that level",
			arch: archAMD64, policy: handed, call: "getsockopt",
			args: [6]uint64{3, ipprotoTCP, soType, testPointer, testPointer}, want: eperm},
		{name: "getsockopt(SOL_SOCKET, SO_REUSEADDR) refused: not on the list", arch: archARM64,
			policy: handed, call: "getsockopt",
			args: [6]uint64{3, solSocket, testSoReuseaddr, testPointer, testPointer}, want: eperm},
		{name: "getsockopt refused under a closed network on arm64", arch: archARM64, policy: closed,
			call: "getsockopt", args: [6]uint64{3, solSocket, soType, testPointer, testPointer}, want: eperm},
		{name: "getsockname allowed under net", arch: archAMD64, policy: handed, call: "getsockname",
			args: [6]uint64{3, testPointer, testPointer}, want: actAllow},
		{name: "getpeername allowed under net on arm64", arch: archARM64, policy: handed,
			call: "getpeername", args: [6]uint64{3, testPointer, testPointer}, want: actAllow},
		{name: "shutdown(SHUT_WR) allowed under net", arch: archAMD64, policy: handed, call: "shutdown",
			args: [6]uint64{3, 1}, want: actAllow},
		{name: "AF_UNIX refused under --confine strict", arch: archAMD64, policy: handed, call: "socket", args: [6]uint64{testAFUnix, sockStream}, want: eperm},
		{name: "i386 ABI refused", arch: archAMD64, policy: handed, audit: testAuditI386, call: "getpid", want: eperm},
		{name: "ARM ABI refused on arm64", arch: archARM64, policy: handed, audit: testAuditARM, call: "getpid", want: eperm},
		{name: "amd64 ABI refused on arm64", arch: archARM64, policy: closed, audit: auditArchX86_64, call: "getpid", want: eperm},
		{name: "x32 getpid refused", arch: archAMD64, policy: handed, call: "getpid", x32: true, want: eperm},
		{name: "getpid allowed", arch: archAMD64, policy: closed, call: "getpid", want: actAllow},
		{name: "a number past the table answered ENOSYS", arch: archAMD64, policy: closed, nr: 1000, want: enosys},
		{name: "clone3 answered ENOSYS", arch: archAMD64, policy: handed, call: "clone3", want: enosys},
		{name: "clone of a Go thread allowed", arch: archAMD64, policy: closed, call: "clone", args: [6]uint64{goThreadFlags}, want: actAllow},
		{name: "clone of a thread with CLONE_NEWNS refused", arch: archAMD64, policy: closed, call: "clone", args: [6]uint64{goThreadFlags | testCloneNewNS}, want: eperm},
		{name: "clone of a thread with CLONE_NEWUSER refused on arm64", arch: archARM64, policy: handed, call: "clone", args: [6]uint64{goThreadFlags | testCloneNewUser}, want: eperm},
		{name: "clone of a process refused", arch: archAMD64, policy: handed, call: "clone", args: [6]uint64{testSIGCHLD}, want: eperm},
		{name: "futex FUTEX_WAIT_PRIVATE allowed", arch: archAMD64, policy: closed, call: "futex", args: [6]uint64{testPointer, 128}, want: actAllow},
		{name: "futex FUTEX_WAKE_PRIVATE allowed on arm64", arch: archARM64, policy: handed, call: "futex", args: [6]uint64{testPointer, 129}, want: actAllow},
		{name: "futex FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME allowed, as glibc waits", arch: archAMD64, policy: handed, call: "futex", args: [6]uint64{testPointer, 9 | 128 | 256}, want: actAllow},
		{name: "futex FUTEX_WAKE refused, a word of any process's that maps its page", arch: archAMD64, policy: closed, call: "futex", args: [6]uint64{testPointer, 1}, want: eperm},
		{name: "futex FUTEX_CMP_REQUEUE refused on arm64", arch: archARM64, policy: handed, call: "futex", args: [6]uint64{testPointer, 4}, want: eperm},
		{name: "futex FUTEX_LOCK_PI refused", arch: archAMD64, policy: closed, call: "futex", args: [6]uint64{testPointer, 6}, want: eperm},
		{name: "futex FUTEX_LOCK_PI_PRIVATE refused on arm64", arch: archARM64, policy: closed, call: "futex", args: [6]uint64{testPointer, 6 | 128}, want: eperm},
		{name: "futex FUTEX_TRYLOCK_PI refused", arch: archAMD64, policy: handed, call: "futex", args: [6]uint64{testPointer, 8}, want: eperm},
		{name: "futex FUTEX_LOCK_PI2 refused", arch: archAMD64, policy: closed, call: "futex", args: [6]uint64{testPointer, 13}, want: eperm},
		{name: "futex FUTEX_CMP_REQUEUE_PI refused", arch: archAMD64, policy: closed, call: "futex", args: [6]uint64{testPointer, 12}, want: eperm},
		{name: "futex FUTEX_WAIT with a bit above the flags refused", arch: archAMD64, policy: closed, call: "futex", args: [6]uint64{testPointer, 1 << 16}, want: eperm},
		{name: "futex FUTEX_WAIT_PRIVATE with a high word allowed: the kernel takes an int", arch: archAMD64, policy: closed, call: "futex", args: [6]uint64{testPointer, testHigh | 128}, want: actAllow},
		{name: "clone of a thread with descriptors of its own (no CLONE_FILES) refused", arch: archAMD64, policy: closed, call: "clone", args: [6]uint64{goThreadFlags &^ testCloneFiles}, want: eperm},
		{name: "clone of a thread with descriptors of its own (no CLONE_FILES) refused on arm64", arch: archARM64, policy: handed, call: "clone", args: [6]uint64{goThreadFlags &^ testCloneFiles}, want: eperm},
		{name: "clone with CLONE_FILES only in the high word refused", arch: archAMD64, policy: closed, call: "clone", args: [6]uint64{goThreadFlags&^testCloneFiles | testHigh*testCloneFiles}, want: eperm},
		{name: "clone with CLONE_THREAD only in the high word refused", arch: archAMD64, policy: closed, call: "clone", args: [6]uint64{testHigh * cloneThread}, want: eperm},
		{name: "fork refused", arch: archAMD64, policy: handed, call: "fork", want: eperm},
		{name: "execve refused", arch: archARM64, policy: handed, call: "execve", want: eperm},
		{name: "kill(own pid) allowed", arch: archAMD64, policy: closed, call: "kill", args: [6]uint64{testPid, 9}, want: actAllow},
		{name: "kill(own pid|1<<32) allowed: the kernel sees own pid", arch: archAMD64, policy: closed, call: "kill", args: [6]uint64{testHigh | testPid}, want: actAllow},
		{name: "kill(0) refused", arch: archAMD64, policy: closed, call: "kill", args: [6]uint64{0, 9}, want: eperm},
		{name: "kill(-1) refused", arch: archAMD64, policy: closed, call: "kill", args: [6]uint64{^uint64(0), 9}, want: eperm},
		{name: "kill(-1 as 32 bits) refused", arch: archARM64, policy: closed, call: "kill", args: [6]uint64{0xffffffff, 9}, want: eperm},
		{name: "kill(another pid) refused", arch: archARM64, policy: handed, call: "kill", args: [6]uint64{testOtherPid, 9}, want: eperm},
		{name: "tgkill(own pid) allowed", arch: archARM64, policy: closed, call: "tgkill", args: [6]uint64{testPid, testPid + 7, 23}, want: actAllow},
		{name: "tgkill(another pid) refused", arch: archAMD64, policy: closed, call: "tgkill", args: [6]uint64{testOtherPid, testPid, 23}, want: eperm},
		{name: "rt_sigqueueinfo(another pid) refused", arch: archAMD64, policy: closed, call: "rt_sigqueueinfo", args: [6]uint64{testOtherPid}, want: eperm},
		{name: "tkill refused", arch: archAMD64, policy: closed, call: "tkill", args: [6]uint64{testPid}, want: eperm},
		{name: "ioctl TIOCSTI refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{0, tiocsti}, want: eperm},
		{name: "ioctl TIOCSTI|1<<32 refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{0, testHigh | tiocsti}, want: eperm},
		{name: "ioctl TIOCLINUX refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{0, tioclinux}, want: eperm},
		{name: "ioctl FIONREAD allowed", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{0, testFIONREAD}, want: actAllow},
		{name: "ioctl TCGETS allowed: reading a terminal's settings", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, testTCGETS, testPointer}, want: actAllow},
		{name: "ioctl TCGETS2 refused on arm64: not on the list", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{1, testTCGETS2, testPointer}, want: eperm},
		{name: "ioctl TIOCGWINSZ allowed: reading a terminal's size", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{1, testTIOCGWINSZ, testPointer}, want: actAllow},
		{name: "ioctl TIOCGPGRP refused: not on the list", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{0, testTIOCGPGRP, testPointer}, want: eperm},
		{name: "ioctl TIOCSPTLCK refused: not on the list", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{3, testTIOCSPTLCK, testPointer}, want: eperm},
		{name: "ioctl TCSETX refused: not on the list", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, testTCSETX, testPointer}, want: eperm},
		{name: "ioctl TCSETS refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsets, testPointer}, want: eperm},
		{name: "ioctl TCSETS|1<<32 refused: the kernel sees TCSETS", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{1, testHigh | tcsets, testPointer}, want: eperm},
		{name: "ioctl TCSETSW refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{0, tcsetsw, testPointer}, want: eperm},
		{name: "ioctl TCSETSF refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{2, tcsetsf, testPointer}, want: eperm},
		{name: "ioctl TCSETA refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcseta, testPointer}, want: eperm},
		{name: "ioctl TCSETAW|1<<32 refused on arm64", arch: archARM64, policy: handed, call: "ioctl", args: [6]uint64{1, testHigh | tcsetaw, testPointer}, want: eperm},
		{name: "ioctl TCSETAF refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{1, tcsetaf, testPointer}, want: eperm},
		{name: "ioctl TCSETS2 refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsets2, testPointer}, want: eperm},
		{name: "ioctl TCSETSW2|1<<32 refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{1, testHigh | tcsetsw2, testPointer}, want: eperm},
		{name: "ioctl TCSETSF2 refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{1, tcsetsf2, testPointer}, want: eperm},
		{name: "ioctl TCSETS2 with another size refused: not on the list", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsets2 ^ 0x40000, testPointer}, want: eperm},
		{name: "ioctl TIOCSPGRP refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{0, tiocspgrp, testPointer}, want: eperm},
		{name: "ioctl TIOCSCTTY refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{0, tiocsctty, 1}, want: eperm},
		{name: "ioctl TIOCNOTTY refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{0, tiocnotty}, want: eperm},
		{name: "ioctl TIOCVHANGUP|1<<32 refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{0, testHigh | tiocvhangup}, want: eperm},
		{name: "ioctl TIOCCONS refused on arm64", arch: archARM64, policy: handed, call: "ioctl", args: [6]uint64{1, tioccons}, want: eperm},
		{name: "ioctl TIOCEXCL refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocexcl}, want: eperm},
		{name: "ioctl TIOCNXCL refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocnxcl}, want: eperm},
		{name: "ioctl TIOCSETD refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocsetd, testPointer}, want: eperm},
		{name: "ioctl TIOCSWINSZ refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocswinsz, testPointer}, want: eperm},
		{name: "ioctl TIOCSWINSZ|1<<32 refused on arm64", arch: archARM64, policy: handed, call: "ioctl", args: [6]uint64{1, testHigh | tiocswinsz, testPointer}, want: eperm},
		{name: "ioctl TIOCSLCKTRMIOS refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocslcktrmios, testPointer}, want: eperm},
		{name: "ioctl TIOCSSOFTCAR refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{1, tiocssoftcar, testPointer}, want: eperm},
		{name: "ioctl TIOCSSERIAL refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocsserial, testPointer}, want: eperm},
		{name: "ioctl TIOCSRS485 refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocsrs485, testPointer}, want: eperm},
		{name: "ioctl TIOCSISO7816 refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocsiso7816, testPointer}, want: eperm},
		{name: "ioctl TIOCSERCONFIG refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocserconfig}, want: eperm},
		{name: "ioctl TIOCMSET refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocmset, testPointer}, want: eperm},
		{name: "ioctl TIOCMBIS refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tiocmbis, testPointer}, want: eperm},
		{name: "ioctl TIOCMBIC|1<<32 refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{1, testHigh | tiocmbic, testPointer}, want: eperm},
		{name: "ioctl TCSBRK(0), a break, refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsbrk, 0}, want: eperm},
		{name: "ioctl TCSBRK(1), tcdrain, refused with it", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsbrk, 1}, want: eperm},
		{name: "ioctl TCSBRKP refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcsbrkp, 0}, want: eperm},
		{name: "ioctl TIOCSBRK refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{1, tiocsbrk}, want: eperm},
		{name: "ioctl TIOCCBRK refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{1, tioccbrk}, want: eperm},
		{name: "ioctl TCXONC(TCOOFF) refused", arch: archAMD64, policy: closed, call: "ioctl", args: [6]uint64{1, tcxonc, 0}, want: eperm},
		{name: "ioctl TCFLSH(TCIFLUSH)|1<<32 refused on arm64", arch: archARM64, policy: closed, call: "ioctl", args: [6]uint64{0, testHigh | tcflsh, 0}, want: eperm},
		{name: "io_setup refused", arch: archAMD64, policy: closed, call: "io_setup", args: [6]uint64{1, testPointer}, want: eperm},
		{name: "io_setup refused on arm64", arch: archARM64, policy: handed, call: "io_setup", args: [6]uint64{1, testPointer}, want: eperm},
		{name: "io_submit refused", arch: archAMD64, policy: handed, call: "io_submit", want: eperm},
		{name: "io_destroy refused on arm64", arch: archARM64, policy: closed, call: "io_destroy", want: eperm},
		{name: "io_getevents refused", arch: archAMD64, policy: closed, call: "io_getevents", want: eperm},
		{name: "io_pgetevents refused on arm64", arch: archARM64, policy: closed, call: "io_pgetevents", want: eperm},
		{name: "io_cancel refused", arch: archAMD64, policy: handed, call: "io_cancel", want: eperm},
		{name: "ptrace refused", arch: archAMD64, policy: handed, call: "ptrace", want: eperm},
		{name: "io_uring_setup refused", arch: archARM64, policy: closed, call: "io_uring_setup", want: eperm},
		{name: "modify_ldt refused", arch: archAMD64, policy: handed, call: "modify_ldt", want: eperm},
		{name: "kcmp refused on arm64", arch: archARM64, policy: closed, call: "kcmp", args: [6]uint64{testPid, testPid}, want: eperm},
		{name: "process_madvise refused", arch: archAMD64, policy: closed, call: "process_madvise", want: eperm},
		{name: "move_pages refused", arch: archARM64, policy: handed, call: "move_pages", args: [6]uint64{testOtherPid}, want: eperm},
		{name: "create_module refused", arch: archAMD64, policy: closed, call: "create_module", want: eperm},
		{name: "query_module refused", arch: archAMD64, policy: handed, call: "query_module", want: eperm},
		{name: "fanotify_init refused on arm64", arch: archARM64, policy: closed, call: "fanotify_init", want: eperm},
		{name: "inotify_init1 refused", arch: archAMD64, policy: handed, call: "inotify_init1", want: eperm},
		{name: "inotify_add_watch refused", arch: archAMD64, policy: closed, call: "inotify_add_watch", want: eperm},
		{name: "shmget refused", arch: archAMD64, policy: handed, call: "shmget", want: eperm},
		{name: "semop refused on arm64", arch: archARM64, policy: closed, call: "semop", want: eperm},
		{name: "shmdt refused", arch: archAMD64, policy: closed, call: "shmdt", want: eperm},
		{name: "listmount refused", arch: archAMD64, policy: closed, call: "listmount", want: eperm},
		{name: "sethostname refused on arm64", arch: archARM64, policy: handed, call: "sethostname", want: eperm},
		{name: "sysfs refused", arch: archAMD64, policy: closed, call: "sysfs", want: eperm},
		{name: "chmod refused", arch: archAMD64, policy: handed, call: "chmod", want: eperm},
		{name: "fchmodat refused on arm64", arch: archARM64, policy: closed, call: "fchmodat", args: [6]uint64{^uint64(0), testPointer, 0o777}, want: eperm},
		{name: "fchmodat2 refused", arch: archAMD64, policy: closed, call: "fchmodat2", want: eperm},
		{name: "fchown refused", arch: archAMD64, policy: closed, call: "fchown", want: eperm},
		{name: "lchown refused", arch: archAMD64, policy: handed, call: "lchown", want: eperm},
		{name: "fchownat refused on arm64", arch: archARM64, policy: handed, call: "fchownat", want: eperm},
		{name: "utimes refused", arch: archAMD64, policy: closed, call: "utimes", want: eperm},
		{name: "utimensat refused on arm64", arch: archARM64, policy: closed, call: "utimensat", want: eperm},
		{name: "fsetxattr refused", arch: archAMD64, policy: closed, call: "fsetxattr", want: eperm},
		{name: "removexattrat refused on arm64", arch: archARM64, policy: handed, call: "removexattrat", want: eperm},
		{name: "getxattr refused", arch: archAMD64, policy: closed, call: "getxattr", want: eperm},
		{name: "setrlimit refused", arch: archAMD64, policy: closed, call: "setrlimit", args: [6]uint64{testRlimitAS, testPointer}, want: eperm},
		{name: "setrlimit refused on arm64", arch: archARM64, policy: handed, call: "setrlimit", args: [6]uint64{testRlimitAS, testPointer}, want: eperm},
		{name: "getrlimit refused: the runtime reads its limits with prlimit64", arch: archAMD64, policy: closed, call: "getrlimit", args: [6]uint64{testRlimitAS, testPointer}, want: eperm},
		{name: "prlimit64(0, RLIMIT_AS, NULL, old) allowed", arch: archAMD64, policy: closed, call: "prlimit64", args: [6]uint64{0, testRlimitAS, 0, testPointer}, want: actAllow},
		{name: "prlimit64(own pid, RLIMIT_AS, NULL, old) allowed on arm64", arch: archARM64, policy: closed, call: "prlimit64", args: [6]uint64{testPid, testRlimitAS, 0, testPointer}, want: actAllow},
		{name: "prlimit64(own pid|1<<32, NULL) allowed: the kernel sees own pid", arch: archAMD64, policy: handed, call: "prlimit64", args: [6]uint64{testHigh | testPid, testRlimitAS, 0, testPointer}, want: actAllow},
		{name: "prlimit64(0, RLIMIT_AS, new, NULL) refused", arch: archAMD64, policy: closed, call: "prlimit64", args: [6]uint64{0, testRlimitAS, testPointer}, want: eperm},
		{name: "prlimit64(0, RLIMIT_AS, new at 1<<32, NULL) refused: the low word of the pointer is 0", arch: archAMD64, policy: closed, call: "prlimit64", args: [6]uint64{0, testRlimitAS, testHigh}, want: eperm},
		{name: "prlimit64 with a new limit at 1<<32 refused on arm64", arch: archARM64, policy: handed, call: "prlimit64", args: [6]uint64{testPid, testRlimitAS, testHigh, testPointer}, want: eperm},
		{name: "prlimit64(another pid, NULL) refused", arch: archAMD64, policy: closed, call: "prlimit64", args: [6]uint64{testOtherPid, testRlimitAS, 0, testPointer}, want: eperm},
		{name: "prlimit64(-1, NULL) refused", arch: archARM64, policy: closed, call: "prlimit64", args: [6]uint64{^uint64(0), testRlimitAS}, want: eperm},
		{name: "setpriority(PRIO_PROCESS, 0) refused: as root it could take a negative nice", arch: archAMD64, policy: closed, call: "setpriority", args: [6]uint64{prioProcess, 0, ^uint64(19)}, want: eperm},
		{name: "setpriority(PRIO_PROCESS, own pid) refused on arm64", arch: archARM64, policy: handed, call: "setpriority", args: [6]uint64{prioProcess, testPid, 10}, want: eperm},
		{name: "setpriority(PRIO_PROCESS, another pid) refused", arch: archAMD64, policy: closed, call: "setpriority", args: [6]uint64{prioProcess, testOtherPid, 10}, want: eperm},
		{name: "getpriority(PRIO_PROCESS, 0) refused", arch: archAMD64, policy: closed, call: "getpriority", args: [6]uint64{prioProcess, 0}, want: eperm},
		{name: "getpriority(PRIO_PROCESS, own pid) refused on arm64", arch: archARM64, policy: handed, call: "getpriority", args: [6]uint64{prioProcess, testPid}, want: eperm},
		{name: "getpriority(1<<32|PRIO_PROCESS, own pid|1<<32) refused", arch: archAMD64, policy: closed, call: "getpriority", args: [6]uint64{testHigh | prioProcess, testHigh | testPid}, want: eperm},
		{name: "getpriority(PRIO_PROCESS, another pid) refused", arch: archAMD64, policy: closed, call: "getpriority", args: [6]uint64{prioProcess, testOtherPid}, want: eperm},
		{name: "getpriority(PRIO_PGRP, 0) refused", arch: archAMD64, policy: handed, call: "getpriority", args: [6]uint64{testPrioPgrp, 0}, want: eperm},
		{name: "getpriority(PRIO_USER, 0) refused on arm64", arch: archARM64, policy: closed, call: "getpriority", args: [6]uint64{testPrioUser, 0}, want: eperm},
		{name: "ioprio_set(IOPRIO_WHO_PROCESS, 0) refused: as root it could take the real-time class", arch: archAMD64, policy: closed, call: "ioprio_set", args: [6]uint64{ioprioWhoProcess, 0, 4}, want: eperm},
		{name: "ioprio_get(IOPRIO_WHO_PROCESS, 0) refused", arch: archAMD64, policy: closed, call: "ioprio_get", args: [6]uint64{ioprioWhoProcess, 0}, want: eperm},
		{name: "ioprio_get(IOPRIO_WHO_PROCESS, own pid) refused on arm64", arch: archARM64, policy: closed, call: "ioprio_get", args: [6]uint64{ioprioWhoProcess, testPid}, want: eperm},
		{name: "ioprio_get(IOPRIO_WHO_PROCESS, another pid) refused", arch: archAMD64, policy: handed, call: "ioprio_get", args: [6]uint64{ioprioWhoProcess, testOtherPid}, want: eperm},
		{name: "ioprio_get(IOPRIO_WHO_PGRP, 0) refused", arch: archAMD64, policy: closed, call: "ioprio_get", args: [6]uint64{testIoprioWhoPgrp, 0}, want: eperm},
		{name: "ioprio_get(IOPRIO_WHO_USER, 0) refused on arm64", arch: archARM64, policy: closed, call: "ioprio_get", args: [6]uint64{testIoprioWhoUser, 0}, want: eperm},
		{name: "ioprio_get(0, 0) refused: 0 is PRIO_PROCESS, not IOPRIO_WHO_PROCESS", arch: archAMD64, policy: closed, call: "ioprio_get", args: [6]uint64{0, 0}, want: eperm},
		{name: "sched_setaffinity(0) refused", arch: archAMD64, policy: closed, call: "sched_setaffinity", args: [6]uint64{0, 8, testPointer}, want: eperm},
		{name: "sched_setscheduler(0, SCHED_FIFO) refused on arm64", arch: archARM64, policy: closed, call: "sched_setscheduler", args: [6]uint64{0, 1, testPointer}, want: eperm},
		{name: "sched_setparam(own pid) refused", arch: archAMD64, policy: handed, call: "sched_setparam", args: [6]uint64{testPid, testPointer}, want: eperm},
		{name: "sched_setattr(0) refused", arch: archAMD64, policy: closed, call: "sched_setattr", args: [6]uint64{0, testPointer}, want: eperm},
		{name: "sched_getaffinity(0) allowed: the Go runtime counts its CPUs so", arch: archAMD64, policy: closed, call: "sched_getaffinity", args: [6]uint64{0, 8192, testPointer}, want: actAllow},
		{name: "sched_getaffinity(own pid) allowed on arm64", arch: archARM64, policy: closed, call: "sched_getaffinity", args: [6]uint64{testPid, 8192, testPointer}, want: actAllow},
		{name: "sched_getaffinity(another pid) refused", arch: archAMD64, policy: closed, call: "sched_getaffinity", args: [6]uint64{testOtherPid, 8, testPointer}, want: eperm},
		{name: "sched_getattr(another pid|1<<32) refused", arch: archAMD64, policy: handed, call: "sched_getattr", args: [6]uint64{testHigh | testOtherPid, testPointer, 56}, want: eperm},
		{name: "sched_getscheduler(-1) refused on arm64", arch: archARM64, policy: closed, call: "sched_getscheduler", args: [6]uint64{^uint64(0)}, want: eperm},
		{name: "sched_rr_get_interval(another pid) refused", arch: archAMD64, policy: closed, call: "sched_rr_get_interval", args: [6]uint64{testOtherPid, testPointer}, want: eperm},
		{name: "getsid(0) refused", arch: archAMD64, policy: closed, call: "getsid", want: eperm},
		{name: "getsid(another pid) refused", arch: archAMD64, policy: closed, call: "getsid", args: [6]uint64{testOtherPid}, want: eperm},
		{name: "getpgid(own pid) refused on arm64", arch: archARM64, policy: closed, call: "getpgid", args: [6]uint64{testPid}, want: eperm},
		{name: "getpgid(another pid) refused on arm64", arch: archARM64, policy: closed, call: "getpgid", args: [6]uint64{testOtherPid}, want: eperm},
		{name: "getpgrp refused", arch: archAMD64, policy: closed, call: "getpgrp", want: eperm},
		{name: "setuid(0) refused", arch: archAMD64, policy: handed, call: "setuid", want: eperm},
		{name: "setresgid refused on arm64", arch: archARM64, policy: closed, call: "setresgid", args: [6]uint64{^uint64(0), ^uint64(0), ^uint64(0)}, want: eperm},
		{name: "setgroups refused", arch: archAMD64, policy: handed, call: "setgroups", want: eperm},
		{name: "setfsuid refused on arm64", arch: archARM64, policy: closed, call: "setfsuid", want: eperm},
		{name: "setpgid(0, 0) refused", arch: archAMD64, policy: closed, call: "setpgid", want: eperm},
		{name: "clock_gettime(CLOCK_MONOTONIC) allowed: the runtime's clock past the vDSO", arch: archAMD64, policy: closed, call: "clock_gettime", args: [6]uint64{1, testPointer}, want: actAllow},
		{name: "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) allowed on arm64", arch: archARM64, policy: handed, call: "clock_gettime", args: [6]uint64{2, testPointer}, want: actAllow},
		{name: "clock_gettime(1<<32|CLOCK_REALTIME) allowed: the kernel sees CLOCK_REALTIME", arch: archAMD64, policy: closedNT, call: "clock_gettime", args: [6]uint64{testHigh, testPointer}, want: actAllow},
		{name: "clock_gettime(the worker's CPU clock by pid 0) allowed", arch: archAMD64, policy: closed, call: "clock_gettime", args: [6]uint64{testCPUClock(0, 2), testPointer}, want: actAllow},
		{name: "clock_gettime(the worker's CPU clock by its pid) allowed on arm64", arch: archARM64, policy: closed, call: "clock_gettime", args: [6]uint64{testCPUClock(testPid, 0), testPointer}, want: actAllow},
		{name: "clock_gettime(the calling thread's CPU clock by tid 0) allowed", arch: archAMD64, policy: handed, call: "clock_gettime", args: [6]uint64{testCPUClock(0, 6), testPointer}, want: actAllow},
		{name: "clock_gettime(another process's CPU clock) refused: the kernel answers it for any pid", arch: archAMD64, policy: closed, call: "clock_gettime", args: [6]uint64{testCPUClock(testOtherPid, 2), testPointer}, want: eperm},
		{name: "clock_gettime(another process's CPU clock) refused on arm64", arch: archARM64, policy: handedNT, call: "clock_gettime", args: [6]uint64{testCPUClock(testOtherPid, 1), testPointer}, want: eperm},
		{name: "clock_gettime(another process's CPU clock in the low word, 1<<32 above) refused", arch: archAMD64, policy: handed, call: "clock_gettime", args: [6]uint64{testHigh | uint64(uint32(testCPUClock(testOtherPid, 2))), testPointer}, want: eperm},
		{name: "clock_gettime(the CPU clock of a thread by its id) refused", arch: archAMD64, policy: closed, call: "clock_gettime", args: [6]uint64{testCPUClock(testOtherPid, 6), testPointer}, want: eperm},
		{name: "clock_gettime(a descriptor's clock) refused", arch: archARM64, policy: closed, call: "clock_gettime", args: [6]uint64{testCPUClock(3, 3), testPointer}, want: eperm},
		{name: "mlock refused", arch: archAMD64, policy: closed, call: "mlock", args: [6]uint64{testPointer, 4096}, want: eperm},
		{name: "mlockall refused on arm64", arch: archARM64, policy: handed, call: "mlockall", args: [6]uint64{1}, want: eperm},
		{name: "memfd_secret refused", arch: archAMD64, policy: closed, call: "memfd_secret", want: eperm},
		{name: "mmap(MAP_PRIVATE|MAP_ANONYMOUS) allowed", arch: archAMD64, policy: closed, call: "mmap", args: [6]uint64{0, 4096, 3, testMapPrivAnon, ^uint64(0)}, want: actAllow},
		{name: "mmap(MAP_LOCKED) refused", arch: archAMD64, policy: closed, call: "mmap", args: [6]uint64{0, 4096, 3, testMapPrivAnon | mapLocked, ^uint64(0)}, want: eperm},
		{name: "mmap(1<<32|MAP_LOCKED) refused on arm64", arch: archARM64, policy: handed, call: "mmap", args: [6]uint64{0, 4096, 3, testHigh | testMapPrivAnon | mapLocked, ^uint64(0)}, want: eperm},
		{name: "mmap with MAP_LOCKED only in the high word allowed: the kernel has no such flag", arch: archAMD64, policy: closed, call: "mmap", args: [6]uint64{0, 4096, 3, testHigh*mapLocked | testMapPrivAnon, ^uint64(0)}, want: actAllow},
		{name: "fcntl(F_SETOWN) refused", arch: archAMD64, policy: closed, call: "fcntl", args: [6]uint64{3, fSetown, testPid}, want: eperm},
		{name: "fcntl(1<<32|F_SETOWN) refused on arm64", arch: archARM64, policy: closed, call: "fcntl", args: [6]uint64{3, testHigh | fSetown, testOtherPid}, want: eperm},
		{name: "fcntl(F_SETOWN_EX) refused", arch: archAMD64, policy: handed, call: "fcntl", args: [6]uint64{3, fSetownEx, testPointer}, want: eperm},
		{name: "fcntl(F_SETSIG) refused", arch: archAMD64, policy: closed, call: "fcntl", args: [6]uint64{3, fSetsig, 23}, want: eperm},
		{name: "fcntl(F_GETOWN) refused: not on the list", arch: archAMD64, policy: closed, call: "fcntl", args: [6]uint64{3, testFGetown}, want: eperm},
		{name: "fcntl(F_SETFL) allowed", arch: archARM64, policy: closed, call: "fcntl", args: [6]uint64{3, testFSetfl, 0o4000}, want: actAllow},
		{name: "ioctl FIOSETOWN refused", arch: archAMD64, policy: handed, call: "ioctl", args: [6]uint64{3, fioSetown, testPointer}, want: eperm},
		{name: "ioctl SIOCSPGRP|1<<32 refused on arm64", arch: archARM64, policy: handed, call: "ioctl", args: [6]uint64{3, testHigh | siocSpgrp, testPointer}, want: eperm},
		{name: "prctl(PR_SET_MM) refused", arch: archAMD64, policy: handed, call: "prctl", args: [6]uint64{prSetMM, 6, testPointer}, want: eperm},
		{name: "prctl(1<<32|PR_SET_MM) refused on arm64", arch: archARM64, policy: closed, call: "prctl", args: [6]uint64{testHigh | prSetMM}, want: eperm},
		{name: "prctl(PR_SCHED_CORE) refused", arch: archAMD64, policy: closed, call: "prctl", args: [6]uint64{prSchedCore, 1, testOtherPid}, want: eperm},
		{name: "prctl(PR_SET_NO_NEW_PRIVS) refused: Apply sets it before the filter", arch: archAMD64, policy: closed, call: "prctl", args: [6]uint64{testPrSetNNP, 1}, want: eperm},
		{name: "prctl(PR_SET_VMA) allowed: the Go runtime names its mappings so", arch: archARM64, policy: closed, call: "prctl", args: [6]uint64{testPrSetVMA, 0, testPointer, 4096, testPointer}, want: actAllow},
		{name: "openat(O_CREAT, 04755) refused", arch: archAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oCreat | testOWronly, 0o4755}, want: eperm},
		{name: "openat(O_CREAT, 02644) refused on arm64", arch: archARM64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oCreat | testOWronly | testOCloexec, 0o2644}, want: eperm},
		{name: "openat(O_CREAT, 0644) allowed, as fs.write creates", arch: archAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oCreat | testOWronly | testOCloexec, 0o644}, want: actAllow},
		{name: "openat(O_CREAT, 01777) allowed: the sticky bit makes no set-ID file", arch: archAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oCreat, 0o1777}, want: actAllow},
		{name: "openat(O_RDONLY, 04755) allowed: without O_CREAT the mode is not read", arch: archARM64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, testOCloexec, 0o4755}, want: actAllow},
		{name: "openat(O_TMPFILE, 04700) refused", arch: archAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, testOTmpfileAMD64 | testOWronly, 0o4700}, want: eperm},
		{name: "openat(O_TMPFILE, 02700) refused on arm64", arch: archARM64, policy: handed, call: "openat", args: [6]uint64{^uint64(99), testPointer, testOTmpfileARM64 | testOWronly, 0o2700}, want: eperm},
		{name: "openat(1<<32|O_CREAT, 1<<32|04755) refused: the kernel sees O_CREAT and 04755", arch: archAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, testHigh | oCreat, testHigh | 0o4755}, want: eperm},
		{name: "open(O_CREAT, 04755) refused", arch: archAMD64, policy: closed, call: "open", args: [6]uint64{testPointer, oCreat | testOWronly, 0o4755}, want: eperm},
		{name: "openat(O_RDONLY|O_TRUNC) refused where Landlock holds no truncation", arch: archAMD64, policy: closedNT, call: "openat", args: [6]uint64{^uint64(99), testPointer, oTrunc | testOCloexec}, want: eperm},
		{name: "openat(O_RDONLY|O_TRUNC) refused on arm64, sockets handed", arch: archARM64, policy: handedNT, call: "openat", args: [6]uint64{^uint64(99), testPointer, testHigh | oTrunc}, want: eperm},
		{name: "open(O_RDONLY|O_TRUNC) refused where Landlock holds no truncation", arch: archAMD64, policy: closedNT, call: "open", args: [6]uint64{testPointer, oTrunc}, want: eperm},
		{name: "openat(O_RDONLY|O_TRUNC) allowed where Landlock holds truncation", arch: archAMD64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oTrunc}, want: actAllow},
		{name: "openat(O_WRONLY|O_TRUNC) allowed: Landlock checks the write", arch: archAMD64, policy: closedNT, call: "openat", args: [6]uint64{^uint64(99), testPointer, oTrunc | testOWronly | oCreat, 0o644}, want: actAllow},
		{name: "openat(O_ACCMODE|O_TRUNC) refused where Landlock holds no truncation: it checks no access", arch: archAMD64, policy: closedNT, call: "openat", args: [6]uint64{^uint64(99), testPointer, oAccmode | oTrunc}, want: eperm},
		{name: "open(O_ACCMODE|O_TRUNC) refused where Landlock holds no truncation", arch: archAMD64, policy: handedNT, call: "open", args: [6]uint64{testPointer, testHigh | oAccmode | oTrunc | testOCloexec}, want: eperm},
		{name: "openat(O_ACCMODE|O_TRUNC) refused where Landlock holds truncation: it checks no right of it", arch: archARM64, policy: closed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oAccmode | oTrunc}, want: eperm},
		{name: "openat(O_ACCMODE) refused: Landlock checks no right of an open for no access", arch: archAMD64, policy: handed, call: "openat", args: [6]uint64{^uint64(99), testPointer, oAccmode | testOCloexec}, want: eperm},
		{name: "open(1<<32|O_ACCMODE) refused", arch: archAMD64, policy: closed, call: "open", args: [6]uint64{testPointer, testHigh | oAccmode}, want: eperm},
		{name: "openat(O_RDWR|O_TRUNC) allowed: Landlock checks the write", arch: archARM64, policy: closedNT, call: "openat", args: [6]uint64{^uint64(99), testPointer, oTrunc | testORdwr}, want: actAllow},
		{name: "truncate refused where Landlock holds no truncation", arch: archAMD64, policy: closedNT, call: "truncate", args: [6]uint64{testPointer, 0}, want: eperm},
		{name: "truncate allowed where Landlock holds truncation", arch: archARM64, policy: handed, call: "truncate", args: [6]uint64{testPointer, 0}, want: actAllow},
		{name: "ftruncate allowed where Landlock holds no truncation: its open was checked", arch: archAMD64, policy: closedNT, call: "ftruncate", args: [6]uint64{3, 0}, want: actAllow},
		{name: "creat(06755) refused", arch: archAMD64, policy: handed, call: "creat", args: [6]uint64{testPointer, 0o6755}, want: eperm},
		{name: "creat(0644) refused: Go makes files with openat", arch: archAMD64, policy: closed, call: "creat", args: [6]uint64{testPointer, 0o644}, want: eperm},
		{name: "mknod(S_IFREG|04755) refused", arch: archAMD64, policy: closed, call: "mknod", args: [6]uint64{testPointer, testSIfreg | 0o4755}, want: eperm},
		{name: "mknodat(S_IFREG|02755) refused on arm64", arch: archARM64, policy: closed, call: "mknodat", args: [6]uint64{^uint64(99), testPointer, testSIfreg | 0o2755}, want: eperm},
		{name: "mknodat(S_IFREG|0644) allowed", arch: archAMD64, policy: closed, call: "mknodat", args: [6]uint64{^uint64(99), testPointer, testSIfreg | 0o644}, want: actAllow},
		{name: "openat2 answered ENOSYS", arch: archAMD64, policy: closed, call: "openat2", want: enosys},
		{name: "openat2 answered ENOSYS on arm64", arch: archARM64, policy: handed, call: "openat2", want: enosys},
		{name: "landlock_restrict_self refused", arch: archAMD64, policy: closed, call: "landlock_restrict_self", want: eperm},
		{name: "seccomp refused", arch: archARM64, policy: closed, call: "seccomp", want: eperm},
		{name: "prctl(0) refused: not on the list", arch: archAMD64, policy: closed, call: "prctl", want: eperm},
		{name: "clone of a thread with CLONE_VFORK refused", arch: archAMD64, policy: closed, call: "clone", args: [6]uint64{goThreadFlags | 0x4000}, want: eperm},
		{name: "clone of a thread with an exit signal refused", arch: archARM64, policy: closed, call: "clone", args: [6]uint64{goThreadFlags | testSIGCHLD}, want: eperm},
		{name: "clone of a libc thread allowed", arch: archAMD64, policy: handed, call: "clone", args: [6]uint64{goThreadFlags | 0x80000 | 0x100000 | 0x200000}, want: actAllow},
		{name: "clone with a flag only in the high word allowed: the kernel keeps the low word", arch: archAMD64, policy: closed, call: "clone", args: [6]uint64{testHigh | goThreadFlags}, want: actAllow},
		{name: "arch_prctl(ARCH_SET_FS) allowed: a new thread's TLS", arch: archAMD64, policy: closed, call: "arch_prctl", args: [6]uint64{0x1002, testPointer}, want: actAllow},
		{name: "arch_prctl(ARCH_SET_GS) refused", arch: archAMD64, policy: closed, call: "arch_prctl", args: [6]uint64{0x1001, testPointer}, want: eperm},
		{name: "arch_prctl(ARCH_SET_CPUID) refused", arch: archAMD64, policy: handed, call: "arch_prctl", args: [6]uint64{0x1012, 0}, want: eperm},
		{name: "fcntl(F_GETFL) allowed", arch: archAMD64, policy: closed, call: "fcntl", args: [6]uint64{3, fGetfl}, want: actAllow},
		{name: "fcntl(F_DUPFD_CLOEXEC) allowed on arm64", arch: archARM64, policy: closed, call: "fcntl", args: [6]uint64{3, fDupfdCloexec, 3}, want: actAllow},
		{name: "fcntl(F_SETLK) refused: a lock blocks other processes", arch: archAMD64, policy: closed, call: "fcntl", args: [6]uint64{3, 6, testPointer}, want: eperm},
		{name: "fcntl(F_NOTIFY) refused: it watches a directory", arch: archAMD64, policy: handed, call: "fcntl", args: [6]uint64{3, 1026, 0xffffffff}, want: eperm},
		{name: "fcntl(1<<32|F_GETFL) allowed: the kernel sees F_GETFL", arch: archARM64, policy: closed, call: "fcntl", args: [6]uint64{3, testHigh | fGetfl}, want: actAllow},
		{name: "flock refused: it blocks other processes", arch: archAMD64, policy: closed, call: "flock", args: [6]uint64{3, 2}, want: eperm},
		{name: "mq_open refused", arch: archAMD64, policy: handed, call: "mq_open", args: [6]uint64{testPointer, oCreat | 2, 0o600}, want: eperm},
		{name: "mq_unlink refused on arm64", arch: archARM64, policy: closed, call: "mq_unlink", args: [6]uint64{testPointer}, want: eperm},
		{name: "mq_timedsend refused", arch: archAMD64, policy: closed, call: "mq_timedsend", want: eperm},
		{name: "file_setattr refused", arch: archAMD64, policy: closed, call: "file_setattr", want: eperm},
		{name: "file_getattr refused on arm64", arch: archARM64, policy: handed, call: "file_getattr", want: eperm},
		{name: "setxattrat refused", arch: archAMD64, policy: closed, call: "setxattrat", want: eperm},
		{name: "fsetxattr refused on arm64", arch: archARM64, policy: closed, call: "fsetxattr", want: eperm},
		{name: "fremovexattr refused", arch: archAMD64, policy: closed, call: "fremovexattr", want: eperm},
		{name: "lsm_set_self_attr refused", arch: archAMD64, policy: closed, call: "lsm_set_self_attr", want: eperm},
		{name: "rseq_slice_yield, the table's last call, refused", arch: archAMD64, policy: closed, call: "rseq_slice_yield", want: eperm},
		{name: "number 100000 answered ENOSYS on arm64", arch: archARM64, policy: handed, nr: 100000, want: enosys},
		{name: "a number in amd64's gap answered ENOSYS", arch: archAMD64, policy: closed, nr: 400, want: enosys},
		{name: "bind refused under net: the worker binds no socket", arch: archAMD64, policy: handed,
			call: "bind", want: eperm},
		{name: "connect refused under a closed network on arm64", arch: archARM64, policy: closed, call: "connect", want: eperm},
		{name: "recvfrom refused under a closed network", arch: archAMD64, policy: closed, call: "recvfrom", want: eperm},
		{name: "open(O_RDONLY) allowed on amd64, for Landlock to hold", arch: archAMD64, policy: closed, call: "open", args: [6]uint64{testPointer, testOCloexec}, want: actAllow},
		{name: "rename allowed on amd64, for Landlock to hold", arch: archAMD64, policy: closed, call: "rename", want: actAllow},
		{name: "mknod refused: Go and ctypes use mknodat", arch: archAMD64, policy: closed, call: "mknod", args: [6]uint64{testPointer, testSIfreg | 0o644}, want: eperm},
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
			c := tt.policy.config()
			if got := verdict(c, tt.arch, audit, nr, tt.args); got != tt.want {
				t.Errorf("verdict = %v, want %v", got, tt.want)
			}
			raw := mustProgram(t, c, tt.arch)
			got, err := runChecked(raw, callData{Nr: int32(nr), Arch: audit, Args: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if filterAction(got) != tt.want {
				t.Errorf("program returns %v, want %v", filterAction(got), tt.want)
			}
		})
	}
}

func TestSeccompProgramErrors(t *testing.T) {
	tests := []struct {
		name    string
		config  Config
		arch    Arch
		wantErr string
	}{
		{name: "pid 0", config: Config{PID: 0}, arch: archAMD64, wantErr: "not a process id"},
		{name: "negative pid", config: Config{PID: -1}, arch: archARM64, wantErr: "not a process id"},
		{name: "pid past 32 bits", config: Config{PID: 1 << 40}, arch: archAMD64, wantErr: "not a process id"},
		{name: "no table", config: closed.config(), arch: Arch{Name: "mips", AuditArch: 8}, wantErr: `no system call table for "mips"`},
		{name: "two rules for one number", config: closed.config(),
			arch: Arch{Name: "amd64", AuditArch: archAMD64.AuditArch, Table: map[string]int{"kill": 62, "tgkill": 62}}, wantErr: "two rules for call 62"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, err := Program(tt.config, tt.arch)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Program error = %v, want one containing %q", err, tt.wantErr)
			}
			if prog != nil {
				t.Errorf("Program returned %d instructions with its error", len(prog))
			}
		})
	}
}

// TestSeccompRuntimeCalls checks that the calls the Go runtime and the
// language's own effects make are allowed under every configuration, on
// each architecture that has them, with the arguments the runtime and
// the os package pass. The list is written here, not read from the rules,
// so that a rule dropped by mistake fails.
func TestSeccompRuntimeCalls(t *testing.T) {
	type call struct {
		name string
		args [6]uint64
	}
	var calls []call
	for _, name := range []string{
		"read", "write", "pread64", "lseek", "close", "newfstatat", "fstat", "getdents64", "fstatfs",
		"ftruncate",
		"mkdirat", "unlinkat", "renameat", "renameat2", "readlinkat",
		"munmap", "madvise", "sched_yield", "gettid", "getpid", "exit", "exit_group",
		"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "restart_syscall", "sigaltstack",
		"clock_gettime", "nanosleep", "getrandom",
		"epoll_ctl", "epoll_pwait", "geteuid", "getuid",
	} {
		calls = append(calls, call{name: name})
	}
	atFDCWD := ^uint64(99)
	calls = append(calls,
		// os.OpenFile(O_CREATE, 0644), os.CreateTemp (0600), and
		// os.MkdirAll's mode for mkdirat, which is never a file's.
		call{"openat", [6]uint64{atFDCWD, testPointer, oCreat | testOWronly | testOCloexec, 0o644}},
		call{"openat", [6]uint64{atFDCWD, testPointer, oCreat | testOWronly | testOCloexec | testOExcl, 0o600}},
		call{"openat", [6]uint64{atFDCWD, testPointer, testOCloexec}},
		call{"mkdirat", [6]uint64{atFDCWD, testPointer, 0o755}},
		// The runtime's heap, its threads, and the names it gives its
		// mappings.
		call{"mmap", [6]uint64{0, 1 << 26, 0, testMapPrivAnon, ^uint64(0)}},
		call{"clone", [6]uint64{goThreadFlags, testPointer}},
		// Its threads parked and woken: FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE.
		call{"futex", [6]uint64{testPointer, futexPrivateFlag}},
		call{"futex", [6]uint64{testPointer, futexWake | futexPrivateFlag, 1}},
		call{"arch_prctl", [6]uint64{0x1002, testPointer}},
		call{"prctl", [6]uint64{testPrSetVMA, 0, testPointer, 1 << 26, testPointer}},
		// The runtime's count of its CPUs, at start and from sysmon; its
		// preemption signal, SIGURG, to one of its threads; a raise.
		call{"sched_getaffinity", [6]uint64{0, 8192, testPointer}},
		call{"tgkill", [6]uint64{testPid, testPid + 3, 23}},
		call{"kill", [6]uint64{testPid, 6}},
		call{"prlimit64", [6]uint64{0, testRlimitAS, 0, testPointer}},
		// The monotonic clock, where the vDSO does not answer.
		call{"clock_gettime", [6]uint64{1, testPointer}},
		// The poller's descriptor flags.
		call{"fcntl", [6]uint64{3, testFSetfl, 0o4000}},
		call{"fcntl", [6]uint64{3, fGetfl}},
		call{"fcntl", [6]uint64{3, fSetfd, 1}},
		// Whether standard output is a terminal, and its size.
		call{"ioctl", [6]uint64{1, testTCGETS, testPointer}},
		call{"ioctl", [6]uint64{1, testTIOCGWINSZ, testPointer}},
	)
	for _, a := range []Arch{archAMD64, archARM64} {
		for _, tc := range testConfigs {
			t.Run(a.Name+"/"+tc.name, func(t *testing.T) {
				c := tc.config()
				raw := mustProgram(t, c, a)
				for _, cl := range calls {
					nr, ok := a.Table[cl.name]
					if !ok {
						continue
					}
					if got := verdict(c, a, a.AuditArch, nr, cl.args); got != actAllow {
						t.Errorf("verdict(%s%#x) = %v, want ALLOW", cl.name, cl.args, got)
					}
					got, err := runChecked(raw, callData{Nr: int32(nr), Arch: a.AuditArch, Args: cl.args})
					if err != nil {
						t.Fatal(err)
					}
					if filterAction(got) != actAllow {
						t.Errorf("the program returns %v for %s%#x, want ALLOW", filterAction(got), cl.name, cl.args)
					}
				}
			})
		}
	}
	for _, c := range calls {
		_, amd := archAMD64.Table[c.name]
		_, arm := archARM64.Table[c.name]
		if !amd && !arm {
			t.Errorf("%s is a call of neither amd64 nor arm64", c.name)
		}
	}
}

// mustRefuse are calls no configuration may allow, whatever their
// arguments: the kernel objects that are not files (POSIX message
// queues, System V IPC, keyrings), a file's metadata by every door (path,
// *at, descriptor, the newest calls), other processes, mounts and
// namespaces, the machine, and the worker's identity. Written here by
// hand, not from the rules, so that a call put on the allow-list by
// mistake fails.
var mustRefuse = []string{
	// POSIX message queues: mq_open creates its queue before Landlock's
	// open hook could refuse, and mq_unlink is no path hook at all.
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
	// System V IPC.
	"shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl",
	// Keyrings.
	"add_key", "request_key", "keyctl",
	// A file's mode, owner, times, attributes and extended attributes.
	"chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
	"utime", "utimes", "futimesat", "utimensat",
	"setxattr", "lsetxattr", "fsetxattr", "setxattrat", "removexattr", "lremovexattr", "fremovexattr", "removexattrat",
	"getxattr", "lgetxattr", "fgetxattr", "getxattrat", "listxattr", "llistxattr", "flistxattr", "listxattrat",
	"file_setattr", "file_getattr",
	// Files by handle, watched, or made outside the tree.
	"open_by_handle_at", "name_to_handle_at", "inotify_init", "inotify_init1", "inotify_add_watch",
	"fanotify_init", "fanotify_mark", "memfd_create", "memfd_secret", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"io_setup", "io_submit", "io_destroy", "io_getevents", "io_pgetevents", "io_cancel",
	// Kernel objects no memory limit counts, whose watches fill a quota
	// every process of the user shares: the Go runtime's poller is made
	// before the filter.
	"epoll_create1", "eventfd2", "pipe2",
	// Processes.
	"fork", "vfork", "execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
	"pidfd_open", "pidfd_send_signal", "pidfd_getfd", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
	"process_madvise", "process_mrelease", "move_pages", "migrate_pages", "get_robust_list",
	"wait4", "waitid",
	// Mounts and namespaces.
	"mount", "umount2", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "open_tree_attr",
	"mount_setattr", "pivot_root", "chroot", "unshare", "setns", "listmount", "statmount", "listns",
	// The kernel and the machine.
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "bpf", "perf_event_open",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "personality", "iopl", "ioperm",
	"syslog", "vhangup", "sethostname", "setdomainname", "modify_ldt", "settimeofday", "clock_settime",
	"clock_adjtime", "adjtimex", "lsm_set_self_attr",
	// Identity, limits, priorities, locked memory.
	"setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid", "setgroups",
	"setrlimit", "setpriority", "ioprio_set", "sched_setscheduler", "sched_setparam", "sched_setattr",
	"sched_setaffinity", "setpgid", "setsid", "mlock", "mlock2", "mlockall", "capset",
	// The confinement itself: a second filter or ruleset only narrows,
	// but the worker needs neither.
	"seccomp", "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
	// Sockets of the worker's own, under any grant: its supervisor makes
	// each connection and hands the socket in, so the worker makes none,
	// connects, binds, listens and sends to an address with none, sets no
	// option, and passes no descriptor out.
	"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
	"sendto", "sendmsg", "sendmmsg", "setsockopt", "recvfrom", "recvmmsg",
}

// TestSeccompMustRefuse pins the allowed set from outside the rules
// table: every call of mustRefuse is EPERM under every configuration and
// for every argument tried, in the specification and in the program.
func TestSeccompMustRefuse(t *testing.T) {
	argSets := [][6]uint64{{}, {testPid}, {goThreadFlags}, {afInet, sockStream}, {^uint64(99), testPointer, 0, 0o644},
		{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}}
	for _, a := range []Arch{archAMD64, archARM64} {
		for _, tc := range testConfigs {
			c := tc.config()
			raw := mustProgram(t, c, a)
			found := 0
			for _, name := range mustRefuse {
				nr, ok := a.Table[name]
				if !ok {
					continue
				}
				found++
				for _, args := range argSets {
					if got := verdict(c, a, a.AuditArch, nr, args); got != actEPERM {
						t.Errorf("%s, %s: verdict(%s%#x) = %v, want EPERM", a.Name, tc.name, name, args, got)
					}
					got, err := runChecked(raw, callData{Nr: int32(nr), Arch: a.AuditArch, Args: args})
					if err != nil {
						t.Fatal(err)
					}
					if filterAction(got) != actEPERM {
						t.Errorf("%s, %s: the program returns %v for %s%#x, want EPERM", a.Name, tc.name, filterAction(got), name, args)
					}
				}
			}
			if found < len(mustRefuse)-12 {
				t.Errorf("%s: only %d of the %d calls are in the table", a.Name, found, len(mustRefuse))
			}
		}
	}
	for _, name := range mustRefuse {
		_, amd := archAMD64.Table[name]
		_, arm := archARM64.Table[name]
		if !amd && !arm {
			t.Errorf("%s is a call of neither amd64 nor arm64", name)
		}
	}
}

// TestSeccompRulesTable checks the rules table itself: every rule names a
// call of at least one architecture, once, with a one-line reason and
// what needs it; a multiplexing call's rule has its sub-commands, each
// named.
func TestSeccompRulesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range rules {
		_, amd := archAMD64.Table[r.name]
		_, arm := archARM64.Table[r.name]
		if !amd && !arm {
			t.Errorf("%s is a call of neither amd64 nor arm64", r.name)
		}
		if seen[r.name] {
			t.Errorf("%s has two rules", r.name)
		}
		seen[r.name] = true
		if len(strings.Fields(r.why)) < 3 || strings.Contains(r.why, "\n") {
			t.Errorf("%s: the reason %q is not one line of words", r.name, r.why)
		}
		if r.by == 0 || r.by >= 1<<len(needNames) {
			t.Errorf("%s: by = %b, want a set of %v", r.name, r.by, needNames)
		}
		if _, ok := groupTitles[r.group]; !ok {
			t.Errorf("%s: group %d has no title", r.name, r.group)
		}
		_, hasSub := subCommands[r.name]
		_, hasArg := subArg[r.name]
		if (r.args == namedCommands) != hasSub || hasSub != hasArg {
			t.Errorf("%s: rule %d, sub-commands %v, sub-command argument %v", r.name, r.args, hasSub, hasArg)
		}
		if _, ok := openFlagsArg[r.name]; (r.args == noSetID) != ok {
			t.Errorf("%s: rule %d, open flags argument %v", r.name, r.args, ok)
		}
		if _, ok := socketOptions[r.name]; (r.args == namedOptions) != ok {
			t.Errorf("%s: rule %d, socket options %v", r.name, r.args, ok)
		}
	}
	for call, opts := range socketOptions {
		if len(opts) == 0 {
			t.Errorf("%s has no option: leave it off the allow-list instead", call)
		}
		for i, o := range opts {
			if o.name == "" || slices.ContainsFunc(opts[:i], func(p sockOption) bool { return p.level == o.level && p.option == o.option }) {
				t.Errorf("%s: option %d at level %d has no name, or is named twice", call, o.option, o.level)
			}
		}
	}
	for call, cmds := range subCommands {
		if len(cmds) == 0 {
			t.Errorf("%s has no sub-command: leave it off the allow-list instead", call)
		}
		for _, c := range cmds {
			if c.name == "" {
				t.Errorf("%s: sub-command %#x has no name", call, c.value)
			}
		}
	}
}

// TestSeccompClassification checks that every number from 0 to the end
// of each table, and past it, has exactly one verdict: a call of the
// table is allowed (perhaps for some arguments only), answered ENOSYS
// (clone3, openat2) or refused with EPERM; a number the table does not
// name is ENOSYS. It logs the allowed calls, which the docs count.
func TestSeccompClassification(t *testing.T) {
	args := [][6]uint64{{}, {testPid}, {goThreadFlags}, {afInet, sockStream}, {0, fGetfl}, {1, testTCGETS},
		{testPrSetVMA}, {0x1002}, {^uint64(99), testPointer, 0, 0o644}, {^uint64(99), testPointer, 0o644},
		{3, solSocket, soType}, {3, solSocket, soKeepalive}}
	for _, a := range []Arch{archAMD64, archARM64} {
		for _, tc := range testConfigs {
			c := tc.config()
			var allowed, enosys, eperm []string
			gaps := 0
			for nr := 0; nr <= a.top()+64; nr++ {
				name := a.syscallName(nr)
				verdicts := map[filterAction]bool{}
				for _, x := range args {
					verdicts[verdict(c, a, a.AuditArch, nr, x)] = true
				}
				switch {
				case name == "":
					if len(verdicts) != 1 || !verdicts[actENOSYS] {
						t.Errorf("%s, %s: number %d is in no table, verdicts %v, want only ENOSYS", a.Name, tc.name, nr, verdicts)
					}
					gaps++
				case verdicts[actAllow]:
					allowed = append(allowed, name)
				case len(verdicts) == 1 && verdicts[actENOSYS]:
					enosys = append(enosys, name)
				case len(verdicts) == 1 && verdicts[actEPERM]:
					eperm = append(eperm, name)
				default:
					t.Errorf("%s, %s: %s (%d) has no verdict of the three: %v", a.Name, tc.name, name, nr, verdicts)
				}
			}
			if got := len(allowed) + len(enosys) + len(eperm); got != len(a.Table) {
				t.Errorf("%s, %s: %d calls classified, the table has %d", a.Name, tc.name, got, len(a.Table))
			}
			if len(allowed) == 0 || len(eperm) == 0 || len(enosys) != 2 {
				t.Errorf("%s, %s: %d allowed, %d refused, ENOSYS for %v", a.Name, tc.name, len(allowed), len(eperm), enosys)
			}
			t.Logf("%s, %s: %d allowed %v; ENOSYS %v; %d refused with EPERM; %d numbers up to %d answer ENOSYS",
				a.Name, tc.name, len(allowed), allowed, enosys, len(eperm), gaps, a.top()+64)
		}
	}
}

func TestSeccompActionString(t *testing.T) {
	tests := []struct {
		name   string
		action filterAction
		want   string
	}{
		{name: "allow", action: actAllow, want: "ALLOW"},
		{name: "eperm", action: errnoAction(1), want: "ERRNO(EPERM)"},
		{name: "enosys", action: errnoAction(38), want: "ERRNO(ENOSYS)"},
		{name: "an errno with no name", action: errnoAction(93), want: "ERRNO(93)"},
		{name: "an errno without a name", action: errnoAction(13), want: "ERRNO(13)"},
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

// TestSeccompGolden compares the disassembly of each configuration's
// program with testdata/seccomp/ARCH-CONFIG.golden, and checks that the
// assembled program disassembles back to the same instructions.
func TestSeccompGolden(t *testing.T) {
	for _, a := range []Arch{archAMD64, archARM64} {
		for _, tc := range testConfigs {
			t.Run(a.Name+"/"+tc.name, func(t *testing.T) {
				prog, err := Program(tc.config(), a)
				if err != nil {
					t.Fatal(err)
				}
				raw, err := Assemble(prog)
				if err != nil {
					t.Fatal(err)
				}
				back, ok := bpf.Disassemble(raw)
				if !ok {
					t.Fatalf("the assembled program does not disassemble")
				}
				again, err := Assemble(back)
				if err != nil || !slices.Equal(again, raw) {
					t.Fatalf("the program does not survive disassembly: %v", err)
				}
				if len(raw) > bpfMaxInstructions {
					t.Fatalf("%d instructions, more than the kernel takes", len(raw))
				}
				var b strings.Builder
				fmt.Fprintf(&b, "# seccomp program for %s, %s, pid %d: %d instructions\n", a.Name, tc.name, testPid, len(prog))
				notes := annotate(prog, a)
				for i, ins := range prog {
					fmt.Fprintln(&b, strings.TrimRight(fmt.Sprintf("%4d  %-22s %s", i, ins, notes[i]), " "))
				}
				golden(t, "seccomp", a.Name+"-"+tc.name, []byte(b.String()))
				t.Logf("%s, %s: %d instructions", a.Name, tc.name, len(prog))
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
			notes[i] += filterAction(ins.Val).String()
			continue
		}
		notes[i] = strings.TrimSuffix(notes[i], ": ")
		flow(i+1, h)
	}
	return notes
}

// TestSeccompVerdictOwnArch checks that an Arch written out by hand, not
// made by this package, names calls as archAMD64 does.
func TestSeccompVerdictOwnArch(t *testing.T) {
	own := Arch{Name: "amd64", AuditArch: archAMD64.AuditArch, Table: archAMD64.Table, X32: true}
	c := closed.config()
	tests := []struct {
		name string
		call string
		args [6]uint64
		want filterAction
	}{
		{name: "socket", call: "socket", args: [6]uint64{afInet, sockStream}, want: actEPERM},
		{name: "kill(own pid)", call: "kill", args: [6]uint64{testPid}, want: actAllow},
		{name: "clone3", call: "clone3", want: actENOSYS},
		{name: "getpid", call: "getpid", want: actAllow},
		{name: "mq_open", call: "mq_open", want: actEPERM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verdict(c, own, own.AuditArch, own.Table[tt.call], tt.args); got != tt.want {
				t.Errorf("verdict = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSeccompSummary checks the enforcement table's cell against the
// rules: it names every rule's call, and the counts it gives are those of
// the calls the specification allows.
func TestSeccompSummary(t *testing.T) {
	s := Summary()
	words := strings.FieldsFunc(s, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	for _, r := range rules {
		if !slices.Contains(words, r.name) {
			t.Errorf("the summary does not name %s", r.name)
		}
	}
	for _, a := range []Arch{archAMD64, archARM64} {
		for _, tc := range testConfigs {
			n := 0
			for _, nr := range a.Table {
				for _, args := range [][6]uint64{{}, {testPid}, {goThreadFlags}, {afInet, sockStream}, {0, fGetfl}, {1, testTCGETS}, {testPrSetVMA}, {0x1002}, {0, futexPrivateFlag},
					{3, solSocket, soType}, {3, solSocket, soKeepalive}} {
					if verdict(tc.config(), a, a.AuditArch, nr, args) == actAllow {
						n++
						break
					}
				}
			}
			if got := allowedCount(tc.config(), a); got != n {
				t.Errorf("%s, %s: the summary counts %d calls, the specification allows %d", a.Name, tc.name, got, n)
			}
			if !strings.Contains(s, fmt.Sprintf("%d calls on %s", allowedCount(closed.config(), a), a.Name)) {
				t.Errorf("the summary does not give %s's count", a.Name)
			}
		}
	}
}

// TestSeccompPathLength runs every number of each table, and past it,
// through each configuration's program and counts the instructions the
// kernel runs for it: the filter's cost per call, which does not depend
// on the machine's load. A search on the call number keeps the longest
// path short; a chain of comparisons would run hundreds.
func TestSeccompPathLength(t *testing.T) {
	const most = 40
	for _, a := range []Arch{archAMD64, archARM64} {
		for _, tc := range testConfigs {
			raw := mustProgram(t, tc.config(), a)
			longest, longestName, total, n := 0, "", 0, 0
			path := func(nr int, args [6]uint64) int {
				_, steps, err := runFilterSteps(raw, callData{Nr: int32(nr), Arch: a.AuditArch, Args: args})
				if err != nil {
					t.Fatal(err)
				}
				return steps
			}
			for nr := 0; nr <= a.top()+8; nr++ {
				steps := path(nr, [6]uint64{testPid, 0, 0, 0, 0, 0})
				total += steps
				n++
				if steps > longest {
					longest, longestName = steps, a.syscallName(nr)
				}
			}
			if longest > most {
				t.Errorf("%s, %s: %s runs %d instructions, more than %d", a.Name, tc.name, longestName, longest, most)
			}
			t.Logf("%s, %s: getpid runs %d instructions, getrandom %d, futex %d; the longest path %d (%s), %.1f on average",
				a.Name, tc.name, path(a.Table["getpid"], [6]uint64{}), path(a.Table["getrandom"], [6]uint64{}),
				path(a.Table["futex"], [6]uint64{}), longest, longestName, float64(total)/float64(n))
		}
	}
}

// TestAppendSearch: the binary search over spans runs, for each call
// number, the block of the span it falls in, whatever the blocks'
// lengths: past 255 instructions a lower half is skipped by a jump
// (bpf.Jump) after the comparison, which a filter of Sabline's rules
// never needs; and searchLen is the length laid out. Each block returns
// its span's index, run in the filter interpreter on the first, last and
// middle number of every span.
func TestAppendSearch(t *testing.T) {
	tests := []struct {
		name          string
		blockLens     []int // each span's block, in instructions
		wantLongJumps int
	}{
		{name: "one span", blockLens: []int{1}},
		{name: "short blocks", blockLens: []int{1, 3, 1, 7, 2}},
		{name: "a lower half as long as a short jump reaches", blockLens: []int{255, 1}},
		{name: "a lower half one past it", blockLens: []int{256, 1}, wantLongJumps: 1},
		{name: "a long lower block", blockLens: []int{300, 1}, wantLongJumps: 1},
		{name: "a lower half long by its two blocks", blockLens: []int{200, 100, 1, 1}, wantLongJumps: 1},
		{name: "long halves at each level", blockLens: []int{300, 300, 300, 300}, wantLongJumps: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sp []span
			for i, n := range tt.blockLens {
				block := make([]bpf.Instruction, n)
				for j := range block[:n-1] {
					block[j] = alu(bpf.ALUOpAdd, 0) // A, the call number, unchanged
				}
				block[n-1] = bpf.RetConstant{Val: uint32(i)}
				sp = append(sp, span{first: uint32(10 * i), block: block})
			}
			prog := appendSearch([]bpf.Instruction{ldAbs(seccompDataNr)}, sp)
			if got, want := len(prog)-1, searchLen(sp); got != want {
				t.Errorf("laid out %d instructions, searchLen says %d", got, want)
			}
			longJumps := 0
			for _, ins := range prog {
				if _, ok := ins.(bpf.Jump); ok {
					longJumps++
				}
			}
			if longJumps != tt.wantLongJumps {
				t.Errorf("%d jumps past a long lower half, want %d", longJumps, tt.wantLongJumps)
			}
			raw, err := Assemble(prog)
			if err != nil {
				t.Fatal(err)
			}
			for i := range sp {
				for _, nr := range []int{10 * i, 10*i + 5, 10*i + 9} {
					got, err := runFilter(raw, callData{Nr: int32(nr)})
					if err != nil || got != uint32(i) {
						t.Errorf("call %d ran block %d (%v), want %d", nr, got, err, i)
					}
				}
			}
		})
	}
}

// BenchmarkProgram: what a worker's filter costs to build, each ABI's
// with each test configuration, before it is installed.
func BenchmarkProgram(b *testing.B) {
	for _, a := range []Arch{archAMD64, archARM64} {
		for _, tc := range testConfigs {
			b.Run(a.Name+"/"+tc.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Program(tc.config(), a); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
