package confinecheck

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sabline/sabline/confine/core"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/fault"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/receipt"
)

// This file tests the cells of ENFORCES whose rows name no fault-injection
// operation: each spec attempts what the cell claims of the kernel and
// watches the effect from outside the worker, with the expectation taken
// from the cell where it says yes or no, so that a cell changed without
// the kernel changing fails here.

// heldByCell returns whether the running system's cell of row id says the
// kernel holds the row's limits: yes, or no. A cell that holds partly has
// no single answer, and its spec must say which part it tests.
func heldByCell(id string) bool {
	GinkgoHelper()
	switch c := cellOf(id); c.Holds {
	case confine.HoldsYes:
		return true
	case confine.HoldsNo:
		return false
	default:
		Fail(fmt.Sprintf("the %s cell of %s holds %s: this spec tests a yes or a no", goruntime.GOOS, id, c.Holds))
		return false
	}
}

// expectConfinedLevel: the run was confined (a level above none), so that
// what went through went through a confined worker.
func expectConfinedLevel(r ran, rec *receipt.Receipt) {
	GinkgoHelper()
	Expect(rec.RunParameters.Confinement).To(BeElementOf(core.Full, core.Partial), "%s", r)
}

// hookRun runs a one-line program under allow with the fault-injection
// hook attempting op on w, and returns what ran and its receipt.
func (s *scratch) hookRun(allow, op string, w witness, flags ...string) (ran, *receipt.Receipt) {
	args := append(append([]string{}, flags...), "--allow", allow, s.file("hook.vel", "x = 1\n"))
	r := s.runWith(call{args: args, fault: op + "=" + w.target})
	return r, s.receipt()
}

// expectHookRefused: nothing was seen from outside, and the run ended in
// E319 naming layers of row id's cell.
func expectHookRefused(id string, w witness, r ran, rec *receipt.Receipt) {
	GinkgoHelper()
	Expect(w.happened()).To(BeFalse(), "the %s cell says the kernel holds this, yet %s was seen from outside\n%s", id, w.target, r)
	expectKernelRefusal(r, rec, id)
	Expect(rec.Faults).To(ConsistOf(HaveField("Result", receipt.FaultRefused)))
}

var _ = Describe("cells no fault-injection operation tests", func() {
	BeforeEach(func() {
		if !confined() {
			Skip(noConfinement())
		}
	})

	// fs, fs:read and fs:write with no path: the direction granted is
	// not restricted; the other one still is.
	DescribeTable("fs-any: a direction granted with no path is not restricted by the kernel", cellLabel("fs-any"),
		func(allow, op string, wantThrough bool) {
			s := newScratch()
			w := s.witness(op)
			r, rec := s.hookRun(allow, op, w)
			if !wantThrough {
				expectHookRefused("no-fs", w, r, rec)
				return
			}
			Expect(heldByCell("fs-any")).To(BeTrue(), "the cell says the budget's lack of a limit is held")
			expectConfinedLevel(r, rec)
			expectWentThrough("under a grant with no path", op, w, r, rec)
		},
		Entry("fs: a read anywhere", "io,fs", confine.OpRead, true),
		Entry("fs: a write anywhere", "io,fs", confine.OpWrite, true),
		Entry("fs:read: a read anywhere", "io,fs:read", confine.OpRead, true),
		Entry("fs:read: a write is still refused", "io,fs:read", confine.OpWrite, false),
		Entry("fs:write: a write anywhere", "io,fs:write", confine.OpWrite, true),
	)

	// The hook is the worker itself, from Go, reading or writing beneath
	// a broad grant where the language never would: what refuses it is
	// the kernel alone, or nothing.
	DescribeTable("credential: a guarded location under a broad grant is as the cell says (the language refuses it, E318)",
		cellLabel("credential"),
		func(where, allow, op string) {
			s := newScratch()
			Expect(os.Mkdir(filepath.Join(s.home, ".ssh"), 0o700)).To(Succeed())
			Expect(os.MkdirAll(s.receipts, 0o700)).To(Succeed())
			at := func(n int) string {
				return strings.NewReplacer("$H", s.home, "$R", s.receipts, "$N", strconv.Itoa(n)).Replace(where)
			}
			allow = strings.ReplaceAll(allow, "$H", s.home)
			witnessAt := func(p string) witness {
				if op == confine.OpRead {
					return s.readWitnessAt(p)
				}
				return newWitness(p, func() bool { return exists(p) })
			}

			By("the language refuses a program's " + op + " of it with E318")
			prog := map[string]string{confine.OpRead: "print(fs.read(ARGS[0]))\n", confine.OpWrite: "fs.write(ARGS[0], \"k\")\n"}[op]
			target := at(0)
			if op == confine.OpRead {
				Expect(os.WriteFile(target, []byte("not a key\n"), 0o600)).To(Succeed())
			}
			r := s.run("--allow", allow, s.file("prog.vel", prog), "--", target)
			Expect(s.receipt().Outcome.Code).To(Equal(codes.E318), "%s", r)

			By("--no-confine: the hook's " + op + " goes through")
			w := witnessAt(at(1))
			r, rec := s.hookRun(allow, op, w, "--no-confine")
			expectWentThrough("under --no-confine", op, w, r, rec)

			By("confined: the hook's " + op + " is held as the cell says")
			w = witnessAt(at(2))
			r, rec = s.hookRun(allow, op, w)
			expectConfinedLevel(r, rec)
			if heldByCell("credential") {
				expectHookRefused("credential", w, r, rec)
			} else {
				expectWentThrough("confined, where the cell holds no", op, w, r, rec)
			}
		},
		Entry("a key read under a grant of the home", "$H/.ssh/key-$N", "io,fs:read:$H", confine.OpRead),
		Entry("a key read under a grant of every path", "$H/.ssh/key-$N", "io,fs:read", confine.OpRead),
		Entry("a key planted under a grant of every path", "$H/.ssh/planted-$N", "io,fs", confine.OpWrite),
		Entry("a file planted among the receipts under a grant of every path", "$R/planted-$N", "io,fs:write", confine.OpWrite),
		// Not named like a receipt: the store itself would open it.
		Entry("a file among the receipts read under a grant of every path", "$R/kept-$N", "io,fs:read", confine.OpRead),
	)

	// What the language alone holds: the knock-out build, whose budget
	// checks all pass, lets the effect through a confined worker, where
	// the normal build refuses it.
	DescribeTable("what the language alone holds goes through a confined worker of the knock-out build",
		func(id, allow, program, stdin, wantStdout string, wantCode codes.Code) {
			s := newScratch()
			in := filepath.Join(s.grant, "in.txt")
			Expect(os.WriteFile(in, []byte("counted"), 0o644)).To(Succeed())
			prog := s.file("prog.vel", program+"\n")
			want := strings.ReplaceAll(wantStdout, "$PATH", os.Getenv("PATH"))
			allow = strings.ReplaceAll(allow, confine.PlaceholderGrant, s.grant)
			c := call{args: []string{"--allow", allow, prog, "--", in}}

			By("the normal build: the language refuses it")
			if stdin != "" {
				c.stdin = strings.NewReader(stdin)
			}
			r := s.runWith(c)
			Expect(s.receipt().Outcome.Code).To(Equal(wantCode), "%s", r)

			By("the knock-out build: as the cell says")
			c.bin = knockout()
			if stdin != "" {
				c.stdin = strings.NewReader(stdin)
			}
			if id == "tool" { // the host answers on its tool channel
				worker, _ := toolHost(`{"sum": 5}`)
				c.extra = []*os.File{worker}
				c.args = append([]string{"--tool-fd", "3"}, c.args...)
			}
			r = s.runWith(c)
			for _, f := range c.extra {
				f.Close()
			}
			rec := s.receipt()
			expectConfinedLevel(r, rec)
			if heldByCell(id) {
				Expect(r.stdout).NotTo(Equal(want), "the %s cell says the kernel holds this", id)
				expectKernelRefusal(r, rec, id)
				return
			}
			Expect(r.exit).To(Equal(0), "%s", r)
			Expect(r.stdout).To(Equal(want), "%s", r)
		},
		Entry("counts: the second use of an @1 grant", cellLabel("counts"), "counts",
			"io,fs:read:$GRANT@1", "print(fs.read(ARGS[0]))\nprint(fs.read(ARGS[0]))", "", "counted\ncounted\n", codes.E303),
		Entry("io: print without io", cellLabel("io"), "io",
			"clock", `print("reached")`, "", "reached\n", codes.E302),
		// PATH is among what the worker gets with env or without.
		Entry("env: env.get without env", cellLabel("env"), "env",
			"io", `print(env.get("PATH"))`, "", "$PATH\n", codes.E302),
		Entry("clock, rand, declassify without them", cellLabel("clock-rand-declassify"), "clock-rand-declassify",
			"io", `print(clock.now() > 0, rand.int(6) in range(6), declassify("d"))`, "", "True True d\n", codes.E302),
		Entry("tool: tool.call without tool", cellLabel("tool"), "tool",
			"io", `print(tool.call("add", {"a": 2})["sum"])`, "", "5\n", codes.E302),
	)

	Describe("net-any: with net granted", cellLabel("net-any"), func() {
		It("connects to any host, as the budget says", func() {
			s := newScratch()
			l := listen()
			port := strconv.Itoa(l.port)
			r := s.run("--allow", "io,net", s.file("prog.vel", echoClient), "--", port)
			rec := s.receipt()
			expectConfinedLevel(r, rec)
			Expect(r.exit).To(Equal(0), "%s", r)
			Expect(r.stdout).To(Equal("echo: hello\n"), "%s", r)
			Expect(l.heard()).To(BeTrue(), "the listener read no line")
			if goruntime.GOOS == string(confine.Linux) {
				Expect(rec.Observed.Connections).To(ConsistOf(And(HaveField("Grant", "net"),
					HaveField("Address", "127.0.0.1:"+port))), "the supervisor made the connection")
			}
		})

		It("makes no connection of the worker's own: the hook's dial is refused, its supervisor making the program's", func() {
			if goruntime.GOOS != string(confine.Linux) {
				Skip("no broker on " + goruntime.GOOS + ": the worker makes its own connections")
			}
			s := newScratch()
			By("--no-confine: the hook's dial is seen from outside")
			w := s.witness(confine.OpConnect)
			r, rec := s.hookRun("io,net", confine.OpConnect, w, "--no-confine")
			expectWentThrough("under --no-confine", confine.OpConnect, w, r, rec)

			By("confined: as the cell says")
			w = s.witness(confine.OpConnect)
			r, rec = s.hookRun("io,net", confine.OpConnect, w)
			expectConfinedLevel(r, rec)
			if heldByCell("net-any") {
				expectHookRefused("net-any", w, r, rec)
			} else {
				expectWentThrough("under net", confine.OpConnect, w, r, rec)
			}
		})

		It("makes no Unix socket: a host module's bind of one makes no file", func() {
			if goruntime.GOOS != string(confine.Linux) {
				Skip("ctypes' raw system calls are Linux's")
			}
			s := newScratch()
			const program = `c = ffi.module("ctypes")
s = c.syscall("socket", 1, 1, 0)
print("socket", s.errno)
if s.errno == "":
    b = c.syscall("bind", s.ret, b"\x01\x00" + bytes(ARGS[0]), 3 + len(ARGS[0]))
    print("bind", b.errno)
`
			prog := s.file("unix.vel", program)
			allow := "io,net,fs:write:" + s.grant + ",ffi:ctypes"
			By("--no-confine: the socket file is made")
			made := filepath.Join(s.grant, "control.sock")
			r := s.run("--no-confine", "--allow", allow, prog, "--", made)
			Expect(r.stdout).To(Equal("socket \nbind \n"), "%s", r)
			Expect(isSocket(made)).To(BeTrue(), "%s is not a socket\n%s", made, r)

			By("--confine strict, which holds the module to the budget: as the cell says")
			made = filepath.Join(s.grant, "confined.sock")
			r = s.run("--confine", "strict", "--allow", allow, prog, "--", made)
			expectConfinedLevel(r, s.receipt())
			if heldByCell("net-any") {
				Expect(exists(made)).To(BeFalse(), "%s was made\n%s", made, r)
				Expect(r.stdout).To(Equal("socket EPERM\n"), "%s", r)
			} else {
				Expect(isSocket(made)).To(BeTrue(), "%s", r)
			}
		})

		It("listens on no TCP port: a host module's listen is never reached from outside", func() {
			if goruntime.GOOS != string(confine.Linux) {
				Skip("ctypes' raw system calls are Linux's")
			}
			s := newScratch()
			prog := s.file("listen.vel", listenProgram)
			By("--no-confine: a connection to the port is accepted while the program waits")
			allow := []string{"--allow", "io,net,ffi:ctypes", prog}
			heard, r := s.listenRun(call{args: append([]string{"--no-confine"}, allow...)})
			Expect(heard).To(BeTrue(), "nothing listened\n%s", r)
			Expect(r.stdout).To(Equal("socket \nbind \n"), "%s", r)

			By("--confine strict: as the cell says")
			heard, r = s.listenRun(call{args: append([]string{"--confine", "strict"}, allow...)})
			expectConfinedLevel(r, s.receipt())
			Expect(heard).To(Equal(!heldByCell("net-any")), "a connection was accepted: %v\n%s", heard, r)
			if heldByCell("net-any") {
				Expect(r.stdout).To(Equal("socket EPERM\n"), "%s", r)
			}
		})
	})

	// A granted module widens the policy to what the widening table says,
	// and no further: the hook's write and connect go through exactly
	// where the widening opens paths and hosts.
	DescribeTable("ffi-module: a granted module widens the policy to what the widening table names, and no further", cellLabel("ffi-module"),
		func(module string) {
			w, _ := core.WidensTo(module)
			paths := w == core.WidenAnyPath || w == core.WidenAnyPathAndHost || w == core.WidenNothingEnforced
			hosts := w == core.WidenAnyHost || w == core.WidenAnyPathAndHost || w == core.WidenNothingEnforced
			allow := "io,ffi"
			if module != "" {
				allow += ":" + module
			}
			// On Linux the supervisor makes the connections of a module
			// widened to any host, and the worker makes none of its own:
			// the hook's dial is refused as the module's own socket would be.
			if goruntime.GOOS == string(confine.Linux) && w != core.WidenNothingEnforced {
				hosts = false
			}
			for _, c := range []struct {
				op      string
				through bool
				row     string
			}{{confine.OpWrite, paths, "no-fs"}, {confine.OpConnect, hosts, "ffi-module"}} {
				s := newScratch()
				wit := s.witness(c.op)
				r, rec := s.hookRun(allow, c.op, wit)
				if w == core.WidenNothingEnforced {
					Expect(rec.RunParameters.Confinement).To(Equal(core.None), "%s", r)
				} else {
					expectConfinedLevel(r, rec)
				}
				if c.through {
					expectWentThrough("widened to "+string(w), c.op, wit, r, rec)
				} else {
					expectHookRefused(c.row, wit, r, rec)
				}
			}
		},
		Entry("json widens to nothing", "json"),
		Entry("pathlib widens to any path", "pathlib"),
		Entry("socket widens to any host", "socket"),
		Entry("requests widens to any path and any host", "requests"),
		Entry("os widens to nothing enforced", "os"),
		Entry("plain ffi widens to nothing enforced", ""),
	)

	It("ffi-module: a module widened to any host connects through its supervisor", cellLabel("ffi-module"), func() {
		if goruntime.GOOS != string(confine.Linux) {
			Skip("no broker on " + goruntime.GOOS + ": the module dials for itself")
		}
		s := newScratch()
		l := listen()
		port := strconv.Itoa(l.port)
		prog := s.file("socket.vel", `sock = ffi.module("socket")
c = sock.connect("127.0.0.1", int(ARGS[0]))
c.send("hello\n")
print(c.recv(1024).strip())
c.close()
`)
		r := s.run("--allow", "io,ffi:socket", prog, "--", port)
		rec := s.receipt()
		expectConfinedLevel(r, rec)
		Expect(r.exit).To(Equal(0), "%s", r)
		Expect(r.stdout).To(Equal("echo: hello\n"), "%s", r)
		Expect(l.heard()).To(BeTrue(), "the listener read no line")
		Expect(rec.Observed.Connections).To(ConsistOf(And(HaveField("Grant", ""),
			HaveField("Address", "127.0.0.1:"+port), HaveField("Code", codes.Code("")))),
			"the supervisor made the module's connection, under its widening")
	})

	It("env: the fault-injection hook's variable never reaches the program, while the rest of the environment does", cellLabel("env"), func() {
		s := newScratch()
		made := filepath.Join(s.grant, "made")
		prog := s.file("env.vel", `o = ffi.module("os")
for k in ["`+fault.Env+`", "HOME"]:
    print(k, env.get(k), "[%s]" % o.getenv(k))
`)
		r := s.runWith(call{args: []string{"--allow", "io,env,ffi:os,fs:write:" + s.grant, prog}, fault: confine.OpWrite + "=" + made})
		Expect(r.exit).To(Equal(0), "%s", r)
		Expect(exists(made)).To(BeTrue(), "the hook did not run: %s", r)
		Expect(r.stdout).To(Equal(fault.Env+" None []\nHOME "+s.home+" ["+s.home+"]\n"), "%s", r)
	})

	It("limits: the worker's address space is limited when the policy is applied, and under --no-confine as the cell says", cellLabel("limits"), func() {
		if goruntime.GOOS != string(confine.Linux) {
			Skip("the limit is read from /proc/PID/limits, which only Linux has")
		}
		s := newScratch()
		prog := s.file("wait.vel", `print("waiting")`+"\n"+"io.read_line()\n")
		// The cell says whether the limit is set under --no-confine too.
		unconfined := !strings.Contains(cellOf("limits").Text, "not under --no-confine")
		for _, c := range []struct {
			flags []string
			limit bool
		}{{[]string{"--max-memory-mb", "64"}, heldByCell("limits")}, {[]string{"--no-confine", "--max-memory-mb", "64"}, unconfined}} {
			var vmSize uint64 // kB, what the worker maps while it waits
			limit := waitingWorker(s, append(c.flags, "--allow", "io", prog), func(worker int) string {
				_, err := fmt.Sscan(procLine(worker, "status", "VmSize:"), &vmSize)
				Expect(err).NotTo(HaveOccurred())
				return procLine(worker, "limits", "Max address space")
			})
			if !c.limit {
				Expect(limit).To(HavePrefix("unlimited"), "%v", c.flags)
				continue
			}
			fields := strings.Fields(limit)
			Expect(fields).NotTo(BeEmpty())
			n, err := strconv.ParseUint(fields[0], 10, 64)
			Expect(err).NotTo(HaveOccurred(), "Max address space %q under %v", limit, c.flags)
			// What the worker mapped when it was limited, plus twice the
			// limit and room for the runtime's reservations (see
			// confine's limitAddressSpace): above twice 64 MiB, and not
			// more than 512 MiB above that and what it maps now.
			Expect(n).To(BeNumerically(">=", 2*64<<20), "%v", c.flags)
			Expect(n).To(BeNumerically("<=", vmSize<<10+2*64<<20+512<<20), "%v: the limit is not the one asked for (the worker maps %d kB)", c.flags, vmSize)
		}
	})

	// What a net grant adds to the reads on Linux is the TLS roots, and
	// not the resolver's files: the worker looks no name up (its
	// supervisor does), so /etc/resolv.conf is refused as /etc/shadow and
	// /etc/passwd are. The program prints a digest of what it read, so
	// that nothing of /etc/shadow is ever printed.
	DescribeTable("no-fs: a net grant adds the TLS roots to the reads, and nothing beside them (knock-out build)", cellLabel("no-fs"),
		func(path string, wantRead bool) {
			if goruntime.GOOS != string(confine.Linux) {
				Skip("these files are Linux's")
			}
			data, err := os.ReadFile(path)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				Skip(path + " does not exist on this machine")
			case errors.Is(err, fs.ErrPermission):
				Skip("this test's user cannot read " + path + " itself: a refusal of the worker's read would show nothing")
			}
			Expect(err).NotTo(HaveOccurred())
			sum := sha256.Sum256(data)
			digest := hex.EncodeToString(sum[:])
			s := newScratch()
			prog := s.file("digest.vel", `print(ffi.module("hashlib").sha256(fs.read(ARGS[0])))`+"\n")
			if !wantRead {
				By("--no-confine, the control: the same knock-out run reads it whole")
				r := s.runWith(call{bin: knockout(), args: []string{"--no-confine", "--allow", "io,net,ffi:hashlib", prog, "--", path}})
				Expect(r.exit).To(Equal(0), "%s", r)
				Expect(r.stdout).To(Equal(digest+"\n"), "%s was not read whole unconfined", path)
			}
			r := s.runWith(call{bin: knockout(), args: []string{"--allow", "io,net,ffi:hashlib", prog, "--", path}})
			rec := s.receipt()
			expectConfinedLevel(r, rec)
			if wantRead {
				Expect(r.exit).To(Equal(0), "%s", r)
				Expect(r.stdout).To(Equal(digest+"\n"), "%s was not read whole", path)
				return
			}
			Expect(r.stdout).NotTo(ContainSubstring(digest), "%s was read", path)
			expectKernelRefusal(r, rec, "no-fs")
			Expect(rec.Outcome.Message).To(ContainSubstring("(EACCES)"))
		},
		Entry("/etc/ssl/certs/ca-certificates.crt, the TLS roots: read", "/etc/ssl/certs/ca-certificates.crt", true),
		Entry("/etc/resolv.conf, the resolver's: refused, the supervisor looks names up", "/etc/resolv.conf", false),
		Entry("/etc/shadow, its neighbour: refused", "/etc/shadow", false),
		Entry("/etc/passwd, its neighbour: refused", "/etc/passwd", false),
	)
})

// readWitnessAt is readWitness at a path of the spec's choosing.
func (s *scratch) readWitnessAt(p string) witness {
	w := s.readWitness()
	Expect(os.Rename(w.target, p)).To(Succeed())
	return witness{target: p, happened: w.happened}
}

// isSocket reports whether p is a Unix socket.
func isSocket(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&fs.ModeSocket != 0
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort() int {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	port := l.Addr().(*net.TCPAddr).Port
	Expect(l.Close()).To(Succeed())
	return port
}

// listenProgram makes a TCP socket through ctypes, binds it to the
// loopback port its argument names, and listens there until a line comes
// on standard input; it prints the errno of the socket and of the bind.
const listenProgram = `c = ffi.module("ctypes")
p = int(ARGS[0])
s = c.syscall("socket", 2, 1, 0)
print("socket", s.errno)
if s.errno == "":
    b = c.syscall("bind", s.ret, b"\x02\x00" + bytes([p >> 8, p & 255]) + b"\x7f\x00\x00\x01" + b"\x00" * 8, 16)
    print("bind", b.errno)
    if b.errno == "":
        c.syscall("listen", s.ret, 1)
        io.read_line()
`

// listenRun runs c, whose arguments end with the program, with a free
// port as the program's argument, and while it runs tries to connect to
// that port from outside. A program that listens waits on standard input,
// a pipe whose end is closed once a connection was accepted, or after
// runLimit()/4 without one. The pipe is the worker's own standard input,
// not copied into one by os/exec, so a program that ends at once (its
// bind refused) is seen to end at once.
func (s *scratch) listenRun(c call) (heard bool, r ran) {
	port := freePort()
	stdin, hold, err := os.Pipe()
	Expect(err).NotTo(HaveOccurred())
	defer stdin.Close()
	release := sync.OnceFunc(func() { hold.Close() })
	defer release()
	done := make(chan ran, 1)
	c.args = append(append([]string{}, c.args...), "--", strconv.Itoa(port))
	c.stdin = stdin
	go func() {
		defer GinkgoRecover()
		done <- s.runWith(c)
	}()
	deadline := time.After(runLimit() / 4)
	for {
		select {
		case r = <-done:
			return heard, r
		case <-deadline:
			release()
			return heard, <-done
		case <-time.After(10 * time.Millisecond):
		}
		if c, err := net.DialTimeout("tcp4", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
			c.Close()
			heard = true
			release()
			return heard, <-done
		}
	}
}

// waitingWorker starts the normal build with args, whose program prints
// "waiting" and then reads a line, and once the line is printed calls look
// with the worker's pid; then it ends the run by closing its standard
// input, expects it to end well, and returns what look returned.
func waitingWorker(s *scratch, args []string, look func(worker int) string) string {
	GinkgoHelper()
	cmd := exec.Command(sabline, args...)
	cmd.Dir, cmd.Env = s.dir, s.env("")
	stdin, err := cmd.StdinPipe()
	Expect(err).NotTo(HaveOccurred())
	stdout, err := cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(cmd.Start()).To(Succeed())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ended := false
	defer func() {
		if !ended { // a failed expectation: the run is stopped
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	Expect(err).NotTo(HaveOccurred())
	Expect(line).To(Equal("waiting\n"))
	worker, ok := proc.Worker(cmd.Process.Pid)
	Expect(ok).To(BeTrue(), "no child of %d has %s as its first argument", cmd.Process.Pid, wire.WorkerArg)
	seen := look(worker)
	Expect(stdin.Close()).To(Succeed())
	err, ended = <-done, true
	Expect(err).NotTo(HaveOccurred(), "the run did not end well once its input was closed")
	return seen
}

// procLine returns the rest of the first line of /proc/PID/FILE that
// starts with prefix, trimmed.
func procLine(pid int, file, prefix string) string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), file))
	Expect(err).NotTo(HaveOccurred())
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	Fail(fmt.Sprintf("/proc/%d/%s has no %q line", pid, file, prefix))
	return ""
}
